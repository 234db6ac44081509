"""The synchronous engine: every layer, plus opening and closing."""

from __future__ import annotations

from memvault.engine._caller import Caller, CallerGrant, DenyHook
from memvault.engine._capture import EngineCapture

__all__ = ["MemoryEngine"]


class MemoryEngine(EngineCapture):
    """Synchronous memory engine for one orchestrator. Thread-safe.

    Built in layers, one module each, every layer seeing the ones below it:
    ``_base`` (construction, embedder, gate, writes) → ``_reads`` (get,
    history, search, list, stats) → ``_context`` (bulletin, delta header,
    memory.query) → ``_lifecycle`` (ingest, TTL, consolidation, consent,
    proposals) → ``_capture`` (transcripts, workflow outputs, diagnostics).
    """

    list = EngineCapture.list_memories

    def as_caller(self, grant: CallerGrant, *, on_deny: DenyHook | None = None) -> Caller:
        """This engine as one caller sees it: every call authorised in one place.

        ``grant`` names the agent, its categories (``None`` = all) and whether
        it is read-only (:class:`~memvault.engine.Grant`, or an API key's
        principal); ``on_deny`` audits a denial before it is raised.
        """
        return Caller(self, grant, on_deny=on_deny)

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.flush_context_events()  # memory.query's buffered events
        self.store.close()
