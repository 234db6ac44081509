"""The façade: :class:`MemoryEngine` (sync) and :class:`AsyncMemoryEngine`.

Interfaces (CLI, HTTP, MCP, agent) call only this module. The engine is bound
to one orchestrator; every store call carries that orchestrator, so no call
through an engine can see another tenant's rows.

>>> import tempfile
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as engine:
...     r = engine.add("Prefers concise answers", type="Preference", category="PREFERENCE",
...                    source_kind="USER_EXPLICIT", user_id="u1")
...     [h.node.memory_id == r.memory_id for h in engine.search("concise").hits]
[True]
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from memvault import context as ctx
from memvault.embed.base import Embedder, FloatVector
from memvault.errors import (
    DuplicateEdgeError,
    MemoryNotFoundError,
    ValidationFailed,
)
from memvault.extract.base import Extractor, Message
from memvault.ingest import IngestReport
from memvault.lifecycle import AuditReport, ForgetReport, LifecyclePolicy, LifecycleReport
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.events import with_op_events
from memvault.lifecycle.proposals import ProposalResult
from memvault.lifecycle.service import EngineHooks, LifecycleService
from memvault.model.clock import format_timestamp, new_id
from memvault.model.clock import summarise as _summarise
from memvault.model.decision import Decision
from memvault.model.enums import (
    CapturedBy,
    ChangeKind,
    EdgeType,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    MemoryType,
    SourceKind,
    SourceType,
    StopReason,
    TTLClass,
)
from memvault.model.node import SUMMARY_MAX, MemoryEdge, MemoryNode, Source
from memvault.model.validation import canonical_source_path, to_validation_failed
from memvault.results import EngineStats, MemoryView, SearchHit, SearchResults, WriteResult
from memvault.retrieval.config import RetrievalConfig, preset
from memvault.retrieval.hybrid import hybrid_search
from memvault.retrieval.indexing import backfill, embedding_rows
from memvault.runtime import JsonLineLog, RuntimeLayout
from memvault.store.base import (
    ChangeEntry,
    EmbeddingRow,
    HistoryEvent,
    IndexText,
    NodeFilter,
    Store,
    WriteSet,
)
from memvault.store.factory import open_store  # issue 11: backend chosen by config
from memvault.store.records import Proposal, ProposalStatus
from memvault.write import CaptureConfig, CapturePipeline, CaptureResult
from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity

if TYPE_CHECKING:
    from memvault.config import MemvaultConfig

__all__ = [
    "AsyncMemoryEngine",
    "Clock",
    "MemoryEngine",
    "NewMemory",
    "OpenGate",
    "WriteGate",
    "format_timestamp",
    "new_id",
]

Clock = Callable[[], datetime]
P = ParamSpec("P")
T = TypeVar("T")

#: A soft-deleted memory can be restored until it is purged this long after.
PURGE_AFTER = timedelta(days=30)

#: Fields ``update`` may change; identity, scope and provenance are fixed.
UPDATABLE_FIELDS = frozenset(
    {
        "content",
        "summary",
        "key",
        "value",
        "type",
        "category",
        "importance",
        "confidence",
        "pinned",
        "ttl_class",
    }
)


def _derive_key(content: str) -> str:
    words = [w for w in "".join(c if c.isalnum() else " " for c in content.lower()).split()]
    return "_".join(words[:8])[:128] or "memory"


class NewMemory(BaseModel):
    """What a caller gives to ``add`` (pydantic at the edge; the node validates bounds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str
    type: MemoryType
    category: str
    source_kind: SourceKind
    key: str = ""
    value: str = ""
    summary: str = ""
    importance: int = 50
    confidence: float = 1.0
    pinned: bool = False
    ttl_class: TTLClass = TTLClass.LONG
    project_id: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    actor_id: str | None = None
    role: str | None = None
    conversation_id: str | None = None
    source_type: SourceType = SourceType.MANUAL
    captured_by: CapturedBy = CapturedBy.USER
    source_path: str | None = None
    workflow_run_id: str | None = None
    step_id: str | None = None
    source_ref: str | None = None


class WriteGate(Protocol):
    """The seam where governance decides every write (DESIGN §2).

    ``check`` is pure and returns exactly one stop reason. The engine calls it
    after schema validation and before anything touches the store.
    """

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision: ...


_SUCCESS = {
    MemoryOp.STORE: StopReason.SUCCESS_STORED,
    MemoryOp.UPDATE: StopReason.SUCCESS_UPDATED,
    MemoryOp.DELETE: StopReason.SUCCESS_DELETED,
}


class OpenGate:
    """A gate that allows every schema-valid write (no content governance).

    Used only where content governance is deliberately off (tests of the core,
    benchmarks that load sensitive conversations on purpose).
    """

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
        return Decision(_SUCCESS.get(op, StopReason.SUCCESS_STORED), detector="open_gate")


class MemoryEngine:
    """Synchronous memory engine for one orchestrator. Thread-safe."""

    def __init__(
        self,
        store: Store,
        orchestrator: str,
        *,
        layout: RuntimeLayout | None = None,
        gate: WriteGate | None = None,
        clock: Clock | None = None,
        agent_id: str | None = None,
        workspace_roots: Iterable[str | Path] = (),
        embedder: Embedder | str | None = "default",
        embedder_options: Mapping[str, Any] | None = None,
        retrieval: RetrievalConfig | str = "default",
    ) -> None:
        self.store = store
        self.orchestrator = orchestrator
        self.layout = layout
        self.gate: WriteGate = gate or self._default_gate()
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self.agent_id = agent_id
        roots = [Path(r) for r in workspace_roots]
        if layout is not None:
            roots.insert(0, layout.root)
        self.workspace_roots = tuple(roots)
        self.log = JsonLineLog(layout.log_path, orchestrator) if layout else None
        self.retrieval = preset(retrieval) if isinstance(retrieval, str) else retrieval
        self._embedder_spec = embedder
        self._embedder_options = dict(embedder_options or {})
        self._embedder: Embedder | None = embedder if not isinstance(embedder, str | None) else None
        self._embedder_error: str | None = None

    @property
    def embedder(self) -> Embedder | None:
        """The embedder, created on first use; ``None`` when none is available.

        Trigger: the default local model may be missing or broken.
        Why: memory is advisory — recall degrades to full text, it never fails.
        Outcome: the error is logged once and the vector leg is skipped.
        """
        if (
            self._embedder is None
            and isinstance(self._embedder_spec, str)
            and self._embedder_error is None
        ):
            try:
                from memvault.embed import make_embedder

                name = None if self._embedder_spec == "default" else self._embedder_spec
                options = self._embedder_options
                self._embedder = make_embedder(name, **options) if name else make_embedder()
            except Exception as exc:
                self._embedder_error = f"{type(exc).__name__}: {exc}"
                self._log("warning", "embedder_unavailable", error=self._embedder_error)
        return self._embedder

    def _embed(
        self,
        nodes: tuple[MemoryNode, ...],
        extras: Mapping[str, IndexText] | None = None,
        *,
        known: Mapping[str, FloatVector] | None = None,
    ) -> tuple[EmbeddingRow, ...]:
        """Vectors for nodes about to be written; empty (and queued) on failure.

        ``known``: document vectors of this embedder the caller already has, by text.
        """
        embedder = self.embedder
        if embedder is None or not nodes:
            return ()
        try:
            return tuple(
                embedding_rows(
                    self.store,
                    embedder,
                    nodes,
                    extras,
                    with_context=self.retrieval.use_context_vectors,
                    known=known,
                )
            )
        except Exception as exc:
            self._log("warning", "embedding_failed", error=f"{type(exc).__name__}: {exc}")
            return ()

    def _default_gate(self) -> WriteGate:
        """The governance gate (contract 19.1.0), counting this user's writes today."""
        from memvault.policy.candidate import Usage
        from memvault.policy.write_gate import PolicyGate

        def usage(node: MemoryNode) -> Usage:
            if node.user_id is None:
                return Usage()
            day = self._now()[:10] + "T00:00:00.000000Z"
            statuses = tuple(MemoryStatus)
            written = self.store.count_nodes(
                self.orchestrator,
                NodeFilter(user_id=node.user_id, updated_after=day, status=statuses),
            )
            return Usage(user_today=written)

        return PolicyGate(usage=usage)

    @classmethod
    def open(
        cls,
        home: str | Path | None = None,
        orchestrator: str = "default",
        *,
        config: MemvaultConfig | None = None,
        **options: Any,
    ) -> MemoryEngine:
        """Open (creating if needed) the orchestrator's runtime under ``home``.

        ``config`` (from :func:`memvault.config.load_config`) supplies the
        embedder (``embedder.*``) and retrieval (``memory.retrieval.*``) unless
        ``options`` name them; without it the library defaults apply.
        """
        if config is not None:
            name, embedder_options = config.embedder.to_options()
            options.setdefault("embedder", name)
            options.setdefault("embedder_options", embedder_options)
            options.setdefault("retrieval", config.memory.retrieval.to_config())
        layout = RuntimeLayout.for_orchestrator(home, orchestrator).ensure()
        store = open_store(layout.db_path)  # SQLite file, or PostgreSQL (issue 11)
        return cls(store, layout.orchestrator, layout=layout, **options)

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.flush_context_events()  # -- context ---: memory.query's buffered events
        self.store.close()

    # -- helpers -------------------------------------------------------------

    def _now(self) -> str:
        return format_timestamp(self.clock())

    def _log(self, level: str, event: str, **fields: Any) -> None:
        if self.log is not None:
            self.log.write(self._now(), level, event, agent=self.agent_id, **fields)

    def _event(self, op: HistoryOp, at: str, **fields: Any) -> HistoryEvent:
        return HistoryEvent(
            event_id=new_id("evt"),
            orchestrator_id=self.orchestrator,
            op=op,
            at=at,
            actor=self.agent_id,
            **fields,
        )

    def _load(self, memory_id: str, operation: str, *, include_deleted: bool = False) -> MemoryNode:
        nodes = self.store.get_nodes(self.orchestrator, [memory_id]) if memory_id else []
        if nodes and (include_deleted or nodes[0].status is not MemoryStatus.SOFT_DELETED):
            return nodes[0]
        # Trigger: an id that is not in this orchestrator (or is soft-deleted).
        # Why: ids of other tenants must be indistinguishable from unknown ids,
        #      and every such attempt must be auditable (fail closed and log).
        # Outcome: not found, plus a structured line in logs/memory.log.
        self._log("warning", "scope_miss", operation=operation, memory_id=memory_id[:128])
        raise MemoryNotFoundError(memory_id, self.orchestrator)

    def _refuse(
        self,
        op: MemoryOp,
        decision: Decision,
        *,
        memory_id: str | None = None,
        errors: tuple[tuple[str, str], ...] = (),
    ) -> WriteResult:
        """Record a refusal (stop reason, detector, field names — never content)."""
        at = self._now()
        detail = {"op": op.value, "fields": sorted({f for f, _ in errors})}
        try:
            event = self._event(
                HistoryOp.REFUSE,
                at,
                memory_id=memory_id,
                stop_reason=decision.stop_reason,
                detector=decision.detector,
                detail=detail,
            )
            self.store.apply(WriteSet(self.orchestrator, at, events=(event,)))
        except Exception as exc:  # the refusal stands even if it cannot be recorded
            self._log("error", "refusal_not_recorded", error=str(exc))
        self._log(
            "info",
            "write_refused",
            operation=op.value,
            stop_reason=decision.stop_reason.value,
            detector=decision.detector,
            memory_id=memory_id,
        )
        return WriteResult(
            decision.stop_reason,
            memory_id=None if op is MemoryOp.STORE else memory_id,
            reason=decision.reason,
            detector=decision.detector,
            errors=errors,
        )

    def _invalid(self, op: MemoryOp, exc: ValidationFailed, memory_id: str | None) -> WriteResult:
        decision = Decision(exc.stop_reason, detector="schema", reason=exc.message)
        return self._refuse(op, decision, memory_id=memory_id, errors=exc.errors)

    def _commit(self, write: WriteSet, result: WriteResult) -> WriteResult:
        write = with_op_events(write, "hotpath")  # operational events (spec §14)
        try:
            revision = self.store.apply(write)
        except DuplicateEdgeError as exc:
            return WriteResult(
                StopReason.SCHEMA_INVALID,
                reason=str(exc),
                errors=(("edge", "an edge with this (from, to, type) already exists"),),
            )
        except Exception as exc:
            # Trigger: anything unexpected while writing (I/O, corrupt file, bug).
            # Why: contract INV-8 — fail closed, never leave partial state.
            # Outcome: the store rolled back; the caller gets INTERNAL_INCONSISTENCY.
            self._log("error", "write_failed", error=f"{type(exc).__name__}: {exc}")
            return WriteResult(
                StopReason.INTERNAL_INCONSISTENCY,
                memory_id=result.memory_id,
                reason=f"write failed and was rolled back: {type(exc).__name__}",
            )
        return WriteResult(
            result.stop_reason,
            memory_id=result.memory_id,
            reason=result.reason,
            detector=result.detector,
            revision=revision,
            edge_id=result.edge_id,
        )

    def _gate(self, op: MemoryOp, node: MemoryNode) -> Decision:
        try:
            return self.gate.check(op, node, agent_id=self.agent_id)
        except Exception as exc:
            self._log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
            return Decision(
                StopReason.INTERNAL_INCONSISTENCY, detector="gate", reason="gate raised"
            )

    # -- writes --------------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        thread_id: str = "default",
        index_text: IndexText | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a new memory. Returns a :class:`WriteResult`; never raises for bad input.

        >>> import tempfile
        >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme")
        >>> e.add("x", type="fact", category="PREFERENCE", source_kind="USER_EXPLICIT").stop_reason
        <StopReason.SCHEMA_INVALID: 'SCHEMA_INVALID'>
        >>> e.close()
        """
        try:
            try:
                spec = NewMemory(content=content, **fields)
            except ValidationError as exc:
                raise to_validation_failed(exc) from None
            node = self._build_node(spec)
        except ValidationFailed as exc:
            return self._invalid(MemoryOp.STORE, exc, None)
        return self._store_new(node, thread_id, index_text)

    def _build_node(self, spec: NewMemory) -> MemoryNode:
        now = self._now()
        path = spec.source_path
        if path is not None:
            path = canonical_source_path(path, self.workspace_roots)
        try:
            source = Source(
                source_type=spec.source_type,
                captured_by=spec.captured_by,
                source_kind=spec.source_kind,
                source_path=path,
                conversation_id=spec.conversation_id,
                workflow_run_id=spec.workflow_run_id,
                step_id=spec.step_id,
                source_ref=spec.source_ref,
            )
            content = spec.content.strip()
            return MemoryNode(
                memory_id=new_id("mem"),
                orchestrator_id=self.orchestrator,
                project_id=spec.project_id,
                type=spec.type,
                category=spec.category,
                key=spec.key or _derive_key(content),
                value=spec.value,
                content=content,
                summary=spec.summary or _summarise(content)[:SUMMARY_MAX],
                importance=spec.importance,
                confidence=spec.confidence,
                pinned=spec.pinned,
                source=source,
                ttl_class=spec.ttl_class,
                user_id=spec.user_id,
                agent_id=spec.agent_id,
                run_id=spec.run_id,
                actor_id=spec.actor_id,
                role=spec.role,
                conversation_id=spec.conversation_id,
                created_at=now,
                updated_at=now,
            )
        except ValidationError as exc:
            raise to_validation_failed(exc) from None

    def _store_new(
        self, node: MemoryNode, thread_id: str, index_text: IndexText | None = None
    ) -> WriteResult:
        decision = self._gate(MemoryOp.STORE, node)
        if not decision.allowed:
            return self._refuse(MemoryOp.STORE, decision)
        event = self._event(
            HistoryOp.CREATE,
            node.created_at,
            memory_id=node.memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={"type": node.type.value, "category": node.category},
        )
        write = WriteSet(
            self.orchestrator,
            node.created_at,
            nodes=(node,),
            events=(event,),
            changes=(ChangeEntry(node.memory_id, ChangeKind.CREATED, node.summary),),
            thread_id=thread_id,
            embeddings=self._embed((node,), {node.memory_id: index_text} if index_text else None),
            index_texts=((node.memory_id, index_text),) if index_text else (),
        )
        return self._commit(write, WriteResult(decision.stop_reason, memory_id=node.memory_id))

    def update(self, memory_id: str, *, thread_id: str = "default", **changes: Any) -> WriteResult:
        """Change fields of an active memory; unknown fields are SCHEMA_INVALID.

        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        old = self._load(memory_id, "update")
        unknown = sorted(set(changes) - UPDATABLE_FIELDS)
        if unknown:
            exc = ValidationFailed(
                f"cannot update field(s): {', '.join(unknown)}",
                errors=tuple((f, "not an updatable field") for f in unknown),
            )
            return self._invalid(MemoryOp.UPDATE, exc, memory_id)
        now = self._now()
        data = old.model_dump()
        data.update(changes)
        data["updated_at"] = now
        if "content" in changes and "summary" not in changes:
            data["summary"] = _summarise(str(changes["content"]))[:SUMMARY_MAX]
        try:
            node = MemoryNode.model_validate(data)
        except ValidationError as exc:
            failed = to_validation_failed(exc)
            assert isinstance(failed, ValidationFailed)
            return self._invalid(MemoryOp.UPDATE, failed, memory_id)
        decision = self._gate(MemoryOp.UPDATE, node)
        if not decision.allowed:
            return self._refuse(MemoryOp.UPDATE, decision, memory_id=memory_id)
        event = self._event(
            HistoryOp.UPDATE,
            now,
            memory_id=memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={"fields": sorted(changes)},
        )
        write = WriteSet(
            self.orchestrator,
            now,
            nodes=(node,),
            events=(event,),
            changes=(ChangeEntry(memory_id, ChangeKind.UPDATED, node.summary),),
            thread_id=thread_id,
            embeddings=self._embed((node,)) if node.content != old.content else (),
        )
        return self._commit(write, WriteResult(decision.stop_reason, memory_id=memory_id))

    def _transition(
        self,
        node: MemoryNode,
        op: MemoryOp,
        history_op: HistoryOp,
        kind: ChangeKind,
        thread_id: str,
        **changes: Any,
    ) -> WriteResult:
        now = self._now()
        new = node.model_copy(update={**changes, "updated_at": now})
        decision = self._gate(op, new)
        if not decision.allowed:
            return self._refuse(op, decision, memory_id=node.memory_id)
        event = self._event(
            history_op,
            now,
            memory_id=node.memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={"status": new.status.value, "purge_at": new.purge_at},
        )
        write = WriteSet(
            self.orchestrator,
            now,
            nodes=(new,),
            events=(event,),
            changes=(ChangeEntry(node.memory_id, kind, node.summary),),
            thread_id=thread_id,
        )
        return self._commit(write, WriteResult(decision.stop_reason, memory_id=node.memory_id))

    def delete(self, memory_id: str, *, thread_id: str = "default") -> WriteResult:
        """Soft-delete: hidden from every read path, restorable until ``purge_at``."""
        node = self._load(memory_id, "delete")
        purge_at = format_timestamp(self.clock() + PURGE_AFTER)
        return self._transition(
            node,
            MemoryOp.DELETE,
            HistoryOp.DELETE,
            ChangeKind.SOFT_DELETED,
            thread_id,
            status=MemoryStatus.SOFT_DELETED,
            purge_at=purge_at,
        )

    def restore(self, memory_id: str, *, thread_id: str = "default") -> WriteResult:
        """Bring a soft-deleted memory back to ``active`` (a no-op if it is not deleted)."""
        node = self._load(memory_id, "restore", include_deleted=True)
        if node.status is not MemoryStatus.SOFT_DELETED:
            return WriteResult(
                StopReason.SUCCESS_UPDATED, memory_id=memory_id, reason="memory is not deleted"
            )
        return self._transition(
            node,
            MemoryOp.UPDATE,
            HistoryOp.RESTORE,
            ChangeKind.RESTORED,
            thread_id,
            status=MemoryStatus.ACTIVE,
            purge_at=None,
        )

    def link(
        self,
        from_id: str,
        to_id: str,
        edge_type: EdgeType | str,
        *,
        weight: float = 1.0,
        reason: str | None = None,
        thread_id: str = "default",
    ) -> WriteResult:
        """Add a typed edge between two active memories of this orchestrator."""
        self._load(from_id, "link")
        self._load(to_id, "link")
        now = self._now()
        try:
            edge = MemoryEdge(
                edge_id=new_id("edge"),
                orchestrator_id=self.orchestrator,
                from_memory_id=from_id,
                to_memory_id=to_id,
                edge_type=edge_type,  # type: ignore[arg-type]  # validated by pydantic
                weight=weight,
                reason=reason,
                created_at=now,
            )
        except ValidationError as exc:
            failed = to_validation_failed(exc)
            assert isinstance(failed, ValidationFailed)
            return self._invalid(MemoryOp.STORE, failed, from_id)
        event = self._event(
            HistoryOp.LINK,
            now,
            memory_id=from_id,
            stop_reason=StopReason.SUCCESS_STORED,
            detail={"edge_id": edge.edge_id, "edge_type": edge.edge_type.value, "to": to_id},
        )
        write = WriteSet(
            self.orchestrator, now, edges=(edge,), events=(event,), thread_id=thread_id
        )
        return self._commit(
            write,
            WriteResult(StopReason.SUCCESS_STORED, memory_id=from_id, edge_id=edge.edge_id),
        )

    # -- reads ---------------------------------------------------------------

    def get(self, memory_id: str, *, include_deleted: bool = False) -> MemoryView:
        """A memory and its edges. Raises :class:`MemoryNotFoundError` when absent."""
        node = self._load(memory_id, "get", include_deleted=include_deleted)
        return MemoryView(node, tuple(self.store.edges_of(self.orchestrator, [memory_id])))

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """Every audit event of a memory, oldest first (soft-deleted ones included)."""
        self._load(memory_id, "history", include_deleted=True)
        return self.store.history(self.orchestrator, memory_id)

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
            return backfill(self.store, embedder, self.orchestrator, self._now(), limit=limit)
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

        Each item holds ``add``'s fields including ``content``. Items refused by
        validation or the gate are reported and skipped; the rest commit
        together, embedded in batches.
        """
        extras_in = list(index_texts) if index_texts is not None else [None] * len(items)
        if len(extras_in) != len(items):
            raise ValidationFailed(
                "index_texts must match items", errors=(("index_texts", "length"),)
            )
        results: list[WriteResult | None] = [None] * len(items)
        nodes: list[MemoryNode] = []
        events: list[HistoryEvent] = []
        extras: dict[str, IndexText] = {}
        positions: list[int] = []
        for i, item in enumerate(items):
            try:
                try:
                    spec = NewMemory(**dict(item))
                except ValidationError as exc:
                    raise to_validation_failed(exc) from None
                node = self._build_node(spec)
            except ValidationFailed as exc:
                results[i] = self._invalid(MemoryOp.STORE, exc, None)
                continue
            decision = self._gate(MemoryOp.STORE, node)
            if not decision.allowed:
                results[i] = self._refuse(MemoryOp.STORE, decision)
                continue
            nodes.append(node)
            positions.append(i)
            if extras_in[i] is not None:
                extras[node.memory_id] = extras_in[i]  # type: ignore[assignment]
            events.append(
                self._event(
                    HistoryOp.CREATE,
                    node.created_at,
                    memory_id=node.memory_id,
                    stop_reason=decision.stop_reason,
                    detector=decision.detector,
                    detail={"type": node.type.value, "category": node.category},
                )
            )
        if nodes:
            at = self._now()
            write = WriteSet(
                self.orchestrator,
                at,
                nodes=tuple(nodes),
                events=tuple(events),
                changes=tuple(
                    ChangeEntry(n.memory_id, ChangeKind.CREATED, n.summary) for n in nodes
                ),
                thread_id=thread_id,
                embeddings=self._embed(tuple(nodes), extras),
                index_texts=tuple(extras.items()),
            )
            committed = self._commit(write, WriteResult(StopReason.SUCCESS_STORED))
            for i, node in zip(positions, nodes, strict=True):
                results[i] = WriteResult(
                    committed.stop_reason,
                    memory_id=node.memory_id if committed.ok else None,
                    reason=committed.reason,
                    revision=committed.revision,
                )
        return [r for r in results if r is not None]

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

    def stats(self) -> EngineStats:
        counts = self.store.counts(self.orchestrator)
        return EngineStats(
            orchestrator=self.orchestrator,
            db_path=str(self.layout.db_path) if self.layout else None,
            revision=counts.revision,
            memories_by_status=counts.memories_by_status,
            memories_by_type=counts.memories_by_type,
            edges_by_type=counts.edges_by_type,
            history_events=counts.history_events,
            operations=self.lifecycle.operations(),
        )

    # -- context ---
    # What an agent sees (DESIGN §6). Thin: the logic is in memvault.context.

    #: Size limits of :meth:`bulletin` (assign a new frozen config to change them).
    bulletin_config: ctx.BulletinConfig = ctx.BulletinConfig()
    _bulletin_keeper: ctx.BulletinKeeper | None = None

    def _recall_nodes(self, query: str, filters: NodeFilter, top_k: int) -> list[MemoryNode]:
        return [h.node for h in self.search(query, filters=filters, top_k=top_k).hits]

    def bulletin(self, *, query: str | None = None, reuse: bool = True) -> ctx.Bulletin:
        """The memory bulletin of the current state; never raises (falls back instead).

        Without a query, a bulletin already built at the current revision is
        reused (same state, same bytes); ``reuse=False`` always rebuilds.

        >>> import tempfile
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.bulletin().to_json()["revision"]
        0
        """
        cfg = self.bulletin_config
        if self._bulletin_keeper is None:
            where = self.layout.bulletins_dir if self.layout else None
            self._bulletin_keeper = ctx.BulletinKeeper(where, cfg.keep_files)
        return self._bulletin_keeper.build(
            lambda: ctx.build_bulletin(
                self.store, self.orchestrator, cfg, query=query, recall=self._recall_nodes
            ),
            cfg,
            self._log,
            key=(cfg,) if reuse and query is None else None,
            revision=lambda: self.store.revision(self.orchestrator),
        )

    def delta_header(self, thread_id: str, *, advance: bool = True) -> ctx.DeltaHeader | None:
        """Changes since ``thread_id`` last looked (≤ 3 bullets), or ``None``."""
        return ctx.delta_header(
            self.store, self.orchestrator, thread_id, advance=advance, warn=self._log
        )

    def for_message(self, thread_id: str, *, query: str | None = None) -> ctx.MessageContext:
        """Delta header and bulletin for one message of ``thread_id``."""
        return ctx.MessageContext(self.delta_header(thread_id), self.bulletin(query=query))

    #: Per-agent category allowlists for :meth:`memory_query` (spec §5). ``None``:
    #: none configured, so no agent limits (set one to enforce them).
    allowlist: ctx.AgentAllowlist | None = None

    def _recall_scored(
        self, query: str, filters: NodeFilter, top_k: int
    ) -> list[tuple[MemoryNode, float]]:
        return [(h.node, h.score) for h in self.search(query, filters=filters, top_k=top_k).hits]

    def memory_query(
        self, request: ctx.MemoryQuery | Mapping[str, Any] | None = None, **fields: Any
    ) -> ctx.QueryResult:
        """memory.query (spec §6): allowlist-checked, filtered, budgeted recall.

        >>> import tempfile
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.memory_query(agent="planner", query="deploy plan").to_json()["status"]
        'ok'
        """
        return ctx.memory_query(
            request,
            fields,
            self.allowlist,
            self._recall_scored,
            events=self._context_events(),
            now=self._now,
            warn=self._log,
        )

    _query_events: ctx.EventBuffer | None = None

    def _context_events(self) -> ctx.EventBuffer:
        if self._query_events is None:
            self._query_events = ctx.EventBuffer(self.store, self.orchestrator)
        return self._query_events

    def flush_context_events(self) -> None:
        """Write memory.query's pending operational events now (never raises)."""
        if self._query_events is None:
            return
        try:
            self._query_events.flush()
        except Exception as exc:
            self._log("error", "query_events_not_recorded", error=f"{type(exc).__name__}: {exc}")

    def context_assembler(self, *, max_project_items: int = 1000) -> ctx.ContextAssembler:
        """Task, project and global tiers over this engine (keep one per process)."""
        return ctx.ContextAssembler(self, max_project_items=max_project_items)

    # -- ingest ---
    # The drop folder (spec "Ingestion"). Thin: the logic is in memvault.ingest.

    def ingest_pending(
        self,
        *,
        enabled: bool = True,
        max_file_size_mb: float = 10.0,
        settle_seconds: float = 0.2,
        progress: Callable[[int, int, str], None] | None = None,
        embed_threads: int = 2,
    ) -> IngestReport:
        """Ingest every file waiting in ``<home>/<orchestrator>/memory/ingest/`` once.

        Every candidate passes this engine's gate; each file commits in one
        transaction with its vectors. ``enabled``/``max_file_size_mb`` are
        ``memory.ingest.*``; ``embed_threads`` embed while the next files are gated.
        """
        from memvault.errors import ConfigError
        from memvault.ingest import IngestContext, run_pass

        if self.layout is None:
            raise ConfigError("ingestion needs an engine opened on a runtime home")
        context = IngestContext(
            store=self.store,
            orchestrator=self.orchestrator,
            layout=self.layout,
            judge=lambda node: self._gate(MemoryOp.STORE, node),
            now=self._now,
            log=self._log,
            workspace_roots=self.workspace_roots,
            actor=self.agent_id,
            embedder=self.embedder,  # vectors in each file's transaction (issue 8)
            embedder_error=self._embedder_error,
            bands=self.capture_config.bands,  # merges mean what they mean in capture
            merge_nudge=self.capture_config.confidence_nudge,
        )
        return run_pass(
            context,
            enabled=enabled,
            max_file_size_mb=max_file_size_mb,
            settle_seconds=settle_seconds,
            progress=progress,
            embed_threads=embed_threads,
        )

    # -- lifecycle ---
    # TTL and purge, consent proposals, audit, export and forget (DESIGN §7).
    # Thin: the logic is in memvault.lifecycle.

    #: TTL, purge and consent settings (assign a new frozen policy to change them).
    lifecycle_policy: LifecyclePolicy = LifecyclePolicy()
    _lifecycle: LifecycleService | None = None

    @property
    def lifecycle(self) -> LifecycleService:
        """The lifecycle worker bound to this engine (its store, gate and clock)."""
        if self._lifecycle is None or self._lifecycle.policy is not self.lifecycle_policy:
            hooks = EngineHooks(
                store=self.store,
                orchestrator=self.orchestrator,
                actor=self.agent_id,
                now=self.clock,
                stamp=format_timestamp,
                new_id=new_id,
                gate=self._gate,
                build_node=self._node_from_fields,
                commit=self._commit,
                log=self._log,
                recall=lambda q, f, k: [h.node for h in self.search(q, filters=f, top_k=k).hits],
                similarity=self._lifecycle_similarity(),
            )
            self._lifecycle = LifecycleService(hooks, self.lifecycle_policy)
        return self._lifecycle

    def _lifecycle_similarity(self) -> EmbeddingSimilarity | LexicalSimilarity:
        embedder = getattr(self, "embedder", None)  # the engine's embedder, if any
        return EmbeddingSimilarity(embedder) if embedder else LexicalSimilarity()

    def _node_from_fields(self, content: str, fields: Mapping[str, Any]) -> MemoryNode:
        try:
            spec = NewMemory(content=content, **fields)
        except ValidationError as exc:
            raise to_validation_failed(exc) from None
        return self._build_node(spec)

    def run_lifecycle(
        self, *, now: datetime | None = None, thread_id: str = "default"
    ) -> LifecycleReport:
        """Expire proposals, soft-delete what the TTL rules select, purge what is due.

        ``now`` defaults to the engine's clock (pass a moment to time-travel).
        """
        report = self.lifecycle.run(now, thread_id=thread_id)
        if report.purged:
            self._drop_materialised()
        return report

    def _drop_materialised(self) -> None:
        """Purged text must not live on in materialised bulletins (right to erasure).

        Trigger: a purge. Why: ``bulletins/*.json`` quote memory text and serve
        as the last-good fallback. Outcome: they are deleted; the next bulletin
        is built from the store as it now is.
        """
        self._bulletin_keeper = None
        where = self.layout.bulletins_dir if self.layout else None
        if where is not None and where.is_dir():
            for path in where.glob("*.json"):
                path.unlink(missing_ok=True)

    def consolidate(
        self, *, now: datetime | None = None, thread_id: str = "default"
    ) -> ConsolidationReport:
        """One run of the consolidation worker: merge, link or propose similar pairs."""
        return self.lifecycle.consolidate(now, thread_id=thread_id)

    def verify_audit(self) -> AuditReport:
        """Check the hash chain of every audit event; the first broken row if any."""
        return self.lifecycle.verify()

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Right of access: the user's memories, edges, history and proposals as records."""
        return self.lifecycle.export_user(user_id)

    def forget_user(self, user_id: str, *, thread_id: str = "default") -> ForgetReport:
        """Right to erasure: purge every memory and proposal of ``user_id``; prove it."""
        report = self.lifecycle.forget_user(user_id, thread_id=thread_id)
        if report.memories_purged:
            self._drop_materialised()
        return report

    def propose(
        self, content: str, *, kind: str = "insight", user_id: str | None = None, **fields: Any
    ) -> ProposalResult:
        """Queue an inferred memory for the user's consent instead of storing it."""
        return self.lifecycle.propose(content, kind=kind, user_id=user_id, fields=fields)

    def proposals(
        self, *, status: ProposalStatus | str | None = None, user_id: str | None = None
    ) -> list[Proposal]:
        """Consent proposals, oldest first (unanswered ones past their date are expired)."""
        wanted = ProposalStatus(status) if status is not None else None
        return self.lifecycle.proposals(status=wanted, user_id=user_id)

    def confirm_proposal(self, proposal_id: str, *, thread_id: str = "default") -> WriteResult:
        """The user consents: store it as USER_EXPLICIT (the gate may still refuse)."""
        return self.lifecycle.confirm(proposal_id, thread_id=thread_id)

    def reject_proposal(self, proposal_id: str) -> Proposal:
        """The user declines: nothing is stored and the proposal's text is dropped."""
        return self.lifecycle.reject(proposal_id)

    def record_event(self, node: str, op: str, status: str = "ok", **fields: Any) -> None:
        """Record an operational event (spec §14); best effort, never raises."""
        self.lifecycle.record(node, op, status, **fields)

    # -- capture ---
    # Write-back triggers (issue 5): transcript turns, workflow outputs, diagnostics.
    # Thin: extraction is in memvault.extract; resolve and commit in memvault.write.

    #: Caps, bands and knobs of capture (assign a new frozen config to change them).
    capture_config: CaptureConfig = CaptureConfig()
    #: The transcript extractor; ``None`` is the deterministic rule extractor.
    capture_extractor: Extractor | None = None
    _capture: CapturePipeline | None = None

    @property
    def capture(self) -> CapturePipeline:
        """The capture pipeline bound to this engine (store, gate, clock, recall)."""
        current = self._capture
        if (
            current is None
            or current.config is not self.capture_config
            or current.extractor is not (self.capture_extractor or current.extractor)
        ):
            embedder = getattr(self, "embedder", None)  # the engine's embedder, if any
            current = self._capture = CapturePipeline(
                store=self.store,
                orchestrator=self.orchestrator,
                gate=self._gate,
                clock=self.clock,
                recall=lambda q, f, k, v=None: [
                    h.node for h in self.search(q, filters=f, top_k=k, query_vector=v).hits
                ],
                extractor=self.capture_extractor,
                similarity=EmbeddingSimilarity(embedder) if embedder else LexicalSimilarity(),
                config=self.capture_config,
                actor=self.agent_id,
                log=self._log,
                embed=getattr(self, "_embed", None),
                embedder=embedder,
            )
        return current

    def capture_message(
        self,
        message: Message | Mapping[str, Any],
        *,
        project_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Capture one transcript turn: 0–5 candidates, gated, resolved, committed.

        Only the user's own turns are write triggers; ``message`` is a
        :class:`~memvault.extract.Message` or a mapping of its fields.

        >>> import tempfile
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     r = e.capture_message({"text": "I prefer tabs over spaces", "user_id": "dana"})
        ...     [(c.type, c.outcome.value) for c in r.candidates]
        [('Preference', 'stored')]
        """
        try:
            msg = message if isinstance(message, Message) else Message.model_validate(message)
        except ValidationError as exc:
            raise to_validation_failed(exc, prefix="message.") from None
        return self.capture.capture_message(
            msg, project_id=project_id, agent_id=self.agent_id, thread_id=thread_id
        )

    def capture_workflow_output(
        self,
        run_id: str,
        step_id: str,
        output: str | Mapping[str, Any],
        *,
        user_id: str | None = None,
        project_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Decision / Todo / Goal memories from a workflow step's output (SYSTEM_KNOWN)."""
        return self.capture.capture_workflow_output(
            run_id, step_id, output, user_id=user_id, project_id=project_id, thread_id=thread_id
        )

    def capture_diagnostics(
        self,
        finding: Any,
        *,
        user_id: str | None = None,
        project_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Observation memories from diagnostics findings, with bounded evidence."""
        return self.capture.capture_diagnostics(
            finding, user_id=user_id, project_id=project_id, thread_id=thread_id
        )

    list = list_memories


class AsyncMemoryEngine:
    """The async face of :class:`MemoryEngine`: same logic, run off the event loop.

    Each method awaits the synchronous implementation in a worker thread, so
    there is exactly one copy of the logic (STYLE principle 6).
    """

    def __init__(self, engine: MemoryEngine) -> None:
        self.sync = engine

    @classmethod
    async def open(
        cls, home: str | Path | None = None, orchestrator: str = "default", **options: Any
    ) -> AsyncMemoryEngine:
        engine = await asyncio.to_thread(MemoryEngine.open, home, orchestrator, **options)
        return cls(engine)

    async def _run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def add(self, content: str, **fields: Any) -> WriteResult:
        return await self._run(self.sync.add, content, **fields)

    async def update(self, memory_id: str, **changes: Any) -> WriteResult:
        return await self._run(self.sync.update, memory_id, **changes)

    async def delete(self, memory_id: str) -> WriteResult:
        return await self._run(self.sync.delete, memory_id)

    async def restore(self, memory_id: str) -> WriteResult:
        return await self._run(self.sync.restore, memory_id)

    async def link(
        self, from_id: str, to_id: str, edge_type: EdgeType | str, **options: Any
    ) -> WriteResult:
        return await self._run(self.sync.link, from_id, to_id, edge_type, **options)

    async def get(self, memory_id: str) -> MemoryView:
        return await self._run(self.sync.get, memory_id)

    async def history(self, memory_id: str) -> list[HistoryEvent]:
        return await self._run(self.sync.history, memory_id)

    async def search(self, query: str, **options: Any) -> SearchResults:
        return await self._run(self.sync.search, query, **options)

    async def list_memories(self, filters: Any = None, **options: Any) -> list[MemoryNode]:
        return await self._run(self.sync.list_memories, filters, **options)

    async def stats(self) -> EngineStats:
        return await self._run(self.sync.stats)

    # -- lifecycle ---

    async def run_lifecycle(self, **options: Any) -> LifecycleReport:
        return await self._run(self.sync.run_lifecycle, **options)

    async def verify_audit(self) -> AuditReport:
        return await self._run(self.sync.verify_audit)

    async def consolidate(self, **options: Any) -> ConsolidationReport:
        return await self._run(self.sync.consolidate, **options)

    async def export_user(self, user_id: str) -> list[dict[str, Any]]:
        return await self._run(lambda: list(self.sync.export_user(user_id)))

    async def forget_user(self, user_id: str) -> ForgetReport:
        return await self._run(self.sync.forget_user, user_id)

    async def propose(self, content: str, **fields: Any) -> ProposalResult:
        return await self._run(self.sync.propose, content, **fields)

    async def proposals(self, **options: Any) -> list[Proposal]:
        return await self._run(self.sync.proposals, **options)

    async def confirm_proposal(self, proposal_id: str) -> WriteResult:
        return await self._run(self.sync.confirm_proposal, proposal_id)

    async def reject_proposal(self, proposal_id: str) -> Proposal:
        return await self._run(self.sync.reject_proposal, proposal_id)

    # -- capture ---

    async def capture_message(self, message: Any, **options: Any) -> CaptureResult:
        return await self._run(self.sync.capture_message, message, **options)

    async def capture_workflow_output(
        self, run_id: str, step_id: str, output: Any, **options: Any
    ) -> CaptureResult:
        capture = self.sync.capture_workflow_output
        return await self._run(capture, run_id, step_id, output, **options)

    async def capture_diagnostics(self, finding: Any, **options: Any) -> CaptureResult:
        return await self._run(self.sync.capture_diagnostics, finding, **options)

    async def close(self) -> None:
        await self._run(self.sync.close)

    async def __aenter__(self) -> AsyncMemoryEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
