"""The reader: get, history, audit events, hybrid search, listing; embedding backfill."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memvault.embed.base import FloatVector
from memvault.engine._core import EngineCore
from memvault.errors import ValidationFailed
from memvault.model.enums import HistoryOp, StopReason
from memvault.model.node import MemoryNode
from memvault.model.validation import require_query
from memvault.results import MemoryView, SearchHit, SearchResults
from memvault.retrieval.config import RetrievalConfig, preset
from memvault.retrieval.hybrid import hybrid_search
from memvault.store.base import HistoryEvent, NodeFilter

__all__ = ["Reader", "audit_page_bounds"]


def audit_page_bounds(limit: int, offset: int) -> None:
    """Refuse a page of audit events out of bounds (BOUNDS_EXCEEDED).

    >>> audit_page_bounds(0, 0)
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: limit must be 1..10000 and offset 0..10000000
    """
    if not (1 <= limit <= 10_000 and 0 <= offset <= 10_000_000):
        raise ValidationFailed(
            "limit must be 1..10000 and offset 0..10000000",
            stop_reason=StopReason.BOUNDS_EXCEEDED,
            errors=(("limit", "out of range"),),
        )


class Reader:
    """Every read of one engine: get, history, audit events, search, listing."""

    def __init__(self, core: EngineCore) -> None:
        self.core = core

    def get(self, memory_id: str, *, include_deleted: bool = False) -> MemoryView:
        """A memory and its edges. Raises :class:`MemoryNotFoundError` when absent."""
        node = self.core.load(memory_id, "get", include_deleted=include_deleted)
        return MemoryView(
            node, tuple(self.core.store.edges_of(self.core.orchestrator, [memory_id]))
        )

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """Every audit event of a memory, oldest first (soft-deleted ones included)."""
        self.core.load(memory_id, "history", include_deleted=True)
        return self.core.store.history(self.core.orchestrator, memory_id)

    def audit_events(
        self,
        *,
        memory_id: str | None = None,
        ops: Sequence[HistoryOp] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[HistoryEvent]:
        """A page of the orchestrator's audit events, newest first (bounded).

        ``ops`` keeps only those operations (``[HistoryOp.REFUSE]``: the refusals,
        which record stop reason and detector, never content).

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine, NewMemory
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     _ = e.add(NewMemory(content="Dana likes tea.", type="Preference",
        ...                         category="PREFERENCE", source_kind="USER_EXPLICIT"))
        ...     [ev.op.value for ev in e.audit_events(limit=5)]
        ['CREATE']
        """
        audit_page_bounds(limit, offset)
        return self.core.store.history(
            self.core.orchestrator,
            memory_id,
            limit=limit,
            ops=ops,
            newest_first=True,
            offset=offset,
        )

    def count_memories(self, filters: NodeFilter | Mapping[str, Any] | None = None) -> int:
        """How many memories :meth:`list_memories` would list without a limit.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.count_memories({"user_id": "dana"})
        0
        """
        return self.core.store.count_nodes(self.core.orchestrator, self.core.filters(filters))

    def search(
        self,
        query: str,
        *,
        filters: NodeFilter | Mapping[str, Any] | None = None,
        top_k: int = 10,
        config: RetrievalConfig | str | None = None,
        explain: bool = False,
        query_vector: FloatVector | None = None,
    ) -> SearchResults:
        """Hybrid recall over active memories, best first, filters applied in the store.

        ``config`` is a :class:`RetrievalConfig` or a preset name (``default``,
        ``spec``, ``rrf``, ``fts``, ``text``, ``vector``); ``explain`` adds each hit's
        per-leg ranks and modifier contributions. ``legs`` says which legs ran.
        ``query_vector``: the query's vector from :attr:`embedder`, if the caller
        already has it (capture does); otherwise the query is embedded here. An
        empty or blank query is refused (:class:`ValidationFailed`).
        """
        require_query(query)
        if not 1 <= top_k <= 1000:
            raise ValidationFailed(
                "top_k must be between 1 and 1000",
                stop_reason=StopReason.BOUNDS_EXCEEDED,
                errors=(("top_k", "out of range"),),
            )
        if isinstance(query, str) and len(query) > 10_000:
            raise ValidationFailed(
                "query is longer than 10000 characters",
                stop_reason=StopReason.BOUNDS_EXCEEDED,
                errors=(("query", "too long"),),
            )
        try:
            cfg = preset(config) if isinstance(config, str) else (config or self.core.retrieval)
        except KeyError as exc:
            raise ValidationFailed(
                str(exc.args[0]), errors=(("config", "unknown preset"),)
            ) from None
        f = self.core.filters(filters)
        outcome = hybrid_search(
            self.core.store,
            self.core.orchestrator,
            query,
            f,
            cfg,
            embedder=self.core.embedder if cfg.uses_vector else None,
            now=self.core.clock(),
            # memory.retrieval.top_n (the operator's cap) wins over the caller's top_k.
            top_n=min(top_k, self.core.result_cap or top_k),
            query_vector=query_vector,
            explain=explain,
        )
        if outcome.degraded:
            self.core.log_event("warning", "search_degraded", reason=outcome.degraded)
        hits = tuple(
            SearchHit(r.node, r.score, rank, r.explain)
            for rank, r in enumerate(outcome.ranked, start=1)
        )
        return SearchResults(query, hits, legs=outcome.legs, edges=outcome.edges)

    def backfill_embeddings(self, *, limit: int = 100_000) -> int:
        """Embed memories stored without a vector (after an embedder failure)."""
        embedder = self.core.embedder
        if embedder is None:
            return 0
        try:
            return self.core.writes.backfill(embedder, limit=limit)
        except Exception as exc:  # retried on the next call
            self.core.log_event("warning", "backfill_failed", error=f"{type(exc).__name__}: {exc}")
            return 0

    def list_memories(
        self,
        filters: NodeFilter | Mapping[str, Any] | None = None,
        *,
        limit: int = 50,
        offset: int = 0,
    ) -> list[MemoryNode]:
        """Memories matching ``filters`` (active only by default), newest first."""
        if not (1 <= limit <= 10_000 and offset >= 0):
            raise ValidationFailed(
                "limit must be 1..10000 and offset >= 0",
                stop_reason=StopReason.BOUNDS_EXCEEDED,
                errors=(("limit", "out of range"),),
            )
        return self.core.store.list_nodes(
            self.core.orchestrator, self.core.filters(filters), limit=limit, offset=offset
        )
