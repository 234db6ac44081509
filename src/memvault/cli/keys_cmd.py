"""``memvault keys create | list | revoke``: API keys bound to an orchestrator and an agent.

>>> from typer.testing import CliRunner
>>> import tempfile, json
>>> from memvault.cli import app
>>> out = CliRunner().invoke(app, ["--home", tempfile.mkdtemp(), "keys", "create",
...                                "--orchestrator", "acme", "--agent", "planner", "--json"])
>>> sorted(json.loads(out.stdout))
['agent', 'key', 'orchestrator']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memvault.access.keys import KeyStore
from memvault.cli import output
from memvault.cli.options import (
    AllUsersGrantFlag,
    BoundUserOpt,
    CategoriesOpt,
    JsonFlag,
    ReadOnlyFlag,
    YesFlag,
)

__all__ = ["keys_app", "register"]

keys_app = typer.Typer(
    help="API keys for `memvault serve` (stored hashed; shown once).", no_args_is_help=True
)


def _store(ctx: typer.Context) -> KeyStore:
    from memvault.config import default_home

    home: Path | None = ctx.obj.home
    return KeyStore.for_home((home.expanduser() if home else default_home()).resolve())


@keys_app.command("create")
def create(
    ctx: typer.Context,
    agent: Annotated[str, typer.Option("--agent", help="The agent this key acts as.")],
    orchestrator: Annotated[
        str | None,
        typer.Option("--orchestrator", help="Tenant of the key (default: the global one)."),
    ] = None,
    categories: CategoriesOpt = None,
    read_only: ReadOnlyFlag = False,
    user: BoundUserOpt = None,
    all_users: AllUsersGrantFlag = False,
    label: Annotated[str, typer.Option(help="A note for `keys list`.")] = "",
    as_json: JsonFlag = False,
) -> None:
    """Create an API key; the key itself is printed once and stored only as a hash."""
    from memvault.cli.app import _errors, granted_categories
    from memvault.config import load_config

    with _errors():
        contract = load_config(ctx.obj.home).policy.contract
        cats = granted_categories(categories, contract)
        token, record = _store(ctx).create(
            orchestrator or ctx.obj.orchestrator,
            agent,
            categories=cats,
            read_only=read_only,
            label=label,
            user=user,
            all_users=all_users,
        )
    if as_json:
        output.emit_json({"key": token, "orchestrator": record.orchestrator, "agent": record.agent})
        return
    output.stdout.print(token, highlight=False)
    output.stdout.print(
        f"key {record.key_id}: orchestrator {record.orchestrator!r}, agent {record.agent!r}"
        + (f", categories {','.join(record.categories)}" if record.categories else "")
        + (", read-only" if record.read_only else "")
        + (f", user {record.user!r}" if record.user else "")
        + (", all users" if record.all_users else "")
        + " — shown once; store it now",
        highlight=False,
    )


@keys_app.command("list")
def list_keys(
    ctx: typer.Context,
    include_revoked: Annotated[bool, typer.Option("--all", help="Include revoked keys.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """List API keys (ids and grants, never secrets)."""
    from memvault.cli.app import _errors

    with _errors():
        records = _store(ctx).list_keys(include_revoked=include_revoked)
    if as_json:
        output.emit_json({"keys": [r.to_json() for r in records]})
        return
    output.print_table(
        f"{len(records)} keys",
        [
            "key id",
            "orchestrator",
            "agent",
            "categories",
            "read-only",
            "user",
            "created",
            "revoked",
        ],
        [
            (
                r.key_id,
                r.orchestrator,
                r.agent,
                ",".join(r.categories) if r.categories is not None else "(all)",
                "yes" if r.read_only else "",
                r.user or ("(all users)" if r.all_users else ""),
                r.created_at,
                r.revoked_at or "",
            )
            for r in records
        ],
    )


@keys_app.command("revoke")
def revoke(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The key id (or the whole key).")],
    yes: YesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Revoke an API key; requests with it get 401 from then on.

    Asks first (a revoked key cannot be restored); --yes skips the question, and
    is needed when stdin is not a terminal. --json never asks (it is for programs).
    """
    from memvault.cli.app import EXIT_NOT_FOUND, _errors, _fail
    from memvault.cli.confirm import confirm

    key_id = key.split("_")[1] if key.startswith("mvk_") and key.count("_") >= 2 else key
    confirm(
        f"revoking key {key_id!r}",
        f"Revoke key {key_id!r}? Its clients get 401 from their next request; "
        "this cannot be undone.",
        yes=yes,
        as_json=as_json,
    )
    with _errors():
        revoked = _store(ctx).revoke(key_id)
    if not revoked:
        _fail(f"no live key {key_id!r}", EXIT_NOT_FOUND, "see `memvault keys list`")
    if as_json:
        output.emit_json({"key_id": key_id, "revoked": True})
    else:
        output.stdout.print(f"revoked {key_id}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``keys`` to the root CLI."""
    app.add_typer(keys_app, name="keys")
