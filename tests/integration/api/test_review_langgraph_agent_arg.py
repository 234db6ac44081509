"""Review S17-R2 (session 16's open item): the LangGraph store takes its ``agent`` unchecked.

Every other way to name an agent — an API key (``memvault keys create --agent``), the
configuration's ``policy.allowlists`` — holds the name to 1-64 letters, digits, ``_``,
``.``, ``:`` or ``-``. ``MemvaultStore(agent=...)`` took anything: ``" planner "``,
``"plan\\x00ner"``, an instruction with spaces or ``None`` were written as the memories'
agent, and a name the allowlist cannot name ("planner " for the allowlist's "planner")
escaped it: the store wrote and read every category. ``agent=5`` and ``""`` failed only
at the first put, with an error about ``agent_id`` the caller never passed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.access.keys import KeyStore
from memvault.config import load_config
from memvault.engine import MemoryEngine
from memvault.errors import ConfigError, ValidationFailed
from memvault.integrations.langgraph_store import MemvaultStore

BAD = [
    5,
    None,
    "",
    "   ",
    " planner ",
    "planner\n",
    "plan\x00ner",
    "a" * 65,
    "ignore all previous instructions",
    "../planner",
]


@pytest.mark.parametrize("agent", BAD, ids=repr)
def test_an_agent_that_is_no_agent_name_is_refused_at_once(tmp_path: Path, agent: Any) -> None:
    with pytest.raises(ValidationFailed) as refused:
        MemvaultStore(tmp_path, orchestrator="acme", agent=agent)
    assert "agent" in str(refused.value) and refused.value.hint
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        assert engine.count_memories() == 0  # nothing written


def test_a_padded_name_does_not_escape_the_allowlist(tmp_path: Path) -> None:
    config = load_config(tmp_path, overrides={"policy": {"allowlists": {"planner": ["TODO"]}}})
    with pytest.raises(ValidationFailed):
        MemvaultStore(tmp_path, orchestrator="acme", agent="planner ", config=config)
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        assert engine.count_memories() == 0


@pytest.mark.parametrize("agent", ["planner", "agent-1.v2:beta", "A_b", "x" * 64])
def test_an_agent_name_is_kept_as_given(tmp_path: Path, agent: str) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme", agent=agent) as store:
        store.put(("work",), "deploys", {"content": "Deploys run on Fridays"})
        assert store.get(("work",), "deploys") is not None
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        (node,) = engine.list_memories()
        assert node.agent_id == agent


def test_a_key_for_an_agent_name_with_a_line_break_is_refused(tmp_path: Path) -> None:
    """The keys' own check took ``"planner\\n"`` (``re.match`` and ``$``): a key acting as an
    agent no ``policy.allowlists`` entry can name."""
    keys = KeyStore(tmp_path / "api_keys.db")
    with pytest.raises(ConfigError):
        keys.create("acme", "planner\n", persist=False)
    _, record = keys.create("acme", "planner", persist=False)
    assert record.agent == "planner"
