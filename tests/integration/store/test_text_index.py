"""The in-memory text index answers exactly as FTS5's ``MATCH … ORDER BY bm25()`` does:
same rows, same order, same scores (to rounding) — for common and rare terms, filters,
other tenants, column weights, and after writes by this process and by another one."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memvault.model.enums import MemoryStatus
from memvault.store import NodeFilter, SQLiteStore
from memvault.store.base import IndexText, WriteSet
from memvault.store.requests import TextSearch
from memvault.store.sqlite import queries as q
from memvault.store.sqlite.textindex import FTS_TOKENIZE, FtsTokens
from tests.helpers import make_node, ts

WORDS = "coffee tea garden piano hiking paris budget deploy otter lantern".split()
EXTRA = ["Café crème", "naïve résumé", "running runners ran", "e-mail 2023-05-08", "x" * 70]


def _nodes(orch: str, count: int, offset: int = 0) -> list[Any]:
    nodes = []
    for i in range(offset, offset + count):
        words = [WORDS[j] for j in range(len(WORDS)) if (i >> j) & 1 or j == i % 10]
        content = "coffee tea garden" if i % 7 == 0 else " ".join(["coffee", *words])
        if i % 11 == 0:
            content += " " + EXTRA[i % len(EXTRA)]
        nodes.append(
            make_node(
                orch,
                content=content,
                key=f"k{i % 13}",
                summary="tea time" if i % 5 == 0 else "",
                user_id=f"u{i % 30}",
                importance=i % 100,
                status=MemoryStatus.SOFT_DELETED if i % 17 == 0 else MemoryStatus.ACTIVE,
            )
        )
    return nodes


def _open(path: Path) -> SQLiteStore:
    store = SQLiteStore(path, text_index_min_rows=0)
    store.text_leg.background = False
    return store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteStore:
    path: Path = tmp_path_factory.mktemp("textindex") / "m.db"
    s = _open(path)
    for orch in ("acme", "other"):
        nodes = _nodes(orch, 600)
        extras = tuple(
            (n.memory_id, IndexText(subject="Ana", context="tea with Ana", date="2023-05-08 May"))
            for n in nodes[::3]
        )
        s.apply(WriteSet(orch, ts(1), nodes=tuple(nodes), index_texts=extras))
    return s


def _sql(
    store: SQLiteStore,
    terms: list[str],
    f: NodeFilter,
    limit: int,
    weights: dict[str, float] | None = None,
) -> list[tuple[str, float]]:
    sql, params = q.search_text_query("acme", TextSearch(terms, f, limit, weights))
    return [(r[0], float(r[1])) for r in store._read(sql, params)]


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [m for m, _ in got] == [m for m, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12, abs=1e-15)


def _search(
    store: SQLiteStore, terms: list[str], f: NodeFilter, limit: int, w: Any = None
) -> list[tuple[str, float]]:
    hits = store.search_text("acme", terms, f, limit=limit, column_weights=w)
    return [(h.memory_id, h.score) for h in hits]


@pytest.mark.parametrize(
    "terms",
    [
        ["coffee"],
        ["coffee", "tea"],
        ["garden", "piano", "otter"],
        ["cafe", "resume"],
        ["runs", "running"],  # two phrases, one token: counted twice, as FTS5 does
        ["ana", "may"],
        ["nothing"],
    ],
)
@pytest.mark.parametrize(
    "f",
    [
        NodeFilter(),
        NodeFilter(user_id="u3"),
        NodeFilter(importance_min=95),
        NodeFilter(status=(MemoryStatus.ACTIVE, MemoryStatus.SOFT_DELETED)),
        NodeFilter(user_id="none"),
    ],
    ids=["all", "one-user", "few", "with-deleted", "empty"],
)
@pytest.mark.parametrize("limit", [1, 10, 200])
def test_index_equals_fts5(store: SQLiteStore, terms: list[str], f: NodeFilter, limit: int) -> None:
    assert store.text_leg.index is not None or _search(store, ["tea"], NodeFilter(), 1)
    got = _search(store, terms, f, limit)
    assert store.text_leg.index is not None  # answered by the index, not SQL
    _same(got, _sql(store, terms, f, limit))


@pytest.mark.parametrize(
    "weights",
    [
        {"content": 1.0, "key": 0.0, "value": 0.5, "subject": 0.5, "context": 0.5, "date": 0.25},
        {"content": 0.7, "summary": 3.0},
        {"content": 0.0, "key": 0.0, "value": 0.0, "summary": 0.0},
    ],
)
def test_column_weights_as_fts5(store: SQLiteStore, weights: dict[str, float]) -> None:
    for terms in (["tea", "ana"], ["coffee", "k3"], ["may"]):
        got = _search(store, terms, NodeFilter(), 50, weights)
        _same(got, _sql(store, terms, NodeFilter(), 50, weights))


def test_unknown_column_is_refused_on_the_index_path(store: SQLiteStore) -> None:
    with pytest.raises(ValueError, match="unknown full-text column"):
        store.search_text("acme", ["tea"], NodeFilter(), limit=5, column_weights={"nope": 1.0})


def test_a_term_fts5_splits_is_answered_by_sql(store: SQLiteStore) -> None:
    # "e-mail" is one query term but a two-token phrase for FTS5
    got = _search(store, ["e-mail", "coffee"], NodeFilter(), 20)
    _same(got, _sql(store, ["e-mail", "coffee"], NodeFilter(), 20))


def test_follows_writes_of_this_process_and_of_another(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mine = _open(path)
    mine.apply(WriteSet("acme", ts(1), nodes=tuple(_nodes("acme", 300))))
    _same(_search(mine, ["tea"], NodeFilter(), 30), _sql(mine, ["tea"], NodeFilter(), 30))
    index = mine.text_leg.index
    assert index is not None
    # this process: new rows and a changed one are followed in place (no rebuild)
    changed = mine.get_nodes("acme", [_search(mine, ["tea"], NodeFilter(), 1)[0][0]])[0]
    new = _nodes("acme", 40, offset=1000)
    mine.apply(
        WriteSet(
            "acme",
            ts(2),
            nodes=(*new, changed.model_copy(update={"status": MemoryStatus.SOFT_DELETED})),
        )
    )
    assert mine.text_leg.index is index and len(index) == 340
    for terms in (["tea"], ["otter", "lantern"]):
        _same(_search(mine, terms, NodeFilter(), 50), _sql(mine, terms, NodeFilter(), 50))
    # another process (another store object on the file): caught up on the next search
    other = SQLiteStore(path)
    try:
        other.apply(WriteSet("acme", ts(3), nodes=tuple(_nodes("acme", 25, offset=2000))))
    finally:
        other.close()
    for terms in (["tea", "garden"], ["piano"]):
        _same(_search(mine, terms, NodeFilter(), 80), _sql(mine, terms, NodeFilter(), 80))
    assert mine.text_leg.index is index and len(index) == 365
    mine.close()


def test_rebuilt_after_rows_vanish(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mine = _open(path)
    nodes = _nodes("acme", 200)
    mine.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    _search(mine, ["tea"], NodeFilter(), 5)
    first = mine.text_leg.index
    other = SQLiteStore(path)
    try:  # rows deleted behind the index's back (as a purge does)
        with other._transaction() as conn:
            conn.execute("DELETE FROM memory_fts WHERE memory_id = ?", (nodes[7].memory_id,))
            conn.execute("UPDATE thread_revision SET revision = revision + 1")
    finally:
        other.close()
    got = _search(mine, ["tea", "coffee"], NodeFilter(), 300)
    assert nodes[7].memory_id not in {m for m, _ in got}
    assert mine.text_leg.index is not first
    _same(got, _sql(mine, ["tea", "coffee"], NodeFilter(), 300))
    mine.close()


def test_small_stores_and_a_disabled_index_stay_in_sql(tmp_path: Path) -> None:
    small = SQLiteStore(tmp_path / "a.db")
    off = SQLiteStore(tmp_path / "b.db", text_index_min_rows=None)
    for s in (small, off):
        s.text_leg.background = False
        s.apply(WriteSet("acme", ts(1), nodes=tuple(_nodes("acme", 50))))
        assert _search(s, ["tea"], NodeFilter(), 5) == _sql(s, ["tea"], NodeFilter(), 5)
        assert s.text_leg.index is None
        s.close()


def test_tokens_are_fts5s_whatever_the_chunking() -> None:
    text = "Caroline's café\tcrème, e-mail: 2023-05-08 RUNNING naïve\u00a0ﬁne"
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(c, tokenize = '{FTS_TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    conn.execute("INSERT INTO t (c) VALUES (?)", (text,))
    whole = [r[0] for r in conn.execute("SELECT term FROM v ORDER BY offset")]
    conn.close()
    tokens = FtsTokens()
    assert tokens.of(text) == whole  # chunk by chunk, cached, as the whole text in one row
    assert whole[:4] == ["carolin", "s", "cafe", "creme"]
    tokens.close()


def test_common_terms_scored_at_build_give_the_same_answers(store: SQLiteStore) -> None:
    from memvault.store.sqlite.textindex import TextIndex, TextRow, read_rows

    with store._snapshot() as conn:
        rows: list[TextRow] = read_rows(conn)
    weights = {"content": 1.0, "key": 0.0, "summary": 0.5}
    cold, warm = TextIndex(FtsTokens()), TextIndex(FtsTokens())
    cold.add(rows)
    warm.add(rows)
    scored = warm.warm(weights, 100)
    assert scored > 0 and all(p.scored is None for p in cold._postings.values())
    assert all(p.scored is not None for p in warm._postings.values() if len(p.slots) >= 100)
    for terms in (["coffee"], ["coffee", "tea"], ["garden", "piano", "otter"], ["ana"]):
        phrases = cold.phrases(terms)
        for limit in (1, 10, 200):
            want = cold.search("acme", phrases, weights, limit)
            assert warm.search("acme", phrases, weights, limit) == want  # bit for bit
    # other weights than the warmed ones: scored on the search, as before
    assert warm.search("acme", warm.phrases(["coffee"]), None, 10) == cold.search(
        "acme", cold.phrases(["coffee"]), None, 10
    )
