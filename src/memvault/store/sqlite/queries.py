"""Pure functions that build SQLite SQL (STYLE principle 3: build, then run).

Nothing here touches a connection, so each builder can be read and unit
tested on its own, and ``--explain`` can show a user the exact query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memvault.model.node import MemoryNode, Source
from memvault.store import sql as shared_sql
from memvault.store.base import TEXT_COLUMNS, NodeFilter
from memvault.store.requests import TextSearch
from memvault.store.sql import NODE_COLUMNS, SOURCE_COLUMNS

__all__ = [
    "NODE_COLUMNS",
    "SOURCE_COLUMNS",
    "Query",
    "bm25_weights",
    "filter_clause",
    "filter_ids_query",
    "fts_match_expression",
    "get_nodes_query",
    "in_arity",
    "node_params",
    "padded",
    "rank_fields_query",
    "search_text_query",
    "source_params",
]

Query = tuple[str, list[Any]]

SELECT_NODE = shared_sql.select_node("s.memory_id = m.memory_id AND s.is_primary = 1")


def in_arity(count: int) -> int:
    """How many marks an ``IN`` list of ``count`` values gets: the next power of two, 8 or more.

    Trigger: a search asks for a different number of ids almost every time.
    Why: each distinct statement text is prepared anew (the connection caches
      prepared statements by text), which cost more than running it.
    Outcome: a handful of list lengths per statement; the list is padded by
      repeating a value, which ``IN`` ignores.

    >>> [in_arity(n) for n in (1, 8, 9, 100, 500)]
    [8, 8, 16, 128, 512]
    """
    return max(8, 1 << max(0, count - 1).bit_length())


def padded(values: Sequence[Any]) -> list[Any]:
    """``values`` repeated at the end up to :func:`in_arity` (unchanged when empty).

    >>> padded(["a", "b"])
    ['a', 'b', 'a', 'a', 'a', 'a', 'a', 'a']
    """
    out = list(values)
    if out:
        out.extend([out[0]] * (in_arity(len(out)) - len(out)))
    return out


def _in(column: str, values: Sequence[str], params: list[Any]) -> str:
    values = padded(values)
    params.extend(values)
    return f"{column} IN ({', '.join('?' for _ in values)})"


def filter_clause(orchestrator_id: str, f: NodeFilter, alias: str = "m") -> Query:
    """``WHERE`` conditions for ``f`` with SQLite's marks (:func:`.sql.filter_clause`).

    >>> filter_clause("acme", NodeFilter(user_id="u1"))[0]
    'm.orchestrator_id = ? AND m.status IN (?) AND m.user_id = ?'
    """
    return shared_sql.filter_clause(orchestrator_id, f, alias, mark="?")


def get_nodes_query(orchestrator_id: str, memory_ids: Sequence[str]) -> Query:
    params: list[Any] = [orchestrator_id]
    cond = _in("m.memory_id", list(memory_ids), params)
    # Trigger: without ANALYZE statistics SQLite walks an (orchestrator_id, …)
    # index — every row of the tenant — instead of the primary key.
    # Why: hydrating a search's 30 hits then cost ~6 ms at 10k rows, linear in size.
    # Outcome: the unary ``+`` keeps the scope condition but not as an index choice.
    return f"{SELECT_NODE} WHERE +m.orchestrator_id = ? AND {cond} ORDER BY m.memory_id", params


def rank_fields_query(orchestrator_id: str, memory_ids: Sequence[str]) -> Query:
    """The ranking columns of these memories (see :class:`~memvault.store.base.RankFields`).

    >>> rank_fields_query("acme", ["m1"])[0].split(" FROM ")[0]
    'SELECT memory_id, actor_id, importance, confidence, updated_at, created_at, conversation_id'
    """
    params: list[Any] = [orchestrator_id]
    cond = _in("memory_id", list(memory_ids), params)
    return (
        "SELECT memory_id, actor_id, importance, confidence, updated_at, created_at, "
        "conversation_id FROM memories "
        f"WHERE +orchestrator_id = ? AND {cond}",
        params,
    )


def fts_match_expression(terms: Sequence[str]) -> str:
    """An FTS5 ``MATCH`` string: every term quoted (no query syntax), OR-ed.

    >>> fts_match_expression(["coffee", "tea"])
    '"coffee" OR "tea"'
    """
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t.strip()]
    return " OR ".join(quoted)


def bm25_weights(column_weights: Mapping[str, float] | None) -> str:
    """The weight arguments of ``bm25()``: one per FTS column, in table order.

    >>> bm25_weights({"context": 0.25})
    '0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.25, 1.0'
    """
    weights = dict(column_weights or {})
    unknown = set(weights) - set(TEXT_COLUMNS)
    if unknown:
        raise ValueError(f"unknown full-text column(s): {sorted(unknown)}")
    values = [0.0, 0.0] + [float(weights.get(c, 1.0)) for c in TEXT_COLUMNS]
    return ", ".join(repr(v) for v in values)


def search_text_query(
    orchestrator_id: str, search: TextSearch, *, prefetch: int | None = None
) -> Query:
    """Full-text candidates with bm25 (lower is better; we negate it).

    The scope and every filter sit inside the query, so rows of another
    orchestrator or outside the filter are never returned. With
    ``prefetch`` the best ``prefetch`` matches are ranked first and filtered
    after; see :func:`_search_text_prefetch` for when that is exact.

    >>> tea = TextSearch(["tea"], NodeFilter(), 5)
    >>> "WITH ranked" in search_text_query("acme", tea, prefetch=50)[0]
    True
    """
    terms, limit, column_weights = search.terms, search.limit, search.column_weights
    where, params = filter_clause(orchestrator_id, search.filters)
    if prefetch is not None:
        return _search_text_prefetch(
            orchestrator_id, terms, where, params, limit, column_weights, prefetch
        )
    sql = (
        f"SELECT f.memory_id, -bm25(memory_fts, {bm25_weights(column_weights)}) AS score "
        "FROM memory_fts f "
        "JOIN memories m ON m.memory_id = f.memory_id "
        f"WHERE memory_fts MATCH ? AND f.orchestrator_id = ? AND {where} "
        "ORDER BY score DESC, f.memory_id LIMIT ?"
    )
    return sql, [fts_match_expression(terms), orchestrator_id, *params, limit]


def _search_text_prefetch(
    orchestrator_id: str,
    terms: Sequence[str],
    where: str,
    params: list[Any],
    limit: int,
    column_weights: Mapping[str, float] | None,
    prefetch: int,
) -> Query:
    # Trigger: a common query term matches thousands of rows.
    # Why: reading each match's stored columns (memory_id, orchestrator_id) and
    # joining it to ``memories`` costs ~10 µs a row — ≈40 ms for 4k matches at
    # 100k memories, more than bm25 itself, which needs only the index.
    # Outcome: rank rowids inside FTS5 first, then read and filter just the
    # best ``prefetch``. Exact when ``limit`` rows survive and the last of them
    # scores above the prefix's floor (returned as the third column): any
    # allowed row past the prefix ranks below it. Otherwise the store reruns
    # the plain query.
    sql = (
        "WITH ranked AS ("
        f"SELECT rowid AS rid, -bm25(memory_fts, {bm25_weights(column_weights)}) AS score "
        "FROM memory_fts WHERE memory_fts MATCH ? ORDER BY score DESC LIMIT ?) "
        "SELECT f.memory_id, r.score, (SELECT min(score) FROM ranked) AS floor "
        # CROSS JOIN fixes the order (prefix → its fts row → its memory by key);
        # left to itself the planner walks the scope index inside the loop.
        "FROM ranked r CROSS JOIN memory_fts f ON f.rowid = r.rid "
        "CROSS JOIN memories m ON m.memory_id = f.memory_id "
        f"WHERE f.orchestrator_id = ? AND {where} "
        "ORDER BY r.score DESC, f.memory_id LIMIT ?"
    )
    return sql, [fts_match_expression(terms), prefetch, orchestrator_id, *params, limit]


def filter_ids_query(orchestrator_id: str, f: NodeFilter) -> Query:
    """Ids of the nodes matching ``f`` (the vector leg's allowed set)."""
    where, params = filter_clause(orchestrator_id, f)
    return f"SELECT m.memory_id FROM memories m WHERE {where}", params


def node_params(node: MemoryNode) -> list[Any]:
    """Row values for ``memories`` in :data:`NODE_COLUMNS` order."""
    data = node.model_dump(mode="json", exclude={"source"})
    data["pinned"] = int(node.pinned)
    return [data[c] for c in NODE_COLUMNS]


def source_params(source: Source) -> list[Any]:
    data = source.model_dump(mode="json")
    return [data[c] for c in SOURCE_COLUMNS]


#: A tenant's last audit row, read by every write that records events (the next
#: ``prev_hash``, the ``audit_head``): one probe of ``history_seq`` (migration 9).
HISTORY_HEAD = "SELECT hash FROM history WHERE orchestrator_id = ? ORDER BY seq DESC LIMIT 1"
UPSERT_NODE = (
    f"INSERT INTO memories ({', '.join(NODE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in NODE_COLUMNS)}) "
    "ON CONFLICT (memory_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in NODE_COLUMNS if c != "memory_id")
    + " WHERE memories.orchestrator_id = excluded.orchestrator_id"
)
INSERT_SOURCE = (
    "INSERT INTO memory_sources (orchestrator_id, memory_id, is_primary, "
    f"{', '.join(SOURCE_COLUMNS)}, captured_at) "
    f"VALUES (?, ?, ?, {', '.join('?' for _ in SOURCE_COLUMNS)}, ?)"
)
