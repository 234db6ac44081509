"""Typer options more than one command takes, defined once.

A key (``keys create``) and the MCP tools (``mcp``) are granted the same way:
an allowlist of categories, read-only or not, bound to one user or allowed
the orchestrator-wide view.
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["AllUsersGrantFlag", "BoundUserOpt", "CategoriesOpt", "JsonFlag", "ReadOnlyFlag"]

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]

CategoriesOpt = Annotated[
    str | None,
    typer.Option("--categories", help="Comma-separated category allowlist (default: all)."),
]
ReadOnlyFlag = Annotated[bool, typer.Option("--read-only", help="Refuse every write.")]
BoundUserOpt = Annotated[
    str | None,
    typer.Option(
        "--user",
        help="Bind to one user: read that user's and shared memories only, and write only theirs.",
    ),
]
AllUsersGrantFlag = Annotated[
    bool,
    typer.Option(
        "--all-users",
        help="May ask for the orchestrator-wide view (every user's memories; administrators "
        "and the inspector).",
    ),
]
