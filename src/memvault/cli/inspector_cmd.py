"""``memvault bench inspector``: the web inspector's page times on a store of N memories."""

from __future__ import annotations

from typing import Annotated

import typer

from memvault.cli.counts import comma_counts
from memvault.cli.options import JsonOutOpt

__all__ = ["register_bench"]


def register_bench(bench_app: typer.Typer) -> None:
    @bench_app.command("inspector")
    def inspector(
        json_out: JsonOutOpt,
        n: Annotated[str, typer.Option("--n", help="Store sizes, e.g. 1000,100000.")] = "10000",
        repeats: Annotated[int, typer.Option("--repeats", min=1, max=100)] = 5,
    ) -> None:
        """Time every inspector page over HTTP on stores of N synthetic memories."""
        from memvault.benchmarks.common import render_table, write_json
        from memvault.inspector.bench import run_pages

        sizes = comma_counts(n, "--n", most=10_000_000)
        runs = [run_pages(size, repeats=repeats) for size in sizes]
        for run in runs:
            render_table(
                f"inspector pages, n={run['n']} (load {run['load_average'][0]})",
                run["pages"],
                ["median_ms", "max_ms"],
            )
        write_json(json_out, {"benchmark": "inspector", "runs": runs})
