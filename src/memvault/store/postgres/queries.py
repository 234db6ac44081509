"""Pure functions that build PostgreSQL SQL (STYLE principle 3: build, then run).

Nothing here touches a connection: each builder returns ``(sql, params)``
with psycopg ``%s`` placeholders, so a unit test (or ``--explain``) can read
the exact query. The orchestrator and every :class:`NodeFilter` condition are
inside the SQL; nothing is filtered in Python afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from memvault.errors import ConfigError
from memvault.model.node import MemoryNode, Source
from memvault.store import sql as shared_sql
from memvault.store.base import (
    TEXT_COLUMNS,
    ChangeEntry,
    IndexText,
    NodeFilter,
)
from memvault.store.postgres.schema import (
    TEXT_SEARCH_CONFIG,
    TSV_MATCH,
    normalised,
    tsv_column,
)
from memvault.store.requests import TextSearch
from memvault.store.sql import EDGE_COLUMNS, NODE_COLUMNS, SOURCE_COLUMNS

__all__ = [
    "ANALYZE_SEARCHED",
    "NODE_COLUMNS",
    "SOURCE_COLUMNS",
    "Query",
    "change_params",
    "edges_of_query",
    "filter_clause",
    "filter_ids_query",
    "get_nodes_query",
    "index_text_params",
    "lock_and_bump_query",
    "missing_embeddings_query",
    "node_params",
    "rank_expression",
    "rank_fields_query",
    "search_text_query",
    "source_params",
    "tsquery_expression",
]

Query = tuple[str, list[Any]]

SELECT_NODE = shared_sql.select_node(
    "s.orchestrator_id = m.orchestrator_id AND s.memory_id = m.memory_id AND s.is_primary"
)


def filter_clause(orchestrator_id: str, f: NodeFilter, alias: str = "m") -> Query:
    """``WHERE`` conditions for ``f`` with psycopg's marks (:func:`.sql.filter_clause`).

    >>> filter_clause("acme", NodeFilter(visible_to=()))[0]
    'm.orchestrator_id = %s AND m.status IN (%s) AND m.user_id IS NULL'
    """
    return shared_sql.filter_clause(orchestrator_id, f, alias, mark="%s")


def get_nodes_query(orchestrator_id: str, memory_ids: Sequence[str]) -> Query:
    """Nodes by id inside one orchestrator, in id order (one array parameter).

    >>> get_nodes_query("acme", ["b", "a"])[1]
    ['acme', ['b', 'a']]
    """
    sql = (
        f"{SELECT_NODE} WHERE m.orchestrator_id = %s AND m.memory_id = ANY(%s) ORDER BY m.memory_id"
    )
    return sql, [orchestrator_id, list(memory_ids)]


def rank_fields_query(orchestrator_id: str, memory_ids: Sequence[str]) -> Query:
    """The ranking columns of these memories (see :class:`~memvault.store.base.RankFields`).

    >>> rank_fields_query("acme", ["m1"])[1]
    ['acme', ['m1']]
    """
    sql = (
        "SELECT memory_id, actor_id, importance, confidence, updated_at, created_at, "
        "conversation_id FROM memories "
        "WHERE orchestrator_id = %s AND memory_id = ANY(%s)"
    )
    return sql, [orchestrator_id, list(memory_ids)]


def edges_of_query(orchestrator_id: str, memory_ids: Sequence[str]) -> Query:
    """Every edge touching one of ``memory_ids``, ordered by ``created_at, edge_id``.

    >>> "ORDER BY created_at, edge_id" in edges_of_query("acme", ["a"])[0]
    True
    """
    ids = list(memory_ids)
    sql = (
        f"SELECT {', '.join(EDGE_COLUMNS)} FROM memory_edges WHERE orchestrator_id = %s"
        " AND (from_memory_id = ANY(%s) OR to_memory_id = ANY(%s))"
        " ORDER BY created_at, edge_id"
    )
    return sql, [orchestrator_id, ids, ids]


def tsquery_expression(terms: Sequence[str]) -> Query:
    """A tsquery that matches any of ``terms`` (OR), each term taken as data.

    Every term becomes ``phraseto_tsquery`` of its punctuation-normalised
    text: quotes, ``OR``, ``&``, ``!`` or ``NEAR(`` inside a term are words or
    separators, never operators (as SQLite's quoted FTS5 terms). Blank terms
    are dropped.

    >>> sql, params = tsquery_expression(["coffee", "tea"])
    >>> sql.count("phraseto_tsquery"), params
    (2, ['coffee', 'tea'])
    """
    kept = [t for t in terms if t.strip()]
    one = f"phraseto_tsquery('{TEXT_SEARCH_CONFIG}', {normalised('%s')})"
    return "(" + " || ".join(one for _ in kept) + ")", kept


def rank_expression(column_weights: Mapping[str, float] | None, query: str = "q.query") -> str:
    """The score: per-column ``ts_rank`` summed with the column weights.

    Missing columns weigh 1.0; a column weighing 0 is left out (a row that
    matches only there scores 0 and is not a hit, as in the reference store).

    >>> rank_expression({"key": 0, "value": 0, "summary": 0, "subject": 0, "context": 0,
    ...                  "date": 0.5})
    '(1.0 * ts_rank(m.tsv_content, q.query) + 0.5 * ts_rank(m.tsv_date, q.query))'
    """
    weights = dict(column_weights or {})
    unknown = set(weights) - set(TEXT_COLUMNS)
    if unknown:
        raise ConfigError(
            f"unknown full-text column(s): {sorted(unknown)}",
            hint=f"use {', '.join(TEXT_COLUMNS)}",
        )
    parts = []
    for column in TEXT_COLUMNS:
        weight = float(weights.get(column, 1.0))
        if not math.isfinite(weight) or weight < 0:
            raise ConfigError(f"full-text weight of {column!r} must be finite and >= 0")
        if weight > 0:
            parts.append(f"{weight!r} * ts_rank(m.{tsv_column(column)}, {query})")
    return "(" + (" + ".join(parts) or "0.0") + ")"


def search_text_query(orchestrator_id: str, search: TextSearch) -> Query:
    """Full-text candidates: GIN-indexed ``@@``, scored by weighted ``ts_rank``.

    Higher is better; only rows scoring above 0 are hits. The scope and every
    filter sit inside the query, so rows of another orchestrator or outside
    the filter are never candidates.

    >>> sql, params = search_text_query("acme", TextSearch(["tea"], NodeFilter(), 5))
    >>> params
    ['tea', 'acme', 'active', 5]
    """
    tsquery, term_params = tsquery_expression(search.terms)
    where, params = filter_clause(orchestrator_id, search.filters)
    sql = (
        "SELECT memory_id, score FROM ("
        f"SELECT m.memory_id, {rank_expression(search.column_weights)} AS score "
        f"FROM memories m, (SELECT {tsquery} AS query) q "
        f"WHERE m.{TSV_MATCH} @@ q.query AND {where}"
        ") hits WHERE score > 0 ORDER BY score DESC, memory_id LIMIT %s"
    )
    return sql, [*term_params, *params, search.limit]


#: Statistics of the tables searches plan over (run after bulk writes, see the store).
ANALYZE_SEARCHED = "ANALYZE memories, memory_sources, memory_embeddings"


def filter_ids_query(orchestrator_id: str, f: NodeFilter) -> Query:
    """Ids of the nodes matching ``f``.

    >>> filter_ids_query("acme", NodeFilter())[0]
    'SELECT m.memory_id FROM memories m WHERE m.orchestrator_id = %s AND m.status IN (%s)'
    """
    where, params = filter_clause(orchestrator_id, f)
    return f"SELECT m.memory_id FROM memories m WHERE {where}", params


def missing_embeddings_query(orchestrator_id: str, model_id: str, limit: int) -> Query:
    """Non-deleted nodes without a vector in ``model_id``, oldest first (the backfill queue).

    >>> missing_embeddings_query("acme", "m1", 5)[1]
    ['acme', 'm1', 5]
    """
    sql = (
        f"{SELECT_NODE} WHERE m.orchestrator_id = %s AND m.status <> 'soft_deleted' "
        "AND NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.orchestrator_id = "
        "m.orchestrator_id AND e.memory_id = m.memory_id AND e.model_id = %s) "
        "ORDER BY m.created_at, m.memory_id LIMIT %s"
    )
    return sql, [orchestrator_id, model_id, limit]


def lock_and_bump_query(orchestrator_id: str, bump: bool) -> Query:
    """Take the orchestrator's write lock and bump its revision in one statement.

    Trigger: two transactions writing to the same orchestrator at once.
    Why: the history hash chain needs the previous row's hash, and the
    revision must move by exactly one per write; both race under READ
    COMMITTED if two writers read the same head.
    Outcome: every write starts with this upsert on the orchestrator's
    ``thread_revision`` row ('*'), which holds a row lock until commit, so
    writers of one orchestrator queue (like SQLite's single writer) while
    writers of different orchestrators run in parallel. ``bump=False`` (an
    audit-only write) locks without moving the revision.

    >>> lock_and_bump_query("acme", True)[1]
    ['acme', 1, 1]
    """
    step = 1 if bump else 0
    sql = (
        "INSERT INTO thread_revision AS t (orchestrator_id, thread_id, revision) "
        "VALUES (%s, '*', %s) ON CONFLICT (orchestrator_id, thread_id) "
        "DO UPDATE SET revision = t.revision + %s RETURNING revision"
    )
    return sql, [orchestrator_id, step, step]


def node_params(node: MemoryNode) -> list[Any]:
    """Row values for ``memories`` in :data:`NODE_COLUMNS` order."""
    data = node.model_dump(mode="json", exclude={"source"})
    data["pinned"] = bool(node.pinned)
    return [data[c] for c in NODE_COLUMNS]


def source_params(orch: str, memory_id: str, source: Source, at: str, primary: bool) -> list[Any]:
    """Row values for :data:`INSERT_SOURCE`."""
    data = source.model_dump(mode="json")
    return [orch, memory_id, primary, *(data[c] for c in SOURCE_COLUMNS), at]


def index_text_params(orch: str, memory_id: str, extra: IndexText) -> list[Any]:
    """Row values for :data:`SET_INDEX_TEXT`."""
    return [extra.subject, extra.context, extra.date, orch, memory_id]


def change_params(
    orch: str, revision: int, seq: int, thread_id: str, change: ChangeEntry, at: str
) -> list[Any]:
    """Row values for :data:`INSERT_CHANGE`."""
    return [orch, revision, seq, thread_id, change.memory_id, change.kind.value, change.summary, at]


UPSERT_NODE = (
    f"INSERT INTO memories ({', '.join(NODE_COLUMNS)}) "
    f"VALUES ({', '.join('%s' for _ in NODE_COLUMNS)}) "
    "ON CONFLICT (orchestrator_id, memory_id) DO UPDATE SET "
    + ", ".join(
        f"{c} = excluded.{c}" for c in NODE_COLUMNS if c not in ("memory_id", "orchestrator_id")
    )
)
#: The primary source is written with every upsert and ignored when one exists
#: (the partial unique index ``memory_sources_one_primary`` is the arbiter), so
#: a node keeps the provenance it was first written with.
INSERT_SOURCE = (
    "INSERT INTO memory_sources (orchestrator_id, memory_id, is_primary, "
    f"{', '.join(SOURCE_COLUMNS)}, captured_at) "
    f"VALUES (%s, %s, %s, {', '.join('%s' for _ in SOURCE_COLUMNS)}, %s) "
    "ON CONFLICT (orchestrator_id, memory_id) WHERE is_primary DO NOTHING"
)
SET_INDEX_TEXT = (
    "UPDATE memories SET idx_subject = %s, idx_context = %s, idx_date = %s "
    "WHERE orchestrator_id = %s AND memory_id = %s"
)
EXISTING_IDS = "SELECT memory_id FROM memories WHERE orchestrator_id = %s AND memory_id = ANY(%s)"
UPSERT_EDGE = (
    "INSERT INTO memory_edges (edge_id, orchestrator_id, from_memory_id, to_memory_id,"
    " edge_type, weight, reason, resolved, created_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (orchestrator_id, edge_id) DO UPDATE SET weight = excluded.weight, "
    "reason = excluded.reason, resolved = excluded.resolved"
)
HISTORY_HEAD = "SELECT hash FROM history WHERE orchestrator_id = %s ORDER BY seq DESC LIMIT 1"
INSERT_EVENT = (
    "INSERT INTO history (event_id, orchestrator_id, memory_id, op, stop_reason, actor,"
    " detector, detail, at, prev_hash, hash) VALUES (%s,%s,%s,%s,%s,%s,%s,%s::json,%s,%s,%s)"
)
INSERT_CHANGE = (
    "INSERT INTO change_log (orchestrator_id, revision, seq, thread_id, memory_id, kind,"
    " summary, at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)"
)
COUNT_BY_STATUS = "SELECT status, count(*) FROM memories WHERE orchestrator_id = %s GROUP BY status"
COUNT_BY_TYPE = "SELECT type, count(*) FROM memories WHERE orchestrator_id = %s GROUP BY type"
COUNT_EDGES = (
    "SELECT edge_type, count(*) FROM memory_edges WHERE orchestrator_id = %s GROUP BY edge_type"
)
COUNT_HISTORY = "SELECT count(*) FROM history WHERE orchestrator_id = %s"
