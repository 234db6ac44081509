"""The real controller: memory reads and writes through one orchestrator's engine.

The engine is opened lazily, on the first authorised request, so an agent
starts even when its store is corrupt, missing, locked or on a failing disk;
that request (and every later one) answers ``unavailable``. Each engine call
runs under a deadline on the controller's own worker thread: a locked database
makes SQLite wait (``busy_timeout``), and memory must never block the agent
(INV Rule 6).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from memvault.context import AgentAllowlist, quote
from memvault.controller.base import GuardedController
from memvault.controller.types import (
    ControllerStatus,
    MemoryReadRequest,
    MemoryReadResponse,
    MemoryWriteRequest,
    MemoryWriteResponse,
    RecallItem,
)
from memvault.engine import Caller, Grant, MemoryEngine, format_timestamp
from memvault.errors import AccessDeniedError, StoreUnavailableError
from memvault.layout import JsonLineLog, RuntimeLayout
from memvault.model.enums import MemoryType, StopReason
from memvault.model.node import MemoryNode
from memvault.store.scope import visible_to
from memvault.write import CaptureResult

__all__ = ["EngineMemoryController"]

T = TypeVar("T")
Opener = Callable[[], MemoryEngine]

#: How long one memory call may take before the agent goes on without memory.
#: Trigger: a first write loads the embedding model and resolves against recall,
#: which takes seconds on a loaded machine; a locked store waits ``busy_timeout``.
#: Why: long enough for real work, short enough that a dead store costs one wait.
#: Outcome: past it, the call (and the rest of the run) answers ``unavailable``.
DEFAULT_DEADLINE_S = 30.0


class EngineMemoryController(GuardedController):
    """Memory for one orchestrator, backed by :class:`~memvault.engine.MemoryEngine`.

    >>> import tempfile
    >>> from memvault.embed import HashingEmbedder
    >>> from memvault.controller import MemoryWriteRequest
    >>> c = EngineMemoryController.for_home(tempfile.mkdtemp(), "acme",
    ...                                     embedder=HashingEmbedder())
    >>> c.write(MemoryWriteRequest(authorized=True, reason="transcript", orchestrator="acme",
    ...         agent="assistant", kind="message",
    ...         payload={"text": "I prefer tea", "user": "dana"})).status.value
    'ok'
    >>> c.close()
    """

    def __init__(
        self,
        orchestrator: str,
        opener: Opener,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        on_event: Callable[..., None] | None = None,
        allowlist: AgentAllowlist | None = None,
    ) -> None:
        super().__init__(orchestrator, on_event=on_event)
        #: Per-agent category allowlist (spec §5); ``None``: no agent limits.
        self.allowlist = allowlist
        self._opener = opener
        self._deadline_s = deadline_s
        self._engine: MemoryEngine | None = None
        self._broken: str | None = None
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"memory-{orchestrator}")

    @classmethod
    def for_home(
        cls, home: str | Path | None, orchestrator: str, **options: Any
    ) -> EngineMemoryController:
        """A controller over ``<home>/<orchestrator>``; engine options pass through."""
        deadline = float(options.pop("deadline_s", DEFAULT_DEADLINE_S))
        allowlist = options.pop("allowlist", None)
        return cls(
            orchestrator,
            lambda: MemoryEngine.open(home, orchestrator, agent_id="agent", **options),
            deadline_s=deadline,
            on_event=_audit_log(home, orchestrator),
            allowlist=allowlist,
        )

    @property
    def available(self) -> bool:
        """False once the store has proved unusable (no retry: INV Rule 6)."""
        return self._broken is None

    # -- plumbing ----------------------------------------------------------------

    def _call(self, fn: Callable[[MemoryEngine], T]) -> T:
        """Run ``fn(engine)`` on the worker thread within the deadline.

        Trigger: the store may be locked, slow, or fail on open.
        Why: memory never blocks the agent and is never retried within a run.
        Outcome: a timeout or store error marks the controller unavailable.
        """
        if self._broken is not None:
            raise StoreUnavailableError(self._broken)

        def job() -> T:
            with self._lock:
                if self._engine is None:
                    try:
                        engine = self._opener()
                        engine.store.revision(self.orchestrator)  # health probe
                    except StoreUnavailableError:
                        raise
                    except Exception as exc:  # any failure to open = no store
                        raise StoreUnavailableError(f"{type(exc).__name__}: {exc}") from exc
                    self._engine = engine
                return fn(self._engine)

        future: Future[T] = self._pool.submit(job)
        try:
            return future.result(timeout=self._deadline_s)
        except FutureTimeout:
            self._broken = f"memory call exceeded {self._deadline_s:g}s (store locked or slow)"
            raise TimeoutError(self._broken) from None
        except StoreUnavailableError as exc:
            self._broken = str(exc)
            raise
        except OSError as exc:
            self._broken = f"{type(exc).__name__}: {exc}"
            raise

    def close(self) -> None:
        """Close the engine (if opened) and stop the worker thread."""

        def shut() -> None:
            with self._lock:
                if self._engine is not None:
                    self._engine.close()
                    self._engine = None

        if self._broken is None:
            try:
                self._pool.submit(shut).result(timeout=self._deadline_s)
            except Exception:
                self._log(logging.WARNING, "memory_close_failed")
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- reads -------------------------------------------------------------------

    def grant(self, agent: str) -> Grant:
        """What ``agent`` may read: its allowlisted categories (spec §5), or all of them.

        An agent a spec §5 allowlist does not name may read no category (fail
        closed); the configuration's ``policy.allowlists`` limits the agents it names.
        """
        if self.allowlist is None:
            return Grant(agent)
        return Grant(agent, self.allowlist.categories_for(agent))

    def _read(self, request: MemoryReadRequest) -> MemoryReadResponse:
        def governed(engine: Caller) -> MemoryReadResponse:
            """memory.query under the agent's allowlist: recall only, no bulletin.

            Trigger: the agent's grant names its categories, or the request does.
            Why: the bulletin spans every category; an agent limited to some
            must not see the others (DESIGN §3, spec §5).
            Outcome: a refusal is ``unauthorized`` with the policy stop reason.
            """
            try:
                result = engine.memory_query(
                    {
                        "query": request.query or "memory",
                        "categories": list(request.categories or ()) or None,
                        "top_k": min(request.top_k, 100),
                        "return": "full",
                    },
                    user=request.user,
                )
            except AccessDeniedError as exc:
                return self._refused(request, StopReason.FORBIDDEN_CATEGORY.value, str(exc))
            if result.refused:
                stop = result.stop_reason.value if result.stop_reason else None
                return self._refused(request, stop, result.reason)
            recall = tuple(_recall_item(i.node, i.score) for i in result.items)
            context = "\n".join(r.render() for r in recall)
            return MemoryReadResponse(
                ControllerStatus.OK,
                context=f"Relevant memories for this request:\n{context}" if recall else "",
                recall=recall,
                memory_ids=tuple(r.memory_id for r in recall),
            )

        def run(base: MemoryEngine) -> MemoryReadResponse:
            grant = self.grant(request.agent)
            engine = base.as_caller(grant)
            if grant.categories is not None or request.categories is not None:
                return governed(engine)
            # Procedures stay out of default context (spec §12): only a query that
            # asks for the PROCEDURE category (memory.query) brings them back.
            # The turn's user sees their memories and shared ones, never another
            # user's (store/scope.py); no user known: shared ones only.
            filters: dict[str, Any] = {
                "type": tuple(t for t in MemoryType if t is not MemoryType.PROCEDURE),
                "visible_to": visible_to(request.user),
            }
            if request.purpose == "diagnostics":  # evidence: diagnostics observations
                filters["type"] = (MemoryType.OBSERVATION,)
            hits = engine.search(request.query or "memory", filters=filters, top_k=request.top_k)
            recall = tuple(_recall_item(h.node, h.score) for h in hits.hits)
            message = engine.for_message(
                request.thread_id, user=request.user, query=request.query or None
            )
            parts = [message.text]
            if recall:
                heading = "Evidence" if request.purpose == "diagnostics" else "Relevant memories"
                parts.append(
                    f"{heading} for this request:\n" + "\n".join(r.render() for r in recall)
                )
            ids = sorted({*message.bulletin.memory_ids, *(r.memory_id for r in recall)})
            return MemoryReadResponse(
                ControllerStatus.OK,
                context="\n\n".join(parts),
                recall=recall,
                memory_ids=tuple(ids),
            )

        return self._call(run)

    def _refused(
        self, request: MemoryReadRequest, stop: str | None, why: str | None
    ) -> MemoryReadResponse:
        self._log(
            logging.WARNING, "memory_read_refused", agent=request.agent, stop_reason=stop, why=why
        )
        return MemoryReadResponse(ControllerStatus.UNAUTHORIZED, why or "", stop_reason=stop)

    # -- writes ------------------------------------------------------------------

    def _write(self, request: MemoryWriteRequest) -> MemoryWriteResponse:
        p = request.payload

        def run(base: MemoryEngine) -> CaptureResult:
            # Trigger: the agent's own transcript, workflow step or finding.
            # Why: spec §5's allowlist limits what an agent *reads*; what it
            #      captures is judged by the write gate, category by category.
            # Outcome: written through the façade as the agent, without the read grant.
            engine = base.as_caller(Grant(request.agent))
            if request.kind == "message":
                message: dict[str, Any] = {"text": str(p["text"]), "user_id": p.get("user")}
                for key in ("channel", "at", "conversation_id"):
                    if p.get(key):
                        message[key] = p[key]
                return engine.capture_message(message, thread_id=request.thread_id)
            if request.kind == "workflow_output":
                return engine.capture_workflow_output(
                    str(p.get("run_id") or "run"),
                    str(p.get("step_id") or "step"),
                    p["output"],
                    user_id=p.get("user"),
                    thread_id=request.thread_id,
                )
            return engine.capture_diagnostics(
                p["finding"], user_id=p.get("user"), thread_id=request.thread_id
            )

        result = self._call(run)
        ids = tuple(dict.fromkeys(i for c in result.candidates for i in c.memory_ids))
        first = result.candidates[0].stop_reason.value if result.candidates else None
        return MemoryWriteResponse(
            ControllerStatus.OK,
            detail="; ".join(result.errors) or result.skipped,
            stop_reason=first,
            memory_ids=ids,
            outcomes=tuple(c.outcome.value for c in result.candidates),
        )


def _audit_log(home: str | Path | None, orchestrator: str) -> Callable[..., None] | None:
    """Controller events (denials, failures, reads, writes) in the orchestrator's own log.

    Trigger: a denial must be explainable later (STYLE principle 10).
    Why: the log file needs no database, so it works when the store is broken.
    Outcome: one JSON line per event in ``<home>/<orchestrator>/logs``; never raises.
    """
    try:
        layout = RuntimeLayout.for_orchestrator(home, orchestrator)
    except Exception:
        return None
    log = JsonLineLog(layout.log_path, layout.orchestrator)

    def write(event: str, **fields: Any) -> None:
        level = str(fields.pop("level", "info"))
        fields.pop("orchestrator", None)
        log.write(format_timestamp(datetime.now(UTC)), level, event, source="controller", **fields)

    return write


def _recall_item(node: MemoryNode, score: float) -> RecallItem:
    """One recalled memory as the agent's context quotes it (with its provenance)."""
    return RecallItem(
        node.memory_id,
        node.type.value,
        quote(node.content),
        score,
        node.source.model_dump(by_alias=True, exclude_none=True, mode="json"),
    )
