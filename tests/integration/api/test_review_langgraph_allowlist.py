"""Review S16-R3: ``policy.allowlists`` does nothing for the LangGraph store's agent.

``MemvaultStore(home, config=cfg)`` is documented to take its settings from the
configuration "as every other entry point does". With ``policy.allowlists =
{langgraph = ["TODO"]}`` its agent still wrote a KNOWLEDGE item and read every
category — a PREFERENCE memory another edge wrote for another agent included — while
``serve``, ``mcp``, ``memvault query`` and the reference agent hold the same agent
to TODO.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.config import load_config
from memvault.engine import MemoryEngine, NewMemory
from memvault.errors import AccessDeniedError
from memvault.integrations.langgraph_store import MemvaultStore

TODO = {"content": "Write the release notes", "type": "Todo", "category": "TODO"}


def _home(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        preference = NewMemory(
            content="Dana prefers tea",
            type="Preference",
            category="PREFERENCE",
            source_kind="USER_EXPLICIT",
        )
        assert engine.add(preference).ok


def test_the_allowlist_holds_the_store_to_its_agents_categories(tmp_path: Path) -> None:
    _home(tmp_path)
    config = load_config(tmp_path, overrides={"policy": {"allowlists": {"langgraph": ["TODO"]}}})
    with MemvaultStore(tmp_path, orchestrator="acme", config=config) as store:
        store.put(("work",), "notes", TODO)
        assert [i.key for i in store.search(())] == ["notes"]  # not Dana's preference
        assert [i.key for i in store.search((), query="what does Dana drink")] == ["notes"]
        with pytest.raises(AccessDeniedError):
            store.put(("work",), "deploys", {"content": "Deploys run on Fridays"})
        assert store.get(("work",), "deploys") is None


def test_an_agent_the_allowlist_does_not_name_is_unrestricted(tmp_path: Path) -> None:
    _home(tmp_path)
    config = load_config(tmp_path, overrides={"policy": {"allowlists": {"planner": ["TODO"]}}})
    with MemvaultStore(tmp_path, orchestrator="acme", config=config) as store:
        store.put(("work",), "deploys", {"content": "Deploys run on Fridays"})
        assert sorted(i.key for i in store.search(())) == ["dana_prefers_tea", "deploys"]
