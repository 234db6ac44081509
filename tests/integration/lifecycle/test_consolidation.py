"""The consolidation worker: merge, link, propose; caps, fingerprints, budget (spec §4)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from memvault.engine import MemoryEngine
from memvault.lifecycle import LifecyclePolicy
from memvault.lifecycle.settings import ConsolidationPolicy
from memvault.model import ChangeKind, EdgeType, HistoryOp, MemoryStatus
from memvault.store.records import ProposalStatus
from tests.conftest import StepClock
from tests.integration.lifecycle.conftest import DAY, remember


def _policy(**changes: object) -> LifecyclePolicy:
    return LifecyclePolicy(consolidation=replace(ConsolidationPolicy(), **changes))  # type: ignore[arg-type]


def test_the_same_statement_twice_is_merged(eng: MemoryEngine) -> None:
    weak = remember(eng, "Dana prefers oolong tea in the afternoon", importance=40)
    strong = remember(eng, "Dana prefers oolong tea in the afternoon.", importance=70)
    report = eng.consolidate()
    assert [(k, s) for k, s, _ in report.merged] == [(strong, weak)]
    assert eng.get(weak, include_deleted=True).node.status is MemoryStatus.SUPERSEDED
    kept = eng.get(strong)
    assert kept.node.importance == 70
    assert [(e.from_memory_id, e.edge_type) for e in kept.edges] == [(strong, EdgeType.UPDATES)]
    assert [e.op for e in eng.history(weak)][-1] is HistoryOp.SUPERSEDE
    assert [e.op for e in eng.history(strong)][-1] is HistoryOp.MERGE
    kinds = [c.kind for c in eng.store.changes_since("acme", 0) if c.memory_id == weak]
    assert kinds[-1] is ChangeKind.MERGED
    assert [h.node.memory_id for h in eng.search("oolong afternoon").hits] == [strong]
    assert eng.verify_audit().ok
    assert eng.stats().to_json()["operations"]["by_op"]["merge"] == 1


def test_a_rewritten_user_fact_becomes_a_proposal(eng: MemoryEngine, clock: StepClock) -> None:
    old = remember(eng, "Dana runs 5 km every morning before work", importance=70)
    clock.now += DAY
    new = remember(eng, "Dana runs 10 km every morning before work", importance=70)
    report = eng.consolidate()
    assert report.merged == () and len(report.proposed) == 1
    proposal_id, older, newer = report.proposed[0]
    assert (older, newer) == (old, new)
    [proposal] = eng.proposals(status="pending")
    assert proposal.kind == "consolidation" and proposal.candidate["replaces"] == [old, new]
    # nothing about the user changed without their consent
    assert {n.memory_id for n in eng.list_memories()} == {old, new}
    stored = eng.confirm_proposal(proposal_id).raise_for_status()
    assert stored.memory_id is not None
    current = eng.get(stored.memory_id)
    assert current.node.content == "Dana runs 10 km every morning before work"
    assert current.node.source.source_kind.value == "USER_EXPLICIT"
    assert {e.to_memory_id for e in current.edges if e.edge_type is EdgeType.UPDATES} == {old, new}
    for gone in (old, new):
        assert eng.get(gone, include_deleted=True).node.status is MemoryStatus.SUPERSEDED
    assert [n.memory_id for n in eng.list_memories()] == [stored.memory_id]
    assert eng.proposals()[0].status is ProposalStatus.CONFIRMED
    assert eng.verify_audit().ok


def test_related_memories_are_linked_once(eng: MemoryEngine, clock: StepClock) -> None:
    a = remember(eng, "Dana likes hiking in the Alps", importance=70)
    b = remember(eng, "Dana likes hiking in Norway", importance=70)
    report = eng.consolidate()
    assert [(x, y) for x, y, _ in report.linked] == [(b, a)]
    edge = eng.get(a).edges[0]
    assert edge.edge_type is EdgeType.RELATED_TO and 0 < edge.weight <= 1
    # fingerprints: the same pair with the same score is not checked again for 14 days
    again = eng.consolidate()
    assert again.pairs_checked == 0 and again.skipped_fingerprint == 1
    clock.now += 13 * DAY
    assert eng.consolidate().pairs_checked == 0
    clock.now += 2 * DAY
    later = eng.consolidate()
    assert later.pairs_checked == 1 and later.linked == ()  # rechecked; already linked
    assert len(eng.get(a).edges) == 1


def test_users_and_projects_never_pair(eng: MemoryEngine) -> None:
    remember(eng, "Prefers oolong tea in the afternoon", user_id="u1")
    remember(eng, "Prefers oolong tea in the afternoon", user_id="u2")
    remember(eng, "Prefers oolong tea in the afternoon", user_id="u3", project_id="p1")
    remember(eng, "Prefers oolong tea in the afternoon", user_id="u3", project_id="p2")
    report = eng.consolidate()
    assert report.pairs_checked == 0 and report.merged == ()
    assert len(eng.list_memories()) == 4


def test_pairs_are_capped_per_user_per_day(eng: MemoryEngine, clock: StepClock) -> None:
    eng.lifecycle_policy = _policy(pairs_per_user_per_day=2)
    for place in ("Alps", "Norway", "Scotland", "Patagonia", "Japan", "Nepal"):
        remember(eng, f"Dana likes hiking in {place}", importance=70)
    remember(eng, "Eli likes sailing near Lisbon", user_id="eli", importance=70)
    remember(eng, "Eli likes sailing near Porto", user_id="eli", importance=70)
    first = eng.consolidate()
    assert first.pairs_checked == 3  # two for u1 (capped), one for eli
    assert first.capped_users == ("u1",)
    assert eng.consolidate().pairs_checked == 0  # the cap holds for the whole UTC day
    clock.now += DAY
    assert eng.consolidate().pairs_checked == 2


def test_runtime_is_bounded(eng: MemoryEngine) -> None:
    eng.lifecycle_policy = _policy(time_budget=timedelta(0))
    remember(eng, "Dana likes hiking in the Alps", importance=70)
    remember(eng, "Dana likes hiking in Norway", importance=70)
    report = eng.consolidate()
    assert report.truncated and report.pairs_checked == 0


def test_old_and_unimportant_memories_are_not_candidates(
    eng: MemoryEngine, clock: StepClock
) -> None:
    remember(eng, "Dana likes hiking in the Alps", importance=10)
    remember(eng, "Dana likes hiking in Norway", importance=10)
    clock.now += 4 * DAY  # outside the 72 h window, below the importance floor
    report = eng.consolidate()
    assert report.candidates == 0 and report.pairs_checked == 0
