"""``memvault bench langgraph``: what one LangGraph store operation costs as the store grows."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memvault.cli.counts import comma_counts
from memvault.cli.options import JsonOutOpt

__all__ = ["langgraph", "register_bench"]

#: The columns of the printed table (every row also holds ``items``, ``op``, ``runs``).
COLUMNS = ["wall_ms_p50", "wall_ms_p90", "cpu_ms_p50"]
SizesOpt = Annotated[str, typer.Option("--items", help="Store sizes, e.g. 1000,10000.")]
RunsOpt = Annotated[
    int, typer.Option("--ops", min=1, max=10_000, help="Runs of each operation per size.")
]


def langgraph(
    items: SizesOpt = "1000,10000",
    ops: RunsOpt = 30,
    json_out: JsonOutOpt = Path("bench/results/langgraph.json"),
) -> None:
    """Wall and CPU ms per LangGraph store operation (get, put, search, list) at each size."""
    from memvault.benchmarks.common import render_table, write_json
    from memvault.benchmarks.langgraph_ops import run_langgraph_ops

    result = run_langgraph_ops(comma_counts(items, "--items", most=1_000_000), ops)
    title = f"LangGraph adapter, ms per operation ({ops} runs each; load {result['load_1m']})"
    render_table(title, {f"{r['items']:>7} {r['op']}": r for r in result["runs"]}, COLUMNS)
    write_json(json_out, result)


def register_bench(bench_app: typer.Typer) -> None:
    """``memvault bench langgraph`` (see :func:`langgraph`)."""
    bench_app.command("langgraph")(langgraph)
