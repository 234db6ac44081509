"""Ranking fields served from memory are never stale: this store's writes update them,
another process's write makes the next read go back to the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.store import SQLiteStore
from memvault.store.base import NodeFilter, RankFields, WriteSet
from tests.helpers import make_node, ts


@pytest.mark.parametrize("text_index", [False, True], ids=["cache", "text-index"])
def test_rank_fields_follow_writes_here_and_elsewhere(tmp_path: Path, text_index: bool) -> None:
    """With the text index built (large stores), the fields come from its rows."""
    path = tmp_path / "m.db"
    mine = SQLiteStore(path, text_index_min_rows=0 if text_index else None)
    mine.text_leg.background = False
    nodes = [make_node("acme", importance=10, actor_id="Ana") for _ in range(5)]
    mine.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    ids = [n.memory_id for n in nodes]
    if text_index:  # a search builds the index; from then on it answers
        mine.search_text("acme", ["anything"], NodeFilter(), limit=5)
        assert mine.text_leg.index is not None and len(mine.text_leg.index) == 5
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
    if text_index:  # the next search catches the index up with the other write
        mine.search_text("acme", ["anything"], NodeFilter(), limit=5)
    now = mine.rank_fields("acme", ids)
    if text_index:
        assert mine.text_leg.index is not None
        assert mine.text_leg.index.rank_fields("acme", ids) == now  # the index's own rows
    assert now[ids[1]].actor_id == "Bo" and now[ids[0]].importance == 90
    assert now == {m: f for m, f in now.items() if m in ids} and len(now) == 5
    mine.close()
