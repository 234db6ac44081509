"""Ranking fields served from memory are never stale: this store's writes update them,
another process's write makes the next read go back to the file."""

from __future__ import annotations

from pathlib import Path

from memvault.store import SQLiteStore
from memvault.store.base import RankFields, WriteSet
from tests.helpers import make_node, ts


def test_rank_fields_follow_writes_here_and_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mine = SQLiteStore(path)
    nodes = [make_node("acme", importance=10, actor_id="Ana") for _ in range(5)]
    mine.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    ids = [n.memory_id for n in nodes]
    first = mine.rank_fields("acme", ids)
    assert first == {n.memory_id: RankFields.of(n) for n in nodes}
    assert mine.rank_fields("other", ids) == {}  # never another tenant's

    changed = nodes[0].model_copy(update={"importance": 90, "updated_at": ts(2)})
    mine.apply(WriteSet("acme", ts(2), nodes=(changed,)))
    assert mine.rank_fields("acme", ids[:1])[ids[0]].importance == 90  # followed here

    other = SQLiteStore(path)
    try:
        moved = nodes[1].model_copy(update={"actor_id": "Bo", "updated_at": ts(3)})
        other.apply(WriteSet("acme", ts(3), nodes=(moved,)))
    finally:
        other.close()
    now = mine.rank_fields("acme", ids)
    assert now[ids[1]].actor_id == "Bo" and now[ids[0]].importance == 90
    mine.close()
