"""SQLite schema as an append-only list of numbered migrations.

Never edit a migration that has shipped: add a new one. Each applied
migration is recorded in ``schema_version``. Every table carries
``orchestrator_id`` so the same logical schema works on a shared PostgreSQL.
"""

from __future__ import annotations

from memvault.store.sql import KEY_INDEX, LOOKUP_INDEXES

__all__ = ["MIGRATIONS"]


def _fts_table(*columns: str) -> str:
    """The ``memory_fts`` table over ``columns`` (FTS5 tables cannot gain columns,
    so a migration that adds one drops the table and creates it again).

    >>> print(_fts_table("content"))
    CREATE VIRTUAL TABLE memory_fts USING fts5 (
        memory_id UNINDEXED,
        orchestrator_id UNINDEXED,
        content,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    """
    lines = ("memory_id UNINDEXED", "orchestrator_id UNINDEXED", *columns)
    body = "".join(f"    {c},\n" for c in lines)
    tokenize = "    tokenize = 'porter unicode61 remove_diacritics 2'\n"
    return f"CREATE VIRTUAL TABLE memory_fts USING fts5 (\n{body}{tokenize});"


_V1 = (
    """
CREATE TABLE memories (
    memory_id        TEXT PRIMARY KEY,
    orchestrator_id  TEXT NOT NULL,
    project_id       TEXT,
    type             TEXT NOT NULL,
    category         TEXT NOT NULL,
    key              TEXT NOT NULL DEFAULT '',
    value            TEXT NOT NULL DEFAULT '',
    content          TEXT NOT NULL,
    summary          TEXT NOT NULL DEFAULT '',
    importance       INTEGER NOT NULL CHECK (importance BETWEEN 0 AND 100),
    confidence       REAL NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    pinned           INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    status           TEXT NOT NULL,
    ttl_class        TEXT NOT NULL,
    user_id          TEXT,
    agent_id         TEXT,
    run_id           TEXT,
    actor_id         TEXT,
    role             TEXT,
    conversation_id  TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    last_accessed_at TEXT,
    purge_at         TEXT,
    access_count     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX memories_scope ON memories (orchestrator_id, status, updated_at DESC);
CREATE INDEX memories_user ON memories (orchestrator_id, user_id);
CREATE INDEX memories_project ON memories (orchestrator_id, project_id);
CREATE INDEX memories_type ON memories (orchestrator_id, type);

CREATE TABLE memory_sources (
    source_id        INTEGER PRIMARY KEY AUTOINCREMENT,
    orchestrator_id  TEXT NOT NULL,
    memory_id        TEXT NOT NULL REFERENCES memories (memory_id) ON DELETE CASCADE,
    is_primary       INTEGER NOT NULL CHECK (is_primary IN (0, 1)),
    source_type      TEXT NOT NULL,
    captured_by      TEXT NOT NULL,
    source_kind      TEXT NOT NULL,
    source_path      TEXT,
    conversation_id  TEXT,
    workflow_run_id  TEXT,
    step_id          TEXT,
    source_ref       TEXT,
    captured_at      TEXT NOT NULL
);
CREATE INDEX memory_sources_memory ON memory_sources (memory_id, is_primary);
CREATE UNIQUE INDEX memory_sources_one_primary ON memory_sources (memory_id) WHERE is_primary = 1;

CREATE TABLE memory_edges (
    edge_id          TEXT PRIMARY KEY,
    orchestrator_id  TEXT NOT NULL,
    from_memory_id   TEXT NOT NULL REFERENCES memories (memory_id) ON DELETE CASCADE,
    to_memory_id     TEXT NOT NULL REFERENCES memories (memory_id) ON DELETE CASCADE,
    edge_type        TEXT NOT NULL,
    weight           REAL NOT NULL CHECK (weight BETWEEN 0.0 AND 1.0),
    reason           TEXT,
    resolved         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    UNIQUE (from_memory_id, to_memory_id, edge_type),
    CHECK (from_memory_id <> to_memory_id)
);
CREATE INDEX memory_edges_to ON memory_edges (to_memory_id);

CREATE TABLE memory_embeddings (
    orchestrator_id  TEXT NOT NULL,
    memory_id        TEXT NOT NULL REFERENCES memories (memory_id) ON DELETE CASCADE,
    model_id         TEXT NOT NULL,
    dim              INTEGER NOT NULL,
    vector           BLOB NOT NULL,
    text_sha256      TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    PRIMARY KEY (memory_id, model_id)
);

CREATE TABLE embedding_cache (
    model_id         TEXT NOT NULL,
    text_sha256      TEXT NOT NULL,
    dim              INTEGER NOT NULL,
    vector           BLOB NOT NULL,
    PRIMARY KEY (model_id, text_sha256)
);

"""
    + _fts_table("content", "key", "value", "summary")
    + """

CREATE TABLE history (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id         TEXT NOT NULL UNIQUE,
    orchestrator_id  TEXT NOT NULL,
    memory_id        TEXT,
    op               TEXT NOT NULL,
    stop_reason      TEXT,
    actor            TEXT,
    detector         TEXT,
    detail           TEXT NOT NULL DEFAULT '{}',
    at               TEXT NOT NULL,
    prev_hash        TEXT NOT NULL,
    hash             TEXT NOT NULL
);
CREATE INDEX history_memory ON history (orchestrator_id, memory_id, seq);

CREATE TABLE thread_revision (
    orchestrator_id  TEXT NOT NULL,
    thread_id        TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    PRIMARY KEY (orchestrator_id, thread_id)
);

CREATE TABLE change_log (
    orchestrator_id  TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    seq              INTEGER NOT NULL,
    thread_id        TEXT NOT NULL,
    memory_id        TEXT NOT NULL,
    kind             TEXT NOT NULL,
    summary          TEXT NOT NULL DEFAULT '',
    at               TEXT NOT NULL,
    PRIMARY KEY (orchestrator_id, revision, seq)
);

CREATE TABLE events (
    event_id         INTEGER PRIMARY KEY AUTOINCREMENT,
    orchestrator_id  TEXT NOT NULL,
    at               TEXT NOT NULL,
    node             TEXT NOT NULL,
    op               TEXT NOT NULL,
    status           TEXT NOT NULL,
    memory_id        TEXT,
    category         TEXT,
    best_similarity  REAL,
    detail           TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_at ON events (orchestrator_id, at);

CREATE TABLE ingest_files (
    orchestrator_id  TEXT NOT NULL,
    content_sha256   TEXT NOT NULL,
    original_name    TEXT NOT NULL,
    size_bytes       INTEGER NOT NULL,
    status           TEXT NOT NULL,
    manifest_path    TEXT,
    received_at      TEXT NOT NULL,
    processed_at     TEXT,
    PRIMARY KEY (orchestrator_id, content_sha256)
);

CREATE TABLE proposals (
    proposal_id      TEXT PRIMARY KEY,
    orchestrator_id  TEXT NOT NULL,
    user_id          TEXT,
    kind             TEXT NOT NULL,
    candidate        TEXT NOT NULL,
    status           TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    expires_at       TEXT NOT NULL,
    decided_at       TEXT
);
CREATE INDEX proposals_status ON proposals (orchestrator_id, status, expires_at);
"""
)

# Index-only enrichment columns (subject, context, date) for hybrid recall.
# FTS5 tables cannot gain columns, so the table is rebuilt from `memories`
# (before this migration no enrichment existed, so nothing is lost).
_V2 = (
    """
DROP TABLE memory_fts;
"""
    + _fts_table("content", "key", "value", "summary", "subject", "context", "date")
    + """
INSERT INTO memory_fts (memory_id, orchestrator_id, content, key, value, summary,
                        subject, context, date)
    SELECT memory_id, orchestrator_id, content, key, value, summary, '', '', ''
    FROM memories;
CREATE INDEX memory_embeddings_model ON memory_embeddings (orchestrator_id, model_id);
"""
)

# Lifecycle: the audit chain's head as recorded at write time (catches a
# deleted last row), proposal outcomes, and lookups for purge and stats.
_V3 = """
CREATE TABLE audit_head (
    orchestrator_id  TEXT PRIMARY KEY,
    events           INTEGER NOT NULL,
    head_hash        TEXT NOT NULL
);
INSERT INTO audit_head (orchestrator_id, events, head_hash)
    SELECT h.orchestrator_id, count(*),
           (SELECT h2.hash FROM history h2 WHERE h2.orchestrator_id = h.orchestrator_id
            ORDER BY h2.seq DESC LIMIT 1)
    FROM history h GROUP BY h.orchestrator_id;
ALTER TABLE proposals ADD COLUMN outcome TEXT NOT NULL DEFAULT '{}';
CREATE INDEX proposals_user ON proposals (orchestrator_id, user_id);
CREATE INDEX change_log_memory ON change_log (memory_id);
CREATE INDEX events_node ON events (orchestrator_id, node, op, at);
"""

# The store's identity (issue 20): also written to memory.anchor.json beside the
# file, so a deleted, emptied or swapped database is detected on open.
_V4 = """
CREATE TABLE store_identity (
    orchestrator_id  TEXT PRIMARY KEY,
    store_uuid       TEXT NOT NULL,
    created_at       TEXT NOT NULL
);
"""

# Lookups that scanned (NOTE "seen and left alone" 4–5), as on PostgreSQL.
_V5 = LOOKUP_INDEXES

# Delta-header seen-marks per reader (NOTE5 "seen and left alone" 2): a mark was
# kept per thread, so when Al read a thread, Bea's header for it came back empty.
# Marks are now kept per (thread, reader); the old per-thread marks cannot be
# told apart by reader and are dropped (each reader of an old thread is told of
# at most three recent changes once). ``thread_revision`` keeps the head ('*').
_V6 = """
CREATE TABLE thread_seen (
    orchestrator_id  TEXT NOT NULL,
    thread_id        TEXT NOT NULL,
    reader           TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    PRIMARY KEY (orchestrator_id, thread_id, reader)
);
CREATE INDEX thread_seen_reader ON thread_seen (orchestrator_id, reader);
DELETE FROM thread_revision WHERE thread_id <> '*';
"""

# Where each memory's full-text row is (issue 22). ``memory_id`` is UNINDEXED in
# FTS5, so ``WHERE memory_id = ?`` scanned the whole index on every update of a
# stored memory (an ingest or capture merge, a status change): quadratic ingest.
_V7 = """
CREATE TABLE memory_fts_rows (
    memory_id        TEXT PRIMARY KEY,
    fts_rowid        INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR REPLACE INTO memory_fts_rows (memory_id, fts_rowid)
    SELECT memory_id, max(rowid) FROM memory_fts GROUP BY memory_id;
"""

# A memory by its key (the LangGraph adapter's get/put), as on PostgreSQL.
_V8 = KEY_INDEX

# The audit chain's last row of a tenant (issue 22). Every write that records events
# reads it (``ORDER BY seq DESC LIMIT 1`` for the next ``prev_hash``, and again for
# ``audit_head``); with only (orchestrator_id, op|memory_id, seq) indexes SQLite read
# every history row of the tenant and sorted them: two full scans per bulk batch, a
# bulk load quadratic in its size. PostgreSQL's key is (orchestrator_id, seq) already.
_V9 = """
CREATE INDEX IF NOT EXISTS history_seq ON history (orchestrator_id, seq);
"""

#: ``(version, description, sql)``, applied in order, each exactly once.
MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "initial schema", _V1),
    (2, "full-text enrichment columns; embedding lookup index", _V2),
    (3, "lifecycle: audit head, proposal outcomes, purge and stats lookups", _V3),
    (4, "store identity (matched against memory.anchor.json)", _V4),
    (5, "conversation and audit-op lookups", _V5),
    (6, "delta-header seen-marks per (thread, reader)", _V6),
    (7, "full-text row of each memory by id", _V7),
    (8, "memory key lookup", _V8),
    (9, "audit chain head lookup", _V9),
)
