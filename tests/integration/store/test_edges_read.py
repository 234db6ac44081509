"""``edges_of`` skips its read while the file holds no edge, and sees an edge as soon
as any connection commits one (this store's writer or another process)."""

from __future__ import annotations

from pathlib import Path

from memvault.store import SQLiteStore
from memvault.store.base import WriteSet
from tests.helpers import make_edge, make_node, ts


def test_an_edge_written_elsewhere_is_seen_by_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mine = SQLiteStore(path)
    a, b, c = (make_node("acme") for _ in range(3))
    mine.apply(WriteSet("acme", ts(1), nodes=(a, b, c)))
    ids = [a.memory_id, b.memory_id, c.memory_id]
    assert mine.edges_of("acme", ids) == []
    assert mine.edges_of("acme", ids) == []  # answered without a read of memory_edges

    other = SQLiteStore(path)
    try:
        other.apply(WriteSet("acme", ts(2), edges=(make_edge(a, b),)))
    finally:
        other.close()
    found = mine.edges_of("acme", ids)
    assert [(e.from_memory_id, e.to_memory_id) for e in found] == [(a.memory_id, b.memory_id)]

    mine.apply(WriteSet("acme", ts(3), edges=(make_edge(b, c),)))  # this store's own writer
    assert len(mine.edges_of("acme", [c.memory_id])) == 1
    assert mine.edges_of("other", ids) == []  # never another tenant's
    mine.close()


def test_long_id_lists_are_read_in_padded_chunks(tmp_path: Path) -> None:
    """600 ids: two chunks of 256 and one of 88 padded to 128 (repeated ids)."""
    store = SQLiteStore(tmp_path / "m.db")
    nodes = [make_node("acme") for _ in range(600)]
    store.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    edges = tuple(make_edge(nodes[i], nodes[i + 1]) for i in range(0, 598, 3))
    store.apply(WriteSet("acme", ts(2), edges=edges))
    found = store.edges_of("acme", [n.memory_id for n in nodes])
    assert sorted(e.edge_id for e in found) == sorted(e.edge_id for e in edges)
    assert len(store.get_nodes("acme", [n.memory_id for n in nodes[:9]])) == 9
    store.close()
