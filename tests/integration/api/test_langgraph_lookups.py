"""The LangGraph adapter finds an item by its key, not by listing the store (REVIEW 04:17).

Before, every batch — even one ``get`` — listed and decoded up to 10,000 memories: loading n
items one put at a time cost O(n²), and past 10,000 the oldest items were invisible (a put of
one made a second copy). Each test counts the memory rows the store hands the adapter (rows,
not time: timings are measured by ``memvault bench langgraph``), or works past a lowered
listing limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp, SearchOp

import memvault.integrations.langgraph_store as adapter
from memvault.integrations.langgraph_store import MemvaultStore
from memvault.store import NodeFilter

NOTE = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
TEAS = ("oolong", "sencha", "assam", "darjeeling", "rooibos", "jasmine", "earl grey", "chai")


class LetterCounts(Embeddings):
    """Counts of a..z: a deterministic caller's embedder (no model)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(text.lower().count(chr(ord("a") + i))) for i in range(26)]


class RowCount:
    """How many memory rows ``list_nodes`` returned while counting."""

    def __init__(self) -> None:
        self.rows = 0


@pytest.fixture
def rows(monkeypatch: pytest.MonkeyPatch) -> Iterator[RowCount]:
    count = RowCount()
    seen: set[type] = set()

    def watch(store: MemvaultStore) -> None:
        cls = type(store._engine.store)
        if cls in seen:
            return
        seen.add(cls)
        listed = cls.list_nodes

        def counted(self: Any, orchestrator_id: str, filters: NodeFilter, **kw: Any) -> Any:
            page = listed(self, orchestrator_id, filters, **kw)
            count.rows += len(page)
            return page

        monkeypatch.setattr(cls, "list_nodes", counted)

    count.watch = watch  # type: ignore[attr-defined]
    yield count


def _fill(store: MemvaultStore, n: int, namespace: tuple[str, ...] = ("notes",)) -> None:
    store.batch(
        [
            PutOp(namespace, f"k{i}", {**NOTE, "content": f"Note number {i} about tea"})
            for i in range(n)
        ]
    )


def test_get_and_put_read_only_the_rows_of_their_key(tmp_path: Path, rows: RowCount) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        _fill(store, 40)
        store.put(("other",), "k7", {**NOTE, "content": "Same key, another namespace"})
        rows.watch(store)  # type: ignore[attr-defined]
        rows.rows = 0
        item = store.get(("notes",), "k7")
        assert item is not None and item.value["content"] == "Note number 7 about tea"
        assert rows.rows <= 2  # k7 in ("notes",) and in ("other",); never the 41 others
        rows.rows = 0
        assert store.get(("notes",), "absent") is None
        assert rows.rows == 0
        rows.rows = 0
        store.put(("notes",), "k3", {**NOTE, "content": "Note number 3 about coffee"})
        assert rows.rows <= 1
        assert store.get(("notes",), "k3").value["content"].endswith("coffee")  # type: ignore[union-attr]
        assert store.get(("other",), "k7").value["content"].startswith("Same key")  # type: ignore[union-attr]


def test_items_past_the_listing_limit_are_found_and_updated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(adapter, "SCAN_LIMIT", 5)
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        for i, tea in enumerate(TEAS):  # one batch each: k0 ends up the oldest
            store.put(("notes",), f"k{i}", {**NOTE, "content": f"The team likes {tea} tea"})
        oldest = store.get(("notes",), "k0")
        assert oldest is not None and oldest.value["content"] == "The team likes oolong tea"
        store.put(("notes",), "k0", {**NOTE, "content": "The team likes oolong tea, rewritten"})
        engine = store._engine
        assert engine.count_memories({"key": "k0"}) == 1  # updated in place, no second copy
        assert engine.count_memories({}) == 8
        assert store.get(("notes",), "k0").value["content"].endswith("rewritten")  # type: ignore[union-attr]
        store.put(("notes",), "k0", None)
        assert store.get(("notes",), "k0") is None


def test_a_query_page_the_hits_fill_lists_nothing_and_equals_the_full_ranking(
    tmp_path: Path, rows: RowCount, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = {"dims": 26, "embed": LetterCounts(), "fields": ["title"]}
    with MemvaultStore(tmp_path, orchestrator="acme", index=index) as store:
        titles = ["aaab", "aabb", "abbb", "bbbb", "cccc", "ccca", "ddda", "eeee", "abab", "baba"]
        store.batch([PutOp(("docs", "x"), t, {"title": t, "n": i}) for i, t in enumerate(titles)])
        store.put(("misc",), "aaaa", {"title": "aaaa"})  # outside the prefix
        ops = [
            SearchOp(("docs",), query="aaaa", limit=3),
            SearchOp(("docs",), query="aaaa", limit=2, offset=2),
            SearchOp(("docs",), query="aaaa", limit=3, filter={"n": {"$gte": 2}}),
        ]
        rows.watch(store)  # type: ignore[attr-defined]
        rows.rows = 0
        fast = [store.batch([op])[0] for op in ops]
        assert rows.rows <= sum(op.offset + op.limit for op in ops)  # one key lookup per item
        monkeypatch.setattr(MemvaultStore, "_filled", lambda *_: None)  # force the listing
        full = [store.batch([op])[0] for op in ops]

        def keys(page: Any) -> list[tuple[str, float]]:
            return [(i.key, round(i.score, 6)) for i in page]

        assert [keys(p) for p in fast] == [keys(p) for p in full]
        assert [i.key for i in fast[0]][:1] == ["aaab"]
        assert all(i.value["n"] >= 2 for i in fast[2])


def test_a_users_own_item_shadows_the_shared_one_in_a_query_page(tmp_path: Path) -> None:
    index = {"dims": 26, "embed": LetterCounts(), "fields": ["title"]}
    shared = MemvaultStore(tmp_path, orchestrator="acme", index=index)
    alice = MemvaultStore(tmp_path, orchestrator="acme", index=index, user="alice")
    try:
        shared.put(("team",), "rota", {"title": "zzzz rota"})
        alice.put(("team",), "rota", {"title": "zzzy rota, alice's"})
        page = alice.search(("team",), query="zzzz", limit=1)
        assert [(i.key, i.value["title"]) for i in page] == [("rota", "zzzy rota, alice's")]
    finally:
        shared.close()
        alice.close()
