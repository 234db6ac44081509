"""CLI skins for the write-back triggers: ``capture message|workflow|diagnostics``,
``capture train`` (the clause reader), ``bench extraction`` and ``bench capture-leaks``.

Each command parses, makes one engine call and prints the ``CaptureResult``
(``--json``: ``{"candidates": [{"content", "type", "stop_reason", "outcome",
"memory_ids", "edges": [{"type", "from", "to"}]}], …}``).

Exit code 0 whenever the capture ran — a candidate refused by the gate is an
outcome (``rejected`` with its stop reason), not a failure of the command.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memvault.cli import output
from memvault.cli.app import EXIT_USAGE, _engine, _fail, app, bench_app
from memvault.cli.options import JsonFlag, WeightsOutOpt

if TYPE_CHECKING:  # the engine is imported when a command runs (cli/app.py)
    from memvault.engine import CaptureResult, MemoryEngine

__all__ = ["capture_app", "register", "register_bench"]

capture_app = typer.Typer(
    help="Capture memories from a transcript turn, a workflow output or diagnostics.",
    no_args_is_help=True,
)


def _print(result: CaptureResult, as_json: bool) -> None:
    if as_json:
        output.emit_json(result.to_json())
        return
    if result.skipped:
        output.stdout.print(f"skipped: {result.skipped}", highlight=False)
    output.print_table(
        f"{len(result.candidates)} candidate(s) — extractor: {result.extractor or '-'}",
        ["outcome", "stop reason", "type", "content", "memory ids", "edges"],
        [
            (
                c.outcome.value,
                c.stop_reason.value,
                c.type,
                c.content,
                " ".join(c.memory_ids),
                " ".join(f"{e.type}→{e.to_id}" for e in c.edges),
            )
            for c in result.candidates
        ],
    )
    for error in result.errors:
        output.error(error)


#: The options the capture commands share (defined once).
ProjectOpt = Annotated[
    str | None, typer.Option("--project-id", help="Project of the captured memories.")
]
OwnerOpt = Annotated[
    str | None, typer.Option("--user", help="The user the captured memories belong to.")
]


def _capture_file(
    ctx: typer.Context,
    file: Path,
    capture: Callable[[MemoryEngine, str], CaptureResult],
    as_json: bool,
) -> None:
    """Read ``file``, capture its text with ``capture`` on the command's engine, print."""
    text = _read(file)
    with _engine(ctx) as engine:
        result = capture(engine, text)
    _print(result, as_json)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {path}: {exc}", EXIT_USAGE)


@capture_app.command("message")
def capture_message(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The transcript turn (never stored verbatim).")],
    user: Annotated[str, typer.Option("--user", help="The user who said it.")],
    conversation: Annotated[str | None, typer.Option("--conversation")] = None,
    channel: Annotated[str | None, typer.Option("--channel")] = None,
    speaker: Annotated[
        str | None,
        typer.Option(
            "--speaker",
            help="Name used instead of pronouns (default: the user id, kept as written"
            " when it is an id such as user-7f3a9c).",
        ),
    ] = None,
    at: Annotated[
        str | None, typer.Option("--at", help="ISO-8601 time of the turn (resolves 'yesterday').")
    ] = None,
    role: Annotated[
        str, typer.Option("--role", help="user, assistant, tool or system (only user writes).")
    ] = "user",
    project_id: ProjectOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Capture one transcript turn: typed candidates, gated, resolved, committed."""
    message: dict[str, Any] = {
        "text": text,
        "user_id": user,
        "conversation_id": conversation,
        "channel": channel,
        "speaker": speaker,
        "role": role,
    }
    if at is not None:
        try:
            message["at"] = datetime.fromisoformat(at.replace("Z", "+00:00"))
        except ValueError:
            _fail(f"--at is not an ISO-8601 time: {at!r}", EXIT_USAGE)
    with _engine(ctx) as engine:
        result = engine.capture_message(
            {k: v for k, v in message.items() if v is not None}, project_id=project_id
        )
    _print(result, as_json)


@capture_app.command("workflow")
def capture_workflow(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The step output: JSON or markdown.")],
    run_id: Annotated[str, typer.Option("--run-id", help="Workflow run id (provenance).")],
    step_id: Annotated[str, typer.Option("--step-id", help="Step id (provenance).")],
    user: OwnerOpt = None,
    project_id: ProjectOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Capture decisions, todos and goals from a workflow step's output."""

    def capture(engine: MemoryEngine, text: str) -> CaptureResult:
        return engine.capture_workflow_output(
            run_id, step_id, text, user_id=user, project_id=project_id
        )

    _capture_file(ctx, file, capture, as_json)


@capture_app.command("diagnostics")
def capture_diagnostics(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Finding(s): JSON object, list, or text.")],
    user: OwnerOpt = None,
    project_id: ProjectOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Capture diagnostics findings as Observation memories (bounded evidence)."""

    def capture(engine: MemoryEngine, text: str) -> CaptureResult:
        return engine.capture_diagnostics(text, user_id=user, project_id=project_id)

    _capture_file(ctx, file, capture, as_json)


@capture_app.command("train")
def capture_train(
    out: WeightsOutOpt = None,
    corpus: Annotated[
        Path | None, typer.Option("--corpus", help="Clause corpus (default: the shipped one).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Retrain the clause reader from its corpus (deterministic: same corpus, same bytes)."""
    from memvault.engine.tools import READER_CORPUS_PATH as CORPUS_PATH
    from memvault.engine.tools import train_reader

    try:
        manifest = train_reader(out, corpus=corpus or CORPUS_PATH)
    except (OSError, ValueError, KeyError) as exc:
        _fail(f"cannot train the clause reader: {exc}", EXIT_USAGE)
    if as_json:
        output.emit_json(manifest)
        return
    validation = manifest["validation"]
    output.print_table(
        f"clause reader — {manifest['corpus']['items']} clauses, sha256 {manifest['sha256'][:12]}…",
        ["metric", "value"],
        [
            ("validation items (unseen templates)", validation.get("items")),
            ("validation accuracy", validation.get("accuracy")),
            ("silent read as durable", validation.get("silent_read_as_durable")),
            ("durable read as silent", validation.get("durable_read_as_silent")),
        ],
        caption=f"written to {(out or Path('src/memvault/extract/weights'))}/clause_reader.npz",
    )


def _bench_module() -> Any:
    """The extraction benchmark (:mod:`memvault.benchmarks.extraction`), imported on use."""
    return importlib.import_module("memvault.benchmarks.extraction")


def bench_extraction(
    data: Annotated[
        Path | None, typer.Option("--data", help="Labelled turns (default: the bundled set).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Where to write the JSON result.")] = Path(
        "bench/results/extraction.json"
    ),
    similarity: Annotated[
        str, typer.Option("--similarity", help="lexical, minilm or hashing.")
    ] = "minilm",
    repeat: Annotated[int, typer.Option("--repeat", help="Latency repetitions.")] = 3,
    trace: Annotated[
        bool,
        typer.Option(
            "--trace",
            help="Per turn: each clause's decision (rule, reader label, silence) and the "
            "gate's verdict per candidate, in the JSON; leak sources in the summary.",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Candidate precision/recall, update/contradiction accuracy, capture latency."""
    module = _bench_module()
    try:
        report = module.run(data_path=data, similarity=similarity, repeat=repeat, trace=trace)
    except ValueError as exc:
        _fail(str(exc), EXIT_USAGE)
    if output.save_result(out, report, as_json=as_json):
        return
    output.print_table(
        f"extraction bench — {report['turns']} turns, similarity: {report['similarity']}, "
        f"gate: {report['gate']}",
        ["metric", "value"],
        [(k, v) for k, v in report["summary"].items()],
        caption=f"written to {out}",
    )


def bench_capture_leaks(
    sample: Annotated[
        int,
        typer.Option(
            "--sample", min=0, help="About this many items, every k-th of each family (0: all)."
        ),
    ] = 0,
    label: Annotated[
        str,
        typer.Option("--label", help="The corpus label to say (forbidden; benign: what is kept)."),
    ] = "forbidden",
    out: Annotated[Path, typer.Option("--out", help="Where to write the JSON result.")] = Path(
        "bench/results/capture_leaks.json"
    ),
    as_json: JsonFlag = False,
) -> None:
    """The governance corpus's forbidden items said as user turns: what capture stores."""
    module = importlib.import_module("memvault.benchmarks.capture_leaks")
    try:
        report = module.run(sample=sample, label=label)
    except ValueError as exc:
        _fail(str(exc), EXIT_USAGE)
    if output.save_result(out, report, as_json=as_json):
        return
    output.print_table(
        f"capture leak audit — {report['summary']['items']} {label} items",
        ["metric", "value"],
        [(k, v) for k, v in report["summary"].items()],
        caption=f"written to {out}",
    )


def register() -> None:
    """Add ``memvault capture …``, ``bench extraction`` and ``bench capture-leaks``."""
    app.add_typer(capture_app, name="capture")
    register_bench(bench_app)


def register_bench(bench: typer.Typer) -> None:
    """Add ``memvault bench extraction`` and ``bench capture-leaks`` to ``bench``."""
    bench.command("extraction")(bench_extraction)
    bench.command("capture-leaks")(bench_capture_leaks)
