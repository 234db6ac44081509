"""The rows of one write set, written on the writer's connection inside its transaction.

:meth:`SQLiteStore.apply <memvault.store.sqlite.store.SQLiteStore.apply>` opens the
transaction, calls :func:`write_rows`, the lifecycle part
(:mod:`memvault.store.sqlite.lifecycle`) and :func:`bump_revision`, and after the
commit lets its in-memory indexes follow. Nothing here holds state: each function
runs statements on the connection it is given.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from memvault.errors import DuplicateEdgeError, ScopeViolationError, StoreError
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.base import (
    GENESIS_HASH,
    EmbeddingRow,
    HistoryEvent,
    IndexText,
    IngestRecord,
    RankFields,
    WriteSet,
    chain_hash,
)
from memvault.store.sql import edge_params, history_params
from memvault.store.sql_records import ingest_params
from memvault.store.sqlite import queries as q
from memvault.store.sqlite.textindex import TextRow
from memvault.store.sqlite.vectors import encode_vector

__all__ = ["bump_revision", "fts_texts", "insert_events", "write_rows"]


def write_rows(conn: sqlite3.Connection, write: WriteSet) -> list[TextRow]:
    """Nodes, sources, edges, embeddings, ingest records and events of ``write``.

    Returns the full-text rows written, for the in-memory text index to follow
    once the transaction commits.
    """
    orch = write.orchestrator_id
    extras = dict(write.index_texts)
    text_rows: list[TextRow] = []
    fresh = new_nodes(conn, write.nodes)
    if fresh:  # a bulk write of new memories: each statement once for all rows
        text_rows.extend(insert_new_nodes(conn, write.nodes, write.at, extras))
    else:
        for node in write.nodes:
            text_rows.append(upsert_node(conn, node, write.at, extras.get(node.memory_id)))
    for memory_id, source in write.extra_sources:
        insert_source(conn, orch, memory_id, source, write.at, primary=False)
    for edge in write.edges:
        insert_edge(conn, edge)
    if fresh:
        insert_embeddings(conn, orch, write.embeddings, write.at)
    else:
        for row in write.embeddings:
            insert_embedding(conn, orch, row, write.at)
    for record in write.ingest_records:
        upsert_ingest_record(conn, orch, record)
    insert_events(conn, orch, write.events)
    return text_rows


def fts_texts(node: MemoryNode, extra: IndexText) -> tuple[str, ...]:
    """A memory's full-text columns: content, key, value, summary, subject, context, date."""
    return (
        node.content,
        node.key,
        node.value,
        node.summary,
        extra.subject,
        extra.context,
        extra.date,
    )


def new_nodes(conn: sqlite3.Connection, nodes: Sequence[MemoryNode]) -> bool:
    """True when ``nodes`` are several distinct memories none of which is stored yet.

    Trigger: a bulk write (``add_many``, an ingest file) of new memories.
    Why: five statements a node, each a Python call, were a tenth of a bulk
      load's time in this process.
    Outcome: such a write takes :func:`insert_new_nodes` (one ``executemany``
      per statement); anything else — a merge touch, an update, one node —
      the per-node path, unchanged.
    """
    ids = [n.memory_id for n in nodes]
    if len(ids) < 2 or len(set(ids)) != len(ids):
        return False
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        found = conn.execute(
            f"SELECT 1 FROM memories WHERE memory_id IN ({marks}) LIMIT 1", chunk
        ).fetchone()
        if found is not None:
            return False
    return True


def insert_new_nodes(
    conn: sqlite3.Connection,
    nodes: Sequence[MemoryNode],
    at: str,
    extras: Mapping[str, IndexText],
) -> list[TextRow]:
    """:func:`upsert_node` of memories none of which exists: the same rows, batched.

    Full-text rows get the rowids the per-node inserts would get (one past the
    largest, in order), so ``memory_fts_rows`` can be written in one go too.
    """
    conn.executemany(q.UPSERT_NODE, [q.node_params(n) for n in nodes])
    conn.executemany(
        q.INSERT_SOURCE,
        [[n.orchestrator_id, n.memory_id, 1, *q.source_params(n.source), at] for n in nodes],
    )
    top = conn.execute("SELECT max(rowid) FROM memory_fts").fetchone()
    first = int(top[0] or 0) + 1 if top else 1
    rows: list[TextRow] = []
    params: list[tuple[Any, ...]] = []
    for offset, node in enumerate(nodes):
        texts = fts_texts(node, extras.get(node.memory_id) or IndexText())
        rowid = first + offset
        params.append((rowid, node.memory_id, node.orchestrator_id, *texts))
        rows.append(
            TextRow(
                rowid,
                node.memory_id,
                node.orchestrator_id,
                node.status.value,
                texts,
                RankFields.of(node),
            )
        )
    conn.executemany(
        "INSERT INTO memory_fts (rowid, memory_id, orchestrator_id, content, key, value,"
        " summary, subject, context, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        params,
    )
    conn.executemany(
        "INSERT OR REPLACE INTO memory_fts_rows (memory_id, fts_rowid) VALUES (?, ?)",
        [(p[1], p[0]) for p in params],
    )
    return rows


def insert_embeddings(
    conn: sqlite3.Connection, orch: str, rows: Sequence[EmbeddingRow], at: str
) -> None:
    """:func:`insert_embedding` of many rows: the same checks and rows, batched."""
    if not rows:
        return
    ids = sorted({r.memory_id for r in rows})
    owners: dict[str, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        owners.update(
            conn.execute(
                f"SELECT memory_id, orchestrator_id FROM memories WHERE memory_id IN ({marks})",
                chunk,
            ).fetchall()
        )
    stored: list[tuple[Any, ...]] = []
    cached: list[tuple[Any, ...]] = []
    for row in rows:
        if owners.get(row.memory_id) != orch:
            raise StoreError(f"memory {row.memory_id!r} does not exist in this orchestrator")
        blob = encode_vector(row.vector)
        dim = int(np.asarray(row.vector).shape[0])
        stored.append((orch, row.memory_id, row.model_id, dim, blob, row.text_sha256, at))
        if row.cache:
            cached.append((row.model_id, row.text_sha256, dim, blob))
    conn.executemany(
        "INSERT OR REPLACE INTO memory_embeddings (orchestrator_id, memory_id, model_id, dim,"
        " vector, text_sha256, created_at) VALUES (?,?,?,?,?,?,?)",
        stored,
    )
    conn.executemany(
        "INSERT OR IGNORE INTO embedding_cache (model_id, text_sha256, dim, vector) "
        "VALUES (?,?,?,?)",
        cached,
    )


def insert_embedding(conn: sqlite3.Connection, orch: str, row: EmbeddingRow, at: str) -> None:
    owner = conn.execute(
        "SELECT orchestrator_id FROM memories WHERE memory_id = ?", (row.memory_id,)
    ).fetchone()
    if owner is None or owner[0] != orch:
        raise StoreError(f"memory {row.memory_id!r} does not exist in this orchestrator")
    blob = encode_vector(row.vector)
    dim = int(np.asarray(row.vector).shape[0])
    conn.execute(
        "INSERT OR REPLACE INTO memory_embeddings (orchestrator_id, memory_id, model_id, dim,"
        " vector, text_sha256, created_at) VALUES (?,?,?,?,?,?,?)",
        (orch, row.memory_id, row.model_id, dim, blob, row.text_sha256, at),
    )
    if row.cache:
        conn.execute(
            "INSERT OR IGNORE INTO embedding_cache (model_id, text_sha256, dim, vector) "
            "VALUES (?,?,?,?)",
            (row.model_id, row.text_sha256, dim, blob),
        )


def upsert_node(
    conn: sqlite3.Connection, node: MemoryNode, at: str, extra: IndexText | None
) -> TextRow:
    existed = conn.execute(
        "SELECT orchestrator_id FROM memories WHERE memory_id = ?", (node.memory_id,)
    ).fetchone()
    if existed is not None and existed[0] != node.orchestrator_id:
        raise ScopeViolationError(node.orchestrator_id, existed[0])
    conn.execute(q.UPSERT_NODE, q.node_params(node))
    if existed is None:
        insert_source(conn, node.orchestrator_id, node.memory_id, node.source, at, primary=True)
    # Trigger: a node that already existed (a merge touch, a status change).
    # Why: memory_id is UNINDEXED in FTS5, so looking it up scans the whole
    #   index (quadratic bulk ingest and capture).
    # Outcome: its full-text row is found by rowid (``memory_fts_rows``).
    where = fts_row(conn, node.memory_id) if existed is not None else None
    if extra is None and where is not None:
        old = conn.execute(
            f"SELECT subject, context, date FROM memory_fts WHERE {where[0]}", where[1]
        ).fetchone()
        extra = IndexText(*old) if old else IndexText()
    extra = extra or IndexText()
    if where is not None:
        conn.execute(f"DELETE FROM memory_fts WHERE {where[0]}", where[1])
    texts = fts_texts(node, extra)
    cursor = conn.execute(
        "INSERT INTO memory_fts (memory_id, orchestrator_id, content, key, value, summary,"
        " subject, context, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (node.memory_id, node.orchestrator_id, *texts),
    )
    rowid = int(cursor.lastrowid or 0)
    conn.execute(
        "INSERT OR REPLACE INTO memory_fts_rows (memory_id, fts_rowid) VALUES (?, ?)",
        (node.memory_id, rowid),
    )
    rank = RankFields.of(node)
    return TextRow(rowid, node.memory_id, node.orchestrator_id, node.status.value, texts, rank)


def fts_row(conn: sqlite3.Connection, memory_id: str) -> tuple[str, tuple[Any, ...]]:
    """The WHERE clause (and its parameters) that finds ``memory_id``'s full-text row.

    By rowid when ``memory_fts_rows`` knows it; else by ``memory_id`` (a scan:
    a row written by an older version that wrote no ``memory_fts_rows`` row).
    """
    found = conn.execute(
        "SELECT fts_rowid FROM memory_fts_rows WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    if found is not None:
        return "rowid = ?", (int(found[0]),)
    return "memory_id = ?", (memory_id,)


def insert_source(
    conn: sqlite3.Connection,
    orch: str,
    memory_id: str,
    source: Source,
    at: str,
    *,
    primary: bool,
) -> None:
    conn.execute(q.INSERT_SOURCE, [orch, memory_id, int(primary), *q.source_params(source), at])


def insert_edge(conn: sqlite3.Connection, edge: MemoryEdge) -> None:
    for end in (edge.from_memory_id, edge.to_memory_id):
        row = conn.execute(
            "SELECT 1 FROM memories WHERE memory_id = ? AND orchestrator_id = ?",
            (end, edge.orchestrator_id),
        ).fetchone()
        if row is None:
            raise StoreError(f"memory {end!r} does not exist in this orchestrator")
    try:
        conn.execute(
            "INSERT INTO memory_edges (edge_id, orchestrator_id, from_memory_id, to_memory_id,"
            " edge_type, weight, reason, resolved, created_at) VALUES (?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (edge_id) DO UPDATE SET weight = excluded.weight, "
            "reason = excluded.reason, resolved = excluded.resolved",
            edge_params(edge),
        )
    except sqlite3.IntegrityError as exc:
        if "UNIQUE" in str(exc):
            raise DuplicateEdgeError(
                edge.from_memory_id, edge.to_memory_id, edge.edge_type.value
            ) from exc
        raise


def insert_events(conn: sqlite3.Connection, orch: str, events: Sequence[HistoryEvent]) -> None:
    if not events:
        return
    row = conn.execute(q.HISTORY_HEAD, (orch,)).fetchone()
    prev = row[0] if row else GENESIS_HASH
    params: list[list[Any]] = []
    for event in events:
        digest = chain_hash(prev, event)
        params.append(history_params(orch, event, prev, digest))
        prev = digest
    conn.executemany(
        "INSERT INTO history (event_id, orchestrator_id, memory_id, op, stop_reason, actor,"
        " detector, detail, at, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        params,
    )


def bump_revision(conn: sqlite3.Connection, write: WriteSet) -> int:
    orch = write.orchestrator_id
    if not write.changes_memory:
        # Trigger: a write set that only records audit events (a refusal).
        # Why: the revision counts memory changes; a refusal changes none.
        # Outcome: the revision stays where it is.
        current = conn.execute(
            "SELECT revision FROM thread_revision WHERE orchestrator_id = ? AND thread_id = '*'",
            (orch,),
        ).fetchone()
        return int(current[0]) if current else 0
    row = conn.execute(
        "INSERT INTO thread_revision (orchestrator_id, thread_id, revision) VALUES (?, '*', 1) "
        "ON CONFLICT (orchestrator_id, thread_id) DO UPDATE SET revision = revision + 1 "
        "RETURNING revision",
        (orch,),
    ).fetchone()
    revision = int(row[0])
    conn.executemany(
        "INSERT INTO change_log (orchestrator_id, revision, seq, thread_id, memory_id,"
        " kind, summary, at) VALUES (?,?,?,?,?,?,?,?)",
        [
            (
                orch,
                revision,
                seq,
                write.thread_id,
                change.memory_id,
                change.kind.value,
                change.summary,
                write.at,
            )
            for seq, change in enumerate(write.changes)
        ],
    )
    return revision


def upsert_ingest_record(conn: sqlite3.Connection, orch: str, record: IngestRecord) -> None:
    conn.execute(
        "INSERT INTO ingest_files (orchestrator_id, content_sha256, original_name, size_bytes,"
        " status, manifest_path, received_at, processed_at) VALUES (?,?,?,?,?,?,?,?) "
        "ON CONFLICT (orchestrator_id, content_sha256) DO UPDATE SET "
        "original_name = excluded.original_name, size_bytes = excluded.size_bytes, "
        "status = excluded.status, manifest_path = excluded.manifest_path, "
        "received_at = excluded.received_at, processed_at = excluded.processed_at",
        ingest_params(orch, record),
    )
