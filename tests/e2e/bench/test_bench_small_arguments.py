"""The benches take their smallest sizes, or refuse them clearly (review S12-R9, S12-R10).

`bench langgraph --items 10` spread its items over 20 namespaces and asserted that each
held some (AssertionError traceback); `bench perf --queries 0` warmed up with the first
of no queries (IndexError traceback).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memvault", "bench", *args, "--json", str(tmp_path / "out.json")],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
        cwd=tmp_path,
    )


@pytest.mark.parametrize("queries", ["0", "-1"])
def test_perf_without_queries_is_refused_clearly(tmp_path: Path, queries: str) -> None:
    out = _bench(tmp_path, "perf", "--n", "5", "--queries", queries, "--embedder", "none")
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-600:]
    assert "--queries" in out.stderr


def test_langgraph_on_fewer_items_than_namespaces_runs(tmp_path: Path) -> None:
    out = _bench(tmp_path, "langgraph", "--items", "10")
    assert out.returncode == 0, out.stderr[-600:]
    assert (tmp_path / "out.json").exists()
