"""The full-text leg's prefetch path returns exactly what ranking every match returns:
with common terms, restrictive filters (fallback), other tenants, and ties at the edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.store import NodeFilter, SQLiteStore
from memvault.store.base import WriteSet
from memvault.store.requests import TextSearch
from memvault.store.sqlite import queries as q
from tests.helpers import make_node, ts

WORDS = "coffee tea garden piano hiking paris budget deploy otter lantern".split()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteStore:
    path: Path = tmp_path_factory.mktemp("prefetch") / "m.db"
    s = SQLiteStore(path)
    for orch in ("acme", "other"):
        nodes = []
        for i in range(900):
            words = [WORDS[j] for j in range(len(WORDS)) if (i >> j) & 1 or j == i % 10]
            # every 7th memory repeats one text: a long run of equal bm25 scores
            content = "coffee tea garden" if i % 7 == 0 else " ".join(["coffee", *words])
            nodes.append(make_node(orch, content=content, user_id=f"u{i % 30}", importance=i % 100))
        s.apply(WriteSet(orch, ts(1), nodes=tuple(nodes)))
    return s


def _plain(
    store: SQLiteStore, terms: list[str], f: NodeFilter, limit: int
) -> list[tuple[str, float]]:
    sql, params = q.search_text_query("acme", TextSearch(terms, f, limit))
    return [(r[0], float(r[1])) for r in store._read(sql, params)]


@pytest.mark.parametrize(
    "terms",
    [["coffee"], ["coffee", "tea"], ["garden", "piano", "otter"], ["lantern"], ["nothing"]],
)
@pytest.mark.parametrize(
    "f",
    [
        NodeFilter(),
        NodeFilter(user_id="u3"),
        NodeFilter(importance_min=95),
        NodeFilter(user_id="none"),
    ],
    ids=["all", "one-user", "few", "empty"],
)
@pytest.mark.parametrize("limit", [1, 10, 50])
def test_prefetch_equals_ranking_every_match(
    store: SQLiteStore, terms: list[str], f: NodeFilter, limit: int
) -> None:
    got = [(h.memory_id, h.score) for h in store.search_text("acme", terms, f, limit=limit)]
    assert got == _plain(store, terms, f, limit)
    assert all(m.startswith("mem_") for m, _ in got)
    if got:
        mine = {n.memory_id for n in store.get_nodes("acme", [m for m, _ in got])}
        assert mine == {m for m, _ in got}  # never another tenant's rows


def test_prefetch_query_is_a_pure_builder() -> None:
    sql, params = q.search_text_query("acme", TextSearch(["tea"], NodeFilter(), 5), prefetch=200)
    assert sql.startswith("WITH ranked AS") and "CROSS JOIN memories" in sql
    assert params[:3] == ['"tea"', 200, "acme"] and params[-1] == 5
