"""A caller's import and proposals are written as the caller's agent (review S10-R7).

The façade forces the caller's agent onto what it writes (``add`` / ``add_many``
refuse another agent: ``agent_mismatch``). ``Caller.import_user`` stored each memory
as the agent the export file names, and ``Caller.propose(..., agent_id="planner")``
then a confirmation stored it as "planner".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import AccessDeniedError


def test_a_callers_import_is_written_as_its_agent(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path / "a", "acme", embedder=None) as old:
        old.add(
            NewMemory(
                content="Dana prefers tea.",
                type="Preference",
                category="PREFERENCE",
                source_kind="USER_EXPLICIT",
                user_id="dana",
                agent_id="planner",
            )
        )
        lines = [json.dumps(r) for r in old.export_user("dana")]
    with MemoryEngine.open(tmp_path / "b", "acme", embedder=None) as new:
        report = new.as_caller(Grant("svc")).import_user(lines)
        assert report.stored == 1
        agents = {n.agent_id for n in new.list_memories({"user_id": "dana"})}
        assert agents == {"svc"}, f"imported as {agents}, not as the caller's agent"
        # the engine itself (the local CLI's `memvault import`) keeps the file's agents
        new.import_user(lines, user_id="erin")
        assert {n.agent_id for n in new.list_memories({"user_id": "erin"})} == {"planner"}
        # a key bound to a user may not import (it spans users), as before
        with pytest.raises(AccessDeniedError) as bound:
            new.as_caller(Grant("svc", user="dana")).import_user(lines)
        assert bound.value.reason == "user_bound"


def test_a_callers_proposal_naming_another_agent_is_refused(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        key = engine.as_caller(Grant("svc"))
        with pytest.raises(AccessDeniedError) as refused:
            key.propose(
                "Alice prefers green tea.",
                user_id="alice",
                type="Preference",
                category="PREFERENCE",
                agent_id="planner",
            )
        assert refused.value.reason == "agent_mismatch"
        assert engine.proposals() == []  # nothing queued
        queued = key.propose(
            "Alice prefers green tea.",
            user_id="alice",
            type="Preference",
            category="PREFERENCE",
            agent_id="svc",  # its own agent may be named
        )
        assert queued.proposal_id is not None
        stored = key.confirm_proposal(queued.proposal_id, user="alice")
        assert stored.ok and stored.memory_id is not None
        assert engine.get(stored.memory_id).node.agent_id == "svc"
