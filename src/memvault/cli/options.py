"""Typer options more than one command takes, defined once.

A key (``keys create``) and the MCP tools (``mcp``) are granted the same way:
an allowlist of categories, read-only or not, bound to one user or allowed
the orchestrator-wide view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

__all__ = [
    "AllUsersGrantFlag",
    "BenchDataOpt",
    "BoundUserOpt",
    "CategoriesOpt",
    "JsonFlag",
    "JsonOutOpt",
    "ReadOnlyFlag",
    "WeightsOutOpt",
    "YesFlag",
    "user_option",
]

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
#: A benchmark's result file (``memvault bench …``: a table is printed, JSON written here).
JsonOutOpt = Annotated[Path, typer.Option("--json", help="Write results here.")]
#: Answer yes to a command's confirmation beforehand (``cli/confirm.py``).
YesFlag = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Do not ask for confirmation (needed when stdin is not a terminal; --json never "
        "asks).",
    ),
]

CategoriesOpt = Annotated[
    str | None,
    typer.Option("--categories", help="Comma-separated category allowlist (default: all)."),
]
ReadOnlyFlag = Annotated[bool, typer.Option("--read-only", help="Refuse every write.")]


#: What ``--user`` means to each command that takes it (a user id, or ``None``).
_USER_HELP = {
    "bound": "Bind to one user: read that user's and shared memories only, and write only "
    "theirs (never a shared memory).",
    "read as": "Read as this user: their memories and shared ones (another user's is not "
    "found). Default: every user's, as `list` shows them.",
    "turn": "Whose turn: that user's memories and shared ones, never another user's "
    "(default: shared memories only).",
}


def user_option(use: Literal["bound", "read as", "turn"]) -> Any:
    """The ``--user`` option, with the help of one use: a key or the MCP tools bound to
    one user (``bound``), a read by id (``read as``), an agent's turn (``turn``).

    >>> user_option("turn").help.startswith("Whose turn:")
    True
    """
    return typer.Option("--user", help=_USER_HELP[use])


BoundUserOpt = Annotated[str | None, user_option("bound")]
AllUsersGrantFlag = Annotated[
    bool,
    typer.Option(
        "--all-users",
        help="May ask for the orchestrator-wide view (every user's memories; administrators "
        "and the inspector).",
    ),
]
#: The benchmarks' LoCoMo/LongMemEval folder; the CLI reads ``$MEMVAULT_BENCH_DATA``
#: here (``benchmarks.perf_corpus.ENV_DATA``) so that nothing below it reads the environment.
BenchDataOpt = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="MEMVAULT_BENCH_DATA",
        show_envvar=False,
        help="LoCoMo/LongMemEval folder for the corpus (default: $MEMVAULT_BENCH_DATA, "
        "else ../shared/data if present, else a generated corpus).",
    ),
]
#: Where a ``train`` command (``policy train``, ``capture train``) writes the weights it
#: rebuilds: the ``.npz``, its ``.json`` manifest and ``.md`` card.
WeightsOutOpt = Annotated[
    Path | None,
    typer.Option("--out", help="Folder for the retrained weights (default: the shipped folder)."),
]
