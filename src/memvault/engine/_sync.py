"""The synchronous engine: every layer, plus opening and closing."""

from __future__ import annotations

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

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.flush_context_events()  # memory.query's buffered events
        self.store.close()
