"""CLI skin for the reference agent: ``agent run`` (scripted) and ``agent chat`` (interactive).

``agent run --script FILE --memory on|off|broken --trace OUT.json`` writes
``{"turns": [{"nodes", "routes", "memory_available", "response"}]}`` — the
same nodes and routes whatever ``--memory`` says; only responses differ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from memvault.cli import output
from memvault.cli.app import EXIT_UNAVAILABLE, EXIT_USAGE, _fail, app

__all__ = ["agent_app", "register"]

agent_app = typer.Typer(
    help="The reference agent (LangGraph): memory changes answers, never paths.",
    no_args_is_help=True,
)

MemoryOpt = Annotated[
    str, typer.Option("--memory", help="on | off | broken (an unreadable store).")
]
EmbedderOpt = Annotated[
    str,
    typer.Option("--embedder", help="Embedder for recall: default, hashing, minilm, …"),
]
ModelUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--model-url",
        help="OpenAI-compatible base URL (e.g. http://localhost:11434/v1); "
        "default: the offline responder.",
    ),
]
ModelNameOpt = Annotated[str, typer.Option("--model", help="Model name for --model-url.")]


CheckpointOpt = Annotated[
    str | None,
    typer.Option(
        "--checkpoint",
        help="SQLite file of the agent's thread checkpoints (default: "
        "<home>/agent/checkpoints.db, or the PostgreSQL store's database when "
        "store.backend = postgres; 'none' to keep threads in memory only).",
    ),
]


def _runtime(
    home: Path | None,
    memory: str,
    embedder: str,
    model_url: str | None,
    model: str,
    checkpoint: str | None = None,
    deadline_s: float = 30.0,
) -> tuple[Any, Any]:
    try:
        from memvault.agent import (
            AgentRuntime,
            OfflineResponder,
            OpenAICompatibleModel,
            controller_factory,
            sqlite_checkpointer,
        )
    except ImportError as exc:  # pragma: no cover - langgraph is an extra
        _fail(f"the agent needs langgraph: {exc}", EXIT_USAGE, 'pip install "memvault[langgraph]"')
    if memory not in ("on", "off", "broken"):
        _fail(f"--memory must be on, off or broken (got {memory!r})", EXIT_USAGE)
    from memvault.config import default_home, load_config
    from memvault.errors import ConfigError

    try:
        config = load_config(home)  # memvault.toml, MEMVAULT__… — read once, here
    except ConfigError as exc:
        _fail(str(exc), EXIT_USAGE, exc.hint)
    factory, cleanup = controller_factory(
        memory,  # type: ignore[arg-type]
        home,
        embedder=embedder,
        deadline_s=deadline_s,
        config=config,
    )
    boundary = OpenAICompatibleModel(model_url, model=model) if model_url else OfflineResponder()
    saver: Any = None
    if checkpoint and checkpoint != "none":
        saver = sqlite_checkpointer(Path(checkpoint).expanduser())
    elif not checkpoint:
        # The configured store's database when it is PostgreSQL (issue 11), else SQLite.
        from memvault.agent.runtime import configured_checkpointer
        from memvault.errors import MemvaultError

        try:
            saver = configured_checkpointer(
                ((home or default_home()) / "agent" / "checkpoints.db").expanduser(),
                config.store,
            )
        except MemvaultError as exc:
            cleanup()
            code = EXIT_USAGE if isinstance(exc, ConfigError) else EXIT_UNAVAILABLE
            _fail(str(exc), code, exc.hint)

    def close_all() -> None:
        cleanup()
        conn = getattr(saver, "conn", None)
        if conn is not None:
            conn.close()

    return AgentRuntime(factory, boundary, checkpointer=saver), close_all


@agent_app.command("run")
def agent_run(
    ctx: typer.Context,
    script: Annotated[Path, typer.Option("--script", help="JSON Lines script.")],
    memory: MemoryOpt = "on",
    trace: Annotated[
        Path | None, typer.Option("--trace", help="Write the node/route trace here (JSON).")
    ] = None,
    home: Annotated[
        Path | None, typer.Option("--home", help="Memory home (overrides the global --home).")
    ] = None,
    embedder: EmbedderOpt = "default",
    model_url: ModelUrlOpt = None,
    model: ModelNameOpt = "default",
    checkpoint: CheckpointOpt = None,
    deadline: Annotated[
        float,
        typer.Option(
            "--memory-deadline", help="Seconds one memory call may take before memory is off."
        ),
    ] = 30.0,
) -> None:
    """Run a scripted conversation through the agent graph and write its trace."""
    from memvault.agent import parse_script
    from memvault.errors import ValidationFailed

    try:
        envelopes = parse_script(script.read_text(encoding="utf-8").splitlines())
    except OSError as exc:
        _fail(f"cannot read {script}: {exc}", EXIT_USAGE)
    except ValidationFailed as exc:
        _fail(str(exc), EXIT_USAGE)
    runtime, cleanup = _runtime(
        home or getattr(ctx.obj, "home", None),
        memory,
        embedder,
        model_url,
        model,
        checkpoint,
        deadline,
    )
    try:
        turns = runtime.run(envelopes)
    finally:
        runtime.close()
        cleanup()
    document = {"turns": [t.trace() for t in turns]}
    if trace is not None:
        trace.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", "utf-8")
    for t in turns:
        flag = "memory" if t.memory_available else "no memory"
        output.stdout.print(
            f"[{t.envelope.orchestrator}/{t.envelope.channel}] {t.envelope.user} ({flag}): "
            f"{t.response}",
            highlight=False,
            markup=False,
        )


@agent_app.command("chat")
def agent_chat(
    ctx: typer.Context,
    channel: Annotated[str, typer.Option("--channel", help="Channel name.")] = "cli",
    orchestrator: Annotated[
        str | None, typer.Option("--orchestrator", help="Orchestrator (default: global).")
    ] = None,
    user: Annotated[str, typer.Option("--user", help="Who is speaking.")] = "user",
    memory: MemoryOpt = "on",
    embedder: EmbedderOpt = "default",
    model_url: ModelUrlOpt = None,
    model: ModelNameOpt = "default",
    checkpoint: CheckpointOpt = None,
) -> None:
    """Chat with the agent: one message per stdin line (Ctrl-D or /quit ends)."""
    from memvault.agent import Envelope

    orch = orchestrator or getattr(ctx.obj, "orchestrator", None) or "default"
    runtime, cleanup = _runtime(
        getattr(ctx.obj, "home", None), memory, embedder, model_url, model, checkpoint
    )
    interactive = sys.stdin.isatty()
    try:
        while True:
            if interactive:
                output.stdout.print(f"{user}@{orch}/{channel}> ", end="", highlight=False)
            line = sys.stdin.readline()
            if not line or line.strip() in {"/quit", "/exit"}:
                break
            if not line.strip():
                continue
            turn = runtime.handle(Envelope(channel, orch, user, line.rstrip("\n")))
            output.stdout.print(turn.response, highlight=False, markup=False)
    finally:
        runtime.close()
        cleanup()


def register() -> None:
    app.add_typer(agent_app, name="agent")
