"""Reads: get, history, hybrid search, listing, stats; embedding backfill and bulk add."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memvault.embed.base import FloatVector
from memvault.errors import ValidationFailed
from memvault.model.enums import HistoryOp, MemoryOp, StopReason
from memvault.model.node import MemoryNode
from memvault.model.validation import to_validation_failed
from memvault.results import MemoryView, SearchHit, SearchResults, WriteResult
from memvault.retrieval.config import RetrievalConfig, preset
from memvault.retrieval.hybrid import hybrid_search
from memvault.store.base import HistoryEvent, IndexText, NodeFilter

if TYPE_CHECKING:
    pass
from memvault.engine._base import EngineBase
from memvault.write.precomputed import checked_vector


class EngineReads(EngineBase):
    """The read operations of :class:`~memvault.engine.MemoryEngine`."""

    # -- reads ---------------------------------------------------------------

    def get(self, memory_id: str, *, include_deleted: bool = False) -> MemoryView:
        """A memory and its edges. Raises :class:`MemoryNotFoundError` when absent."""
        node = self._load(memory_id, "get", include_deleted=include_deleted)
        return MemoryView(node, tuple(self.store.edges_of(self.orchestrator, [memory_id])))

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """Every audit event of a memory, oldest first (soft-deleted ones included)."""
        self._load(memory_id, "history", include_deleted=True)
        return self.store.history(self.orchestrator, memory_id)

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
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     _ = e.add("Dana likes tea.", type="Preference", category="PREFERENCE",
        ...               source_kind="USER_EXPLICIT")
        ...     [ev.op.value for ev in e.audit_events(limit=5)]
        ['CREATE']
        """
        if not (1 <= limit <= 10_000 and 0 <= offset <= 10_000_000):
            raise ValidationFailed(
                "limit must be 1..10000 and offset 0..10000000",
                stop_reason=StopReason.BOUNDS_EXCEEDED,
                errors=(("limit", "out of range"),),
            )
        return self.store.history(
            self.orchestrator, memory_id, limit=limit, ops=ops, newest_first=True, offset=offset
        )

    def count_memories(self, filters: NodeFilter | Mapping[str, Any] | None = None) -> int:
        """How many memories :meth:`list_memories` would list without a limit.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.count_memories({"user_id": "dana"})
        0
        """
        return self.store.count_nodes(self.orchestrator, self._filters(filters))

    @staticmethod
    def _filters(filters: NodeFilter | Mapping[str, Any] | None) -> NodeFilter:
        if filters is None:
            return NodeFilter()
        if isinstance(filters, NodeFilter):
            return filters
        try:
            return NodeFilter.model_validate(dict(filters))
        except ValidationError as exc:
            raise to_validation_failed(exc, prefix="filters.") from None

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
        already has it (capture does); otherwise the query is embedded here.
        """
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
            cfg = preset(config) if isinstance(config, str) else (config or self.retrieval)
        except KeyError as exc:
            raise ValidationFailed(
                str(exc.args[0]), errors=(("config", "unknown preset"),)
            ) from None
        f = self._filters(filters)
        outcome = hybrid_search(
            self.store,
            self.orchestrator,
            query,
            f,
            cfg,
            embedder=self.embedder if cfg.uses_vector else None,
            now=self.clock(),
            top_n=top_k,
            query_vector=query_vector,
        )
        if outcome.degraded:
            self._log("warning", "search_degraded", reason=outcome.degraded)
        hits = tuple(
            SearchHit(r.node, r.score, rank, r.explain if explain else {})
            for rank, r in enumerate(outcome.ranked, start=1)
        )
        return SearchResults(query, hits, legs=outcome.legs, edges=outcome.edges)

    def backfill_embeddings(self, *, limit: int = 100_000) -> int:
        """Embed memories stored without a vector (after an embedder failure)."""
        embedder = self.embedder
        if embedder is None:
            return 0
        try:
            return self.writes.backfill(embedder, limit=limit)
        except Exception as exc:  # retried on the next call
            self._log("warning", "backfill_failed", error=f"{type(exc).__name__}: {exc}")
            return 0

    def add_many(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        index_texts: Sequence[IndexText | None] | None = None,
        thread_id: str = "default",
    ) -> list[WriteResult]:
        """Store many memories in ONE transaction (bulk loads, benchmarks, ingestion).

        Each item holds ``add``'s fields including ``content``, and optionally
        ``vector`` + ``vector_model`` (checked as in :meth:`add`). Items refused by
        validation or the gate are reported and skipped; the rest commit
        together, embedded in batches (precomputed vectors are not re-embedded).
        """
        extras_in = list(index_texts) if index_texts is not None else [None] * len(items)
        if len(extras_in) != len(items):
            raise ValidationFailed(
                "index_texts must match items", errors=(("index_texts", "length"),)
            )
        fields: list[Mapping[str, Any]] = []
        vectors: list[FloatVector | None] = []
        refused: dict[int, WriteResult] = {}
        for i, item in enumerate(items):
            rest = dict(item)
            vector, model = rest.pop("vector", None), rest.pop("vector_model", None)
            fields.append(rest)
            vectors.append(None)
            if vector is None and model is None:
                continue
            try:
                if vector is None:
                    raise ValidationFailed(
                        "vector_model without a vector", errors=(("vector", "missing"),)
                    )
                vectors[-1] = checked_vector(vector, model, self.embedder)
            except ValidationFailed as exc:
                refused[i] = self.writes.invalid(MemoryOp.STORE, exc, fields=rest)
        positions = [i for i in range(len(items)) if i not in refused]
        written = self.writes.add_many(
            [(fields[i], extras_in[i]) for i in positions],
            thread_id=thread_id,
            vectors=[vectors[i] for i in positions],
        )
        results = dict(refused)
        results.update(zip(positions, written, strict=True))
        return [results[i] for i in range(len(items))]

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
        return self.store.list_nodes(
            self.orchestrator, self._filters(filters), limit=limit, offset=offset
        )
