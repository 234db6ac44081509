"""Access control shared by every network interface (HTTP API, MCP over HTTP, adapters).

:class:`AccessControl` turns a bearer token into a :class:`Principal`
(orchestrator and agent come from the key only), hands out the engine of that
orchestrator (one engine per orchestrator, opened lazily and cached, acting as
the key's agent) as the per-caller façade (:meth:`MemoryEngine.as_caller`),
which enforces the agent's category allowlist and read-only flag in one
place. Every denial is explainable afterwards: it leaves an access-audit row
and a JSON line in the orchestrator's ``logs/memory.log``.

>>> import tempfile, pathlib
>>> from memvault.config import load_config
>>> control = AccessControl(pathlib.Path(tempfile.mkdtemp()), load_config(environ={}))
>>> token, _ = control.keys.create("acme", "planner", categories=["TODO"])
>>> who = control.authenticate(token)
>>> control.engine(who).orchestrator, who.allows("TODO"), who.allows("PREFERENCE")
('acme', True, False)
>>> control.close()
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvault.access.keys import KeyStore, Principal
from memvault.config import MemvaultConfig
from memvault.engine import (
    Caller,
    CallerGrant,
    MemoryEngine,
    PolicyGate,
    format_timestamp,
    tools,
)
from memvault.errors import StoreUnavailableError
from memvault.layout import JsonLineLog, RuntimeLayout, default_home
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp
from memvault.model.node import CONTENT_MAX

__all__ = ["AccessControl", "EngineOpener"]

EngineOpener = Callable[[Path, str], MemoryEngine]

#: How long ``/v1/health`` waits for the open orchestrators' stores (seconds).
HEALTH_DEADLINE_S = 5.0


#: The texts of a request body the gate judges (a memory's content, key, value, summary).
_JUDGED_TEXT = ("content", "key", "value", "summary")


class AccessControl:
    """Keys → principals → engines, with allowlists enforced. Thread-safe."""

    def __init__(
        self,
        home: Path | None,
        config: MemvaultConfig,
        *,
        keys: KeyStore | None = None,
        opener: EngineOpener | None = None,
        health_deadline_s: float = HEALTH_DEADLINE_S,
    ) -> None:
        self.home = (Path(home).expanduser() if home is not None else default_home()).resolve()
        self.config = config
        self.keys = keys or KeyStore.for_home(self.home)
        self._opener: EngineOpener = opener or self._open_governed
        self._engines: dict[str, MemoryEngine] = {}
        # Orchestrators whose store could not be opened, and why (health reports them;
        # the next request tries again, so a repaired store recovers by itself).
        self._failed: dict[str, str] = {}
        self._lock = threading.Lock()
        self._screen: PolicyGate | None = None  # the gate content_verdict asks
        self.health_deadline_s = health_deadline_s
        self._probes: dict[str, Future[object]] = {}  # health's probe in flight, per orchestrator

    def _open_governed(self, home: Path, orchestrator: str) -> MemoryEngine:
        # Trigger: a network interface opening an orchestrator's engine.
        # Why: every write from a key must pass the governance gate of the configured
        #      contract, whatever the library default is.
        # Outcome: the engine is opened from the configuration: its store, the gate of
        #          policy.contract (with the daily usage count), embedder and retrieval.
        return MemoryEngine.open(home, orchestrator, config=self.config)

    # -- who -----------------------------------------------------------------

    def authenticate(self, token: str | None) -> Principal | None:
        """The principal of a live key, with its effective allowlist; ``None`` otherwise.

        The effective allowlist is the key's categories intersected with
        ``policy.allowlists[agent]`` from the configuration (either may be absent).
        """
        record = self.keys.verify(token)
        if record is None:
            return None
        return self.grant(record.principal())

    def grant(self, principal: Principal) -> Principal:
        """``principal`` with ``policy.allowlists[agent]`` applied (intersection)."""
        allowlist = self.config.policy.agent_allowlist()
        configured = allowlist.categories_for(principal.agent) if allowlist else None
        if configured is None:
            return principal
        allowed = configured
        if principal.categories is not None:
            allowed &= principal.categories
        return Principal(
            principal.orchestrator,
            principal.agent,
            principal.key_id,
            allowed,
            principal.read_only,
            principal.user,
            principal.all_users,
        )

    def content_verdict(self, fields: Mapping[str, Any]) -> Decision | None:
        """The configured gate's refusal of a memory's text, or ``None`` (allowed, no text).

        Trigger: a request body the interface's schema refused before any engine call.
        Why: contract §7 ranks a forbidden text above a schema problem, so the gate
             of ``policy.contract`` must still judge it — built here, once, not by
             each edge.
        Outcome: the winning decision, which the edge reports instead of its schema
                 error; nothing is written.
        """
        fields = dict(fields)
        if not isinstance(fields.get("content"), str) and isinstance(fields.get("text"), str):
            # Trigger: a capture turn (``text``) the schema refused (review S13-R3: an
            #   injected turn with a bad ``role`` was 422 SCHEMA_INVALID).
            # Outcome: the turn is judged as a memory's text would be.
            fields["content"] = fields.pop("text")
        judged = [k for k in _JUDGED_TEXT if isinstance(fields.get(k), str)]
        ids = [v for k in (*tools.ID_FIELDS, "source_ref") if isinstance(v := fields.get(k), str)]
        if not judged and not ids:
            return None
        for name in judged:
            # Trigger: a text over the schema's bound (up to server.max_body_bytes).
            # Why: the gate's cost grows faster than the text; the whole of a 1 MB
            #   body held a worker for hours, and the body is refused either way.
            # Outcome: the verdict judges what a memory could hold; a refusal found
            #   there still outranks the schema's answer (fail closed both ways). A
            #   body without a content (a PATCH of ``value`` alone, review S13-R3) is
            #   judged on the texts it has.
            fields[name] = fields[name][:CONTENT_MAX]
        with self._lock:
            if self._screen is None:
                self._screen = PolicyGate(self.config.policy.contract)
            screen = self._screen
        try:
            verdicts = [screen.check_fields(MemoryOp.STORE, dict(fields), agent_id=None)]
            # the words of the ids as ``add`` judges them (review S14-R5: an injection as a
            # project_id with spaces was 422 SCHEMA_INVALID over HTTP, INJECTION_DETECTED
            # through ``add``)
            category = fields.get("category")
            for value in ids:
                found = tools.id_decision(value, lambda text: self._id_text(screen, text, category))
                if found is not None:
                    verdicts.append(found)
        except Exception:  # the schema answer stands
            return None
        refused = [v for v in verdicts if not v.allowed]
        return tools.strongest(refused) if refused else None

    @staticmethod
    def _id_text(screen: PolicyGate, text: str, category: object) -> Decision:
        """An id's words judged as ``add`` judges them: under the body's category when it
        names one (a contract without the stand-in, 19.0.0, masked them otherwise), and
        an allowlist answer is no decision on the words (``words_judged``)."""
        return screen.check_fields(
            MemoryOp.STORE, tools.reason_fields(text, category), agent_id=None
        )

    # -- engines -------------------------------------------------------------

    def _base(self, orchestrator: str) -> MemoryEngine:
        if not self.config.memory.enabled:
            raise StoreUnavailableError(
                "memory is disabled by configuration (memory.enabled = false)",
                hint="set memory.enabled = true to serve memory",
            )
        with self._lock:
            engine = self._engines.get(orchestrator)
            if engine is None:
                try:
                    engine = self._opener(self.home, orchestrator)
                except StoreUnavailableError as exc:
                    self._failed[orchestrator] = str(exc)
                    raise
                self._failed.pop(orchestrator, None)
                self._engines[orchestrator] = engine
            return engine

    def engine(self, principal: Principal, route: str = "") -> Caller:
        """The principal's orchestrator engine as that caller: :meth:`MemoryEngine.as_caller`.

        One engine per orchestrator is shared by every agent of it (no copies):
        the façade runs each call as the principal's agent and authorises it in
        one place; a denial is audited here (access-audit row and log line).
        Do not close it (``AccessControl.close`` closes the shared engines).
        """
        base = self._base(principal.orchestrator)

        def audit(grant: CallerGrant, reason: str, operation: str, cats: tuple[str, ...]) -> None:
            self._audit_denial(principal, reason, route or operation, cats)

        return base.as_caller(principal, on_deny=audit)

    def opened(self) -> dict[str, MemoryEngine]:
        with self._lock:
            return dict(self._engines)

    def close(self) -> None:
        with contextlib.suppress(StoreUnavailableError):
            self.keys.flush_failed_auth()
        with self._lock:
            engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            engine.close()

    # -- what ----------------------------------------------------------------

    def _audit_denial(
        self, principal: Principal, reason: str, route: str, categories: Iterable[str]
    ) -> None:
        audit: dict[str, Any] = {"reason": reason, "categories": sorted(set(categories))}
        self.keys.record_access("access_denied", principal=principal, route=route, detail=audit)
        self._log(principal, "access_denied", route=route, **audit)

    def _log(self, principal: Principal, event: str, **fields: Any) -> None:
        engine = self.opened().get(principal.orchestrator)
        log = engine.log if engine is not None else None
        if log is None:
            layout = RuntimeLayout.for_orchestrator(self.home, principal.orchestrator)
            log = JsonLineLog(layout.log_path, principal.orchestrator)
        log.write(
            format_timestamp(datetime.now(UTC)),
            "warning",
            event,
            agent=principal.agent,
            key_id=principal.key_id,
            **fields,
        )

    def scope_miss(self, principal: Principal, route: str, memory_id: str) -> None:
        """Audit an id that is not in the principal's orchestrator (404 to the caller)."""
        self.keys.record_access("scope_miss", principal=principal, route=route, memory_id=memory_id)

    # -- health --------------------------------------------------------------

    def _probe(self, name: str, engine: MemoryEngine) -> Future[object]:
        """The health probe of ``name`` in flight, else a new one on a daemon thread.

        Trigger: ``/v1/health`` asks each open orchestrator's store for its stats.
        Why: a database that does not answer (a frozen server, a network partition)
          held the probe — and the health answer — for as long as it gave none.
        Outcome: the probe runs beside the request, which waits at most
          ``health_deadline_s`` (then: degraded, "no answer"); one probe per
          orchestrator is in flight, and a hung one never blocks the process's exit.
        """
        with self._lock:
            running = self._probes.get(name)
            if running is not None and not running.done():
                return running
            probe: Future[object] = Future()
            self._probes[name] = probe

        def run() -> None:
            try:
                probe.set_result(engine.stats())
            except BaseException as exc:  # the waiting request reports it
                probe.set_exception(exc)

        threading.Thread(target=run, name=f"memvault-health-{name}", daemon=True).start()
        return probe

    def health(self) -> dict[str, Any]:
        """``memory_available`` plus any degraded orchestrator (never raises)."""
        degraded: list[dict[str, str]] = []
        if not self.config.memory.enabled:
            degraded.append({"component": "memory", "reason": "disabled by configuration"})
        probes = {name: self._probe(name, engine) for name, engine in self.opened().items()}
        deadline = time.monotonic() + self.health_deadline_s
        for name, probe in sorted(probes.items()):
            try:
                probe.result(timeout=max(deadline - time.monotonic(), 0.0))
            except FutureTimeout:
                reason = f"no answer from the memory store within {self.health_deadline_s:g} s"
                degraded.append({"component": f"orchestrator:{name}", "reason": reason})
            except Exception as exc:  # health must answer, whatever broke
                degraded.append({"component": f"orchestrator:{name}", "reason": str(exc)[:200]})
        with self._lock:
            failed = sorted(self._failed.items())
        for name, reason in failed:
            degraded.append({"component": f"orchestrator:{name}", "reason": reason[:200]})
        try:
            self.keys.list_keys()
        except Exception as exc:
            degraded.append({"component": "api_keys", "reason": str(exc)[:200]})
        return {
            "status": "ok" if not degraded else "degraded",
            "memory_available": not degraded,
            "degraded": degraded,
            "store_backend": self.config.store.backend,
            "orchestrators_open": sorted(self.opened()),
        }
