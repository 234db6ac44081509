"""PostgreSQL schema as an append-only list of numbered migrations.

The logical schema is SQLite's (``store/sqlite/schema.py``); what differs is
written down here and in ``docs/scaling.md``:

- **Every key starts with ``orchestrator_id``** (primary keys, unique
  constraints, foreign keys). It is the partition / distribution column: a
  Citus ``create_distributed_table(..., 'orchestrator_id')`` or native
  ``PARTITION BY HASH (orchestrator_id)`` needs no schema change, because
  every uniqueness rule already includes it. A memory id is therefore unique
  per orchestrator (as in the in-memory reference store), not globally.
- **Full text** lives on ``memories`` itself instead of SQLite's
  ``memory_fts`` virtual table: one generated ``tsvector`` column per
  full-text column of ``store.base.TEXT_COLUMNS`` (so a query can weight
  each column, like ``bm25()`` weights FTS5 columns) plus one of all columns
  together (``tsv``) that the GIN index covers and ``@@`` tests. Index-only enrichment (subject,
  context, date) is kept in ``idx_*`` columns. The configuration
  ``memvault_english`` is English Snowball stemming *without* a stopword list,
  the closest match to SQLite's ``porter unicode61`` tokenizer (which keeps
  stopwords, so "who am I" still finds something on both backends).
- **Ids and timestamps are ``COLLATE "C"``** so ``ORDER BY`` and ``<``/``>``
  compare code points exactly like SQLite and Python, whatever the database's
  default collation is.
- **Vectors** use pgvector: ``memory_embeddings.embedding`` is an untyped
  ``vector`` (one table for every model and dimension, ``dim`` stored beside
  it). HNSW needs a fixed dimension, so each dimension gets a *partial
  expression* index ``((embedding::vector(N)) vector_cosine_ops) WHERE dim = N``
  (:func:`vector_index_ddl`); migration 1 creates the one for 384, the
  default local embedder's size. A query for dimension N uses the same
  expression and predicate, so the planner picks that index.
- ``history.detail`` and ``events.detail`` are ``json`` (stored verbatim), not
  ``jsonb``: the audit hash chain covers the exact detail, and ``jsonb``
  would normalise numbers and key order.

Never edit a migration that has shipped: append a new one.
"""

from __future__ import annotations

import re

from memvault.errors import ConfigError
from memvault.model.validation import NameRule
from memvault.store.base import TEXT_COLUMNS
from memvault.store.sql import KEY_INDEX, LOOKUP_INDEXES

__all__ = [
    "DEFAULT_VECTOR_DIMS",
    "MIGRATIONS",
    "PUNCTUATION",
    "TEXT_SEARCH_CONFIG",
    "TEXT_SOURCES",
    "TSV_MATCH",
    "normalised",
    "tsv_column",
    "validate_schema_name",
    "vector_index_ddl",
    "vector_index_name",
]

#: The text-search configuration every tsvector and tsquery uses.
TEXT_SEARCH_CONFIG = "memvault_english"

#: Dimensions that get an HNSW index from migration 1 (the default embedders).
DEFAULT_VECTOR_DIMS: tuple[int, ...] = (384,)

#: pgvector's HNSW limit for the ``vector`` type (``halfvec`` goes to 4000).
HNSW_MAX_DIM = 2000

#: A PostgreSQL schema name we can splice into SQL safely:
#: ``validate_schema_name("memvault")`` is ``'memvault'``.
validate_schema_name = NameRule(
    re.compile(r"^[a-z_][a-z0-9_]{0,62}$"),
    lambda name: ConfigError(
        f"invalid PostgreSQL schema name {name!r}",
        hint="use 1-63 lower-case letters, digits or '_', not starting with a digit",
    ),
)


def vector_index_name(dim: int) -> str:
    """The HNSW index name for one dimension.

    >>> vector_index_name(384)
    'memory_embeddings_hnsw_384'
    """
    return f"memory_embeddings_hnsw_{int(dim)}"


def vector_index_ddl(dim: int) -> str:
    """DDL for the cosine HNSW index serving vectors of dimension ``dim``.

    >>> vector_index_ddl(3).split(" USING ")[1]
    'hnsw ((embedding::vector(3)) vector_cosine_ops) WHERE dim = 3'
    """
    if not isinstance(dim, int) or isinstance(dim, bool) or not 1 <= dim <= HNSW_MAX_DIM:
        raise ConfigError(
            f"vector dimension {dim!r} cannot have an HNSW index",
            hint=f"use a dimension between 1 and {HNSW_MAX_DIM}",
        )
    return (
        f"CREATE INDEX IF NOT EXISTS {vector_index_name(dim)} ON memory_embeddings "
        f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WHERE dim = {dim}"
    )


_ID = 'text COLLATE "C"'
_TS = 'text COLLATE "C"'
_T = 'text COLLATE "C"'

#: ASCII punctuation runs become spaces before tokenising (documents and
#: queries alike), so "e-mail", "x_y", "2023-05-08" or "v1.2" split into the
#: same words SQLite's ``unicode61`` tokenizer and :func:`tokenize` produce,
#: instead of PostgreSQL's hyphenated words, signed numbers, paths and hosts.
PUNCTUATION = "[!-/:-@\\[-`{-~]+"

#: ``TEXT_COLUMNS`` name -> the ``memories`` column holding its text.
#: Node fields are their own columns; index-only enrichment lives in ``idx_*``.
TEXT_SOURCES: dict[str, str] = {
    c: c if c in ("content", "key", "value", "summary") else f"idx_{c}" for c in TEXT_COLUMNS
}


def tsv_column(column: str) -> str:
    """The generated tsvector column of one full-text column.

    >>> tsv_column("content")
    'tsv_content'
    """
    return f"tsv_{column}"


def normalised(expression: str) -> str:
    """SQL that replaces ASCII punctuation runs in ``expression`` with a space."""
    return f"regexp_replace({expression}, '{PUNCTUATION}', ' ', 'g')"


#: The stored tsvector of all full-text columns together: what ``@@`` and the
#: GIN index match on (one cheap test per row), while the per-column vectors
#: only score the rows that matched.
TSV_MATCH = "tsv"

_TSV_COLUMNS = ",\n".join(
    f"    {tsv_column(c)} tsvector GENERATED ALWAYS AS "
    f"(to_tsvector('{TEXT_SEARCH_CONFIG}', {normalised(src)})) STORED"
    for c, src in TEXT_SOURCES.items()
)
_ALL_TEXT = " || ' ' || ".join(TEXT_SOURCES.values())
_TSV_COLUMNS += (
    f",\n    {TSV_MATCH} tsvector GENERATED ALWAYS AS "
    f"(to_tsvector('{TEXT_SEARCH_CONFIG}', {normalised(_ALL_TEXT)})) STORED"
)

_V1 = f"""
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE TEXT SEARCH DICTIONARY memvault_english_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION {TEXT_SEARCH_CONFIG} (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION {TEXT_SEARCH_CONFIG}
    ALTER MAPPING FOR asciiword, word, hword, hword_part, asciihword, hword_asciipart
    WITH unaccent, memvault_english_stem;

CREATE TABLE memories (
    orchestrator_id  {_ID} NOT NULL,
    memory_id        {_ID} NOT NULL,
    project_id       {_ID},
    type             {_T} NOT NULL,
    category         {_T} NOT NULL,
    key              text NOT NULL DEFAULT '',
    value            text NOT NULL DEFAULT '',
    content          text NOT NULL,
    summary          text NOT NULL DEFAULT '',
    importance       integer NOT NULL CHECK (importance BETWEEN 0 AND 100),
    confidence       double precision NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    pinned           boolean NOT NULL DEFAULT false,
    status           {_T} NOT NULL,
    ttl_class        {_T} NOT NULL,
    user_id          {_T},
    agent_id         {_T},
    run_id           {_T},
    actor_id         {_T},
    role             {_T},
    conversation_id  {_T},
    created_at       {_TS} NOT NULL,
    updated_at       {_TS} NOT NULL,
    last_accessed_at {_TS},
    purge_at         {_TS},
    access_count     integer NOT NULL DEFAULT 0,
    idx_subject      text NOT NULL DEFAULT '',
    idx_context      text NOT NULL DEFAULT '',
    idx_date         text NOT NULL DEFAULT '',
{_TSV_COLUMNS},
    PRIMARY KEY (orchestrator_id, memory_id)
);
CREATE INDEX memories_scope ON memories (orchestrator_id, status, updated_at DESC, memory_id);
CREATE INDEX memories_user ON memories (orchestrator_id, user_id);
CREATE INDEX memories_project ON memories (orchestrator_id, project_id);
CREATE INDEX memories_type ON memories (orchestrator_id, type);
CREATE INDEX memories_created ON memories (orchestrator_id, created_at, memory_id);
CREATE INDEX memories_tsv ON memories USING gin ({TSV_MATCH});

CREATE TABLE memory_sources (
    orchestrator_id  {_ID} NOT NULL,
    source_id        bigint GENERATED ALWAYS AS IDENTITY,
    memory_id        {_ID} NOT NULL,
    is_primary       boolean NOT NULL,
    source_type      text NOT NULL,
    captured_by      text NOT NULL,
    source_kind      text NOT NULL,
    source_path      text,
    conversation_id  text,
    workflow_run_id  text,
    step_id          text,
    source_ref       text,
    captured_at      {_TS} NOT NULL,
    PRIMARY KEY (orchestrator_id, source_id),
    FOREIGN KEY (orchestrator_id, memory_id)
        REFERENCES memories (orchestrator_id, memory_id) ON DELETE CASCADE
);
CREATE INDEX memory_sources_memory ON memory_sources (orchestrator_id, memory_id, is_primary);
CREATE UNIQUE INDEX memory_sources_one_primary
    ON memory_sources (orchestrator_id, memory_id) WHERE is_primary;

CREATE TABLE memory_edges (
    orchestrator_id  {_ID} NOT NULL,
    edge_id          {_ID} NOT NULL,
    from_memory_id   {_ID} NOT NULL,
    to_memory_id     {_ID} NOT NULL,
    edge_type        text NOT NULL,
    weight           double precision NOT NULL CHECK (weight BETWEEN 0.0 AND 1.0),
    reason           text,
    resolved         boolean NOT NULL DEFAULT false,
    created_at       {_TS} NOT NULL,
    PRIMARY KEY (orchestrator_id, edge_id),
    CONSTRAINT memory_edges_triple
        UNIQUE (orchestrator_id, from_memory_id, to_memory_id, edge_type),
    CHECK (from_memory_id <> to_memory_id),
    FOREIGN KEY (orchestrator_id, from_memory_id)
        REFERENCES memories (orchestrator_id, memory_id) ON DELETE CASCADE,
    FOREIGN KEY (orchestrator_id, to_memory_id)
        REFERENCES memories (orchestrator_id, memory_id) ON DELETE CASCADE
);
CREATE INDEX memory_edges_to ON memory_edges (orchestrator_id, to_memory_id);

CREATE TABLE memory_embeddings (
    orchestrator_id  {_ID} NOT NULL,
    memory_id        {_ID} NOT NULL,
    model_id         text NOT NULL,
    dim              integer NOT NULL,
    embedding        vector NOT NULL,
    text_sha256      text NOT NULL,
    created_at       {_TS} NOT NULL,
    PRIMARY KEY (orchestrator_id, memory_id, model_id),
    CHECK (vector_dims(embedding) = dim),
    FOREIGN KEY (orchestrator_id, memory_id)
        REFERENCES memories (orchestrator_id, memory_id) ON DELETE CASCADE
);
CREATE INDEX memory_embeddings_model ON memory_embeddings (orchestrator_id, model_id, dim);
{";".join(vector_index_ddl(d) for d in DEFAULT_VECTOR_DIMS)};

CREATE TABLE embedding_cache (
    orchestrator_id  {_ID} NOT NULL,
    model_id         text NOT NULL,
    text_sha256      text NOT NULL,
    dim              integer NOT NULL,
    embedding        vector NOT NULL,
    PRIMARY KEY (orchestrator_id, model_id, text_sha256),
    CHECK (vector_dims(embedding) = dim)
);
CREATE INDEX embedding_cache_lookup ON embedding_cache (model_id, text_sha256);

CREATE TABLE history (
    orchestrator_id  {_ID} NOT NULL,
    seq              bigint GENERATED ALWAYS AS IDENTITY,
    event_id         {_ID} NOT NULL,
    memory_id        {_ID},
    op               text NOT NULL,
    stop_reason      text,
    actor            text,
    detector         text,
    detail           json NOT NULL DEFAULT '{{}}',
    at               {_TS} NOT NULL,
    prev_hash        text NOT NULL,
    hash             text NOT NULL,
    PRIMARY KEY (orchestrator_id, seq),
    UNIQUE (orchestrator_id, event_id)
);
CREATE INDEX history_memory ON history (orchestrator_id, memory_id, seq);

CREATE TABLE thread_revision (
    orchestrator_id  {_ID} NOT NULL,
    thread_id        {_ID} NOT NULL,
    revision         bigint NOT NULL,
    PRIMARY KEY (orchestrator_id, thread_id)
);

CREATE TABLE change_log (
    orchestrator_id  {_ID} NOT NULL,
    revision         bigint NOT NULL,
    seq              integer NOT NULL,
    thread_id        {_ID} NOT NULL,
    memory_id        {_ID} NOT NULL,
    kind             text NOT NULL,
    summary          text NOT NULL DEFAULT '',
    at               {_TS} NOT NULL,
    PRIMARY KEY (orchestrator_id, revision, seq)
);

CREATE TABLE events (
    orchestrator_id  {_ID} NOT NULL,
    event_id         bigint GENERATED ALWAYS AS IDENTITY,
    at               {_TS} NOT NULL,
    node             {_T} NOT NULL,
    op               {_T} NOT NULL,
    status           {_T} NOT NULL,
    memory_id        {_ID},
    category         text,
    best_similarity  double precision,
    detail           json NOT NULL DEFAULT '{{}}',
    PRIMARY KEY (orchestrator_id, event_id)
);
CREATE INDEX events_at ON events (orchestrator_id, at);

CREATE TABLE ingest_files (
    orchestrator_id  {_ID} NOT NULL,
    content_sha256   text NOT NULL,
    original_name    text NOT NULL,
    size_bytes       bigint NOT NULL,
    status           text NOT NULL,
    manifest_path    text,
    received_at      {_TS} NOT NULL,
    processed_at     {_TS},
    PRIMARY KEY (orchestrator_id, content_sha256)
);

CREATE TABLE proposals (
    orchestrator_id  {_ID} NOT NULL,
    proposal_id      {_ID} NOT NULL,
    user_id          text,
    kind             text NOT NULL,
    candidate        text NOT NULL,
    status           {_T} NOT NULL,
    created_at       {_TS} NOT NULL,
    expires_at       {_TS} NOT NULL,
    decided_at       {_TS},
    outcome          text NOT NULL DEFAULT '{{}}',
    PRIMARY KEY (orchestrator_id, proposal_id)
);
CREATE INDEX proposals_status ON proposals (orchestrator_id, status, expires_at);
CREATE INDEX proposals_user ON proposals (orchestrator_id, user_id);

CREATE TABLE audit_head (
    orchestrator_id  {_ID} NOT NULL PRIMARY KEY,
    events           bigint NOT NULL,
    head_hash        text NOT NULL
);
CREATE INDEX change_log_memory ON change_log (orchestrator_id, memory_id);
CREATE INDEX events_node ON events (orchestrator_id, node, op, at);
"""

# Migration 2 (issue 11): the bulletin asks for pinned memories first, newest
# first. Without an index that query scans every memory of the orchestrator
# when few (or none) are pinned: ~40 ms per bulletin at 100k memories.
_V2 = """
CREATE INDEX IF NOT EXISTS memories_pinned
    ON memories (orchestrator_id, updated_at DESC, memory_id) WHERE pinned;
"""

# The store identity of each orchestrator (issue 20), matched against the
# orchestrator's memory.anchor.json on open.
_V3 = f"""
CREATE TABLE IF NOT EXISTS store_identity (
    orchestrator_id  {_ID} NOT NULL PRIMARY KEY,
    store_uuid       text NOT NULL,
    created_at       text NOT NULL
);
"""

# Lookups that scanned, as on SQLite.
_V4 = LOOKUP_INDEXES

# Delta-header seen-marks per reader (NOTE5 "seen and left alone" 2): a mark was
# kept per thread, so when Al read a thread, Bea's header for it came back empty.
# Marks are now kept per (thread, reader); the old per-thread marks cannot be
# told apart by reader and are dropped (each reader of an old thread is told of
# at most three recent changes once). ``thread_revision`` keeps the head ('*').
_V5 = f"""
CREATE TABLE IF NOT EXISTS thread_seen (
    orchestrator_id  {_ID} NOT NULL,
    thread_id        {_ID} NOT NULL,
    reader           {_ID} NOT NULL,
    revision         bigint NOT NULL,
    PRIMARY KEY (orchestrator_id, thread_id, reader)
);
CREATE INDEX IF NOT EXISTS thread_seen_reader ON thread_seen (orchestrator_id, reader);
DELETE FROM thread_revision WHERE thread_id <> '*';
"""

# A memory by its key (the LangGraph adapter's get/put), as on SQLite.
_V6 = KEY_INDEX

#: ``(version, description, sql)``, applied in order, each exactly once.
MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "initial schema", _V1),
    (2, "partial index of pinned memories", _V2),
    (3, "store identity (matched against memory.anchor.json)", _V3),
    (4, "conversation and audit-op lookups", _V4),
    (5, "delta-header seen-marks per (thread, reader)", _V5),
    (6, "memory key lookup", _V6),
)
