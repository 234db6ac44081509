"""All CLI formatting lives here: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["emit_json", "error", "print_table", "save_result", "stdout"]

stdout = Console(soft_wrap=True)
_stderr = Console(stderr=True, soft_wrap=True)


def emit_json(data: Any) -> None:
    """One JSON document on stdout (UTF-8, keys in a stable order)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, sort_keys=False) + "\n")
    sys.stdout.flush()


def save_result(path: Path, data: Mapping[str, Any], *, as_json: bool = False) -> bool:
    """Write a command's result to ``path`` as indented JSON; with ``as_json`` print it too.

    Returns whether it was printed (the caller then prints no table). Raises
    OSError when the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if as_json:
        emit_json(data)
    return as_json


def error(message: str, hint: str = "") -> None:
    """One clear line on stderr (plus an optional hint line)."""
    _stderr.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    if hint:
        _stderr.print(f"[dim]hint: {hint}[/]", highlight=False)


def print_table(
    title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str = ""
) -> None:
    table = Table(title=title, caption=caption or None, show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    stdout.print(table)


def print_mapping(title: str, data: Mapping[str, Any]) -> None:
    print_table(title, ["field", "value"], ((k, _short(v)) for k, v in data.items()))


def _short(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)
