"""Review (session 9): an INVALID HNSW index left by a failed concurrent build is rebuilt.

A ``CREATE INDEX CONCURRENTLY`` that fails (cancelled, or its process killed) leaves
an index of that name marked invalid: the planner never uses it and
``CREATE INDEX ... IF NOT EXISTS`` sees the name and does nothing. The store listed
it as built (``pg_indexes`` lists invalid indexes too), so every later process
searched that model's vectors by a sequential scan for ever.
"""

from __future__ import annotations

import threading

import numpy as np
import psycopg
import pytest

from memvault.store import WriteSet
from memvault.store.base import EmbeddingRow
from memvault.store.postgres import PostgresStore
from memvault.store.postgres.schema import vector_index_ddl, vector_index_name
from tests.helpers import make_node, ts
from tests.integration.store.postgres import server as pg


def _valid(dsn: str, schema: str, dim: int) -> list[tuple[object, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relname = %s",
            [schema, vector_index_name(dim)],
        ).fetchall()


def _leave_an_invalid_index(dsn: str, schema: str, dim: int) -> None:
    """A concurrent build cancelled while a writer holds the table: an INVALID index."""
    options = f"-c search_path={schema},public"
    with psycopg.connect(dsn, options=options) as blocker:
        blocker.execute("LOCK TABLE memory_embeddings IN ROW EXCLUSIVE MODE")
        release = threading.Timer(2.0, blocker.commit)
        release.start()
        with psycopg.connect(dsn, autocommit=True, options=options) as builder:
            builder.execute("SET statement_timeout = '300ms'")
            ddl = vector_index_ddl(dim).replace("INDEX IF", "INDEX CONCURRENTLY IF", 1)
            with pytest.raises(psycopg.errors.QueryCanceled):
                builder.execute(ddl)
        release.join()


def test_an_invalid_index_of_a_dimension_is_rebuilt_by_the_next_store() -> None:
    dsn, schema = pg.fresh_schema()
    PostgresStore.connect(dsn, schema=schema, pool_size=1).close()  # migrated
    _leave_an_invalid_index(dsn, schema, 6)
    assert _valid(dsn, schema, 6) == [(False,)]
    store = PostgresStore.connect(dsn, schema=schema, pool_size=1)
    try:
        node = make_node()
        vector = np.array([0.6, 0.8, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
        store.apply(
            WriteSet(
                "acme",
                ts(1),
                nodes=(node,),
                embeddings=(EmbeddingRow(node.memory_id, "six", vector, "t"),),
            )
        )
        assert _valid(dsn, schema, 6) == [(True,)]
    finally:
        store.close()


def test_an_index_another_session_is_building_is_left_to_it() -> None:
    """Invalid while being built: another process's concurrent build is not dropped."""
    dsn, schema = pg.fresh_schema()
    PostgresStore.connect(dsn, schema=schema, pool_size=1).close()  # migrated
    options = f"-c search_path={schema},public"
    ddl = vector_index_ddl(7).replace("INDEX IF", "INDEX CONCURRENTLY IF", 1)
    store = PostgresStore.connect(dsn, schema=schema, pool_size=1)
    with psycopg.connect(dsn, options=options) as blocker:
        blocker.execute("LOCK TABLE memory_embeddings IN ROW EXCLUSIVE MODE")
        # released on a timer: a store that waited for the build (to drop it) fails, not hangs
        release = threading.Timer(3.0, blocker.commit)
        with psycopg.connect(dsn, autocommit=True, options=options) as builder:
            build = threading.Thread(target=builder.execute, args=(ddl,))
            build.start()
            release.start()
            try:
                oid = None
                for _ in range(200):  # the build has made its (invalid) index
                    if _valid(dsn, schema, 7) == [(False,)]:
                        with psycopg.connect(dsn, autocommit=True) as look:
                            row = look.execute(
                                "SELECT to_regclass(%s)::oid", [f"{schema}.{vector_index_name(7)}"]
                            ).fetchone()
                        oid = row[0] if row else None
                        break
                    threading.Event().wait(0.05)
                assert oid is not None
                node = make_node()
                vector = np.array([0.6, 0.8, 0, 0, 0, 0, 0], dtype=np.float32)
                store.apply(
                    WriteSet(
                        "acme",
                        ts(1),
                        nodes=(node,),
                        embeddings=(EmbeddingRow(node.memory_id, "seven", vector, "t"),),
                    )
                )
            finally:
                release.join()
                build.join()
                store.close()
    assert _valid(dsn, schema, 7) == [(True,)]
    with psycopg.connect(dsn, autocommit=True) as look:
        row = look.execute(
            "SELECT to_regclass(%s)::oid", [f"{schema}.{vector_index_name(7)}"]
        ).fetchone()
    assert row is not None and row[0] == oid  # the builder's index, not dropped and rebuilt
