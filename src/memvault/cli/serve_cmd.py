"""``memvault serve`` (HTTP API + MCP over HTTP) and ``memvault mcp`` (MCP on stdio).

``serve`` (HTTP API, web inspector at ``/``, MCP) needs no config file: on the
embedded default it binds 127.0.0.1:8765, prints the URL and a development key
valid for this process only (loopback binds only), and serves until it is
terminated. ``GET /v1/health`` answers 200
once it is ready.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memvault.cli.config_cmd import ConfigOpt, load
from memvault.cli.options import AllUsersGrantFlag, BoundUserOpt, CategoriesOpt, ReadOnlyFlag
from memvault.engine import NewMemory
from memvault.errors import ConfigError
from memvault.model.enums import MemoryType, SourceKind

if TYPE_CHECKING:  # the engine is imported when a command runs (cli/app.py)
    from collections.abc import Iterable

    from memvault.access import AccessControl, Principal
    from memvault.engine import MemoryEngine

__all__ = ["register"]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.set_inheritable(True)
    return sock


def _demo_governance(engine: MemoryEngine) -> None:
    """What the demo's inspector shows besides memories: a consent proposal and a refusal."""
    engine.propose(
        "Dana prefers code reviews in the morning.",
        user_id="dana",
        type=MemoryType.PREFERENCE,
        category="PREFERENCE",
        importance=40,
    )
    # Refused by the gate (a credential): only its stop reason and detector are kept.
    engine.add(
        NewMemory(
            content="Remember my deploy password is hunter2-Secret!",
            type=MemoryType.PREFERENCE,
            category="PREFERENCE",
            source_kind=SourceKind.USER_EXPLICIT,
            user_id="dana",
        )
    )


def serve(
    ctx: typer.Context,
    host: Annotated[str | None, typer.Option(help="Address to bind (server.host).")] = None,
    port: Annotated[
        int | None, typer.Option(help="Port; 0 picks a free one (server.port).")
    ] = None,
    config_file: ConfigOpt = None,
    demo: Annotated[bool, typer.Option("--demo", help="Seed sample data if empty.")] = False,
    mcp: Annotated[
        bool | None, typer.Option("--mcp/--no-mcp", help="Mount MCP at /mcp (server.mcp).")
    ] = None,
) -> None:
    """Serve the HTTP API, the web inspector at / and MCP at /mcp until terminated."""
    import uvicorn

    from memvault.access import AccessControl, Principal
    from memvault.api import McpMount, create_app
    from memvault.cli.app import _errors, load_demo
    from memvault.mcp import http_endpoint

    flags: dict[str, Any] = {"host": host, "port": port, "mcp": mcp}
    config = load(ctx, config_file, server={k: v for k, v in flags.items() if v is not None})
    orchestrator: str = ctx.obj.orchestrator
    bind_host, bind_port = config.server.host, config.server.port
    control = AccessControl(ctx.obj.home, config)
    try:
        with _errors():
            if demo:
                control.engine(Principal(orchestrator, "demo", "demo"))  # opens it
                engine = control.opened()[orchestrator]
                if engine.stats().to_json()["memories"]["total"] == 0:
                    load_demo(engine)
                    _demo_governance(engine)
            endpoint = http_endpoint(control, bind_host) if config.server.mcp else None
            mount = McpMount("/mcp", endpoint.app, endpoint.lifespan) if endpoint else None
            app = create_app(control, mcp=mount)
            dev_key = None
            if config.server.dev_key == "auto" and _is_loopback(bind_host):
                # The loopback development key is the local administrator: it may ask
                # for the orchestrator-wide view (the inspector's "all users").
                dev_key, _ = control.keys.create(
                    orchestrator, "dev", label="development key", persist=False, all_users=True
                )
        try:
            sock = _bind(bind_host, bind_port)
        except OSError as exc:
            from memvault.cli.app import EXIT_USAGE, _fail

            _fail(f"cannot bind {bind_host}:{bind_port}: {exc}", EXIT_USAGE)
        actual_port = sock.getsockname()[1]
        shown = f"[{bind_host}]" if ":" in bind_host else bind_host
        url = f"http://{shown}:{actual_port}"
        lines = [f"memvault serving {url}  (home: {control.home})"]
        lines.append(f"  Inspector: {url}/   (sign in with an API key)")
        lines.append(f"  API:     {url}/v1   docs: {url}/docs   OpenAPI: {url}/openapi.json")
        if endpoint is not None:
            lines.append(f"  MCP:     {url}/mcp  (streamable HTTP, same API keys)")
        if dev_key is not None:
            lines.append(
                f"  development key (orchestrator {orchestrator!r}, agent 'dev', "
                "valid until this server stops):"
            )
            lines.append(f"    {dev_key}")
            lines.append(f'  try: curl -H "Authorization: Bearer {dev_key}" {url}/v1/whoami')
        else:
            lines.append("  create a key: memvault keys create --orchestrator O --agent A")
        print("\n".join(lines), flush=True)
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
        )
        server.run(sockets=[sock])
    finally:
        control.close()


def mcp_command(
    ctx: typer.Context,
    agent: Annotated[
        str,
        typer.Option(help="The agent the tools act as (1-64 letters, digits, '_', '.', ':', '-')."),
    ] = "assistant",
    categories: CategoriesOpt = None,
    read_only: ReadOnlyFlag = False,
    user: BoundUserOpt = None,
    all_users: AllUsersGrantFlag = False,
    config_file: ConfigOpt = None,
) -> None:
    """Serve MCP on stdio for the global --orchestrator (the local user is trusted)."""
    from memvault.access import AccessControl
    from memvault.cli.app import _errors, granted_categories
    from memvault.mcp import run_stdio

    config = load(ctx, config_file)
    control = AccessControl(ctx.obj.home, config)
    try:
        with _errors():
            if user is not None and all_users:
                raise ConfigError("--user and --all-users exclude each other")
            cats = granted_categories(categories, config.policy.contract)
            grant = (cats, read_only, user, all_users)
            principal = mcp_principal(control, ctx.obj.orchestrator, agent, *grant)
            control.engine(principal)  # open now: a broken store fails before the handshake
        run_stdio(control, principal)
    finally:
        control.close()
        sys.stdout.flush()


def mcp_principal(
    control: AccessControl,
    orchestrator: str,
    agent: str,
    categories: Iterable[str] | None = None,
    read_only: bool = False,
    user: str | None = None,
    all_users: bool = False,
) -> Principal:
    """The principal ``memvault mcp`` serves as: its names held to the keys' rules
    (:func:`~memvault.access.keys.checked_grant`), ``policy.allowlists`` applied.

    Trigger: ``mcp --agent " planner "`` or ``--user " dana "`` (review S18-R9).
    Why: the principal was built from the options as typed: a padded agent was held by
      no allowlist entry (every category), a padded user by no write.
    Outcome: :class:`~memvault.errors.ConfigError` naming the rule, before the store
      opens; a user id trimmed as ``keys create`` trims it.
    """
    from memvault.access import Principal
    from memvault.access.keys import checked_grant

    bound = checked_grant(orchestrator, agent, user=user, all_users=all_users)
    cats = frozenset(categories) if categories is not None else None
    return control.grant(Principal(orchestrator, agent, "stdio", cats, read_only, bound, all_users))


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``mcp`` to the root CLI."""
    app.command("serve")(serve)
    app.command("mcp")(mcp_command)
