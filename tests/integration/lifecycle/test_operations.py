"""Operational events (spec §14): counts by node and op over time, never content."""

from __future__ import annotations

from memvault.engine import MemoryEngine
from tests.conftest import StepClock
from tests.helpers import update_fields
from tests.integration.lifecycle.conftest import DAY, remember


def test_stats_count_operations_by_node_op_and_day(eng: MemoryEngine, clock: StepClock) -> None:
    a = remember(eng, "Prefers tea", importance=10)
    b = remember(eng, "Prefers short answers", importance=90)
    update_fields(eng, b, importance=95).raise_for_status()
    eng.link(a, b, "RelatedTo").raise_for_status()
    eng.delete(b).raise_for_status()
    eng.restore(b).raise_for_status()
    eng.record_event("context", "search", best_similarity=0.42)
    clock.now += 61 * DAY
    eng.run_lifecycle()
    ops = eng.stats().to_json()["operations"]
    assert ops["by_node_op"] == {
        "context/search": 1,
        "hotpath/create": 2,
        "hotpath/delete": 1,
        "hotpath/link": 1,
        "hotpath/restore": 1,
        "hotpath/update": 1,
        "worker/ttl": 1,
    }
    assert ops["by_node"] == {"context": 1, "hotpath": 6, "worker": 1}
    assert ops["total"] == 8
    days = sorted(ops["by_day"])
    assert len(days) == 2 and ops["by_day"][days[1]] == {"worker/ttl": 1}
    events = eng.store.op_events("acme")
    assert {e.category for e in events if e.op == "create"} == {"PREFERENCE"}
    assert "tea" not in repr(events)


def test_a_broken_event_is_never_an_error(eng: MemoryEngine) -> None:
    eng.record_event("kitchen", "cook")  # invalid node: logged, not raised
    assert eng.stats().to_json()["operations"]["total"] == 0
