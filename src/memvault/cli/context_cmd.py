"""CLI skins for what an agent sees: ``bulletin``, ``query``, ``context``, ``bench context``.

Each command parses, makes one engine call and prints (``--json`` for machines).

``memvault bulletin --json`` prints exactly
``{"revision", "sections", "truncated", "text"}`` (plus ``"delta"`` when
``--thread`` is given); the same memory state prints the same bytes.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memvault.cli import output
from memvault.cli.app import JsonFlag, _engine, app, bench_app

__all__ = ["register", "register_bench"]


def bulletin(
    ctx: typer.Context,
    thread: Annotated[
        str | None,
        typer.Option("--thread", help="Also emit the delta header for this thread (and mark it)."),
    ] = None,
    query: Annotated[
        str | None, typer.Option("--query", help="Rank knowledge by relevance to this text.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """The memory bulletin (cited, size-bounded); with --thread, the delta header first."""
    with _engine(ctx) as engine:
        delta = engine.delta_header(thread) if thread is not None else None
        result = engine.bulletin(query=query)
    if result.status != "fresh":
        output.error(f"bulletin unavailable; showing the {result.status.replace('_', ' ')} one")
    if as_json:
        data = result.to_json()
        if thread is not None:
            data["delta"] = delta.to_json() if delta else None
        output.emit_json(data)
        return
    if delta is not None:
        sys.stdout.write(delta.text + "\n\n")
    sys.stdout.write(result.text + "\n")


def register() -> None:
    """Add the context commands to ``memvault`` and ``memvault bench``."""
    app.command("bulletin")(bulletin)
    register_bench(bench_app)


def register_bench(bench: typer.Typer) -> None:
    """Add ``memvault bench context`` (added with the benchmark)."""
