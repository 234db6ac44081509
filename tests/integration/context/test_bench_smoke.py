"""A tiny run of ``memvault bench context`` (the real bench is not run in tests)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.benchmarks.context import percentiles, seed_store
from memvault.cli import app
from memvault.store import InMemoryStore, NodeFilter


def test_bench_context_smoke(tmp_path: Path) -> None:
    out = tmp_path / "context.json"
    result = CliRunner().invoke(
        app, ["bench", "context", "--sizes", "60,150", "--repeats", "2", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert [r["memories"] for r in data["results"]] == [60, 150]
    for row in data["results"]:
        for figure in ("bulletin", "bulletin_same_revision", "query_bullets", "query_full"):
            assert row[figure]["p50"] >= 0 and row[figure]["p95"] >= row[figure]["p50"] - 1e-9
            assert row[figure]["cpu_p50"] >= 0


def test_seed_is_bulk_and_deterministic() -> None:
    a, b = InMemoryStore(), InMemoryStore()
    seed_store(a, "acme", 0, 300, batch=100)
    seed_store(b, "acme", 0, 300, batch=300)
    nodes = a.list_nodes("acme", NodeFilter(), limit=500)
    assert len(nodes) == 300 and nodes == b.list_nodes("acme", NodeFilter(), limit=500)
    assert a.revision("acme") == 3 and b.revision("acme") == 1


def test_percentiles() -> None:
    assert percentiles([1.0]) == {"p50": 1.0, "p95": 1.0, "mean": 1.0}
    assert percentiles([float(i) for i in range(1, 101)])["p95"] == 95.05
