"""Time-travel tests of the TTL sweep, soft delete, restore and purge (spec §7)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memvault.engine import MemoryEngine, format_timestamp
from memvault.errors import MemoryNotFoundError
from memvault.lifecycle import LifecyclePolicy
from memvault.model import ChangeKind, HistoryOp, MemoryStatus, TTLClass
from memvault.store import WriteSet
from tests.conftest import StepClock
from tests.integration.lifecycle.conftest import DAY, remember


def _status(engine: MemoryEngine, memory_id: str) -> MemoryStatus:
    return engine.get(memory_id, include_deleted=True).node.status


def test_idle_unimportant_unpinned_memories_are_soft_deleted(
    eng: MemoryEngine, clock: StepClock
) -> None:
    low = remember(eng, "Likes the blue mug for tea", importance=10)
    high = remember(eng, "Never deploy on Fridays", importance=90)
    pinned = remember(eng, "Call me Sam", importance=10, pinned=True)
    default = remember(eng, "Prefers dark mode in the editor")
    clock.now += 59 * DAY
    assert eng.run_lifecycle().to_json()["counts"]["soft_deleted"] == 0
    fresh = remember(eng, "Wants weekly summaries", importance=10)
    clock.now += 2 * DAY
    report = eng.run_lifecycle()
    assert {t.memory_id: t.reason for t in report.soft_deleted} == {low: "idle", default: "idle"}
    for kept in (high, pinned, fresh):
        assert _status(eng, kept) is MemoryStatus.ACTIVE
    node = eng.get(low, include_deleted=True).node
    assert node.status is MemoryStatus.SOFT_DELETED
    assert node.purge_at is not None and node.purge_at.startswith(
        (clock.now + timedelta(days=30)).strftime("%Y-%m-%d")
    )
    ttl_events = [e for e in eng.history(low) if e.op is HistoryOp.TTL]
    assert len(ttl_events) == 1 and ttl_events[0].detail["reason"] == "idle"
    # A second run changes nothing: each transition happens (and is announced) once.
    assert eng.run_lifecycle().soft_deleted == ()
    kinds = [c.kind for c in eng.store.changes_since("acme", 0) if c.memory_id == low]
    assert kinds == [ChangeKind.CREATED, ChangeKind.SOFT_DELETED]


def test_no_read_path_returns_a_soft_deleted_memory(eng: MemoryEngine, clock: StepClock) -> None:
    gone = remember(eng, "Enjoys zqxtransient hiking trips", importance=5)
    kept = remember(eng, "Enjoys zqxtransient museum visits", importance=95)
    clock.now += 61 * DAY
    eng.run_lifecycle()
    with pytest.raises(MemoryNotFoundError):
        eng.get(gone)
    assert [h.node.memory_id for h in eng.search("zqxtransient hiking").hits] == [kept]
    assert [n.memory_id for n in eng.list_memories({"user_id": "u1"})] == [kept]
    exported = [r.get("memory_id") for r in eng.export_user("u1") if r["record"] == "memory"]
    assert exported == [kept]
    if hasattr(eng, "bulletin"):  # the context layer (issue 6) may land after this test
        bulletin = eng.bulletin().to_json()
        assert gone not in str(bulletin) and "hiking" not in str(bulletin)


def test_restore_until_purge_then_purge_is_final(eng: MemoryEngine, clock: StepClock) -> None:
    mid = remember(eng, "Prefers trains over planes", importance=10)
    clock.now += 61 * DAY
    eng.run_lifecycle()
    assert eng.restore(mid).ok
    assert _status(eng, mid) is MemoryStatus.ACTIVE
    # restored means touched: the sweep leaves it alone for another idle window
    clock.now += 30 * DAY
    assert eng.run_lifecycle().soft_deleted == ()
    clock.now += 31 * DAY
    assert [t.memory_id for t in eng.run_lifecycle().soft_deleted] == [mid]
    clock.now += 29 * DAY
    assert eng.run_lifecycle().purged == ()
    clock.now += 2 * DAY
    report = eng.run_lifecycle()
    assert [t.memory_id for t in report.purged] == [mid]
    with pytest.raises(MemoryNotFoundError):
        eng.restore(mid)
    assert eng.store.get_nodes("acme", [mid]) == []
    ops = [e.op for e in eng.store.history("acme", mid)]
    assert ops == [
        HistoryOp.CREATE,
        HistoryOp.TTL,
        HistoryOp.RESTORE,
        HistoryOp.TTL,
        HistoryOp.PURGE,
    ]
    assert eng.verify_audit().ok
    assert [c.summary for c in eng.store.changes_since("acme", 0) if c.memory_id == mid] == [""] * 5


def test_explicit_delete_is_purged_after_thirty_days(eng: MemoryEngine, clock: StepClock) -> None:
    mid = remember(eng, "Uses vim keybindings", importance=99, pinned=True)
    eng.delete(mid).raise_for_status()
    at = clock.now
    assert eng.run_lifecycle(now=at + 29 * DAY).purged == ()
    assert [t.memory_id for t in eng.run_lifecycle(now=at + 30 * DAY + DAY).purged] == [mid]


def test_ttl_classes_cap_lifetimes_whatever_the_importance(
    eng: MemoryEngine, clock: StepClock
) -> None:
    short = remember(eng, "Is in a meeting until noon", importance=95, ttl_class="SHORT")
    medium = remember(eng, "Is travelling this month", importance=95, ttl_class="MEDIUM")
    long = remember(eng, "Prefers metric units", importance=95, ttl_class="LONG")
    clock.now += 2 * DAY
    assert [(t.memory_id, t.reason) for t in eng.run_lifecycle().soft_deleted] == [
        (short, "ttl_class")
    ]
    clock.now += 29 * DAY
    assert [t.memory_id for t in eng.run_lifecycle().soft_deleted] == [medium]
    clock.now += 365 * DAY
    assert eng.run_lifecycle().soft_deleted == ()
    assert _status(eng, long) is MemoryStatus.ACTIVE


def test_policy_is_configurable(eng: MemoryEngine, clock: StepClock) -> None:
    eng.lifecycle_policy = LifecyclePolicy(
        idle_after=timedelta(days=5),
        importance_threshold=20,
        class_lifetimes={TTLClass.SHORT: None, TTLClass.MEDIUM: None, TTLClass.LONG: None},
        purge_after=timedelta(days=1),
    )
    low = remember(eng, "Likes jazz", importance=10, ttl_class="SHORT")
    mid = remember(eng, "Likes blues", importance=30)
    clock.now += 6 * DAY
    assert [t.memory_id for t in eng.run_lifecycle().soft_deleted] == [low]
    clock.now += 2 * DAY
    assert [t.memory_id for t in eng.run_lifecycle().purged] == [low]
    assert _status(eng, mid) is MemoryStatus.ACTIVE


def test_recorded_access_keeps_a_memory_alive(eng: MemoryEngine, clock: StepClock) -> None:
    mid = remember(eng, "Reads the changelog first", importance=10)
    node = eng.store.get_nodes("acme", [mid])[0]
    clock.now += 50 * DAY
    touched = node.model_copy(update={"last_accessed_at": format_timestamp(clock.now)})
    eng.store.apply(WriteSet("acme", touched.last_accessed_at or "", nodes=(touched,)))
    clock.now += 20 * DAY
    assert eng.run_lifecycle().soft_deleted == ()
    clock.now += 41 * DAY
    assert [t.memory_id for t in eng.run_lifecycle().soft_deleted] == [mid]
