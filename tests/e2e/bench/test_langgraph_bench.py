"""``memvault bench langgraph``: one row per operation and size, in the JSON and the table."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app

OPS = {
    "get",
    "get (missing key)",
    "put (update)",
    "put (new item)",
    "search (query, page of 10)",
    "search (no query, page of 10)",
    "list_namespaces",
}


def test_bench_langgraph_writes_every_operation_per_size(tmp_path: Path) -> None:
    out = tmp_path / "langgraph.json"
    args = ["bench", "langgraph", "--items", "25,40", "--ops", "2", "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["sizes"] == [25, 40] and data["ops_per_row"] == 2
    assert {(r["items"], r["op"]) for r in data["runs"]} == {
        (n, op) for n in (25, 40) for op in OPS
    }
    assert all(r["runs"] == 2 and r["wall_ms_p90"] >= r["wall_ms_p50"] >= 0 for r in data["runs"])
    assert "list_namespaces" in result.output and len(data["load_1m"]) == 2


def test_bench_langgraph_refuses_a_size_that_is_not_a_number() -> None:
    result = CliRunner().invoke(app, ["bench", "langgraph", "--items", "ten"])
    assert result.exit_code == 2
    assert "--items must be comma-separated sizes" in result.output
