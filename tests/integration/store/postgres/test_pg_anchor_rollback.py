"""A PostgreSQL database rolled back to an older state is caught by its anchor file.

The SQLite twin (tests/integration/lifecycle/test_audit_content.py) restores an
old copy of ``memory.db``. Here the tenant's rows are copied aside after one
write, a second write lands (the anchor records it), and the rows are put back
as they were — the database is internally consistent but behind what the
anchor saw: ``verify_audit`` says so, naming both counts.
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from memvault.engine import MemoryEngine, OpenGate
from memvault.layout import RuntimeLayout
from memvault.store.anchor import bind_identity, read_anchor
from memvault.store.postgres import PostgresStore
from tests.helpers import add_fields
from tests.integration.store.postgres import server as pg

FIELDS = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
AT = "2026-01-01T00:00:00.000000Z"


def _engine(dsn: str, schema: str, layout: RuntimeLayout) -> MemoryEngine:
    store = PostgresStore.connect(dsn, schema=schema, pool_size=2)
    bind_identity(store, "acme", layout.anchor_path, create=True, at=AT)
    return MemoryEngine(store, "acme", layout=layout, gate=OpenGate(), embedder=None)


def _tables(conn: psycopg.Connection, schema: str) -> list[str]:
    rows = conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename <> 'schema_version'",
        [schema],
    ).fetchall()
    return sorted(r[0] for r in rows)


def _stored_columns(conn: psycopg.Connection, schema: str, table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
        "AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position",
        [schema, table],
    ).fetchall()
    return [r[0] for r in rows]


def test_a_rolled_back_database_is_behind_its_anchor(tmp_path: Path) -> None:
    dsn, schema = pg.fresh_schema()
    layout = RuntimeLayout.for_orchestrator(tmp_path, "acme").ensure()
    with _engine(dsn, schema, layout) as engine:
        assert add_fields(engine, "The build runs on two cores", **FIELDS).ok
    backup = f"{schema}_backup"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {backup}")
        for table in _tables(conn, schema):
            conn.execute(f"CREATE TABLE {backup}.{table} AS SELECT * FROM {schema}.{table}")
    with _engine(dsn, schema, layout) as engine:
        assert add_fields(engine, "The deploy runs at noon", **FIELDS).ok
        assert engine.verify_audit().ok
    ahead = read_anchor(layout.anchor_path)
    assert ahead is not None and ahead.revision == 2
    with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
        tables = _tables(conn, schema)
        conn.execute(f"TRUNCATE {', '.join(f'{schema}.{t}' for t in tables)}")
        for table in tables:  # the old state, as a restore of an older dump would leave it
            columns = ", ".join(_stored_columns(conn, schema, table))
            conn.execute(
                f"INSERT INTO {schema}.{table} ({columns}) OVERRIDING SYSTEM VALUE "
                f"SELECT {columns} FROM {backup}.{table}"
            )
    with _engine(dsn, schema, layout) as engine:
        report = engine.verify_audit()
        assert engine.store.revision("acme") == 1  # the database really went back
    assert report.ok is False and report.broken is not None
    assert "behind its anchor" in report.broken.reason
    assert report.events == 1
