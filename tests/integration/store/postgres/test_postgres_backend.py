"""PostgreSQL-only behaviour: schema and migrations, concurrency, pgvector, tokenising.

Everything shared with the other backends is in ``test_conformance.py``;
these tests cover what only this backend has. They run on the session's
real server (``tests/integration/store/postgres/server.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import psycopg
import pytest

from memvault.errors import (
    ConfigError,
    DuplicateEdgeError,
    MigrationError,
    StoreError,
    StoreUnavailableError,
)
from memvault.model import ChangeKind, HistoryOp
from memvault.store import ChangeEntry, HistoryEvent, NodeFilter, WriteSet
from memvault.store.base import GENESIS_HASH, EmbeddingRow, chain_hash, row_digest
from memvault.store.postgres import PostgresStore
from memvault.store.postgres.queries import search_text_query
from memvault.store.postgres.schema import MIGRATIONS, vector_index_ddl, vector_index_name
from memvault.store.postgres.vectors import decode_vector, encode_vector
from memvault.store.requests import TextSearch
from tests.helpers import make_edge, make_node, ts
from tests.integration.store.postgres import server as pg

TABLES = {
    "memories",
    "memory_edges",
    "memory_sources",
    "memory_embeddings",
    "embedding_cache",
    "history",
    "change_log",
    "thread_revision",
    "thread_seen",
    "events",
    "ingest_files",
    "proposals",
    "audit_head",
    "schema_version",
}


@pytest.fixture
def store() -> Iterator[PostgresStore]:
    s = pg.emptied_store()
    yield s
    s.close()


def raw(store: PostgresStore) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(
        pg.shared_server().dsn, autocommit=True, options=f"-c search_path={store.schema},public"
    )


def event(memory_id: str | None, orch: str = "acme") -> HistoryEvent:
    return HistoryEvent(
        event_id=f"evt_{memory_id}_{id(object())}",
        orchestrator_id=orch,
        op=HistoryOp.CREATE,
        at=ts(7),
        memory_id=memory_id,
        detail={"n": 1.0, "z": [1, 2], "a": "ü"},
    )


def test_schema_tables_indexes_and_versions(store: PostgresStore) -> None:
    with raw(store) as conn:
        tables = {
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", [store.schema]
            )
        }
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s", [store.schema]
            ).fetchall()
        )
    assert tables >= TABLES
    assert "USING gin" in indexes["memories_tsv"]
    # migration 4: the per-write conversation listing and the Refusals page's op read
    assert "(orchestrator_id, conversation_id, updated_at DESC)" in indexes["memories_conversation"]
    assert "(orchestrator_id, op, seq)" in indexes["history_op"]
    hnsw = indexes[vector_index_name(384)]
    assert "USING hnsw" in hnsw and "vector_cosine_ops" in hnsw and "(dim = 384)" in hnsw
    assert store.schema_versions() == [v for v, _, _ in MIGRATIONS]


def test_migrations_apply_once_and_newer_schema_is_refused() -> None:
    dsn, schema = pg.fresh_schema()
    first = PostgresStore.connect(dsn, schema=schema, pool_size=1)
    first.close()
    again = PostgresStore.connect(dsn, schema=schema, pool_size=1)  # nothing applied twice
    assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
    again.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {schema}.schema_version (version, description) VALUES (999, 'x')"
        )
    with pytest.raises(MigrationError):
        PostgresStore.connect(dsn, schema=schema, pool_size=1)


def test_unreachable_server_is_unavailable_quickly(tmp_path: object) -> None:
    with pytest.raises(StoreUnavailableError):
        PostgresStore.connect(f"postgresql://nobody@/nodb?host={tmp_path}", timeout=1)


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        PostgresStore.connect(pg.shared_server().dsn, schema="Robert'); DROP TABLE x;--")
    with pytest.raises(ConfigError):
        PostgresStore.connect(pg.shared_server().dsn, pool_size=0)


def test_closed_store_refuses_work(store: PostgresStore) -> None:
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError):
        store.revision("acme")


def test_concurrent_writers_lose_nothing_and_keep_one_chain(store: PostgresStore) -> None:
    """8 threads over two stores (two pools: as two processes would) write at once."""
    other = PostgresStore.connect(pg.shared_server().dsn, schema=store.schema, pool_size=4)
    threads, per_thread = 8, 15
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def writer(worker: int) -> None:
        target = store if worker % 2 else other
        start.wait()
        try:
            for i in range(per_thread):
                node = make_node(memory_id=f"w{worker}_{i}", content=f"writer {worker} item {i}")
                target.apply(
                    WriteSet(
                        "acme",
                        ts(5),
                        nodes=(node,),
                        events=(event(node.memory_id),),
                        changes=(ChangeEntry(node.memory_id, ChangeKind.CREATED),),
                    )
                )
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    pool = [threading.Thread(target=writer, args=(w,)) for w in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=120)
    other.close()
    assert not errors, errors
    total = threads * per_thread
    assert store.counts("acme").total == total
    assert store.revision("acme") == total
    assert sorted(c.revision for c in store.changes_since("acme", 0)) == list(range(1, total + 1))
    history = store.history("acme", limit=10_000)
    assert len(history) == total
    prev = GENESIS_HASH
    for e in history:  # one unbroken chain, no fork
        assert e.prev_hash == prev
        assert e.hash == chain_hash(prev, e)
        prev = e.hash
    assert store.audit_head("acme").events == total
    assert store.audit_head("acme").hash == prev


def test_detail_round_trips_exactly_for_the_hash_chain(store: PostgresStore) -> None:
    node = make_node()
    store.apply(WriteSet("acme", ts(1), nodes=(node,), events=(event(node.memory_id),)))
    (stored,) = store.history("acme")
    # The row's digest rides along (tamper evidence), the rest exactly as given.
    assert stored.detail == {"n": 1.0, "z": [1, 2], "a": "ü", "digest": row_digest(node)}
    assert isinstance(stored.detail["n"], float)
    assert stored.hash == chain_hash(GENESIS_HASH, stored)


def test_duplicate_edge_is_typed_and_the_write_rolls_back(store: PostgresStore) -> None:
    a, b, c = make_node(), make_node(), make_node(content="rolled back words")
    store.apply(WriteSet("acme", ts(1), nodes=(a, b), edges=(make_edge(a, b),)))
    with pytest.raises(DuplicateEdgeError) as info:
        store.apply(WriteSet("acme", ts(2), nodes=(c,), edges=(make_edge(c, a), make_edge(a, b))))
    assert (info.value.from_id, info.value.to_id) == (a.memory_id, b.memory_id)
    assert store.get_nodes("acme", [c.memory_id]) == []
    assert store.revision("acme") == 1


def test_same_memory_id_in_two_orchestrators_are_two_memories(store: PostgresStore) -> None:
    """Every key starts with orchestrator_id (the distribution column)."""
    a = make_node("acme", memory_id="shared_id", content="acme words")
    b = make_node("other", memory_id="shared_id", content="other words")
    store.apply(WriteSet("acme", ts(1), nodes=(a,)))
    store.apply(WriteSet("other", ts(1), nodes=(b,)))
    assert store.get_nodes("acme", ["shared_id"]) == [a]
    assert store.get_nodes("other", ["shared_id"]) == [b]
    assert [h.memory_id for h in store.search_text("acme", ["other"], NodeFilter(), limit=5)] == []


@pytest.mark.parametrize(
    ("content", "term"),
    [
        ("send the e-mail today", "mail"),
        ("deadline is 2023-05-08", "05"),
        ("the file x_y.txt", "y"),
        ("Dana loves the café downtown", "cafe"),
        ("who am I", "who"),  # no stopword list: as SQLite's porter tokenizer
        ("she is running every day", "runs"),  # stemming on both sides
    ],
)
def test_tokenising_matches_the_embedded_backend(
    store: PostgresStore, content: str, term: str
) -> None:
    node = make_node(content=content)
    store.apply(WriteSet("acme", ts(1), nodes=(node,)))
    assert [h.memory_id for h in store.search_text("acme", [term], NodeFilter(), limit=5)] == [
        node.memory_id
    ]


def test_search_sql_carries_values_only_as_parameters() -> None:
    search = TextSearch(["x'); DROP TABLE memories;--"], NodeFilter(), 5)
    sql, params = search_text_query("acme'--", search)
    assert "DROP" not in sql and "acme'" not in sql
    assert "x'); DROP TABLE memories;--" in params


def test_vectors_round_trip_bit_exact_and_search_by_cosine(store: PostgresStore) -> None:
    rng = np.random.default_rng(7)
    nodes = [make_node(memory_id=f"v{i}") for i in range(20)]
    vectors = rng.standard_normal((20, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = tuple(
        EmbeddingRow(n.memory_id, "model-a", vectors[i], f"sha{i}") for i, n in enumerate(nodes)
    )
    store.apply(WriteSet("acme", ts(1), nodes=tuple(nodes), embeddings=rows))
    cached = store.cached_embeddings("model-a", ["sha3", "nope"])
    assert list(cached) == ["sha3"]
    assert cached["sha3"].tobytes() == vectors[3].tobytes()
    hits = store.search_vectors("acme", "model-a", vectors[5], NodeFilter(), limit=3)
    assert hits[0].memory_id == "v5" and hits[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert [h.similarity for h in hits] == sorted((h.similarity for h in hits), reverse=True)
    expected = sorted(range(20), key=lambda i: -float(vectors[i] @ vectors[5]))[:3]
    assert [h.memory_id for h in hits] == [f"v{i}" for i in expected]
    assert store.search_vectors("other", "model-a", vectors[5], NodeFilter(), limit=3) == []
    assert store.missing_embeddings("acme", "model-a", limit=5) == []


def test_hnsw_index_serves_the_vector_query(store: PostgresStore) -> None:
    node = make_node()
    vector = np.ones(384, dtype=np.float32) / np.sqrt(384)
    store.apply(
        WriteSet(
            "acme",
            ts(1),
            nodes=(node,),
            embeddings=(EmbeddingRow(node.memory_id, "m", vector, "s"),),
        )
    )
    literal = encode_vector(vector)
    with raw(store) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT memory_id FROM memory_embeddings WHERE dim = 384 "
                "ORDER BY embedding::vector(384) <=> %s::vector(384) LIMIT 5",
                [literal],
            )
        )
    assert vector_index_name(384) in plan


def test_a_new_dimension_gets_its_own_hnsw_index(store: PostgresStore) -> None:
    node = make_node()
    vector = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    store.apply(
        WriteSet(
            "acme",
            ts(1),
            nodes=(node,),
            embeddings=(EmbeddingRow(node.memory_id, "tiny", vector, "t"),),
        )
    )
    with raw(store) as conn:
        names = {
            r[0]
            for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s", [store.schema]
            )
        }
    assert vector_index_name(3) in names
    hit = store.search_vectors("acme", "tiny", vector, NodeFilter(), limit=1)
    assert [h.memory_id for h in hit] == [node.memory_id]


def test_vector_helpers() -> None:
    v = np.array([0.1, -2.5, 3e-8], dtype=np.float32)
    assert decode_vector(encode_vector(v)).tobytes() == v.tobytes()
    with pytest.raises(ConfigError):
        vector_index_ddl(5000)


def test_purge_leaves_no_row_of_the_memory(store: PostgresStore) -> None:
    a, b = make_node(content="erase these words"), make_node()
    emb = EmbeddingRow(a.memory_id, "m", np.ones(384, dtype=np.float32) / np.sqrt(384), "sa")
    store.apply(
        WriteSet(
            "acme",
            ts(1),
            nodes=(a, b),
            edges=(make_edge(a, b),),
            embeddings=(emb,),
            changes=(ChangeEntry(a.memory_id, ChangeKind.CREATED, "erase these words"),),
        )
    )
    store.apply(WriteSet("acme", ts(2), purge_ids=(a.memory_id,)))
    with raw(store) as conn:
        for table in ("memories", "memory_sources", "memory_embeddings", "embedding_cache"):
            count = conn.execute(
                f"SELECT count(*) FROM {table} WHERE memory_id = %s"
                if table != "embedding_cache"
                else "SELECT count(*) FROM embedding_cache WHERE text_sha256 = %s",
                [a.memory_id if table != "embedding_cache" else "sa"],
            ).fetchone()
            assert count == (0,), table
        edges = conn.execute("SELECT count(*) FROM memory_edges").fetchone()
        summaries = conn.execute("SELECT summary FROM change_log").fetchall()
    assert edges == (0,)
    assert summaries == [("",)]
    assert store.get_nodes("acme", [b.memory_id]) == [b]


def test_every_statement_is_planned_for_its_own_values(store: PostgresStore) -> None:
    # a generic plan of a prepared search ignored how common its words are (p95 0.9 s at 10k)
    assert store._read_tuples("SHOW plan_cache_mode") == [("force_custom_plan",)]


def test_bulk_writes_refresh_planner_statistics() -> None:
    store = pg.fresh_store()
    try:
        sql = "SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass"
        with raw(store) as conn:
            assert conn.execute(sql).fetchone() == (-1.0,)  # never analyzed
        store.apply(WriteSet("acme", ts(1), nodes=tuple(make_node() for _ in range(999))))
        with raw(store) as conn:
            assert conn.execute(sql).fetchone() == (-1.0,)  # below the threshold
        store.apply(WriteSet("acme", ts(2), nodes=(make_node(),)))
        with raw(store) as conn:
            assert conn.execute(sql).fetchone() == (1000.0,)  # ANALYZE ran after the write
    finally:
        store.close()


def test_a_version_3_schema_gains_the_lookup_indexes() -> None:
    """A schema migrated before migration 4 gets its two indexes on the next connect."""
    dsn, schema = pg.fresh_schema()
    PostgresStore.connect(dsn, schema=schema, pool_size=1).close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP INDEX {schema}.memories_conversation")
        conn.execute(f"DROP INDEX {schema}.history_op")
        conn.execute(f"DELETE FROM {schema}.schema_version WHERE version = 4")
    again = PostgresStore.connect(dsn, schema=schema, pool_size=1)
    assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
    again.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        names = {
            r[0]
            for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s", [schema]
            ).fetchall()
        }
    assert {"memories_conversation", "history_op"} <= names


def test_a_version_4_schema_keeps_seen_marks_per_reader() -> None:
    """Migration 5: marks move to ``thread_seen`` (per reader); the head row stays."""
    dsn, schema = pg.fresh_schema()
    store = PostgresStore.connect(dsn, schema=schema, pool_size=1)
    store.apply(WriteSet("acme", ts(1), nodes=(make_node(),)))
    store.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {schema}.thread_seen")
        conn.execute(f"DELETE FROM {schema}.schema_version WHERE version = 5")
        conn.execute(f"INSERT INTO {schema}.thread_revision VALUES ('acme', 'team-chat', 1)")
    again = PostgresStore.connect(dsn, schema=schema, pool_size=1)
    try:
        assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
        assert again.revision("acme") == 1
        with psycopg.connect(dsn, autocommit=True) as conn:
            rows = conn.execute(f"SELECT thread_id FROM {schema}.thread_revision").fetchall()
        assert rows == [("*",)]  # the old reader-less mark is gone, the head kept
        assert again.thread_seen("acme", "team-chat", reader="u-al") is None
        again.mark_thread_seen("acme", "team-chat", 1, reader="u-al")
        assert again.thread_seen("acme", "team-chat", reader="u-al") == 1
    finally:
        again.close()


def test_a_statement_past_the_timeout_is_cancelled_and_the_pool_goes_on() -> None:
    dsn, schema = pg.fresh_schema()
    store = PostgresStore.connect(
        dsn, schema=schema, pool_size=1, statement_timeout_s=0.3, keepalive_idle_s=9
    )
    try:
        assert store._read_tuples("SHOW statement_timeout") == [("300ms",)]
        with pytest.raises(StoreUnavailableError, match="statement timeout"):
            store._read_tuples("SELECT pg_sleep(3)")
        assert store.revision("acme") == 0  # the one pooled connection still works
        with store._conn() as conn:
            params = conn.info.get_parameters()
        assert (params["keepalives"], params["keepalives_idle"]) == ("1", "9")
        assert (params["keepalives_interval"], params["keepalives_count"]) == ("3", "3")
    finally:
        store.close()
    off = PostgresStore.connect(
        dsn, schema=schema, pool_size=1, statement_timeout_s=0, keepalive_idle_s=0
    )
    try:
        assert off._read_tuples("SHOW statement_timeout") == [("0",)]
        with off._conn() as conn:
            assert conn.info.get_parameters()["keepalives"] == "0"
    finally:
        off.close()
    with pytest.raises(ConfigError, match="must be >= 0"):
        PostgresStore.connect(dsn, schema=schema, statement_timeout_s=-1)


def test_a_new_dimensions_index_is_built_past_the_statement_timeout() -> None:
    """The HNSW index of a new dimension is schema work: no statement limit, as migrations.

    A writer's open transaction makes CREATE INDEX CONCURRENTLY wait for it; under the
    0.3 s limit the build was cancelled and left an INVALID index of that name behind,
    which the next process takes as built (it is listed) — searches of that model then
    scan for ever.
    """
    dsn, schema = pg.fresh_schema()
    store = PostgresStore.connect(dsn, schema=schema, pool_size=1, statement_timeout_s=0.3)
    try:
        with psycopg.connect(dsn, options=f"-c search_path={schema},public") as blocker:
            blocker.execute("LOCK TABLE memory_embeddings IN ROW EXCLUSIVE MODE")
            release = threading.Timer(1.5, blocker.commit)
            release.start()
            node = make_node()
            vector = np.array([0.6, 0.8, 0.0, 0.0, 0.0], dtype=np.float32)
            store.apply(
                WriteSet(
                    "acme",
                    ts(1),
                    nodes=(node,),
                    embeddings=(EmbeddingRow(node.memory_id, "five", vector, "t"),),
                )
            )
            release.join()
        valid = store._read_tuples(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relname = %s",
            [schema, vector_index_name(5)],
        )
        assert valid == [(True,)]
        assert store._read_tuples("SHOW statement_timeout") == [("300ms",)]  # reset after
    finally:
        store.close()


def test_a_statement_timeout_under_a_millisecond_is_a_limit_not_none() -> None:
    """0 means no limit; 0.0004 s is a limit (1 ms), not a rounding to "off"."""
    dsn, schema = pg.fresh_schema()
    store = PostgresStore.connect(dsn, schema=schema, pool_size=1, statement_timeout_s=0.0004)
    try:
        assert store._read_tuples("SHOW statement_timeout") == [("1ms",)]
    finally:
        store.close()
