"""The orchestrator's audit events are read in the scope of a read by id (review S10-R6).

A key bound to no user WITHOUT --all-users got every user's events from
``Caller.audit_events()`` (library, inspector /timeline): memory ids, categories,
actors, changed fields — while its listings and reads by id see shared memories
only. It now gets the events of the memories it may read by id (the user it names,
none: shared ones) and the events of no memory (refusals); --all-users keys get all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import AccessDeniedError, ValidationFailed
from memvault.model.enums import HistoryOp
from memvault.store.scope import ALL_USERS
from tests.integration.caller.conftest import add_preference


def test_orchestrator_wide_audit_needs_all_users(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        bob = add_preference(engine, "Bob prefers black coffee.", "bob")
        key = engine.as_caller(Grant("svc"))
        assert key.list_memories() == []  # shared only
        named = {e.memory_id for e in key.audit_events()}
        assert bob not in named, "Bob's memory id (and its category) reached a shared-only key"
        admin = engine.as_caller(Grant("admin", all_users=True))
        assert bob in {e.memory_id for e in admin.audit_events()}


def test_a_shared_only_key_sees_shared_memories_refusals_and_the_user_it_names(
    tmp_path: Path,
) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        team = add_preference(engine, "The team prefers short standups.", None)
        alice = add_preference(engine, "Alice prefers green tea.", "alice")
        bob = add_preference(engine, "Bob prefers black coffee.", "bob")
        refused = engine.add(
            NewMemory(
                content="My SSN is 078-05-1120.",
                type="Fact",
                category="PROFILE",
                source_kind="USER_EXPLICIT",
                user_id="bob",
            )
        )
        assert not refused.ok
        assert engine.link(team, bob, "RelatedTo").ok  # a shared memory's event naming Bob's
        key = engine.as_caller(Grant("svc"))
        shared = key.audit_events()
        assert {e.memory_id for e in shared} == {team, None}
        assert [e.op for e in shared if e.memory_id is None] == [HistoryOp.REFUSE]
        assert all(e.op is not HistoryOp.LINK for e in shared), "the link names Bob's memory"
        assert {e.memory_id for e in key.audit_events(user="alice")} == {team, alice, None}
        refusals = key.audit_events(ops=[HistoryOp.REFUSE])  # the inspector's refusals page
        assert [e.op for e in refusals] == [HistoryOp.REFUSE]
        with pytest.raises(AccessDeniedError) as everyone:
            key.audit_events(user=ALL_USERS)
        assert everyone.value.reason == "all_users"
        admin = engine.as_caller(Grant("admin", all_users=True))
        everything = admin.audit_events()
        assert {e.memory_id for e in everything} == {team, alice, bob, None}
        assert [e.memory_id for e in everything if e.op is HistoryOp.LINK] == [team]


def test_a_filtered_page_counts_the_events_kept(tmp_path: Path) -> None:
    """``limit``/``offset`` page through the events kept (the inspector's timeline pages)."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        shared = []
        for i in range(6):
            add_preference(engine, f"Bob prefers coffee number {i}.", "bob")
            shared.append(add_preference(engine, f"The team prefers room {i}.", None))
        key = engine.as_caller(Grant("svc"))
        newest_first = shared[::-1]
        assert [e.memory_id for e in key.audit_events(limit=4)] == newest_first[:4]
        assert [e.memory_id for e in key.audit_events(limit=4, offset=4)] == newest_first[4:]
        with pytest.raises(ValidationFailed):
            key.audit_events(limit=0)


def test_a_key_naming_a_user_still_sees_that_users_memory_events(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        mid = add_preference(engine, "Alice prefers green tea.", "alice")
        key = engine.as_caller(Grant("svc"))
        assert [e.memory_id for e in key.audit_events(memory_id=mid, user="alice")] == [mid]


def test_a_page_is_filled_across_the_stores_chunks(tmp_path: Path) -> None:
    """Shared events behind more than one chunk (1,000) of other users' events are found."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        old = [add_preference(engine, f"The team prefers room {i}.", None) for i in range(2)]
        results = engine.add_many(
            [
                {
                    "content": f"Fact {i} about the frobnicator gizmo {i * 7}.",
                    "type": "Fact",
                    "category": "PROJECT_CONFIG",
                    "source_kind": "SYSTEM_KNOWN",
                    "user_id": f"u{i % 4}",
                }
                for i in range(1_200)
            ]
        )
        assert sum(r.ok for r in results) == 1_200
        new = add_preference(engine, "The team prefers the blue room.", None)
        key = engine.as_caller(Grant("svc"))
        assert [e.memory_id for e in key.audit_events(limit=5)] == [new, old[1], old[0]]
        assert [e.memory_id for e in key.audit_events(limit=1, offset=2)] == [old[0]]
