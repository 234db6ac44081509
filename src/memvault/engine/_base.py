"""The engine's core: construction, the embedder, helpers and every write."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from pydantic import ValidationError

from memvault.embed.base import Embedder, FloatVector
from memvault.errors import (
    DuplicateEdgeError,
    MemoryNotFoundError,
    ValidationFailed,
)
from memvault.layout import JsonLineLog, RuntimeLayout
from memvault.lifecycle.events import with_op_events
from memvault.model.clock import format_timestamp, new_id
from memvault.model.clock import summarise as _summarise
from memvault.model.decision import Decision
from memvault.model.enums import (
    ChangeKind,
    EdgeType,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    StopReason,
)
from memvault.model.node import SUMMARY_MAX, MemoryEdge, MemoryNode, Source
from memvault.model.validation import canonical_source_path, to_validation_failed
from memvault.results import WriteResult
from memvault.retrieval.config import RetrievalConfig, preset
from memvault.retrieval.indexing import embedding_rows
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

if TYPE_CHECKING:
    from memvault.config import MemvaultConfig
from memvault.engine._types import (
    PURGE_AFTER,
    UPDATABLE_FIELDS,
    Clock,
    NewMemory,
    WriteGate,
    _derive_key,
)
from memvault.write import CaptureConfig


class EngineBase:
    """Construction, the embedder, the gate and the write operations (one store each)."""

    #: Caps, bands and knobs of capture and ingest merges (assign a new frozen config
    #: to change them).
    capture_config: CaptureConfig = CaptureConfig()

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
    ) -> Self:
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
        >>> from memvault.engine import MemoryEngine
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
