"""SQL both backends share: memories and their filters, the audit history, the change
log, revisions, readers' marks, edges and the store's identity.

Pure query builders (STYLE principle 3) and row readers; a backend binds its
parameter mark (``?`` for SQLite, ``%s`` for PostgreSQL). The columns are
selected by name in a fixed order, so a row reads by position on either.
:class:`~memvault.store.sql_reads.SqlReads` runs the reads for both stores;
the operational records (proposals, events, ingest records) are
:mod:`memvault.store.sql_records`'.

>>> count_nodes_query("acme", NodeFilter(), mark="%s")[0].split(" WHERE ")[1]
'm.orchestrator_id = %s AND m.status IN (%s)'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memvault.errors import MigrationError
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, StopReason
from memvault.model.node import PROVENANCE_FIELDS, MemoryEdge
from memvault.store.base import (
    SCALAR_FILTERS,
    ChangeRecord,
    HistoryEvent,
    NodeFilter,
)
from memvault.store.requests import ChangesQuery, HistoryQuery

__all__ = [
    "EDGE_COLUMNS",
    "KEY_INDEX",
    "LOOKUP_INDEXES",
    "NODE_COLUMNS",
    "SOURCE_COLUMNS",
    "TRIM",
    "WHITESPACE",
    "change_from_row",
    "changes_since_query",
    "count_nodes_query",
    "edge_from_row",
    "edge_params",
    "erase_reader_marks_query",
    "filter_clause",
    "history_from_row",
    "history_params",
    "history_query",
    "identity_query",
    "json_text",
    "list_nodes_query",
    "mark_thread_seen_query",
    "pending_migrations",
    "reader_marks_query",
    "revision_query",
    "select_node",
    "thread_seen_query",
    "visible_clause",
]

Query = tuple[str, list[Any]]

#: Lookups that scanned (both backends' migration; NOTE "seen and left alone" 4–5): the
#: derived index text lists a conversation's memories on every write
#: (``NodeFilter(conversation_id=…)``, newest first), and the inspector's Refusals
#: page reads the audit by ``op`` (newest first).
LOOKUP_INDEXES = """
CREATE INDEX IF NOT EXISTS memories_conversation
    ON memories (orchestrator_id, conversation_id, updated_at DESC);
CREATE INDEX IF NOT EXISTS history_op ON history (orchestrator_id, op, seq);
"""

#: A memory by its ``key`` (``NodeFilter(key=…)``; both backends' migration): the
#: LangGraph adapter's get and put of one item read the rows of that key, not every
#: row of the store (REVIEW 04:17, "O(n) per op").
KEY_INDEX = """
CREATE INDEX IF NOT EXISTS memories_key ON memories (orchestrator_id, key, updated_at DESC);
"""

#: ``memories`` columns, in the order both backends select and insert them.
NODE_COLUMNS: tuple[str, ...] = (
    "memory_id",
    "orchestrator_id",
    "project_id",
    "type",
    "category",
    "key",
    "value",
    "content",
    "summary",
    "importance",
    "confidence",
    "pinned",
    "status",
    "ttl_class",
    *PROVENANCE_FIELDS,
    "created_at",
    "updated_at",
    "last_accessed_at",
    "purge_at",
    "access_count",
)
SOURCE_COLUMNS: tuple[str, ...] = (
    "source_type",
    "captured_by",
    "source_kind",
    "source_path",
    "conversation_id",
    "workflow_run_id",
    "step_id",
    "source_ref",
)


def select_node(primary_source: str) -> str:
    """``SELECT`` of node rows (``m``) with their primary source (``s``, as ``s_*``);
    ``primary_source`` is the backend's join condition for that source row.

    >>> select_node("s.memory_id = m.memory_id").split(" FROM ")[1]
    'memories m JOIN memory_sources s ON s.memory_id = m.memory_id'
    """
    return (
        "SELECT "
        + ", ".join(f"m.{c}" for c in NODE_COLUMNS)
        + ", "
        + ", ".join(f"s.{c} AS s_{c}" for c in SOURCE_COLUMNS)
        + f" FROM memories m JOIN memory_sources s ON {primary_source}"
    )


#: ``(version, description, sql)`` of a schema migration.
Migration = tuple[int, str, str]


def pending_migrations(
    applied: set[int], migrations: Sequence[Migration], where: str
) -> list[Migration]:
    """The migrations not applied yet, in order; a database with a version this memvault
    does not know is newer than it, and refused.

    >>> pending_migrations({1}, [(1, "initial", ""), (2, "index", "")], "memory.db")
    [(2, 'index', '')]
    """
    if applied - {version for version, _, _ in migrations}:
        raise MigrationError(
            f"{where} has schema version {max(applied)}, newer than this memvault",
            hint="upgrade memvault",
        )
    return [m for m in migrations if m[0] not in applied]


def _in(column: str, values: Sequence[Any], mark: str, params: list[Any]) -> str:
    """``column IN (?, …)``, appending ``values``; none is ``IN (NULL)`` (matches nothing)."""
    params.extend(values)
    return f"{column} IN ({', '.join(mark for _ in values) or 'NULL'})"


# -- filters ------------------------------------------------------------------------


def visible_clause(users: Sequence[str], params: list[Any], alias: str = "m", *, mark: str) -> str:
    """The user scope (store/scope.py) as one condition; appends its parameters.

    Trigger: the read serves one user's turn or query.
    Why: that user's memories and shared ones, never another user's.
    Outcome: ``(user_id IN (…) OR user_id IS NULL)``; no users → shared only.

    >>> visible_clause(["u1"], [], mark="?")
    '(m.user_id IN (?) OR m.user_id IS NULL)'
    """
    shared = f"{alias}.user_id IS NULL"
    if not users:
        return shared
    return f"({_in(f'{alias}.user_id', list(users), mark, params)} OR {shared})"


def seen_memories(
    column: str, orchestrator_id: str, users: Sequence[str], params: list[Any], *, mark: str
) -> str:
    """``column`` names a stored memory (any status) that ``users``' scope may see
    (:func:`visible_clause`); appends the parameters. A purged memory is none.

    >>> seen_memories("c.memory_id", "acme", ["u1"], [], mark="?").split(" WHERE ")[1]
    'm.orchestrator_id = ? AND (m.user_id IN (?) OR m.user_id IS NULL))'
    """
    params.append(orchestrator_id)
    scope = visible_clause(users, params, mark=mark)
    return (
        f"{column} IN (SELECT m.memory_id FROM memories m"
        f" WHERE m.orchestrator_id = {mark} AND {scope})"
    )


#: The characters ``str.strip()`` removes (as ``clean_user_id`` trims), for SQL's trim.
WHITESPACE = "".join(chr(c) for c in range(0x3000 + 1) if chr(c).isspace())
#: SQL's trim with a character set, by parameter mark: SQLite's ``trim(x, y)``,
#: PostgreSQL's ``btrim(x, y)``.
TRIM = {"?": "trim", "%s": "btrim"}


def filter_clause(orchestrator_id: str, f: NodeFilter, alias: str = "m", *, mark: str) -> Query:
    """``WHERE`` conditions (without the keyword) for ``f`` on table ``alias``: one
    translation of :class:`NodeFilter` for both SQL backends.

    Trigger: PostgreSQL plans ``status = ANY(array)`` as a filter, not an index order.
    Why: one status (the usual "active") as an equality makes
    ``(orchestrator_id, status, updated_at DESC, memory_id)`` an index whose order
    serves "newest first", and a ``LIMIT`` stops early (measured: a bulletin section
    at 10k memories 14–24 ms → ~1 ms).
    Outcome: lists are ``IN (…)``, and PostgreSQL reads a one-element ``IN`` as ``=``.

    >>> filter_clause("acme", NodeFilter(user_id="u1"), mark="%s")
    ('m.orchestrator_id = %s AND m.status IN (%s) AND m.user_id = %s', ['acme', 'active', 'u1'])
    >>> filter_clause("acme", NodeFilter(visible_to="u1"), mark="?")[0]
    'm.orchestrator_id = ? AND m.status IN (?) AND (m.user_id IN (?) OR m.user_id IS NULL)'
    """
    params: list[Any] = [orchestrator_id]
    parts = [
        f"{alias}.orchestrator_id = {mark}",
        _in(f"{alias}.status", [s.value for s in f.status], mark, params),
    ]
    for name in SCALAR_FILTERS:
        value = getattr(f, name)
        if value is not None:
            column = f"{alias}.{name}"
            if name == "user_id" and f.padded_too:  # erasure/export: 'dana ' stored before
                column = f"{TRIM[mark]}({column}, {mark})"
                params.append(WHITESPACE)
            parts.append(f"{column} = {mark}")
            params.append(value)
    if f.visible_to is not None:
        parts.append(visible_clause(f.visible_to, params, alias, mark=mark))
    if f.type is not None:
        parts.append(_in(f"{alias}.type", [t.value for t in f.type], mark, params))
    if f.category is not None:
        parts.append(_in(f"{alias}.category", list(f.category), mark, params))
    for column, op, value in (
        ("pinned", "=", f.pinned),
        ("importance", ">=", f.importance_min),
        ("importance", "<=", f.importance_max),
        ("updated_at", ">", f.updated_after),
        ("updated_at", "<", f.updated_before),
    ):
        if value is not None:
            parts.append(f"{alias}.{column} {op} {mark}")
            params.append(value)
    return " AND ".join(parts), params


# -- the audit history ------------------------------------------------------------

_HISTORY_FIELDS = (
    "event_id",
    "orchestrator_id",
    "op",
    "at",
    "memory_id",
    "stop_reason",
    "actor",
    "detector",
    "detail",
    "prev_hash",
    "hash",
)


def list_nodes_query(
    orchestrator_id: str, f: NodeFilter, limit: int, offset: int, *, select: str, mark: str
) -> Query:
    """Filtered nodes, newest ``updated_at`` first, ties by ``memory_id`` (``select``: the
    backend's node ``SELECT``, :func:`select_node`).

    >>> select = select_node("s.memory_id = m.memory_id")
    >>> list_nodes_query("acme", NodeFilter(), 10, 0, select=select, mark="%s")[0][-30:]
    'm.memory_id LIMIT %s OFFSET %s'
    """
    where, params = filter_clause(orchestrator_id, f, mark=mark)
    order = f"ORDER BY m.updated_at DESC, m.memory_id LIMIT {mark} OFFSET {mark}"
    return f"{select} WHERE {where} {order}", [*params, limit, offset]


def count_nodes_query(orchestrator_id: str, f: NodeFilter, *, mark: str) -> Query:
    """How many nodes match ``f`` in the orchestrator.

    >>> count_nodes_query("acme", NodeFilter(), mark="?")[0]
    'SELECT COUNT(*) FROM memories m WHERE m.orchestrator_id = ? AND m.status IN (?)'
    """
    where, params = filter_clause(orchestrator_id, f, mark=mark)
    return f"SELECT COUNT(*) FROM memories m WHERE {where}", params


def history_query(orchestrator_id: str, query: HistoryQuery, *, mark: str) -> Query:
    """Audit events in write order (or newest first), optionally only some ops, only
    those a reader may see (``visible_to``) and only those after an event (``after``).

    Trigger: a key bound to no user pages the orchestrator's audit events (S10-R10).
    Why: reading every event and filtering in Python after an ``OFFSET`` stepped over
      the earlier rows again for each chunk (quadratic in the events held).
    Outcome: the user scope is a condition of the query (a memory of the reader's or
      shared, or no memory), and ``after`` is a keyset on ``seq`` — each page reads
      the rows it returns and the ones the scope skips, never those of earlier pages.

    >>> history_query("acme", HistoryQuery(limit=10), mark="?")[1]
    ['acme', 10, 0]
    >>> refusals = HistoryQuery(limit=5, ops=[HistoryOp.REFUSE], newest_first=True)
    >>> history_query("acme", refusals, mark="%s")[0].split(" WHERE ")[1]
    'orchestrator_id = %s AND op IN (%s) ORDER BY seq DESC LIMIT %s OFFSET %s'
    >>> shared = HistoryQuery(limit=5, newest_first=True, visible_to=(), after="e9")
    >>> history_query("acme", shared, mark="?")[1]
    ['acme', 'acme', 'acme', 'e9', 5, 0]
    """
    sql = f"SELECT {', '.join(_HISTORY_FIELDS)} FROM history WHERE orchestrator_id = {mark}"
    params: list[Any] = [orchestrator_id]
    if query.memory_id is not None:
        sql += f" AND memory_id = {mark}"
        params.append(query.memory_id)
    if query.ops is not None:
        sql += " AND " + _in("op", [op.value for op in query.ops], mark, params)
    if query.visible_to is not None:
        # Any status (a deleted memory's events are still its owner's); a purged one's
        # row is gone, so its events (owner unknown) are left out.
        owned = seen_memories("memory_id", orchestrator_id, query.visible_to, params, mark=mark)
        sql += f" AND (memory_id IS NULL OR {owned})"
    order = "DESC" if query.newest_first else "ASC"
    if query.after is not None:
        # an unknown event gives NULL: no row compares with it, the page is empty
        sql += (
            f" AND seq {'<' if query.newest_first else '>'} (SELECT h.seq FROM history h"
            f" WHERE h.orchestrator_id = {mark} AND h.event_id = {mark})"
        )
        params += [orchestrator_id, query.after]
    sql += f" ORDER BY seq {order} LIMIT {mark} OFFSET {mark}"
    return sql, [*params, query.limit, query.offset]


def history_from_row(row: Sequence[Any]) -> HistoryEvent:
    """A :class:`HistoryEvent` from a row of :func:`history_query`."""
    data = dict(zip(_HISTORY_FIELDS, row, strict=True))
    detail, stop = data["detail"], data["stop_reason"]
    data.update(
        op=HistoryOp(data["op"]),
        stop_reason=StopReason(stop) if stop else None,
        # SQLite keeps the JSON text; PostgreSQL's json column arrives decoded.
        detail=json.loads(detail) if isinstance(detail, str) else detail,
    )
    return HistoryEvent(**data)


def history_params(orch: str, event: HistoryEvent, prev_hash: str, digest: str) -> list[Any]:
    """Row values of ``event`` for either backend's history insert (``detail`` as exact
    JSON text, the columns of ``INSERT INTO history (event_id, orchestrator_id, memory_id,
    op, stop_reason, actor, detector, detail, at, prev_hash, hash)``)."""
    return [
        event.event_id,
        orch,
        event.memory_id,
        event.op.value,
        event.stop_reason.value if event.stop_reason else None,
        event.actor,
        event.detector,
        json_text(event.detail),
        event.at,
        prev_hash,
        digest,
    ]


# -- the change log, revisions, what a thread has seen ----------------------------


def changes_since_query(orchestrator_id: str, query: ChangesQuery, *, mark: str) -> Query:
    """Change-log rows after ``revision``; with ``visible_to``, only the reader's memories'
    (theirs and shared ones, store/scope.py); with ``newest``, only that many of the
    latest (still oldest first).

    >>> changes_since_query("acme", ChangesQuery(3, ("u1",)), mark="%s")[1]
    ['acme', 3, 'acme', 'u1']
    >>> changes_since_query("acme", ChangesQuery(3, ()), mark="?")[0].count("user_id IS NULL")
    1
    >>> changes_since_query("acme", ChangesQuery(3, newest=64), mark="?")[1]
    ['acme', 3, 64]
    """
    sql = (
        "SELECT c.revision, c.thread_id, c.memory_id, c.kind, c.summary, c.at, c.seq"
        f" FROM change_log c WHERE c.orchestrator_id = {mark} AND c.revision > {mark}"
    )
    params: list[Any] = [orchestrator_id, query.revision]
    if query.visible_to is not None:
        # Any status: a deleted memory's bullet is still its owner's news.
        sql += " AND " + seen_memories(
            "c.memory_id", orchestrator_id, query.visible_to, params, mark=mark
        )
    if query.newest is None:
        return sql + " ORDER BY c.revision, c.seq", params
    sql = f"SELECT * FROM ({sql} ORDER BY c.revision DESC, c.seq DESC LIMIT {mark}) latest"
    return sql + " ORDER BY revision, seq", [*params, query.newest]


def change_from_row(row: Sequence[Any]) -> ChangeRecord:
    """A :class:`ChangeRecord` from a row of :func:`changes_since_query`."""
    return ChangeRecord(int(row[0]), row[1], row[2], ChangeKind(row[3]), row[4], row[5])


def revision_query(orchestrator_id: str, *, mark: str) -> Query:
    """The orchestrator's head revision (the ``'*'`` thread's row; none before a write)."""
    sql = f"SELECT revision FROM thread_revision WHERE orchestrator_id = {mark} AND thread_id = '*'"
    return sql, [orchestrator_id]


def thread_seen_query(orchestrator_id: str, thread_id: str, reader: str, *, mark: str) -> Query:
    """The revision ``reader`` last saw in ``thread_id`` (no row: never marked).

    >>> thread_seen_query("acme", "t1", "shared", mark="?")[1]
    ['acme', 't1', 'shared']
    """
    sql = (
        f"SELECT revision FROM thread_seen WHERE orchestrator_id = {mark}"
        f" AND thread_id = {mark} AND reader = {mark}"
    )
    return sql, [orchestrator_id, thread_id, reader]


def mark_thread_seen_query(
    orchestrator_id: str, thread_id: str, reader: str, revision: int, *, mark: str
) -> Query:
    """Record that ``reader`` has seen ``revision`` in ``thread_id``; a mark never moves back.

    The same statement on SQLite and PostgreSQL (an upsert with a ``WHERE``).

    >>> "WHERE excluded.revision > thread_seen.revision" in mark_thread_seen_query(
    ...     "acme", "t1", "shared", 3, mark="?")[0]
    True
    """
    sql = (
        "INSERT INTO thread_seen (orchestrator_id, thread_id, reader, revision)"
        f" VALUES ({mark}, {mark}, {mark}, {mark})"
        " ON CONFLICT (orchestrator_id, thread_id, reader) DO UPDATE"
        " SET revision = excluded.revision WHERE excluded.revision > thread_seen.revision"
    )
    return sql, [orchestrator_id, thread_id, reader, revision]


def reader_marks_query(orchestrator_id: str, reader: str, *, mark: str) -> Query:
    """Every ``(thread_id, revision)`` mark of ``reader``, by thread id (right of access).

    >>> reader_marks_query("acme", "u-1", mark="?")[1]
    ['acme', 'u-1']
    """
    sql = (
        f"SELECT thread_id, revision FROM thread_seen WHERE orchestrator_id = {mark}"
        f" AND reader = {mark} ORDER BY thread_id"
    )
    return sql, [orchestrator_id, reader]


def erase_reader_marks_query(orchestrator_id: str, reader: str, *, mark: str) -> Query:
    """Delete every thread mark of ``reader`` (right to erasure).

    >>> erase_reader_marks_query("acme", "u-1", mark="%s")
    ('DELETE FROM thread_seen WHERE orchestrator_id = %s AND reader = %s', ['acme', 'u-1'])
    """
    sql = f"DELETE FROM thread_seen WHERE orchestrator_id = {mark} AND reader = {mark}"
    return sql, [orchestrator_id, reader]


# -- edges ------------------------------------------------------------------------

#: The ``memory_edges`` columns, in the order :func:`edge_params` and
#: :func:`edge_from_row` use.
EDGE_COLUMNS = (
    "edge_id",
    "orchestrator_id",
    "from_memory_id",
    "to_memory_id",
    "edge_type",
    "weight",
    "reason",
    "resolved",
    "created_at",
)


def edge_params(edge: MemoryEdge) -> list[Any]:
    """Row values of ``edge`` in :data:`EDGE_COLUMNS` order (either backend's upsert)."""
    data = edge.model_dump(mode="json")
    return [data[c] for c in EDGE_COLUMNS]


def edge_from_row(row: Sequence[Any]) -> MemoryEdge:
    """A :class:`MemoryEdge` from a row of :data:`EDGE_COLUMNS` (SQLite's 0/1 ``resolved``
    is a bool again)."""
    data = dict(zip(EDGE_COLUMNS, row, strict=True))
    return MemoryEdge(
        **{**data, "edge_type": EdgeType(data["edge_type"]), "resolved": bool(data["resolved"])}
    )


# -- store identity (matched against memory.anchor.json) ---------------------------


def identity_query(orchestrator_id: str, *, mark: str) -> Query:
    """The recorded identity with the live audit head and revision (no row: none)."""
    sql = (
        "SELECT i.store_uuid, i.created_at, coalesce(h.events, 0), h.head_hash, "
        "coalesce(r.revision, 0) FROM store_identity i "
        "LEFT JOIN audit_head h ON h.orchestrator_id = i.orchestrator_id "
        "LEFT JOIN thread_revision r ON r.orchestrator_id = i.orchestrator_id "
        f"AND r.thread_id = '*' WHERE i.orchestrator_id = {mark}"
    )
    return sql, [orchestrator_id]


# -- row values both backends write -----------------------------------------------


def json_text(data: Any) -> str:
    """``data`` as the JSON text both backends store (sorted keys, unescaped text)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False)
