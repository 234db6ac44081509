"""PostgreSQL side of the lifecycle, ingest and context rows (pure SQL builders).

Purge is the only hard delete: inside the write's transaction it removes the
node, its edges, sources, embeddings (and their cache rows of this
orchestrator), and blanks the change-log summaries that quoted it.

Trigger: PostgreSQL keeps deleted tuples on disk until VACUUM reuses the
space, and in WAL and base backups until they are recycled.
Why: unlike SQLite's ``secure_delete`` there is no per-row scrub.
Outcome: the rows are gone for every reader at commit; physical erasure is
an operations duty (autovacuum, WAL/backup retention) documented in
``docs/scaling.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memvault.model.threads import thread_affixes
from memvault.store.base import CONTEXT_SPACE_SUFFIX
from memvault.store.records import AuditHead, proposal_decidable_sql
from memvault.store.sql_records import ingest_params, op_event_params, proposal_params

__all__ = [
    "ADVANCE_AUDIT_HEAD",
    "AUDIT_HEAD",
    "CHECKPOINT_TABLES",
    "CLAIM_IDENTITY",
    "INSERT_OP_EVENT",
    "PURGE_STATEMENTS",
    "STORED_UPDATED_AT",
    "UPSERT_INGEST",
    "UPSERT_PROPOSAL",
    "audit_head_from_row",
    "ingest_params",
    "op_event_params",
    "proposal_params",
    "purge_params",
    "thread_ids",
]


# -- audit head ---------------------------------------------------------------

ADVANCE_AUDIT_HEAD = (
    "INSERT INTO audit_head AS a (orchestrator_id, events, head_hash) VALUES (%s, %s, %s) "
    "ON CONFLICT (orchestrator_id) DO UPDATE SET events = a.events + excluded.events, "
    "head_hash = excluded.head_hash"
)
AUDIT_HEAD = "SELECT events, head_hash FROM audit_head WHERE orchestrator_id = %s"

# -- agent checkpoints of an erased user (issue 20) ---------------------------------

CHECKPOINT_TABLES = (
    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
    "AND table_name IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')"
)


def thread_ids(conn: Any, orchestrator_id: str, user_id: str, quoting: Sequence[str]) -> list[str]:
    """The agent's threads of (orchestrator, any channel, user), and those quoting ``quoting``.

    Thread ids are ``<orchestrator>:<channel>:<user>`` with unsafe characters as ``_``.
    """
    prefix, suffix = thread_affixes(orchestrator_id, user_id)
    like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    found = {
        str(r[0])
        for r in conn.execute(
            "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id LIKE %s", [like]
        )
        if str(r[0]).endswith(suffix) and str(r[0]).count(":") >= 2
    }
    for needle in (q for q in quoting if q):
        raw = needle.encode("utf-8")
        for sql, value in (
            (
                "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id LIKE %s "
                "AND (strpos(checkpoint::text, %s) > 0 OR strpos(metadata::text, %s) > 0)",
                [like, needle, needle],
            ),
            (
                "SELECT DISTINCT thread_id FROM checkpoint_blobs WHERE thread_id LIKE %s "
                "AND position(%s::bytea in coalesce(blob, ''::bytea)) > 0",
                [like, raw],
            ),
            (
                "SELECT DISTINCT thread_id FROM checkpoint_writes WHERE thread_id LIKE %s "
                "AND position(%s::bytea in blob) > 0",
                [like, raw],
            ),
        ):
            found.update(str(r[0]) for r in conn.execute(sql, value))
    return sorted(found)


# -- store identity (issue 20) ----------------------------------------------------

CLAIM_IDENTITY = (
    "INSERT INTO store_identity (orchestrator_id, store_uuid, created_at) VALUES (%s, %s, %s) "
    "ON CONFLICT (orchestrator_id) DO NOTHING"
)


def audit_head_from_row(row: tuple[Any, ...] | None) -> AuditHead:
    """The recorded head, or the genesis head before any event."""
    if row is None:
        return AuditHead(0, "0" * 64)
    return AuditHead(int(row[0]), str(row[1]))


# -- purge ----------------------------------------------------------------------

#: Run in order with ``[orchestrator_id, ids]``; only this orchestrator's rows match.
PURGE_STATEMENTS: tuple[str, ...] = (
    # The purged memories' conversations lose their derived context (the index-only
    # text that quotes neighbours' words, and its #ctx vectors): see
    # memvault.store.sqlite.lifecycle._blank_neighbour_context.
    "UPDATE memories m SET idx_context = '' FROM memories p WHERE p.orchestrator_id = %s "
    "AND p.memory_id = ANY(%s) AND m.orchestrator_id = p.orchestrator_id "
    "AND m.conversation_id = p.conversation_id AND m.idx_context <> ''",
    "DELETE FROM embedding_cache c USING memory_embeddings e, memories m, memories p "
    "WHERE p.orchestrator_id = %s AND p.memory_id = ANY(%s) "
    "AND m.orchestrator_id = p.orchestrator_id AND m.conversation_id = p.conversation_id "
    "AND e.orchestrator_id = m.orchestrator_id AND e.memory_id = m.memory_id "
    f"AND e.model_id LIKE '%%{CONTEXT_SPACE_SUFFIX}' AND c.orchestrator_id = e.orchestrator_id "
    "AND c.model_id = e.model_id AND c.text_sha256 = e.text_sha256",
    "DELETE FROM memory_embeddings e USING memories m, memories p "
    "WHERE p.orchestrator_id = %s AND p.memory_id = ANY(%s) "
    "AND m.orchestrator_id = p.orchestrator_id AND m.conversation_id = p.conversation_id "
    "AND e.orchestrator_id = m.orchestrator_id AND e.memory_id = m.memory_id "
    f"AND e.model_id LIKE '%%{CONTEXT_SPACE_SUFFIX}'",
    "DELETE FROM embedding_cache c USING memory_embeddings e WHERE c.orchestrator_id = %s "
    "AND e.orchestrator_id = c.orchestrator_id AND e.memory_id = ANY(%s) "
    "AND c.model_id = e.model_id AND c.text_sha256 = e.text_sha256",
    "DELETE FROM memory_embeddings WHERE orchestrator_id = %s AND memory_id = ANY(%s)",
    "DELETE FROM memory_edges WHERE orchestrator_id = %s "
    "AND (from_memory_id = ANY(%s) OR to_memory_id = ANY(%s))",
    "DELETE FROM memory_sources WHERE orchestrator_id = %s AND memory_id = ANY(%s)",
    "DELETE FROM memories WHERE orchestrator_id = %s AND memory_id = ANY(%s)",
    "UPDATE change_log SET summary = '' WHERE orchestrator_id = %s AND memory_id = ANY(%s)",
)


def purge_params(statement: str, orch: str, ids: list[str]) -> list[Any]:
    """Parameters of one :data:`PURGE_STATEMENTS` entry (edges take the ids twice)."""
    return [orch, *([ids] * statement.count("ANY(%s)"))]


# -- a write's expected rows (WriteSet.expected) ---------------------------------

STORED_UPDATED_AT = (
    "SELECT memory_id, updated_at FROM memories WHERE orchestrator_id = %s AND memory_id = ANY(%s)"
)

# -- proposals ----------------------------------------------------------------

UPSERT_PROPOSAL = (
    "INSERT INTO proposals (proposal_id, orchestrator_id, user_id, kind, candidate, status,"
    " created_at, expires_at, decided_at, outcome) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (orchestrator_id, proposal_id) DO UPDATE SET candidate = excluded.candidate, "
    "user_id = excluded.user_id, "
    "status = excluded.status, decided_at = excluded.decided_at, outcome = excluded.outcome "
    "WHERE " + proposal_decidable_sql("%s") + " RETURNING proposal_id"
)


# -- operational events ---------------------------------------------------------

INSERT_OP_EVENT = (
    "INSERT INTO events (orchestrator_id, at, node, op, status, memory_id, category,"
    " best_similarity) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)"
)


# -- ingest -------------------------------------------------------------------

UPSERT_INGEST = (
    "INSERT INTO ingest_files (orchestrator_id, content_sha256, original_name, size_bytes,"
    " status, manifest_path, received_at, processed_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (orchestrator_id, content_sha256) DO UPDATE SET "
    "original_name = excluded.original_name, size_bytes = excluded.size_bytes, "
    "status = excluded.status, manifest_path = excluded.manifest_path, "
    "received_at = excluded.received_at, processed_at = excluded.processed_at"
)
