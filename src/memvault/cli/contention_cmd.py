"""``memvault bench contention``: write latency with N writer processes on one orchestrator."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memvault.cli.counts import comma_counts
from memvault.cli.options import JsonOutOpt

__all__ = ["register_bench"]


def register_bench(bench_app: typer.Typer) -> None:
    @bench_app.command("contention")
    def contention(
        writers: Annotated[
            str, typer.Option("--writers", help="Writer process counts, e.g. 1,4,16.")
        ] = "1,4,16",
        writes: Annotated[
            int, typer.Option("--writes", min=1, max=100_000, help="Writes per process.")
        ] = 50,
        json_out: JsonOutOpt = Path("bench/results/contention.json"),
    ) -> None:
        """p50/p99/max write latency and lock waits with N writer processes on one store."""
        from memvault.benchmarks.common import render_table, write_json
        from memvault.benchmarks.contention import run_contention

        counts = comma_counts(writers, "--writers", most=256, noun="counts")
        result = run_contention(counts, writes)
        render_table(
            f"write latency, {writes} writes per process (one orchestrator, SQLite)",
            {f"{r['writers']} writers": r for r in result["runs"]},
            [
                "p50_ms",
                "p99_ms",
                "max_ms",
                "writes_per_s",
                "lock_waited",
                "lock_wait_max_ms",
                "failed",
                "load_1m",
            ],
        )
        write_json(json_out, result)
