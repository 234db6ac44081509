"""CLI skins for the drop folder: ``memvault ingest`` and ``memvault bench ingest``.

``memvault --home H --orchestrator O ingest [--once] --json`` processes what is
pending and prints exactly one JSON document::

    {"processed": [{"file", "memories", "refused", "manifest", ...}],
     "rejected": [{"file", "reasons": ["TOO_LARGE", ...], "details", "manifest"}],
     "duplicates": [{"file", "duplicate_of", "manifest", ...}],
     "pending": ["still-being-written.md"], "memories": 3, "seconds": 0.12}

``--watch`` polls every ``--interval`` seconds (one JSON line per pass with
``--json``); a rich progress bar on stderr follows each batch.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from memvault.cli import output
from memvault.cli.app import _engine, _errors, app, bench_app
from memvault.cli.options import JsonFlag

if TYPE_CHECKING:  # the engine is imported when a command runs (cli/app.py)
    from memvault.engine import IngestReport, MemoryEngine

__all__ = ["register", "register_bench"]

_stderr = Console(stderr=True)

#: ``--parallel-gate/--no-parallel-gate``: the ``policy.parallel_gate`` setting for one run.
ParallelGateFlag = Annotated[
    bool | None,
    typer.Option(
        "--parallel-gate/--no-parallel-gate",
        help="Override policy.parallel_gate: judge large batches half in a second process.",
        show_default=False,
    ),
]


class _Bar:
    """A progress bar created on the first file of a batch, closed at the end."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.progress: Progress | None = None
        self.task: Any = None

    def __call__(self, done: int, total: int, name: str) -> None:
        if not self.enabled:
            return
        if self.progress is None:
            self.progress = Progress(
                TextColumn("ingest"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=_stderr,
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("", total=total)
        self.progress.update(self.task, completed=done, description=name[:40])

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def _print(report: IngestReport, as_json: bool) -> None:
    if as_json:
        output.emit_json(report.to_json())
        return
    rows = [(o.name, "processed", str(o.memory_count), "", o.manifest) for o in report.processed]
    rows += [
        (o.name, "rejected", "0", ", ".join(r.code.value for r in o.reasons), o.manifest)
        for o in report.rejected
    ]
    rows += [(o.name, "duplicate", "0", "", o.manifest) for o in report.duplicates]
    rows += [(o.name, "pending", "0", "still being written", "") for o in report.pending]
    if rows:
        output.print_table(
            f"ingest: {report.memories} memories from {len(report.processed)} files "
            f"in {report.seconds:.2f}s",
            ["file", "status", "memories", "reasons", "manifest"],
            rows,
        )
    else:
        output.stdout.print("ingest: nothing pending", highlight=False)


def _ingest_settings(ctx: typer.Context) -> tuple[bool, float]:
    """``memory.ingest.enabled`` and ``max_file_size_mb`` from the configuration."""
    from memvault.config import load_config

    with _errors():
        cfg = load_config(ctx.obj.home).memory.ingest
    return cfg.enabled, cfg.max_file_size_mb


def ingest(
    ctx: typer.Context,
    watch_mode: Annotated[
        bool, typer.Option("--watch", help="Keep polling the drop folder until interrupted.")
    ] = False,
    once: Annotated[
        bool, typer.Option("--once", help="Process what is pending once and exit (default).")
    ] = False,
    interval: Annotated[
        float, typer.Option("--interval", help="Seconds between passes in --watch mode.")
    ] = 2.0,
    max_file_size_mb: Annotated[
        float | None,
        typer.Option(
            "--max-file-size-mb", help="Override memory.ingest.max_file_size_mb for this run."
        ),
    ] = None,
    settle: Annotated[
        float,
        typer.Option("--settle", help="Seconds a file's size must hold still before reading."),
    ] = 0.2,
    max_passes: Annotated[
        int | None, typer.Option("--max-passes", help="Stop --watch after N passes.")
    ] = None,
    parallel_gate: ParallelGateFlag = None,
    as_json: JsonFlag = False,
) -> None:
    """Ingest .txt/.md/.json files from the drop folder into governed memories."""
    from memvault.engine import IngestDisabledError, watch

    bar = _Bar(enabled=not as_json and _stderr.is_terminal)
    passes = 1 if (once or not watch_mode) else max_passes
    overrides = {"policy": {"parallel_gate": parallel_gate}} if parallel_gate is not None else None
    with _engine(ctx, overrides=overrides) as engine:

        def run_once() -> IngestReport:
            # Trigger: every pass. Why: `memory.ingest.enabled = false` must stop a
            # running watcher too, not only the next start. Outcome: config is
            # re-read per pass; disabled raises IngestDisabledError (exit 2).
            enabled, limit = _ingest_settings(ctx)
            try:
                return engine.ingest_pending(
                    enabled=enabled,
                    max_file_size_mb=limit if max_file_size_mb is None else max_file_size_mb,
                    settle_seconds=settle,
                    progress=bar,
                )
            finally:
                bar.close()

        def show(report: IngestReport) -> None:
            # Trigger: an idle pass in watch mode. Why: one line per idle poll
            # would flood the terminal. Outcome: only passes that did work print.
            if passes == 1 or report.outcomes:
                _print(report, as_json)

        if passes != 1:
            engine.core.log_event("info", "ingest_watch_started", interval=interval)
        try:
            watch(run_once, interval=interval, max_passes=passes, on_report=show)
        except KeyboardInterrupt:
            engine.core.log_event("info", "ingest_watch_stopped", reason="interrupted")
        except IngestDisabledError:
            engine.core.log_event("info", "ingest_watch_stopped", reason="disabled")
            raise


def bench_ingest(
    ctx: typer.Context,
    files: Annotated[
        int, typer.Option("--files", min=1, help="How many files to generate.")
    ] = 1000,
    out: Annotated[Path, typer.Option("--out", help="Where to write the JSON result.")] = Path(
        "bench/results/ingest.json"
    ),
    seed: Annotated[int, typer.Option(help="Seed of the generated folder.")] = 7,
    embedder: Annotated[
        str,
        typer.Option(
            "--embedder",
            help="Embedder of the engine: 'default' (the local MiniLM), 'hashing', … or 'none'.",
        ),
    ] = "default",
    threads: Annotated[
        int, typer.Option("--threads", min=1, max=16, help="Embedding worker threads.")
    ] = 2,
    parallel_gate: ParallelGateFlag = None,
    as_json: JsonFlag = False,
) -> None:
    """Files/s and memories/s for a generated folder of mixed .txt/.md/.json files."""
    from memvault.benchmarks.ingest import bench_result, gate_worker_cpu_seconds, generate_folder
    from memvault.engine import MemoryEngine

    home = Path(tempfile.mkdtemp(prefix="memvault-bench-ingest-"))
    bar = _Bar(enabled=not as_json)
    try:
        with (
            _errors(),
            MemoryEngine.open(
                home,
                ctx.obj.orchestrator,
                embedder=None if embedder == "none" else embedder,
                parallel_gate=True if parallel_gate is None else parallel_gate,
            ) as engine,
        ):
            assert engine.layout is not None
            counts = generate_folder(engine.layout.ingest_dir, files, seed=seed)
            model = _load_embedder(engine)
            load_before, cpu = os.getloadavg()[0], time.process_time()
            worker = gate_worker_cpu_seconds()
            try:
                report = engine.ingest_pending(
                    settle_seconds=0, progress=bar, embed_threads=threads
                )
            finally:
                bar.close()
            # the gate's second process works for this pass too: its CPU counts
            worker = gate_worker_cpu_seconds() - worker
            cpu = time.process_time() - cpu + worker
            missing = len(engine.store.missing_embeddings(engine.orchestrator, model, limit=10**6))
            result = bench_result(
                report,
                files,
                counts,
                embedder=model or None,
                embed_threads=threads,
                cpu_seconds=cpu,
                load=(load_before, os.getloadavg()[0]),
                unembedded=missing if model else report.memories,
            )
            result["store_memories"] = engine.stats().to_json()["memories"]["total"]
            result["gate_worker_cpu_seconds"] = round(worker, 3)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if output.save_result(out, result, as_json=as_json):
        return
    rows = [(k, v) for k, v in result.items() if not isinstance(v, dict | list)]
    rows += [(f"time {k} (s)", v) for k, v in result["timings_s"].items()]
    output.print_table(
        "bench ingest",
        ["metric", "value"],
        rows,
        caption=f"embedder: {result['embedder'] or 'none'}; written to {out}",
    )


def _load_embedder(engine: MemoryEngine) -> str:
    """Load the engine's embedder before timing (model load is not ingest); its id or ''.

    Trigger: the embedder cannot load. Why: the bench must say it ran without
    vectors rather than fail. Outcome: '' (the JSON's ``embedder`` is null).
    """
    embedder = engine.embedder
    if embedder is None:
        return ""
    try:
        embedder.embed_documents(["warm up"])
    except Exception:
        return ""
    return embedder.model_id


def register() -> None:
    """Add ``memvault ingest`` and ``memvault bench ingest``."""
    app.command("ingest")(ingest)
    register_bench(bench_app)


def register_bench(bench: typer.Typer) -> None:
    """Add ``memvault bench ingest``."""
    bench.command("ingest")(bench_ingest)
