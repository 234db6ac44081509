"""``memvault bench peers``: memvault side by side with chroma, mem0 and LangGraph's stores."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memvault.cli import output
from memvault.cli.options import BenchDataOpt

__all__ = ["register_bench"]


def register_bench(bench_app: typer.Typer) -> None:
    """Add ``memvault bench peers`` to ``bench``."""

    @bench_app.command("peers")
    def peers(
        json_out: Annotated[Path, typer.Option("--json", help="Write results here (+ a .png).")],
        n: Annotated[int, typer.Option("--n", help="Memories in the scale part.")] = 100_000,
        systems: Annotated[
            str,
            typer.Option(
                "--systems",
                help="Comma-separated: memvault,chroma,mem0,langgraph-sqlite,langgraph-inmemory.",
            ),
        ] = "memvault,chroma,mem0,langgraph-sqlite,langgraph-inmemory",
        queries: Annotated[
            int, typer.Option(min=1, help="Searches per system in the scale part.")
        ] = 200,
        locomo: Annotated[
            bool, typer.Option("--locomo/--no-locomo", help="Run the LoCoMo recall part.")
        ] = True,
        mem0_budget: Annotated[
            float,
            typer.Option(
                "--mem0-budget",
                help="Seconds of mem0's per-item add before the rest is batch-inserted.",
            ),
        ] = 60.0,
        embedder: Annotated[
            str, typer.Option("--embedder", help="memvault embedder injected into every system.")
        ] = "default",
        bench_data: BenchDataOpt = None,
    ) -> None:
        """Bulk rows/s, search p50/p95 and LoCoMo recall@10 against vector-store peers."""
        from memvault.benchmarks.peers import SYSTEMS, report, run_peers
        from memvault.benchmarks.perf_corpus import find_data_dir
        from memvault.engine.tools import make_embedder

        chosen = [s.strip() for s in systems.split(",") if s.strip()]
        unknown = [s for s in chosen if s not in SYSTEMS]
        if unknown or not chosen or n < 10 or queries < 5:
            output.error(
                f"--systems must name some of {', '.join(SYSTEMS)} (unknown: {unknown}); "
                "--n >= 10 and --queries >= 5"
            )
            raise typer.Exit(2)
        emb = make_embedder() if embedder == "default" else make_embedder(embedder)
        result = run_peers(
            n,
            embedder=emb,
            systems=chosen,
            queries=queries,
            locomo=locomo,
            mem0_budget_s=mem0_budget,
            partial_json=json_out.with_suffix(".partial.json"),
            data_dir=find_data_dir(bench_data),
        )
        report(result, json_out)
