"""``memvault bench embed``: the default embedder's document pass, numpy beside onnxruntime."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memvault.cli import output
from memvault.cli.counts import comma_counts
from memvault.cli.options import JsonOutOpt

__all__ = ["register_bench"]


def register_bench(bench_app: typer.Typer) -> None:
    @bench_app.command("embed")
    def embed(
        turns: Annotated[
            Path, typer.Option("--turns", help="JSONL turns (text, user, speaker, at).")
        ] = Path("bench/data/extraction.jsonl"),
        backends: Annotated[
            str, typer.Option("--backends", help="Document backends: numpy,onnx.")
        ] = "numpy,onnx",
        batches: Annotated[
            str, typer.Option("--batches", help="embed_documents batch sizes, e.g. 1,8,32.")
        ] = "1,8,32",
        calls: Annotated[
            int, typer.Option("--calls", min=1, max=10_000, help="Timed calls per batch size.")
        ] = 20,
        capture_turns: Annotated[
            int,
            typer.Option("--capture-turns", min=0, help="Turns through capture_message (0: skip)."),
        ] = 60,
        ingest_files: Annotated[
            int, typer.Option("--ingest-files", min=0, help="Files of the ingest pass (0: skip).")
        ] = 200,
        json_out: JsonOutOpt = Path("bench/results/embed.json"),
    ) -> None:
        """Per-text embedding time at each batch size, capture p50 and ingest memories/s,
        for the numpy and the onnxruntime document pass (with the load average of each)."""
        from memvault.benchmarks.common import render_table, write_json
        from memvault.benchmarks.embedding import run_embed_bench

        chosen = [b.strip() for b in backends.split(",") if b.strip()]
        if not chosen or any(b not in ("numpy", "onnx") for b in chosen):
            output.error(f"--backends must name numpy and/or onnx, got {backends!r}")
            raise typer.Exit(2)
        if not turns.is_file():
            output.error(f"no turns file at {turns}")
            raise typer.Exit(2)
        sizes = comma_counts(batches, "--batches", most=1024)
        result = run_embed_bench(
            turns_path=turns,
            backends=chosen,
            batches=sizes,
            calls=calls,
            capture_turns=capture_turns,
            ingest_files=ingest_files,
        )
        cpu_column = f"cpu b={sizes[-1]}"
        rows: dict[str, dict[str, object]] = {}
        for backend, by_batch in result["embed"].items():
            row = rows[backend] = {
                f"b={size}": by_batch[str(size)]["ms_per_text_p50"] for size in sizes
            }
            row[cpu_column] = by_batch[str(sizes[-1])]["cpu_ms_per_text_p50"]
            row["load"] = by_batch[str(sizes[0])]["load"][0][0]
        render_table(
            "embed_documents, ms per text (p50) at each batch size",
            rows,
            [*(f"b={size}" for size in sizes), cpu_column, "load"],
        )
        writes: dict[str, dict[str, object]] = {}
        for backend, figures in result["capture"].items():
            writes.setdefault(backend, {}).update(
                {
                    "capture p50": figures["p50_ms"],
                    "p95": figures["p95_ms"],
                    "cpu p50": figures["cpu_p50_ms"],
                    "load": figures["load"][0][0],
                }
            )
        for backend, figures in result["ingest"].items():
            writes.setdefault(backend, {}).update(
                {
                    "ingest mem/s": figures["memories_per_s"],
                    "mem/cpu-s": figures["memories_per_cpu_s"],
                    "load": figures["load"][0][0],
                }
            )
        if writes:
            shown = ["capture p50", "p95", "cpu p50"] if result["capture"] else []
            shown += ["ingest mem/s", "mem/cpu-s"] if result["ingest"] else []
            render_table("capture_message ms per turn, ingest memories/s", writes, [*shown, "load"])
        if "agreement" in result:
            agreement = result["agreement"]
            output.stdout.print(
                f"same vectors: min cosine {agreement['min_cosine']} over "
                f"{agreement['texts']} texts (max |diff| {agreement['max_abs_diff']:.2e})"
            )
        for backend, why in result["skipped"].items():
            output.stdout.print(f"skipped {backend}: {why}")
        write_json(json_out, result)
