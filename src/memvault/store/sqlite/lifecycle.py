"""SQLite side of the lifecycle: purge, proposals, operational events, audit head.

Purge is the only hard delete. Inside the write's transaction it removes the
node, its edges, sources, full-text row and embeddings, blanks the
change-log summaries that quoted it, and rebuilds the full-text index
segments (``optimize``) so the deleted tokens are not left behind in
``memory_fts_data``. The writer connection runs with ``secure_delete`` on, so
freed cells and pages are zeroed; after the commit a ``wal_checkpoint(TRUNCATE)``
moves everything into the main file and empties ``memory.db-wal``.

Trigger: SQLite before 3.42 has no FTS5 ``secure-delete`` option, and a plain
FTS5 delete only appends a tombstone, leaving the old tokens on disk.
Why: a purged memory's words must be gone from the files (right to erasure).
Outcome: ``optimize`` merges every segment into one without the deleted rows;
it costs time proportional to the index, which is fine for a daily purge.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memvault.store.base import CONTEXT_SPACE_SUFFIX, WriteSet
from memvault.store.records import (
    AuditHead,
    check_decided,
    is_erasure,
    proposal_decidable_sql,
)
from memvault.store.sql_records import op_event_params, proposal_params
from memvault.store.sqlite import queries as q

__all__ = [
    "apply_lifecycle",
    "audit_head",
    "check_expected",
    "checkpoint",
]

_CHUNK = 400
#: Every model's context vector space (see CONTEXT_SPACE_SUFFIX).
_CONTEXT_LIKE = "%" + CONTEXT_SPACE_SUFFIX


def check_expected(conn: sqlite3.Connection, write: WriteSet) -> None:
    """``write.expected`` against the stored rows, inside the write's transaction, before
    any row of it is written (:meth:`WriteSet.check_expected`)."""
    if not write.expected:
        return
    ids = sorted({memory_id for memory_id, _ in write.expected})
    stored: dict[str, str] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        stored.update(
            conn.execute(
                "SELECT memory_id, updated_at FROM memories WHERE orchestrator_id = ?"
                f" AND memory_id IN ({marks})",
                (write.orchestrator_id, *chunk),
            ).fetchall()
        )
    write.check_expected(stored)


def apply_lifecycle(conn: sqlite3.Connection, write: WriteSet) -> None:
    """Write the lifecycle parts of ``write`` inside the caller's transaction."""
    orch = write.orchestrator_id
    if write.events:
        _advance_head(conn, orch, len(write.events))
    if write.purge_ids:
        _purge(conn, orch, write.purge_ids)
    for proposal in write.proposals:
        cursor = conn.execute(
            "INSERT INTO proposals (proposal_id, orchestrator_id, user_id, kind, candidate, status,"
            " created_at, expires_at, decided_at, outcome) VALUES (?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (proposal_id) DO UPDATE SET candidate = excluded.candidate, "
            "user_id = excluded.user_id, "
            "status = excluded.status, decided_at = excluded.decided_at, "
            "outcome = excluded.outcome WHERE proposals.orchestrator_id = excluded.orchestrator_id "
            "AND " + proposal_decidable_sql("?"),
            [*proposal_params(orch, proposal), int(is_erasure(proposal))],
        )
        # a decision on a proposal decided meanwhile rolls the whole write back
        check_decided(proposal, cursor.rowcount > 0)
    # one statement for all of them (a bulk batch has one per memory), in order
    conn.executemany(
        "INSERT INTO events (orchestrator_id, at, node, op, status, memory_id, category,"
        " best_similarity) VALUES (?,?,?,?,?,?,?,?)",
        [op_event_params(orch, event) for event in write.op_events],
    )


def _advance_head(conn: sqlite3.Connection, orch: str, added: int) -> None:
    row = conn.execute(q.HISTORY_HEAD, (orch,)).fetchone()
    conn.execute(
        "INSERT INTO audit_head (orchestrator_id, events, head_hash) VALUES (?, ?, ?) "
        "ON CONFLICT (orchestrator_id) DO UPDATE SET events = events + excluded.events, "
        "head_hash = excluded.head_hash",
        (orch, added, row[0]),
    )


def _purge(conn: sqlite3.Connection, orch: str, memory_ids: Sequence[str]) -> None:
    ids = sorted(set(memory_ids))
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        # Only rows of this orchestrator: an id of another tenant is not even seen.
        found = [
            r[0]
            for r in conn.execute(
                "SELECT memory_id FROM memories WHERE orchestrator_id = ? "
                f"AND memory_id IN ({marks})",
                [orch, *chunk],
            )
        ]
        if not found:
            continue
        marks = ", ".join("?" for _ in found)
        _blank_neighbour_context(conn, orch, found, marks)
        conn.execute(
            "DELETE FROM embedding_cache WHERE (model_id, text_sha256) IN (SELECT model_id, "
            f"text_sha256 FROM memory_embeddings WHERE memory_id IN ({marks}))",
            found,
        )
        for sql in (
            f"DELETE FROM memory_embeddings WHERE memory_id IN ({marks})",
            f"DELETE FROM memory_edges WHERE from_memory_id IN ({marks})",
            f"DELETE FROM memory_edges WHERE to_memory_id IN ({marks})",
            f"DELETE FROM memory_sources WHERE memory_id IN ({marks})",
            f"DELETE FROM memory_fts WHERE memory_id IN ({marks})",
            f"DELETE FROM memory_fts_rows WHERE memory_id IN ({marks})",
            f"DELETE FROM memories WHERE memory_id IN ({marks})",
            f"UPDATE change_log SET summary = '' WHERE memory_id IN ({marks})",
        ):
            conn.execute(sql, found)
    conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")


def _blank_neighbour_context(
    conn: sqlite3.Connection, orch: str, found: Sequence[str], marks: str
) -> None:
    """Blank the derived context of the purged memories' conversations.

    Trigger: memories about to be purged.
    Why: a memory's index-only ``context`` quotes the memories written just
      before it in its conversation (``retrieval.indexing.derived_index_text``),
      so a purged memory's words would outlive it in its neighbours' full-text
      rows and context vectors.
    Outcome: every other memory of those conversations loses its derived
      context (full-text column and ``#ctx`` vectors); ranking falls back to
      the memory's own text there, and nothing of the purged words is left.
    """
    same = (
        "SELECT m.memory_id FROM memories m WHERE m.orchestrator_id = ? "
        "AND m.conversation_id IN (SELECT conversation_id FROM memories "
        f"WHERE orchestrator_id = ? AND memory_id IN ({marks}))"
    )
    params = [orch, orch, *found]
    conn.execute(
        f"UPDATE memory_fts SET context = '' WHERE context != '' AND memory_id IN ({same})",
        params,
    )
    conn.execute(
        "DELETE FROM embedding_cache WHERE (model_id, text_sha256) IN (SELECT model_id, "
        "text_sha256 FROM memory_embeddings WHERE model_id LIKE ? "
        f"AND memory_id IN ({same}))",
        [_CONTEXT_LIKE, *params],
    )
    conn.execute(
        f"DELETE FROM memory_embeddings WHERE model_id LIKE ? AND memory_id IN ({same})",
        [_CONTEXT_LIKE, *params],
    )


def checkpoint(conn: sqlite3.Connection) -> bool:
    """Copy the WAL into the main file and truncate it; True when it completed.

    A reader holding an old snapshot can keep it from completing; the next
    checkpoint (SQLite runs one automatically) finishes the job.
    """
    busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return int(busy) == 0


def audit_head(rows: list[sqlite3.Row]) -> AuditHead:
    if not rows:
        return AuditHead(0, "0" * 64)
    return AuditHead(int(rows[0][0]), str(rows[0][1]))
