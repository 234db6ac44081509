"""``memvault bench contention``: N writer processes on one store, a row per N, JSON."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app


def test_contention_bench_runs_separate_writer_processes(tmp_path: Path) -> None:
    out = tmp_path / "contention.json"
    result = CliRunner().invoke(
        app, ["bench", "contention", "--writers", "1,3", "--writes", "4", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["benchmark"] == "contention"
    rows = {r["writers"]: r for r in data["runs"]}
    assert set(rows) == {1, 3}
    assert rows[1]["writes"] == 4 and rows[3]["writes"] == 12
    for row in rows.values():
        assert row["failed"] == 0
        assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
        assert len(row["load_before"]) == 3 and row["lock_waited"] >= 0
    assert "p99_ms" in result.output


def test_contention_bench_refuses_bad_counts(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["bench", "contention", "--writers", "0,x", "--json", str(tmp_path / "o.json")]
    )
    assert result.exit_code == 2
