"""The orchestrator flow (spec 001): channel → queue → orchestrator selection → workflow.

Envelopes arrive on named channels and wait in one in-process queue; each is
handed to the agent of its orchestrator. Every orchestrator has its own
memory (its own controller and engine under one home) and its own compiled
graph, so nothing one orchestrator stores can be recalled by another.

>>> from memvault.controller import InMemoryController
>>> rt = AgentRuntime(InMemoryController)
>>> cli, http = rt.channel("cli"), rt.channel("http")
>>> cli.post(Envelope("cli", "acme", "dana", "I prefer green tea"))
>>> http.post(Envelope("http", "acme", "dana", "Which tea should I order?"))
>>> for turn in rt.drain():
...     print(turn.response)
No stored context.
From memory: [Preference] Dana prefers green tea. [mem_1] (source: channel_transcript)
"""

from __future__ import annotations

import json
import logging
import queue
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memvault.agent.graph import AgentState, TurnKind, build_graph, node_functions
from memvault.agent.model import ModelBoundary, OfflineResponder
from memvault.config import MemvaultConfig, StoreSettings
from memvault.controller import (
    DisabledMemoryController,
    EngineMemoryController,
    GuardedController,
    MemoryController,
)
from memvault.errors import ConfigError, ValidationFailed
from memvault.model.jsonl import json_objects
from memvault.model.threads import agent_thread_id

__all__ = [
    "AgentRuntime",
    "Channel",
    "Envelope",
    "MemoryMode",
    "TurnResult",
    "configured_checkpointer",
    "controller_factory",
    "parse_script",
    "sqlite_checkpointer",
]

MemoryMode = Literal["on", "off", "broken"]
ControllerFactory = Callable[[str], MemoryController]


@dataclass(frozen=True, slots=True)
class Envelope:
    """One inbound item: a user message, a workflow step output, or a diagnostics line."""

    channel: str
    orchestrator: str
    user: str
    text: str = ""
    at: str | None = None
    kind: TurnKind = "message"
    payload: Mapping[str, Any] = field(default_factory=dict)

    @property
    def conversation_id(self) -> str:
        """The thread of this (orchestrator, channel, user): checkpoint and delta-header key."""
        return agent_thread_id(self.orchestrator, self.channel, self.user)


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one turn did: nodes in order, routing decisions, memory's part, the reply."""

    envelope: Envelope
    nodes: tuple[str, ...]
    routes: tuple[str, ...]
    memory_available: bool
    response: str
    memory_write_status: str | None = None
    memory_ids: tuple[str, ...] = ()
    context: str = ""
    #: How many turns this conversation's thread has had (survives restarts when checkpointed).
    thread_turn: int = 1

    def trace(self) -> dict[str, Any]:
        """The stable trace entry: ``{"nodes", "routes", "memory_available", "response"}``."""
        return {
            "nodes": list(self.nodes),
            "routes": list(self.routes),
            "memory_available": self.memory_available,
            "response": self.response,
        }


def parse_script(lines: Iterable[str]) -> list[Envelope]:
    """Envelopes from a JSON Lines script (see ``docs/agent.md``).

    A message line is ``{"channel", "orchestrator", "user", "text", "at"?}``;
    ``{"workflow_output": {...}}`` and ``{"diagnostics": "..."}`` lines take the
    channel, orchestrator and user of the line before unless they name their own.

    >>> [e.kind for e in parse_script(['{"channel": "cli", "orchestrator": "acme",'
    ...     ' "user": "dana", "text": "hi"}', '{"workflow_output": {"decisions": ["x"]}}'])]
    ['message', 'workflow_output']
    """
    out: list[Envelope] = []
    last = {"channel": "cli", "orchestrator": "default", "user": "user"}
    try:
        items = list(json_objects(lines))
    except ValueError as exc:
        line = str(exc).split(":", 1)[0]
        raise ValidationFailed(f"script {exc}", errors=((line, "json"),)) from None
    for number, item in items:
        last = {k: str(item.get(k) or last[k]) for k in ("channel", "orchestrator", "user")}
        channel, orch, user = last["channel"], last["orchestrator"], last["user"]
        at = str(item["at"]) if item.get("at") else None
        if "workflow_output" in item:
            payload = {
                "output": item["workflow_output"],
                "run_id": str(item.get("run_id") or "run-1"),
                "step_id": str(item.get("step_id") or f"step-{number}"),
                "user": user,
            }
            out.append(
                Envelope(channel, orch, user, at=at, kind="workflow_output", payload=payload)
            )
        elif "diagnostics" in item:
            diag = item["diagnostics"]
            text = diag if isinstance(diag, str) else json.dumps(diag)
            out.append(Envelope(channel, orch, user, text, at, kind="diagnostics"))
        elif "text" in item:
            out.append(Envelope(channel, orch, user, str(item["text"]), at))
        else:
            raise ValidationFailed(
                f"script line {number} has no text, workflow_output or diagnostics",
                errors=((f"line {number}", "missing text"),),
            )
    return out


class Channel:
    """A named inbound channel posting onto the runtime's shared queue."""

    def __init__(self, name: str, inbox: queue.Queue[Envelope]) -> None:
        self.name = name
        self._inbox = inbox

    def post(self, envelope: Envelope) -> None:
        self._inbox.put(envelope)


class AgentRuntime:
    """Orchestrator selection over per-orchestrator agents, fed by one queue.

    ``controllers`` makes the controller of an orchestrator (see
    :func:`controller_factory`); ``checkpointer`` is a LangGraph checkpointer
    shared by the graphs (each conversation is one checkpoint thread).
    """

    def __init__(
        self,
        controllers: ControllerFactory,
        model: ModelBoundary | None = None,
        *,
        checkpointer: Any = None,
        agent: str = "assistant",
    ) -> None:
        self._controllers = controllers
        self.model = model or OfflineResponder()
        self.checkpointer = checkpointer
        self.agent = agent
        self.inbox: queue.Queue[Envelope] = queue.Queue()
        self._agents: dict[str, tuple[MemoryController, Any]] = {}

    def channel(self, name: str) -> Channel:
        return Channel(name, self.inbox)

    def controller(self, orchestrator: str) -> MemoryController:
        return self._agent(orchestrator)[0]

    def _agent(self, orchestrator: str) -> tuple[MemoryController, Any]:
        if orchestrator not in self._agents:
            controller = self._controllers(orchestrator)
            graph = build_graph(
                node_functions(controller, self.model, agent=self.agent),
                checkpointer=self.checkpointer,
            )
            self._agents[orchestrator] = (controller, graph)
        return self._agents[orchestrator]

    def handle(self, envelope: Envelope) -> TurnResult:
        """Run one envelope through its orchestrator's graph."""
        _, graph = self._agent(envelope.orchestrator)
        state: AgentState = {
            "conversation_id": envelope.conversation_id,
            "orchestrator": envelope.orchestrator,
            "channel": envelope.channel,
            "user": envelope.user,
            "kind": envelope.kind,
            "text": envelope.text,
            "payload": dict(envelope.payload),
            "at": envelope.at,
            "phase": "plan",
            "routes": [],
            "memory_available": False,
            "memory_read_authorized": False,
            "memory_write_authorized": False,
            "memory_read_result": None,
            "memory_write_status": None,
        }
        config = {"configurable": {"thread_id": envelope.conversation_id}}
        nodes: list[str] = []
        final: Mapping[str, Any] = {}
        for mode, chunk in graph.stream(state, config, stream_mode=["updates", "values"]):
            if mode == "updates":
                nodes.extend(chunk)
            else:
                final = chunk
        read = final.get("memory_read_result") or {}
        return TurnResult(
            envelope,
            tuple(nodes),
            tuple(final.get("routes", [])),
            bool(final.get("memory_available")),
            str(final.get("response", "")),
            final.get("memory_write_status"),
            tuple(read.get("memory_ids", [])),
            str(read.get("context", "")),
            int(final.get("turns", 1)),
        )

    def drain(self) -> Iterator[TurnResult]:
        """Handle everything queued, in arrival order."""
        while True:
            try:
                envelope = self.inbox.get_nowait()
            except queue.Empty:
                return
            yield self.handle(envelope)

    def run(self, envelopes: Iterable[Envelope]) -> list[TurnResult]:
        """Post each envelope on its channel, then drain the queue."""
        for envelope in envelopes:
            self.channel(envelope.channel).post(envelope)
        return list(self.drain())

    def close(self) -> None:
        for controller, _ in self._agents.values():
            if isinstance(controller, GuardedController):
                controller.close()
        self._agents.clear()  # the checkpointer belongs to the caller, who closes it


def sqlite_checkpointer(path: str | Path) -> Any:
    """LangGraph's SQLite checkpointer on ``path`` (the agent's default).

    Trigger: ``langgraph-checkpoint-sqlite`` is an optional package.
    Why: a missing extra must not stop the agent (checkpoints are short-term state).
    Outcome: without it, an in-process saver is used and a warning logged.
    """
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver
    except ImportError:
        from langgraph.checkpoint.memory import InMemorySaver

        logging.getLogger("memvault.agent").warning(
            "langgraph-checkpoint-sqlite is not installed; threads will not survive a restart "
            '(pip install "memvault[langgraph]")'
        )
        return InMemorySaver()
    target = Path(path)
    conn: sqlite3.Connection | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(target, check_same_thread=False)
        # Trigger: a checkpoint file that is corrupt, not a database, or unreadable.
        # Why: thread checkpoints are short-term state; a broken file must not stop
        #      the agent (it used to exit 1 with a traceback on the first turn).
        # Outcome: probe it now; on failure an in-process saver and a warning.
        found = [r[0] for r in conn.execute("PRAGMA quick_check(1)").fetchall()]
        if found != ["ok"]:
            raise sqlite3.DatabaseError("; ".join(str(f) for f in found))
        saver = SqliteSaver(conn)
        saver.setup()
        return saver
    except (sqlite3.Error, OSError) as exc:
        if conn is not None:
            conn.close()
        from langgraph.checkpoint.memory import InMemorySaver

        logging.getLogger("memvault.agent").warning(
            "the checkpoint store %s is unusable (%s); threads are kept in memory for this "
            "run only",
            target,
            exc,
        )
        return InMemorySaver()


# -- checkpointer beside the configured store (issue 11) ------------------------


def configured_checkpointer(path: str | Path, store: StoreSettings | None = None) -> Any:
    """The checkpointer that goes with the configured memory store (``store.*``).

    SQLite store (the default): :func:`sqlite_checkpointer` on ``path``.
    PostgreSQL store (``store.backend = "postgres"``): LangGraph's PostgreSQL
    checkpointer in the store's database and schema (``store.postgres.dsn``;
    ``path`` is not used), so a thread survives a restart of the agent and of
    the server, with the store's statement timeout and keepalive
    (``store.postgres.statement_timeout_s`` / ``keepalive_idle_s``). Close either
    with ``saver.conn.close()``. The entry point
    reads the settings; this function reads no environment.

    >>> import tempfile, pathlib
    >>> saver = configured_checkpointer(pathlib.Path(tempfile.mkdtemp()) / "c.db")
    >>> type(saver).__name__
    'SqliteSaver'
    >>> saver.conn.close()
    """
    # Trigger: the memory store is PostgreSQL.
    # Why: spec §15 — checkpoints belong in the same (replicated, backed-up)
    # database as the memories, not in a local file beside one agent process.
    # Outcome: the PostgreSQL saver; without its package an in-process saver
    # and a warning, like the SQLite one.
    if store is None or store.backend != "postgres":
        return sqlite_checkpointer(path)
    if store.postgres.dsn is None:
        raise ConfigError("the postgres store backend needs a DSN", hint="set store.postgres.dsn")
    from memvault.engine import postgres_checkpointer

    try:
        saver, install_hint = postgres_checkpointer(
            store.postgres.dsn.get_secret_value(), **store.postgres.to_options()
        )
    except Exception as exc:  # unreachable or broken: checkpoints are short-term state
        from langgraph.checkpoint.memory import InMemorySaver

        logging.getLogger("memvault.agent").warning(
            "the PostgreSQL checkpoint store is unusable (%s); threads are kept in memory "
            "for this run only",
            _first_line(exc),
        )
        return InMemorySaver()
    if saver is None:
        from langgraph.checkpoint.memory import InMemorySaver

        logging.getLogger("memvault.agent").warning(
            "langgraph-checkpoint-postgres is not installed; threads will not survive a "
            "restart (%s)",
            install_hint,
        )
        return InMemorySaver()
    return saver


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def controller_factory(
    mode: MemoryMode,
    home: str | Path | None = None,
    *,
    embedder: Any = "default",
    deadline_s: float = 30.0,
    config: MemvaultConfig | None = None,
) -> tuple[ControllerFactory, Callable[[], None]]:
    """The controller maker for ``--memory on|off|broken`` and its cleanup.

    ``config`` (built by the entry point) opens each engine: its store, gate,
    embedder, retrieval and per-category context modes; ``policy.allowlists``
    limits what each agent it names reads; ``embedder`` other than ``"default"``
    overrides ``embedder.*``. ``memory.enabled = false`` is ``off``. ``broken`` points
    every orchestrator at a corrupt SQLite database in a fresh temporary home
    (never at ``home``: a real store is never damaged).
    """
    if mode == "off" or (config is not None and not config.memory.enabled):
        return DisabledMemoryController, lambda: None
    options: dict[str, Any] = {"deadline_s": deadline_s, "config": config}
    if config is not None:  # policy.allowlists: what each named agent may read
        options["allowlist"] = config.policy.agent_allowlist()
    if embedder != "default" or config is None:
        options["embedder"] = embedder
    if mode == "on":
        return (
            lambda o: EngineMemoryController.for_home(home, o, **options),
            lambda: None,
        )
    if config is not None:  # the corrupt database is a local SQLite file, whatever is configured
        options["config"] = config.model_copy(update={"store": StoreSettings()})
    broken_home = Path(tempfile.mkdtemp(prefix="memvault-broken-"))

    def broken(orchestrator: str) -> MemoryController:
        db = broken_home / orchestrator / "memory" / "memory.db"
        db.parent.mkdir(parents=True, exist_ok=True)
        db.write_bytes(b"this is not a SQLite database\x00" * 64)
        return EngineMemoryController.for_home(broken_home, orchestrator, **options)

    return broken, lambda: shutil.rmtree(broken_home, ignore_errors=True)
