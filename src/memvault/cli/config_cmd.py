"""``memvault config show | validate``: the effective configuration and its check.

>>> from typer.testing import CliRunner
>>> import tempfile
>>> from memvault.cli import app
>>> CliRunner().invoke(app, ["--home", tempfile.mkdtemp(), "config", "validate"]).exit_code
0
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memvault.cli import output

if TYPE_CHECKING:  # the settings machinery is imported when a command runs (cli/app.py)
    from memvault.config import MemvaultConfig

__all__ = ["config_app", "register"]

config_app = typer.Typer(
    help="Configuration: defaults < memvault.toml < MEMVAULT__… env < flags.",
    no_args_is_help=True,
)

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help="A memvault.toml (default: <home>/memvault.toml if present)."),
]


def load(ctx: typer.Context, config_file: Path | None, **overrides: Any) -> MemvaultConfig:
    """Load the configuration for a command (errors become one line and exit 2)."""
    from memvault.cli.app import _errors
    from memvault.config import load_config

    with _errors():
        return load_config(ctx.obj.home, config_file=config_file, overrides=overrides)
    raise AssertionError("unreachable")  # pragma: no cover - _errors exits


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and path != "policy.allowlists":
            rows.extend(_flatten(value, path + "."))
        else:
            rows.append((path, value))
    return rows


@config_app.command("show")
def show(
    ctx: typer.Context,
    config_file: ConfigOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """Print the effective configuration (secrets masked)."""
    from memvault.config import config_file_for

    data = load(ctx, config_file).public_dict()
    if as_json:
        output.emit_json(data)
        return
    source = config_file_for(ctx.obj.home, config_file)
    output.print_mapping(f"memvault configuration (file: {source or 'none'})", dict(_flatten(data)))


@config_app.command("validate")
def validate(ctx: typer.Context, config_file: ConfigOpt = None) -> None:
    """Check the configuration; exit 2 with each bad key's path if it is invalid."""
    from memvault.config import config_file_for

    load(ctx, config_file)
    source = config_file_for(ctx.obj.home, config_file)
    output.stdout.print(f"configuration is valid (file: {source or 'none'})", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``config`` to the root CLI."""
    app.add_typer(config_app, name="config")
