"""The CLI on PostgreSQL, selected by environment variables or by ``memvault.toml``.

``MEMVAULT__STORE__BACKEND=postgres MEMVAULT__STORE__POSTGRES__DSN=...`` (the
evaluation's interface) or ``[store] backend = "postgres"`` with a DSN in the
home's ``memvault.toml`` must make every command use the server: the rows land
in PostgreSQL and no SQLite file is created.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from memvault.config import ENV_POSTGRES_DSN as ENV_DSN
from memvault.config import ENV_STORE_BACKEND as ENV_BACKEND
from memvault.config import load_config
from memvault.errors import ConfigError
from memvault.store.factory import open_store
from memvault.store.postgres import PostgresStore
from memvault.store.sqlite import SQLiteStore
from tests.integration.store.postgres import server as pg

ADD = ["--type", "Preference", "--category", "PREFERENCE", "--source-kind", "USER_EXPLICIT"]


def run(home: Path, orchestrator: str, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "memvault",
            "--home",
            str(home),
            "--orchestrator",
            orchestrator,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", **env},
    )
    return result.returncode, result.stdout, result.stderr


def test_cli_add_search_get_run_against_postgres(tmp_path: Path) -> None:
    server = pg.shared_server()
    server.claim_schema("memvault")  # the factory's default schema
    env = {ENV_BACKEND: "postgres", ENV_DSN: server.dsn}
    orch = f"cli-{secrets.token_hex(4)}"
    code, out, err = run(
        tmp_path, orch, env, "add", "Dana prefers oolong tea", *ADD, "--user-id", "dana", "--json"
    )
    assert code == 0, err
    added = json.loads(out)
    assert added["stop_reason"] == "SUCCESS_STORED"
    memory_id = added["memory_id"]

    code, out, err = run(tmp_path, orch, env, "search", "oolong", "--json")
    assert code == 0, err
    assert [r["memory_id"] for r in json.loads(out)["results"]] == [memory_id]

    code, out, err = run(tmp_path, orch, env, "get", memory_id, "--json")
    assert code == 0, err
    assert memory_id in out and "oolong" in out

    # the row is in PostgreSQL, under this orchestrator, and no SQLite file exists
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT orchestrator_id, content FROM memvault.memories WHERE memory_id = %s",
            [memory_id],
        ).fetchone()
    assert row == (orch, "Dana prefers oolong tea")
    assert not list(tmp_path.rglob("memory.db"))

    # another orchestrator on the same server sees nothing of it
    store = PostgresStore.connect(server.dsn, pool_size=1)
    assert [n.memory_id for n in store.get_nodes(orch, [memory_id])] == [memory_id]
    assert store.get_nodes(f"{orch}-b", [memory_id]) == []
    store.close()


def test_cli_with_an_unreachable_server_fails_fast_with_exit_4(tmp_path: Path) -> None:
    env = {ENV_BACKEND: "postgres", ENV_DSN: f"postgresql://nobody@/nodb?host={tmp_path}"}
    code, _out, err = run(tmp_path, "acme", env, "search", "tea")
    assert code == 4
    assert "Traceback" not in err
    assert err.startswith("error: cannot connect to PostgreSQL")


def test_cli_reads_the_store_from_memvault_toml(tmp_path: Path) -> None:
    """The file alone selects PostgreSQL for the CLI (the setting was ignored before)."""
    server = pg.shared_server()
    server.claim_schema("memvault")
    (tmp_path / "memvault.toml").write_text(
        f'[store]\nbackend = "postgres"\n[store.postgres]\ndsn = "{server.dsn}"\n',
        encoding="utf-8",
    )
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMVAULT__")}
    orch = f"toml-{secrets.token_hex(4)}"
    result = subprocess.run(
        [sys.executable, "-m", "memvault", "--home", str(tmp_path), "--orchestrator", orch,
         "add", "Dana prefers rooibos", *ADD, "--json"],
        capture_output=True, text=True, timeout=120, env={**clean, "COLUMNS": "200"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    memory_id = json.loads(result.stdout)["memory_id"]
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT orchestrator_id FROM memvault.memories WHERE memory_id = %s", [memory_id]
        ).fetchone()
    assert row == (orch,)
    assert not list(tmp_path.rglob("memory.db"))


def test_factory_selection(tmp_path: Path) -> None:
    cfg = load_config(environ={ENV_BACKEND: "postgres", ENV_DSN: "postgresql://x@h/db"})
    assert cfg.store.backend == "postgres"
    with pytest.raises(ConfigError):
        load_config(environ={ENV_BACKEND: "mongodb"})
    with pytest.raises(ConfigError):
        open_store(tmp_path / "m.db", backend="mongodb")
    with pytest.raises(ConfigError):
        open_store(tmp_path / "m.db", backend="postgres")
    sqlite = open_store(tmp_path / "m.db")
    assert isinstance(sqlite, SQLiteStore)
    sqlite.close()
    server = pg.shared_server()
    server.claim_schema("memvault")
    store = open_store(tmp_path / "unused.db", backend="postgres", dsn=server.dsn)
    assert isinstance(store, PostgresStore)
    store.close()
    assert not (tmp_path / "unused.db").exists()


def test_the_statement_timeout_and_keepalive_settings_reach_the_pool(tmp_path: Path) -> None:
    server = pg.shared_server()
    server.claim_schema("memvault")  # the factory's default schema
    env = {
        ENV_BACKEND: "postgres",
        ENV_DSN: server.dsn,
        "MEMVAULT__STORE__POSTGRES__STATEMENT_TIMEOUT_S": "0.25",
        "MEMVAULT__STORE__POSTGRES__KEEPALIVE_IDLE_S": "12",
    }
    cfg = load_config(environ=env)
    assert cfg.store.postgres.to_options() == {"statement_timeout_s": 0.25, "keepalive_idle_s": 12}
    from memvault.engine import MemoryEngine

    engine = MemoryEngine.open(tmp_path, f"to-{secrets.token_hex(4)}", config=cfg, embedder=None)
    try:
        store = engine.store
        assert isinstance(store, PostgresStore)
        assert store._read_tuples("SHOW statement_timeout") == [("250ms",)]
        with store._conn() as conn:
            assert conn.info.get_parameters()["keepalives_idle"] == "12"
    finally:
        engine.close()
    with pytest.raises(ConfigError):
        load_config(environ={**env, "MEMVAULT__STORE__POSTGRES__STATEMENT_TIMEOUT_S": "-1"})
