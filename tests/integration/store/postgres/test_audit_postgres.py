"""Tamper evidence on PostgreSQL: a memory row edited in the database fails ``audit verify``."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import psycopg

from memvault.config import ENV_POSTGRES_DSN as ENV_DSN
from memvault.config import ENV_STORE_BACKEND as ENV_BACKEND
from tests.integration.store.postgres import server as pg
from tests.integration.store.postgres.test_cli_postgres import ADD, run


def test_an_edited_row_in_postgres_fails_audit_verify(tmp_path: Path) -> None:
    server = pg.shared_server()
    server.claim_schema("memvault")  # the factory's default schema
    env = {ENV_BACKEND: "postgres", ENV_DSN: server.dsn}
    orch = f"audit-{secrets.token_hex(4)}"
    code, out, err = run(tmp_path, orch, env, "add", "Dana prefers oolong tea", *ADD, "--json")
    assert code == 0, err
    memory_id = json.loads(out)["memory_id"]
    code, out, err = run(tmp_path, orch, env, "audit", "verify", "--json")
    assert code == 0, err
    assert json.loads(out)["rows_checked"] == 1
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(
            "UPDATE memvault.memories SET content = 'Dana prefers coffee' WHERE memory_id = %s",
            [memory_id],
        )
    code, out, err = run(tmp_path, orch, env, "audit", "verify", "--json")
    assert code == 1
    assert json.loads(out)["first_broken"]["memory_id"] == memory_id
