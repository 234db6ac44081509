"""The Store conformance suite: every backend must pass every test here.

It runs on the in-memory reference store and on SQLite (the ``store``
fixture is parametrised in tests/conftest.py); PostgreSQL joins it later.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault.errors import DuplicateEdgeError, ScopeViolationError, StoreError
from memvault.model import ChangeKind, HistoryOp, MemoryStatus, MemoryType, StopReason
from memvault.store import ChangeEntry, HistoryEvent, NodeFilter, Store, WriteSet
from memvault.store.base import GENESIS_HASH, IngestRecord, chain_hash, row_digest
from tests.helpers import make_edge, make_node, ts


def write(store: Store, *nodes, edges=(), events=(), changes=(), orch="acme") -> int:  # type: ignore[no-untyped-def]
    return store.apply(
        WriteSet(
            orch,
            ts(5),
            nodes=tuple(nodes),
            edges=tuple(edges),
            events=tuple(events),
            changes=tuple(changes),
        )
    )


def event(
    memory_id: str | None, op: HistoryOp = HistoryOp.CREATE, orch: str = "acme"
) -> HistoryEvent:
    return HistoryEvent(
        event_id=f"evt_{memory_id}_{op.value}_{id(object())}",
        orchestrator_id=orch,
        op=op,
        at=ts(7),
        memory_id=memory_id,
        stop_reason=StopReason.SUCCESS_STORED,
        detail={"k": "v"},
    )


# -- context ---
def test_thread_seen_revisions(store: Store) -> None:
    seen = store.thread_seen
    assert seen("acme", "t1", reader="shared") is None
    store.mark_thread_seen("acme", "t1", 3, reader="shared")
    store.mark_thread_seen("acme", "t1", 2, reader="shared")  # never moves backwards
    assert seen("acme", "t1", reader="shared") == 3
    assert seen("acme", "t2", reader="shared") is None
    assert seen("other", "t1", reader="shared") is None  # scoped to the orchestrator
    store.mark_thread_seen("acme", "t1", 5, reader="shared")
    assert seen("acme", "t1", reader="shared") == 5
    assert store.revision("acme") == 0  # the head revision is a different row
    with pytest.raises(StoreError):
        store.mark_thread_seen("acme", "*", 9, reader="shared")
    write(store, make_node())
    assert store.revision("acme") == 1 and seen("acme", "t1", reader="shared") == 5


def test_thread_seen_marks_are_per_reader(store: Store) -> None:
    """One reader marking a thread leaves every other reader's mark alone (NOTE5 #2)."""
    store.mark_thread_seen("acme", "t1", 4, reader="u-al")
    assert store.thread_seen("acme", "t1", reader="u-al") == 4
    assert store.thread_seen("acme", "t1", reader="u-bea") is None
    assert store.thread_seen("acme", "t1", reader="shared") is None
    store.mark_thread_seen("acme", "t1", 2, reader="u-bea")
    store.mark_thread_seen("acme", "t2", 6, reader="u-al")
    store.mark_thread_seen("other", "t1", 7, reader="u-al")
    # right of access: a reader's own marks, by thread, in this orchestrator only
    assert store.reader_marks("acme", "u-al") == [("t1", 4), ("t2", 6)]
    assert store.reader_marks("acme", "u-bea") == [("t1", 2)]
    assert store.reader_marks("acme", "u-cy") == []
    assert store.erase_reader_marks("acme", "u-al") == 2
    assert store.reader_marks("acme", "u-al") == []
    assert store.thread_seen("acme", "t1", reader="u-al") is None
    assert store.thread_seen("acme", "t2", reader="u-al") is None
    assert store.thread_seen("acme", "t1", reader="u-bea") == 2  # others keep theirs
    assert store.thread_seen("other", "t1", reader="u-al") == 7  # scoped to the orchestrator
    assert store.erase_reader_marks("acme", "u-al") == 0


def test_node_round_trip(store: Store) -> None:
    node = make_node(
        project_id="p1",
        user_id="u1",
        importance=77,
        confidence=0.25,
        pinned=True,
        summary="short",
        key="k",
        value="v",
    )
    write(store, node)
    assert store.get_nodes("acme", [node.memory_id]) == [node]


def test_upsert_replaces_and_keeps_one_primary_source(store: Store) -> None:
    node = make_node()
    write(store, node)
    changed = node.model_copy(update={"content": "changed text", "importance": 90})
    write(store, changed)
    assert store.get_nodes("acme", [node.memory_id]) == [changed]
    assert (
        store.search_text("acme", ["changed"], NodeFilter(), limit=5)[0].memory_id == node.memory_id
    )
    assert store.search_text("acme", ["number"], NodeFilter(), limit=5) == []


def test_get_nodes_is_scoped(store: Store) -> None:
    a = make_node("acme")
    b = make_node("other")
    write(store, a)
    write(store, b, orch="other")
    assert store.get_nodes("other", [a.memory_id]) == []
    assert store.get_nodes("acme", [a.memory_id, b.memory_id]) == [a]


def test_write_set_mixing_orchestrators_fails_closed(store: Store) -> None:
    a = make_node("acme")
    b = make_node("other")
    with pytest.raises(ScopeViolationError):
        store.apply(WriteSet("acme", ts(1), nodes=(a, b)))
    assert store.get_nodes("acme", [a.memory_id]) == []
    assert store.revision("acme") == 0


def test_edges_duplicates_and_scope(store: Store) -> None:
    a, b, c = make_node(), make_node(), make_node()
    write(store, a, b, c)
    e1 = make_edge(a, b)
    write(store, edges=[e1])
    with pytest.raises(DuplicateEdgeError):
        write(store, edges=[make_edge(a, b)])
    e2 = make_edge(a, b, edge_type="Contradicts")
    e3 = make_edge(c, a, edge_type="Updates")
    write(store, edges=[e2, e3])
    assert {e.edge_id for e in store.edges_of("acme", [a.memory_id])} == {
        e1.edge_id,
        e2.edge_id,
        e3.edge_id,
    }
    assert store.edges_of("other", [a.memory_id]) == []
    assert store.edges_of("acme", [b.memory_id]) == sorted(
        [e1, e2], key=lambda e: (e.created_at, e.edge_id)
    )


def test_edge_to_missing_node_is_refused_atomically(store: Store) -> None:
    a = make_node()
    ghost = make_node()
    with pytest.raises(StoreError):
        write(store, a, edges=[make_edge(a, ghost)], events=[event(a.memory_id)])
    assert store.get_nodes("acme", [a.memory_id]) == []
    assert store.history("acme") == []
    assert store.search_text("acme", ["memory"], NodeFilter(), limit=5) == []
    assert store.revision("acme") == 0


def test_failed_write_leaves_nothing(store: Store) -> None:
    a = make_node()
    b = make_node()
    write(store, a, b, edges=[make_edge(a, b)])
    before = (store.revision("acme"), store.history("acme"), store.counts("acme"))
    c = make_node(content="should vanish")
    with pytest.raises(DuplicateEdgeError):
        write(
            store,
            c,
            edges=[make_edge(c, a), make_edge(a, b)],
            events=[event(c.memory_id)],
            changes=[ChangeEntry(c.memory_id, ChangeKind.CREATED)],
        )
    assert store.get_nodes("acme", [c.memory_id]) == []
    assert store.search_text("acme", ["vanish"], NodeFilter(), limit=5) == []
    assert (store.revision("acme"), store.history("acme"), store.counts("acme")) == before


def test_revision_and_change_log(store: Store) -> None:
    a, b = make_node(), make_node()
    assert store.revision("acme") == 0
    r1 = write(store, a, changes=[ChangeEntry(a.memory_id, ChangeKind.CREATED, "a")])
    r2 = write(store, b, changes=[ChangeEntry(b.memory_id, ChangeKind.CREATED, "b")])
    assert (r1, r2) == (1, 2)
    # an audit-only write (a refusal) does not move the revision
    assert write(store, events=[event(None, HistoryOp.REFUSE)]) == 2
    changes = store.changes_since("acme", 1)
    assert [(c.revision, c.memory_id, c.kind, c.summary) for c in changes] == [
        (2, b.memory_id, ChangeKind.CREATED, "b")
    ]
    assert store.changes_since("other", 0) == []
    assert store.revision("other") == 0
    # ``newest``: the latest rows only, still oldest first
    c = make_node()
    write(store, c, changes=[ChangeEntry(c.memory_id, ChangeKind.CREATED, "c")])
    assert [x.summary for x in store.changes_since("acme", 0, newest=2)] == ["b", "c"]
    assert [x.summary for x in store.changes_since("acme", 0, newest=9)] == ["a", "b", "c"]


def test_history_is_hash_chained_per_orchestrator(store: Store) -> None:
    a, b = make_node(), make_node("other")
    write(store, a, events=[event(a.memory_id), event(a.memory_id, HistoryOp.UPDATE)])
    write(store, b, events=[event(b.memory_id, orch="other")], orch="other")
    history = store.history("acme")
    assert [e.op for e in history] == [HistoryOp.CREATE, HistoryOp.UPDATE]
    prev = GENESIS_HASH
    for e in history:
        assert e.prev_hash == prev
        assert e.hash == chain_hash(prev, e)
        prev = e.hash
    assert store.history("acme", a.memory_id) == history
    assert store.history("acme", b.memory_id) == []
    assert [e.memory_id for e in store.history("other")] == [b.memory_id]
    # Every event about a written row carries that row's digest (tamper evidence).
    assert history[0].detail == {"k": "v", "digest": row_digest(a)}


def test_history_pages_newest_first_and_by_op(store: Store) -> None:
    a = make_node()
    ops = [HistoryOp.CREATE, HistoryOp.UPDATE, HistoryOp.REFUSE, HistoryOp.UPDATE]
    events = [replace(event(a.memory_id, op), event_id=f"evt_page_{i}") for i, op in enumerate(ops)]
    write(store, a, events=events)
    oldest_first = store.history("acme")
    newest = store.history("acme", newest_first=True)
    assert newest == list(reversed(oldest_first))
    assert store.history("acme", newest_first=True, limit=2, offset=1) == newest[1:3]
    assert [e.op for e in store.history("acme", ops=[HistoryOp.UPDATE])] == [HistoryOp.UPDATE] * 2
    assert store.history("acme", ops=[]) == []
    assert store.history("other", ops=[HistoryOp.UPDATE]) == []


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        (NodeFilter(), {"n1", "n2", "n3"}),
        (NodeFilter(user_id="u1"), {"n1", "n2"}),
        (NodeFilter(user_id="u1", project_id="p"), {"n2"}),
        (NodeFilter(agent_id="planner"), {"n3"}),
        (NodeFilter(run_id="r1"), {"n1"}),
        (NodeFilter(actor_id="a9"), {"n2"}),
        (NodeFilter(role="user"), {"n1", "n3"}),
        (NodeFilter(conversation_id="c1"), {"n3"}),
        (NodeFilter(key="k1"), {"n1"}),
        (NodeFilter(key="k1", user_id="u1"), {"n1"}),
        (NodeFilter(key="k2"), set()),
        (NodeFilter(type=("Goal",)), {"n2"}),
        (NodeFilter(type=("Goal", "Todo")), {"n2", "n3"}),
        (NodeFilter(category=("PREFERENCE",)), {"n1"}),
        (NodeFilter(importance_min=50), {"n2", "n3"}),
        (NodeFilter(importance_max=50), {"n1", "n3"}),
        (NodeFilter(updated_after=ts(20)), {"n2", "n3"}),
        (NodeFilter(updated_before=ts(30)), {"n1", "n2"}),
        (NodeFilter(pinned=True), {"n3"}),
        (NodeFilter(status=("soft_deleted",)), {"n4"}),
        (NodeFilter(status=("active", "soft_deleted")), {"n1", "n2", "n3", "n4"}),
    ],
)
def test_filters(store: Store, flt: NodeFilter, expected: set[str]) -> None:
    nodes = [
        make_node(
            memory_id="n1",
            key="k1",
            user_id="u1",
            run_id="r1",
            role="user",
            category="PREFERENCE",
            importance=10,
            updated_at=ts(10),
            content="alpha shared",
        ),
        make_node(
            memory_id="n2",
            user_id="u1",
            project_id="p",
            actor_id="a9",
            type="Goal",
            importance=70,
            updated_at=ts(25),
            content="beta shared",
        ),
        make_node(
            memory_id="n3",
            agent_id="planner",
            role="user",
            conversation_id="c1",
            type="Todo",
            importance=50,
            pinned=True,
            updated_at=ts(40),
            content="gamma shared",
        ),
        make_node(memory_id="n4", status=MemoryStatus.SOFT_DELETED, content="delta shared"),
        make_node("other", memory_id="x1", key="k1", user_id="u1", content="foreign shared"),
    ]
    write(store, *nodes[:4])
    write(store, nodes[4], orch="other")
    listed = {n.memory_id for n in store.list_nodes("acme", flt, limit=100)}
    assert listed == expected
    assert store.count_nodes("acme", flt) == len(expected)
    searched = {h.memory_id for h in store.search_text("acme", ["shared"], flt, limit=100)}
    assert searched == expected


def test_list_order_limit_offset(store: Store) -> None:
    nodes = [make_node(memory_id=f"o{i}", updated_at=ts(100 + i % 3)) for i in range(7)]
    write(store, *nodes)
    listed = [n.memory_id for n in store.list_nodes("acme", NodeFilter(), limit=100)]
    expected = sorted(nodes, key=lambda n: n.memory_id)
    expected.sort(key=lambda n: n.updated_at, reverse=True)
    assert listed == [n.memory_id for n in expected]
    page = store.list_nodes("acme", NodeFilter(), limit=3, offset=2)
    assert [n.memory_id for n in page] == listed[2:5]
    assert store.count_nodes("acme", NodeFilter()) == 7
    assert store.count_nodes("nobody", NodeFilter()) == 0


def test_search_text_semantics(store: Store) -> None:
    a = make_node(content="Dana drinks espresso every morning")
    b = make_node(content="The espresso machine is broken, espresso is off")
    c = make_node(content="Tea is served at noon")
    write(store, a, b, c)
    hits = store.search_text("acme", ["espresso"], NodeFilter(), limit=10)
    assert {h.memory_id for h in hits} == {a.memory_id, b.memory_id}
    assert all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    either = store.search_text("acme", ["espresso", "tea"], NodeFilter(), limit=10)
    assert {h.memory_id for h in either} == {a.memory_id, b.memory_id, c.memory_id}
    assert store.search_text("acme", ["coffee"], NodeFilter(), limit=10) == []
    assert store.search_text("acme", [], NodeFilter(), limit=10) == []
    # query syntax is data, never operators
    assert store.search_text("acme", ['espresso" OR "tea', "NEAR("], NodeFilter(), limit=10) == []
    assert len(store.search_text("acme", ["espresso", "tea"], NodeFilter(), limit=1)) == 1


def test_counts(store: Store) -> None:
    a = make_node(type=MemoryType.GOAL)
    b = make_node(status=MemoryStatus.SUPERSEDED)
    write(store, a, b, edges=[make_edge(a, b, edge_type="Updates")], events=[event(a.memory_id)])
    counts = store.counts("acme")
    assert counts.memories_by_status == {"active": 1, "superseded": 1}
    assert counts.memories_by_type == {"Goal": 1, "Fact": 1}
    assert counts.edges_by_type == {"Updates": 1}
    assert counts.history_events == 1
    assert counts.revision == 1
    assert store.counts("other").total == 0


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    contents=st.lists(
        st.text(alphabet="abcdefgh ", min_size=1, max_size=30).filter(lambda s: s.strip()),
        min_size=1,
        max_size=6,
    ),
    importance=st.integers(0, 100),
)
def test_property_nodes_round_trip_through_store(
    store: Store, contents: list[str], importance: int
) -> None:
    nodes = [make_node(content=c, importance=importance) for c in contents]
    write(store, *nodes)
    got = store.get_nodes("acme", [n.memory_id for n in nodes])
    assert got == sorted(nodes, key=lambda n: n.memory_id)


# -- ingest ---


def _ingest_record(sha: str, status: str = "processed", name: str = "a.md") -> IngestRecord:
    return IngestRecord(sha, name, 42, status, f"/x/{name}.manifest.json", ts(3), ts(4))


def test_ingest_record_commits_with_the_nodes_of_its_file(store: Store) -> None:
    node = make_node()
    record = _ingest_record("a" * 64)
    store.apply(WriteSet("acme", ts(5), nodes=(node,), ingest_records=(record,)))
    assert store.ingest_record("acme", "a" * 64) == record
    assert store.ingest_record("acme", "b" * 64) is None
    assert store.ingest_record("other", "a" * 64) is None  # scoped by orchestrator


def test_ingest_record_rolls_back_with_a_failed_write(store: Store) -> None:
    a, b = make_node(), make_node()
    write(store, a, b, edges=[make_edge(a, b)])
    dup = make_edge(a, b)  # same (from, to, type): the whole write set must fail
    with pytest.raises(DuplicateEdgeError):
        store.apply(
            WriteSet("acme", ts(6), edges=(dup,), ingest_records=(_ingest_record("c" * 64),))
        )
    assert store.ingest_record("acme", "c" * 64) is None


def test_ingest_record_alone_is_an_upsert_that_does_not_move_the_revision(store: Store) -> None:
    store.apply(WriteSet("acme", ts(5), ingest_records=(_ingest_record("d" * 64, "rejected"),)))
    assert store.revision("acme") == 0
    again = _ingest_record("d" * 64, "processed", name="b.txt")
    store.apply(WriteSet("acme", ts(6), ingest_records=(again,)))
    assert store.ingest_record("acme", "d" * 64) == again


# -- batched vector search ---
def test_search_vectors_many_answers_each_query_as_search_vectors(store: Store) -> None:
    """One batch of queries (ingest and capture resolve) gives what one call per query
    gives: the same ids in the same order, the same scores up to float rounding."""
    import numpy as np

    from memvault.store.base import EmbeddingRow

    rng = np.random.default_rng(3)
    nodes = [make_node(user_id="u1" if i % 3 else None) for i in range(40)]
    vectors = rng.standard_normal((40, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = tuple(
        EmbeddingRow(n.memory_id, "m", v, f"sha-{n.memory_id}")
        for n, v in zip(nodes, vectors, strict=True)
    )
    store.apply(WriteSet("acme", ts(5), nodes=tuple(nodes), embeddings=rows))
    queries = rng.standard_normal((6, 16)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    for filters in (NodeFilter(), NodeFilter(user_id="u1")):
        many = store.search_vectors_many("acme", "m", queries, filters, limit=4)
        each = [store.search_vectors("acme", "m", q, filters, limit=4) for q in queries]
        assert [[h.memory_id for h in hits] for hits in many] == [
            [h.memory_id for h in hits] for hits in each
        ]
        assert np.allclose(
            [[h.similarity for h in hits] for hits in many],
            [[h.similarity for h in hits] for hits in each],
            atol=1e-5,
        )
    assert store.search_vectors_many("acme", "m", queries[:0], NodeFilter(), limit=4) == []
    assert store.search_vectors_many("other", "m", queries[:2], NodeFilter(), limit=4) == [[], []]


@pytest.mark.parametrize("shape", [(16,), (2, 3, 16), ()])
def test_search_vectors_many_refuses_anything_but_a_matrix_alike_everywhere(
    store: Store, shape: tuple[int, ...]
) -> None:
    """A single vector is not read as 16 one-number queries, nor a stack as one per
    matrix: every backend says the same thing (it was SQLite alone)."""
    import numpy as np

    queries = np.ones(shape, dtype=np.float32)
    with pytest.raises(ValueError, match=r"queries must be a matrix \(one row per query\)"):
        store.search_vectors_many("acme", "m", queries, NodeFilter(), limit=4)


def test_history_in_a_user_scope_and_after_an_event(store: Store) -> None:
    """``visible_to`` keeps events of no memory and of the reader's or shared memories
    (a purged memory's, owner unknown, are left out); ``after`` pages by keyset."""
    shared, alice, bob = make_node(), make_node(user_id="alice"), make_node(user_id="bob")
    evs = [
        replace(event(m), event_id=f"evt_scope_{i}")
        for i, m in enumerate(
            [shared.memory_id, alice.memory_id, None, bob.memory_id, "mem_purged", shared.memory_id]
        )
    ]
    write(store, shared, alice, bob, events=evs)
    newest = store.history("acme", newest_first=True)

    def ids(events: list[HistoryEvent]) -> list[str]:
        return [e.event_id.removeprefix("evt_scope_") for e in events]

    assert ids(store.history("acme", newest_first=True, visible_to=())) == ["5", "2", "0"]
    assert ids(store.history("acme", visible_to=("alice",))) == ["0", "1", "2", "5"]
    assert ids(store.history("acme", newest_first=True, visible_to=("alice", "bob"))) == [
        "5", "3", "2", "1", "0",
    ]  # fmt: skip
    assert store.history("acme", newest_first=True, visible_to=None) == newest
    # keyset: one event a page walks the whole order, each event once
    walked, after = [], None
    while page := store.history("acme", newest_first=True, limit=1, after=after):
        walked += page
        after = page[-1].event_id
    assert walked == newest
    assert ids(store.history("acme", after="evt_scope_2")) == ["3", "4", "5"]
    assert ids(store.history("acme", visible_to=(), after="evt_scope_0", limit=1)) == ["2"]
    assert store.history("acme", after="evt_nowhere") == []
    assert store.history("acme", ops=[HistoryOp.UPDATE], visible_to=("alice",)) == []
