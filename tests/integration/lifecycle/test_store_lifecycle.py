"""Conformance of the lifecycle part of the Store protocol, on every backend.

Purge (``WriteSet.purge_ids``), proposals, operational events and the audit
head. Runs on the ``store`` fixture of tests/conftest.py (in-memory, SQLite,
and PostgreSQL once that backend implements the lifecycle methods).
"""

from __future__ import annotations

import pytest

from memvault.errors import (
    ProposalDecidedError,
    ScopeViolationError,
    StaleWriteError,
    ValidationFailed,
)
from memvault.model import ChangeKind, HistoryOp, MemoryStatus, StopReason
from memvault.store import ChangeEntry, HistoryEvent, NodeFilter, Store, WriteSet
from memvault.store.base import GENESIS_HASH
from memvault.store.records import OpEvent, Proposal, ProposalStatus
from tests.helpers import make_edge, make_node, ts

LIFECYCLE_METHODS = ("proposals", "audit_head", "event_counts")


@pytest.fixture
def lstore(store: Store) -> Store:
    missing = [m for m in LIFECYCLE_METHODS if not hasattr(store, m)]
    if missing:
        pytest.skip(f"{type(store).__name__} does not implement {missing} yet (issue 9)")
    return store


def _event(memory_id: str | None, op: HistoryOp = HistoryOp.CREATE, n: int = 0) -> HistoryEvent:
    return HistoryEvent(
        event_id=f"evt_{memory_id}_{op.value}_{n}",
        orchestrator_id="acme",
        op=op,
        at=ts(7),
        memory_id=memory_id,
        stop_reason=StopReason.SUCCESS_STORED,
    )


def _proposal(pid: str, user: str | None = "u1", **changes: object) -> Proposal:
    data: dict[str, object] = {
        "proposal_id": pid,
        "orchestrator_id": "acme",
        "kind": "insight",
        "candidate": {"content": "Prefers tea", "type": "Preference", "category": "PREFERENCE"},
        "status": ProposalStatus.PENDING,
        "created_at": ts(10),
        "expires_at": ts(20),
        "user_id": user,
    }
    data.update(changes)
    return Proposal(**data)  # type: ignore[arg-type]


def test_purge_removes_node_edges_sources_and_text(lstore: Store) -> None:
    a = make_node(content="purge me zqxpurge")
    b = make_node(content="keep me")
    lstore.apply(
        WriteSet(
            "acme",
            ts(1),
            nodes=(a, b),
            edges=(make_edge(a, b), make_edge(b, a, edge_type="Updates")),
            changes=(ChangeEntry(a.memory_id, ChangeKind.CREATED, "purge me zqxpurge"),),
        )
    )
    before = lstore.revision("acme")
    revision = lstore.apply(
        WriteSet(
            "acme",
            ts(2),
            purge_ids=(a.memory_id, "mem_unknown"),
            events=(_event(a.memory_id, HistoryOp.PURGE),),
            changes=(ChangeEntry(a.memory_id, ChangeKind.DELETED, ""),),
        )
    )
    assert revision == before + 1
    assert lstore.get_nodes("acme", [a.memory_id]) == []
    assert lstore.get_nodes("acme", [b.memory_id]) == [b]
    assert lstore.edges_of("acme", [a.memory_id, b.memory_id]) == []
    assert lstore.search_text("acme", ["zqxpurge"], NodeFilter(), limit=5) == []
    status_all = NodeFilter(status=("active", "superseded", "retracted", "soft_deleted"))
    assert [n.memory_id for n in lstore.list_nodes("acme", status_all, limit=10)] == [b.memory_id]
    summaries = [c.summary for c in lstore.changes_since("acme", 0) if c.memory_id == a.memory_id]
    assert summaries == ["", ""]
    assert lstore.counts("acme").total == 1
    assert [e.op for e in lstore.history("acme", a.memory_id)] == [HistoryOp.PURGE]


def test_purge_never_reaches_another_orchestrator(lstore: Store) -> None:
    mine = make_node("acme")
    theirs = make_node("other")
    lstore.apply(WriteSet("acme", ts(1), nodes=(mine,)))
    lstore.apply(WriteSet("other", ts(1), nodes=(theirs,)))
    lstore.apply(WriteSet("acme", ts(2), purge_ids=(theirs.memory_id, mine.memory_id)))
    assert lstore.get_nodes("other", [theirs.memory_id]) == [theirs]
    assert lstore.get_nodes("acme", [mine.memory_id]) == []


def test_purge_is_atomic_with_the_rest_of_the_write(lstore: Store) -> None:
    a = make_node()
    lstore.apply(WriteSet("acme", ts(1), nodes=(a,)))
    ghost = make_node()
    with pytest.raises(Exception):  # noqa: B017 - backend-specific StoreError subclass
        lstore.apply(
            WriteSet(
                "acme",
                ts(2),
                purge_ids=(a.memory_id,),
                edges=(make_edge(a, ghost),),
            )
        )
    assert lstore.get_nodes("acme", [a.memory_id]) == [a]


def test_erasure_filters_reach_ids_stored_padded_before_trimming(lstore: Store) -> None:
    """Rows stored under 'dana ' / '\tdana' (before d68832f trimmed ids) are Dana's
    for erasure and export, in SQL as in the reference store; plain reads stay exact."""
    from memvault.model import MemoryStatus

    padded = [make_node(user_id=u) for u in ("dana ", "\tdana\n", "dana")]
    other = make_node(user_id="dana x")
    lstore.apply(WriteSet("acme", ts(1), nodes=(*padded, other)))
    every = tuple(MemoryStatus)
    found = lstore.list_nodes("acme", NodeFilter.of_user_any_spelling(" dana", every), limit=10)
    assert {n.memory_id for n in found} == {n.memory_id for n in padded}
    exact = lstore.list_nodes("acme", NodeFilter(user_id="dana ", status=every), limit=10)
    assert [n.user_id for n in exact] == ["dana"]  # the filter trims, the column is compared as is
    p1, p2 = _proposal("prop_1", user="dana "), _proposal("prop_2", user="dana x")
    lstore.apply(WriteSet("acme", ts(1), proposals=(p1, p2)))
    assert lstore.proposals("acme", user_id="dana") == [p1]
    assert lstore.proposals("acme", user_id=" dana ") == [p1]
    with pytest.raises(ValidationFailed):
        lstore.proposals("acme", user_id="  ")


def test_proposals_upsert_filter_and_scope(lstore: Store) -> None:
    p1 = _proposal("prop_1")
    p2 = _proposal("prop_2", user="u2", created_at=ts(11))
    lstore.apply(WriteSet("acme", ts(1), proposals=(p1, p2)))
    assert lstore.revision("acme") == 0  # proposals are not memory
    assert lstore.proposals("acme") == [p1, p2]
    assert lstore.proposals("acme", user_id="u2") == [p2]
    assert lstore.proposals("acme", proposal_id="prop_1") == [p1]
    assert lstore.proposals("acme", status=ProposalStatus.CONFIRMED) == []
    assert lstore.proposals("other") == []
    decided = _proposal(
        "prop_1",
        user=None,
        candidate={"type": "Preference"},
        status=ProposalStatus.CONFIRMED,
        decided_at=ts(12),
        outcome={"memory_id": "mem_1", "stop_reason": "SUCCESS_STORED"},
    )
    lstore.apply(WriteSet("acme", ts(12), proposals=(decided,)))
    assert lstore.proposals("acme", status=ProposalStatus.CONFIRMED) == [decided]
    assert lstore.proposals("acme", user_id="u1") == []
    with pytest.raises(ScopeViolationError):
        lstore.apply(WriteSet("acme", ts(1), proposals=(_proposal("p9", orchestrator_id="x"),)))


def test_a_decided_proposal_is_not_decided_again(lstore: Store) -> None:
    """Two decisions raced (review S11): the second write is refused whole, nothing of it kept."""
    lstore.apply(WriteSet("acme", ts(1), proposals=(_proposal("prop_1"),)))
    confirmed = _proposal(
        "prop_1", candidate={}, status=ProposalStatus.CONFIRMED, decided_at=ts(12)
    )
    lstore.apply(WriteSet("acme", ts(12), proposals=(confirmed,)))
    rejected = _proposal("prop_1", status=ProposalStatus.REJECTED, decided_at=ts(13))
    memory = make_node()
    with pytest.raises(ProposalDecidedError):
        lstore.apply(
            WriteSet(
                "acme",
                ts(13),
                nodes=(memory,),
                events=(_event(memory.memory_id),),
                proposals=(rejected,),
            )
        )
    assert lstore.proposals("acme") == [confirmed]
    assert lstore.get_nodes("acme", [memory.memory_id]) == []
    # a second confirmation (another process read it pending too) is refused as well
    again = _proposal("prop_1", candidate={}, status=ProposalStatus.CONFIRMED, decided_at=ts(13))
    with pytest.raises(ProposalDecidedError):
        lstore.apply(WriteSet("acme", ts(13), nodes=(memory,), proposals=(again,)))
    assert lstore.proposals("acme") == [confirmed]
    assert lstore.get_nodes("acme", [memory.memory_id]) == []
    assert lstore.audit_head("acme").events == 0
    # expiring a proposal decided meanwhile: nothing to do, no error
    expired = _proposal("prop_1", status=ProposalStatus.EXPIRED, decided_at=ts(14))
    lstore.apply(WriteSet("acme", ts(14), proposals=(expired,)))
    assert lstore.proposals("acme") == [confirmed]
    # erasure keeps the status and drops the text
    erased = _proposal(
        "prop_1",
        user=None,
        candidate={},
        status=ProposalStatus.CONFIRMED,
        decided_at=ts(12),
        outcome={"erased": True},
    )
    lstore.apply(WriteSet("acme", ts(15), proposals=(erased,)))
    assert lstore.proposals("acme") == [erased]


def test_a_write_from_a_stale_copy_is_rolled_back(lstore: Store) -> None:
    """``WriteSet.expected``: each memory must still be stored as the write read it."""
    a = make_node(content="as read")
    lstore.apply(WriteSet("acme", ts(1), nodes=(a,)))
    edited = a.model_copy(update={"content": "edited meanwhile", "updated_at": ts(2)})
    lstore.apply(WriteSet("acme", ts(2), nodes=(edited,)))
    stale = a.model_copy(update={"status": MemoryStatus.SOFT_DELETED, "updated_at": ts(3)})
    other = make_node(content="same write")
    for write in (
        WriteSet("acme", ts(3), nodes=(stale, other), expected=((a.memory_id, a.updated_at),)),
        WriteSet("acme", ts(3), purge_ids=(a.memory_id,), expected=((a.memory_id, ts(9)),)),
        WriteSet("acme", ts(3), nodes=(other,), expected=(("mem_gone", ts(1)),)),
    ):
        with pytest.raises(StaleWriteError):
            lstore.apply(write)
    assert lstore.get_nodes("acme", [a.memory_id]) == [edited]
    assert lstore.get_nodes("acme", [other.memory_id]) == []
    # as read: applied
    lstore.apply(
        WriteSet("acme", ts(4), purge_ids=(a.memory_id,), expected=((a.memory_id, ts(2)),))
    )
    assert lstore.get_nodes("acme", [a.memory_id]) == []


def test_operational_events_are_counted_by_day_node_op(lstore: Store) -> None:
    events = (
        OpEvent("2026-01-01T10:00:00.000000Z", "hotpath", "create", "ok", "mem_1", "PREFERENCE"),
        OpEvent("2026-01-01T11:00:00.000000Z", "hotpath", "create", "ok", "mem_2", None, 0.91),
        OpEvent("2026-01-02T09:00:00.000000Z", "worker", "ttl", "ok", "mem_1"),
        OpEvent("2026-01-02T09:00:01.000000Z", "context", "search", "skipped"),
    )
    lstore.apply(WriteSet("acme", ts(1), op_events=events))
    assert lstore.revision("acme") == 0
    got = [(c.day, c.node, c.op, c.status, c.count) for c in lstore.event_counts("acme")]
    assert got == [
        ("2026-01-01", "hotpath", "create", "ok", 2),
        ("2026-01-02", "context", "search", "skipped", 1),
        ("2026-01-02", "worker", "ttl", "ok", 1),
    ]
    since = lstore.event_counts("acme", since="2026-01-02T00:00:00.000000Z")
    assert sum(c.count for c in since) == 2
    assert lstore.event_counts("other") == []
    if not hasattr(lstore, "op_events"):
        pytest.skip(f"{type(lstore).__name__} does not implement op_events yet (issue 9)")
    assert lstore.op_events("acme") == list(events)
    assert lstore.op_events("acme", op="create") == list(events[:2])
    assert lstore.op_events("acme", since="2026-01-02T00:00:00.000000Z", limit=1) == [events[2]]
    assert lstore.op_events("other") == []


def test_operational_events_validate_their_vocabulary() -> None:
    with pytest.raises(ValidationFailed):
        OpEvent(ts(1), "kitchen", "create", "ok")
    with pytest.raises(ValidationFailed):
        OpEvent(ts(1), "worker", "create", "maybe")


def test_audit_head_follows_every_event_write(lstore: Store) -> None:
    assert lstore.audit_head("acme").events == 0
    assert lstore.audit_head("acme").hash == GENESIS_HASH
    a = make_node()
    lstore.apply(WriteSet("acme", ts(1), nodes=(a,), events=(_event(a.memory_id),)))
    lstore.apply(
        WriteSet(
            "acme",
            ts(2),
            events=(_event(None, HistoryOp.REFUSE, 1), _event(None, HistoryOp.REFUSE, 2)),
        )
    )
    history = lstore.history("acme")
    head = lstore.audit_head("acme")
    assert (head.events, head.hash) == (3, history[-1].hash)
    assert lstore.audit_head("other").events == 0
