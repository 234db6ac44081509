"""Docs that drift fail CI: every CLI command is documented in the README."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from memvault.cli import app

ROOT = Path(__file__).resolve().parents[1]


def _commands(typer_app: typer.Typer) -> set[str]:
    names = set()
    for info in typer_app.registered_commands:
        name = info.name or (info.callback.__name__ if info.callback else "")
        names.add(name.replace("_", "-"))
    for group in typer_app.registered_groups:
        if group.name:
            names.add(group.name)
    return names


def test_every_command_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`memvault (?:--\S+ \S+ )*([a-z][a-z-]*)", readme))
    missing = _commands(app) - documented
    assert not missing, f"README does not document: {sorted(missing)}"


def test_quick_start_is_exactly_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [line for b in blocks for line in b.splitlines() if line.strip()]
    assert commands == [
        "pip install -e . && memvault serve",
        'pip install -e ".[dev]" && pytest',
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci
