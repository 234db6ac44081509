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

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from memvault.store.base import WriteSet
from memvault.store.records import AuditHead, EventCount, OpEvent, Proposal, ProposalStatus

__all__ = [
    "apply_lifecycle",
    "audit_head",
    "checkpoint",
    "event_counts_query",
    "op_event_from_row",
    "op_events_query",
    "proposal_from_row",
    "proposals_query",
]

_CHUNK = 400


def apply_lifecycle(conn: sqlite3.Connection, write: WriteSet) -> None:
    """Write the lifecycle parts of ``write`` inside the caller's transaction."""
    orch = write.orchestrator_id
    if write.events:
        _advance_head(conn, orch, len(write.events))
    if write.purge_ids:
        _purge(conn, orch, write.purge_ids)
    for proposal in write.proposals:
        conn.execute(
            "INSERT INTO proposals (proposal_id, orchestrator_id, user_id, kind, candidate, status,"
            " created_at, expires_at, decided_at, outcome) VALUES (?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (proposal_id) DO UPDATE SET candidate = excluded.candidate, "
            "user_id = excluded.user_id, "
            "status = excluded.status, decided_at = excluded.decided_at, "
            "outcome = excluded.outcome WHERE proposals.orchestrator_id = excluded.orchestrator_id",
            (
                proposal.proposal_id,
                orch,
                proposal.user_id,
                proposal.kind,
                _dumps(proposal.candidate),
                proposal.status.value,
                proposal.created_at,
                proposal.expires_at,
                proposal.decided_at,
                _dumps(proposal.outcome),
            ),
        )
    for event in write.op_events:
        conn.execute(
            "INSERT INTO events (orchestrator_id, at, node, op, status, memory_id, category,"
            " best_similarity) VALUES (?,?,?,?,?,?,?,?)",
            (
                orch,
                event.at,
                event.node,
                event.op,
                event.status,
                event.memory_id,
                event.category,
                event.best_similarity,
            ),
        )


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def _advance_head(conn: sqlite3.Connection, orch: str, added: int) -> None:
    row = conn.execute(
        "SELECT hash FROM history WHERE orchestrator_id = ? ORDER BY seq DESC LIMIT 1", (orch,)
    ).fetchone()
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
            f"DELETE FROM memories WHERE memory_id IN ({marks})",
            f"UPDATE change_log SET summary = '' WHERE memory_id IN ({marks})",
        ):
            conn.execute(sql, found)
    conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")


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


def proposals_query(
    orchestrator_id: str,
    status: ProposalStatus | None,
    user_id: str | None,
    proposal_id: str | None,
    limit: int,
) -> tuple[str, list[Any]]:
    """SELECT for proposals, oldest first.

    >>> proposals_query("acme", ProposalStatus.PENDING, None, None, 5)[0].split(" WHERE ")[1]
    'orchestrator_id = ? AND status = ? ORDER BY created_at, proposal_id LIMIT ?'
    """
    parts = ["orchestrator_id = ?"]
    params: list[Any] = [orchestrator_id]
    for column, value in (
        ("status", status.value if status else None),
        ("user_id", user_id),
        ("proposal_id", proposal_id),
    ):
        if value is not None:
            parts.append(f"{column} = ?")
            params.append(value)
    sql = (
        "SELECT * FROM proposals WHERE "
        + " AND ".join(parts)
        + " ORDER BY created_at, proposal_id LIMIT ?"
    )
    return sql, [*params, limit]


def proposal_from_row(row: sqlite3.Row) -> Proposal:
    return Proposal(
        proposal_id=row["proposal_id"],
        orchestrator_id=row["orchestrator_id"],
        kind=row["kind"],
        candidate=json.loads(row["candidate"]),
        status=ProposalStatus(row["status"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        user_id=row["user_id"],
        decided_at=row["decided_at"],
        outcome=json.loads(row["outcome"]),
    )


def event_counts_query(orchestrator_id: str, since: str | None) -> tuple[str, list[Any]]:
    """Operational events grouped by (UTC day, node, op, status)."""
    sql = (
        "SELECT substr(at, 1, 10) AS day, node, op, status, count(*) FROM events "
        "WHERE orchestrator_id = ?"
    )
    params: list[Any] = [orchestrator_id]
    if since is not None:
        sql += " AND at >= ?"
        params.append(since)
    return sql + " GROUP BY day, node, op, status ORDER BY day, node, op, status", params


def event_counts(rows: list[sqlite3.Row]) -> list[EventCount]:
    return [EventCount(r[0], r[1], r[2], r[3], int(r[4])) for r in rows]


def op_events_query(
    orchestrator_id: str, op: str | None, since: str | None, limit: int
) -> tuple[str, list[Any]]:
    """Operational events in write order.

    >>> op_events_query("acme", "pair_checked", None, 10)[0].split(" WHERE ")[1]
    'orchestrator_id = ? AND op = ? ORDER BY event_id LIMIT ?'
    """
    parts = ["orchestrator_id = ?"]
    params: list[Any] = [orchestrator_id]
    if op is not None:
        parts.append("op = ?")
        params.append(op)
    if since is not None:
        parts.append("at >= ?")
        params.append(since)
    sql = (
        "SELECT at, node, op, status, memory_id, category, best_similarity FROM events WHERE "
        + " AND ".join(parts)
        + " ORDER BY event_id LIMIT ?"
    )
    return sql, [*params, limit]


def op_event_from_row(row: sqlite3.Row) -> OpEvent:
    return OpEvent(
        at=row["at"],
        node=row["node"],
        op=row["op"],
        status=row["status"],
        memory_id=row["memory_id"],
        category=row["category"],
        best_similarity=row["best_similarity"],
    )
