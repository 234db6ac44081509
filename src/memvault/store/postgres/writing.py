"""One write on PostgreSQL: its statements in one pipelined transaction, and the
vector indexes a new dimension needs before its first row lands.

:class:`~memvault.store.postgres.store.PostgresStore` holds the pool and the lock
discipline (its module docstring); this module is what runs on the connection it hands over.
"""

from __future__ import annotations

import contextlib
from typing import Any

from memvault.errors import DuplicateEdgeError, StoreError
from memvault.store.base import GENESIS_HASH, WriteSet, chain_hash
from memvault.store.postgres import lifecycle as lc
from memvault.store.postgres import queries as q
from memvault.store.postgres import vectors as v
from memvault.store.postgres.connecting import psycopg
from memvault.store.postgres.schema import vector_index_ddl, vector_index_name
from memvault.store.records import check_decided, is_erasure
from memvault.store.sql import edge_params, history_params

__all__ = ["apply_write", "create_vector_indexes", "duplicate_edge"]


def apply_write(conn: psycopg.Connection[Any], write: WriteSet) -> int:
    """Every statement of one write, pipelined inside the caller's transaction.

    Two round trips: the lock (and the reads that must follow it), then
    every write and the commit. Each statement still runs in order on the
    server, so the reads see what the previous lock holder committed.
    """
    orch = write.orchestrator_id
    sql, params = q.lock_and_bump_query(orch, write.changes_memory)
    lock = conn.execute(sql, params)
    needed = {m for m, _ in write.extra_sources} | {r.memory_id for r in write.embeddings}
    needed |= {e.from_memory_id for e in write.edges} | {e.to_memory_id for e in write.edges}
    needed -= {n.memory_id for n in write.nodes}  # written below, before they are used
    existing = conn.execute(q.EXISTING_IDS, [orch, sorted(needed)]) if needed else None
    head = conn.execute(q.HISTORY_HEAD, [orch]) if write.events else None
    read = sorted({m for m, _ in write.expected})
    expected = conn.execute(lc.STORED_UPDATED_AT, [orch, read]) if read else None
    row = lock.fetchone()  # the first sync: waits for the orchestrator's lock
    revision = int(row[0]) if row else 0
    if expected is not None:  # read after the lock: what the last writer committed
        write.check_expected({r[0]: r[1] for r in expected.fetchall()})
    if existing is not None:
        missing = sorted(needed - {r[0] for r in existing.fetchall()})
        if missing:
            raise StoreError(f"memory {missing[0]!r} does not exist in this orchestrator")
    prev = GENESIS_HASH
    if head is not None:
        found = head.fetchone()
        prev = found[0] if found else GENESIS_HASH

    cur = conn.cursor()
    if write.nodes:
        cur.executemany(q.UPSERT_NODE, [q.node_params(n) for n in write.nodes])
        cur.executemany(
            q.INSERT_SOURCE,
            [q.source_params(orch, n.memory_id, n.source, write.at, True) for n in write.nodes],
        )
    if write.index_texts:
        cur.executemany(
            q.SET_INDEX_TEXT, [q.index_text_params(orch, m, x) for m, x in write.index_texts]
        )
    if write.extra_sources:
        cur.executemany(
            q.INSERT_SOURCE,
            [q.source_params(orch, m, s, write.at, False) for m, s in write.extra_sources],
        )
    if write.edges:
        cur.executemany(q.UPSERT_EDGE, [edge_params(e) for e in write.edges])
    if write.embeddings:
        cur.executemany(
            v.UPSERT_EMBEDDING,
            [v.embedding_params(orch, r, write.at) for r in write.embeddings],
        )
        cached = [v.cache_params(orch, r) for r in write.embeddings if r.cache]
        if cached:
            cur.executemany(v.INSERT_CACHE, cached)
    if write.ingest_records:
        cur.executemany(lc.UPSERT_INGEST, [lc.ingest_params(orch, r) for r in write.ingest_records])
    if write.events:
        rows = []
        for event in write.events:
            digest = chain_hash(prev, event)
            rows.append(history_params(orch, event, prev, digest))
            prev = digest
        cur.executemany(q.INSERT_EVENT, rows)
        cur.execute(lc.ADVANCE_AUDIT_HEAD, [orch, len(write.events), prev])
    if write.purge_ids:
        ids = sorted(set(write.purge_ids))
        for statement in lc.PURGE_STATEMENTS:
            cur.execute(statement, lc.purge_params(statement, orch, ids))
    for proposal in write.proposals:
        erasure = int(is_erasure(proposal))
        cur.execute(lc.UPSERT_PROPOSAL, [*lc.proposal_params(orch, proposal), erasure])
        # a decision on a proposal decided meanwhile rolls the whole write back (the
        # fetch waits for this statement's row: rowcount is not known in a pipeline)
        check_decided(proposal, cur.fetchone() is not None)
    if write.op_events:
        cur.executemany(lc.INSERT_OP_EVENT, [lc.op_event_params(orch, e) for e in write.op_events])
    if write.changes:
        cur.executemany(
            q.INSERT_CHANGE,
            [
                q.change_params(orch, revision, i, write.thread_id, c, write.at)
                for i, c in enumerate(write.changes)
            ],
        )
    return revision


def create_vector_indexes(conn: psycopg.Connection[Any], todo: set[int], indexed: set[int]) -> None:
    """Create the HNSW index of each new dimension before the first vector of it lands.

    Trigger: a model whose dimension has no index yet (migration 1 covers 384).
    Why: without it every search of that model is a sequential scan; but
    the index is an optimisation, and building it must not fail a write.
    Outcome: ``CREATE INDEX CONCURRENTLY IF NOT EXISTS`` outside the write's
    transaction, without the statement limit (schema work, as migrations:
    the build waits for open writers and scans the table; cancelled, it
    left an invalid index the next process took as built); if that fails
    (rights, a racing creator) the write goes on and searches stay exact,
    by scan. Each dimension handled is added to ``indexed`` as it is done.
    """
    existing = dict(conn.execute(v.INDEXED_DIMS).fetchall())
    conn.execute("SET statement_timeout = 0")
    try:
        for dim in sorted(todo):
            name = vector_index_name(dim)
            if not existing.get(name):
                # Trigger: no index of this name, or an INVALID one no session is
                #   building (a failed concurrent build leaves it; IF NOT EXISTS
                #   then skips it, and pg_indexes lists it as if built).
                # Why: an invalid index is never used: that model's searches scan.
                # Outcome: the dead index is dropped, then the index built.
                ddl = vector_index_ddl(dim).replace("INDEX IF", "INDEX CONCURRENTLY IF", 1)
                with contextlib.suppress(psycopg.Error):
                    if name in existing:
                        conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                    conn.execute(ddl)
            indexed.add(dim)
    finally:
        conn.execute("RESET statement_timeout")  # the connection's own, from options


def duplicate_edge(write: WriteSet, exc: psycopg.errors.UniqueViolation) -> DuplicateEdgeError:
    detail = exc.diag.message_detail or ""
    for edge in write.edges:
        if f"{edge.from_memory_id}, {edge.to_memory_id}, {edge.edge_type.value})" in detail:
            return DuplicateEdgeError(edge.from_memory_id, edge.to_memory_id, edge.edge_type.value)
    first = write.edges[0]
    return DuplicateEdgeError(first.from_memory_id, first.to_memory_id, first.edge_type.value)
