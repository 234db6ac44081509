"""Confirming a proposal supersedes only memories of its own user and project.

A proposal's ``replaces`` (capture's update target, a consolidation pair) is
superseded when the user confirms. ``propose(replaces=[...])`` takes any ids, so a
key acting as Alice superseded Bob's memory — a write by id its scope refuses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import MemoryNotFoundError


def _add(engine: MemoryEngine, content: str, user: str | None, project: str | None = None) -> str:
    memory = NewMemory(
        content=content,
        type="Preference",
        category="PREFERENCE",
        source_kind="USER_EXPLICIT",
        user_id=user,
        project_id=project,
    )
    memory_id = engine.add(memory).memory_id
    assert memory_id is not None
    return memory_id


def test_a_confirmed_proposal_never_supersedes_another_users_memory(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        bob = _add(engine, "Bob prefers black coffee.", "bob")
        other_project = _add(engine, "Alice prefers oolong at work.", "alice", "work")
        own = _add(engine, "Alice prefers green tea.", "alice")
        key = engine.as_caller(Grant("svc"))
        with pytest.raises(MemoryNotFoundError):  # not by id as Alice
            key.delete(bob, user="alice")
        queued = key.propose(
            "Alice prefers jasmine tea.",
            user_id="alice",
            type="Preference",
            category="PREFERENCE",
            replaces=[bob, other_project, own],
        )
        assert queued.proposal_id is not None
        assert key.confirm_proposal(queued.proposal_id, user="alice").ok
        status = {
            mid: engine.get(mid, include_deleted=True).node.status.value
            for mid in (bob, other_project, own)
        }
        assert status == {bob: "active", other_project: "active", own: "superseded"}
