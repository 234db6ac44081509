"""The ``WriteSet`` of one capture outcome, built without touching the store.

:class:`WriteBuilder` turns a decided candidate into the single ``WriteSet``
the store applies in one transaction: a refusal's audit row (never the
content), a merge's touch of the existing node, or a new node with its
superseded predecessors, its ``Updates`` / ``Contradicts`` / ``RelatedTo``
edges, the history events and the change-log row. The capture pipeline reads
what it needs from the store first and applies the result; building is pure.

>>> from memvault.extract.base import Candidate
>>> from memvault.model.decision import Decision
>>> from memvault.model.enums import MemoryType, StopReason
>>> b = WriteBuilder("acme", actor=None, at="2026-01-15T09:00:00.000000Z", thread_id="t1")
>>> c = Candidate("Dana's PIN is 4412.", MemoryType.FACT, "KNOWLEDGE", "pin", "4412",
...               rule="my_x_is")
>>> w = b.refusal(c, Decision(StopReason.FORBIDDEN_CATEGORY, "extract.sensitive_slot"))
>>> w.events[0].op.value, "4412" in w.events[0].canonical()
('REFUSE', False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memvault.extract.base import Candidate
from memvault.model.clock import new_id as _new_id
from memvault.model.decision import Decision
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, MemoryOp, MemoryStatus, StopReason
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.base import (
    ChangeEntry,
    EmbeddingRow,
    HistoryEvent,
    IndexText,
    IngestRecord,
    Store,
    WriteSet,
)
from memvault.store.records import OpEvent, Proposal
from memvault.write.report import EdgeRef
from memvault.write.resolve import Outcome, Resolution

__all__ = ["WriteBuilder", "seed_corpus", "touched", "with_op_events"]

#: The operational verb of each audited write (spec §14): its history op, lower-cased.
OP_OF_HISTORY: dict[HistoryOp, str] = {
    op: op.value.lower()
    for op in (
        HistoryOp.CREATE,
        HistoryOp.UPDATE,
        HistoryOp.DELETE,
        HistoryOp.RESTORE,
        HistoryOp.LINK,
        HistoryOp.MERGE,
        HistoryOp.SUPERSEDE,
    )
}


def with_op_events(write: WriteSet, node: str) -> WriteSet:
    """``write`` plus one operational event per audited write it carries.

    A write that already brings its own operational events is returned as is.

    >>> with_op_events(WriteSet("acme", "2026-01-01T00:00:00.000000Z"), "hotpath").op_events
    ()
    """
    if write.op_events or not write.events:
        return write
    categories = {n.memory_id: n.category for n in write.nodes}
    ops = tuple(
        OpEvent(
            at=e.at,
            node=node,
            op=OP_OF_HISTORY[e.op],
            status="ok",
            memory_id=e.memory_id,
            category=categories.get(e.memory_id or ""),
        )
        for e in write.events
        if e.op in OP_OF_HISTORY
    )
    return replace(write, op_events=ops) if ops else write


def seed_corpus(
    store: Store,
    orchestrator: str,
    at: str,
    nodes: Sequence[MemoryNode],
    *,
    edges: Sequence[MemoryEdge] = (),
    embeddings: Sequence[EmbeddingRow] = (),
) -> int:
    """An UNGATED bulk load of prepared nodes into ``store``, for benchmark corpora only;
    the new revision.

    Trigger: benchmark conversations deliberately hold sensitive topics.
    Why: DESIGN §9 — recall benchmarks write straight into the production
    store and say so; every product write goes through the pipeline.
    Outcome: one transaction of nodes, edges and vectors, no audit events.

    >>> from memvault.store import InMemoryStore
    >>> seed_corpus(InMemoryStore(), "acme", "2026-01-01T00:00:00.000000Z", [])
    0
    """
    write = WriteSet(
        orchestrator, at, nodes=tuple(nodes), edges=tuple(edges), embeddings=tuple(embeddings)
    )
    return store.apply(write)


def touched(old: MemoryNode, at: str, confidence_nudge: float) -> MemoryNode:
    """``old`` met again at ``at``: accessed once more, confidence nudged up (capped at 1).

    The one definition of a merge's touch, for capture and ingest alike.
    """
    return old.model_copy(
        update={
            "last_accessed_at": at,
            "access_count": old.access_count + 1,
            "confidence": round(min(1.0, old.confidence + confidence_nudge), 4),
        }
    )


@dataclass(frozen=True, slots=True)
class WriteBuilder:
    """Builds the write of one candidate of one capture call (same time and thread)."""

    orchestrator: str
    actor: str | None
    at: str
    thread_id: str = "default"

    def created_event(self, node: MemoryNode, decision: Decision, **detail: Any) -> HistoryEvent:
        """The CREATE event of a new node: the gate's decision, its type and category."""
        return self.event(
            HistoryOp.CREATE,
            node.memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={"type": node.type.value, "category": node.category, **detail},
        )

    def event(self, op: HistoryOp, memory_id: str | None, **fields: Any) -> HistoryEvent:
        """A history event of this write."""
        return HistoryEvent(
            event_id=_new_id("evt"),
            orchestrator_id=self.orchestrator,
            op=op,
            at=self.at,
            memory_id=memory_id,
            actor=self.actor,
            **fields,
        )

    def resolved_event(self, op: HistoryOp, memory_id: str, **detail: Any) -> HistoryEvent:
        """An event of what the resolver decided (a merge, a supersede): an update by
        ``resolve``, with ``detail``."""
        return self.event(
            op, memory_id, stop_reason=StopReason.SUCCESS_UPDATED, detector="resolve", detail=detail
        )

    def refusal_event(
        self,
        op: MemoryOp | str | None,
        decision: Decision,
        memory_id: str | None = None,
        /,
        **detail: Any,
    ) -> HistoryEvent:
        """The audit row of a refusal: stop reason, detector, what kind — never content.

        ``op`` goes first in ``detail`` (``None``: the detail says what it was).
        """
        head = {} if op is None else {"op": op.value if isinstance(op, MemoryOp) else op}
        return self.event(
            HistoryOp.REFUSE,
            memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={**head, **detail},
        )

    def refusal(self, candidate: Candidate, decision: Decision) -> WriteSet:
        """The audit row of a refused candidate: what kind it was, never its content."""
        event = self.refusal_event(
            MemoryOp.STORE,
            decision,
            trigger="capture",
            rule=candidate.rule,
            category=candidate.category,
        )
        return self.events_only(event)

    def events_only(self, *events: HistoryEvent) -> WriteSet:
        """An audit-only write (it does not move the revision)."""
        return WriteSet(self.orchestrator, self.at, events=events)

    def compose(
        self,
        *,
        nodes: Sequence[MemoryNode] = (),
        edges: Sequence[MemoryEdge] = (),
        extra_sources: Sequence[tuple[str, Source]] = (),
        events: Sequence[HistoryEvent] = (),
        changes: Sequence[ChangeEntry] = (),
        op_events: Sequence[OpEvent] = (),
        proposals: Sequence[Proposal] = (),
        purge_ids: Sequence[str] = (),
        embeddings: Sequence[EmbeddingRow] = (),
        ingest_records: Sequence[IngestRecord] = (),
        index_texts: Sequence[tuple[str, IndexText]] = (),
        expected: Sequence[tuple[str, str]] = (),
    ) -> WriteSet:
        """One write of this builder's orchestrator, time and thread, of the given parts
        (every write below is one; TTL, purge, proposals, consolidation, operational
        events, an embedding backfill and erased ``ingest_files`` rows call it directly)."""
        return WriteSet(
            self.orchestrator,
            self.at,
            nodes=tuple(nodes),
            edges=tuple(edges),
            extra_sources=tuple(extra_sources),
            events=tuple(events),
            changes=tuple(changes),
            op_events=tuple(op_events),
            proposals=tuple(proposals),
            purge_ids=tuple(purge_ids),
            ingest_records=tuple(ingest_records),
            thread_id=self.thread_id,
            embeddings=tuple(embeddings),
            index_texts=tuple(index_texts),
            expected=tuple(expected),
        )

    def combined(self, parts: Sequence[WriteSet]) -> WriteSet:
        """Several writes as ONE transaction (a worker's batch, an ingest window).

        Every part's rows in order; a node several parts write (a memory one file
        creates and a later one merges into) once, in its last version at its
        first place — the state the parts applied one after another leave. Each
        event keeps the row digest of its own part.
        """
        latest: dict[str, MemoryNode] = {}
        expected: dict[str, str] = {}
        for write in parts:
            # a part's read of a row an earlier part writes is this write's own row
            for memory_id, updated_at in write.expected:
                if memory_id not in latest:
                    expected.setdefault(memory_id, updated_at)
            latest.update((n.memory_id, n) for n in write.nodes)
        return self.compose(
            nodes=list(latest.values()),
            edges=[e for w in parts for e in w.edges],
            extra_sources=[s for w in parts for s in w.extra_sources],
            events=[e for w in parts for e in w.events],
            changes=[c for w in parts for c in w.changes],
            op_events=[o for w in parts for o in w.op_events],
            proposals=[p for w in parts for p in w.proposals],
            purge_ids=[m for w in parts for m in w.purge_ids],
            embeddings=[r for w in parts for r in w.embeddings],
            ingest_records=[r for w in parts for r in w.ingest_records],
            index_texts=[t for w in parts for t in w.index_texts],
            expected=list(expected.items()),
        )

    def created(
        self,
        nodes: Sequence[MemoryNode],
        decisions: Sequence[Decision],
        *,
        edges: Sequence[MemoryEdge] = (),
        embeddings: Sequence[EmbeddingRow] = (),
        index_texts: Sequence[tuple[str, IndexText]] = (),
        node_detail: Mapping[str, Mapping[str, Any]] | None = None,
        before: Sequence[HistoryEvent] = (),
        **detail: Any,
    ) -> WriteSet:
        """New nodes (``add``, ``add_many``): CREATE events, change rows, vectors.

        ``node_detail``: extra event detail of single nodes, by memory id;
        ``before``: events written ahead of the CREATE rows (a batch's refusals).
        """
        events = [*before]
        events += [
            self.created_event(n, d, **{**detail, **(node_detail or {}).get(n.memory_id, {})})
            for n, d in zip(nodes, decisions, strict=True)
        ]
        events += [self._link_event(e) for e in edges]
        return self.compose(
            nodes=nodes,
            edges=edges,
            events=events,
            changes=tuple(ChangeEntry(n.memory_id, ChangeKind.CREATED, n.summary) for n in nodes),
            embeddings=embeddings,
            index_texts=index_texts,
        )

    def updated(
        self,
        node: MemoryNode,
        decision: Decision,
        fields: Sequence[str],
        embeddings: Sequence[EmbeddingRow] = (),
        *,
        read_at: str | None = None,
    ) -> WriteSet:
        """Changed fields of one node (``update``); ``read_at``: the stored row's
        ``updated_at`` when it was read (the write rolls back if it changed since)."""
        event = self.event(
            HistoryOp.UPDATE,
            node.memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={"fields": sorted(fields)},
        )
        return self.compose(
            nodes=(node,),
            events=(event,),
            changes=(ChangeEntry(node.memory_id, ChangeKind.UPDATED, node.summary),),
            embeddings=embeddings,
            expected=((node.memory_id, read_at),) if read_at is not None else (),
        )

    def transitioned(
        self,
        before: MemoryNode,
        after: MemoryNode,
        decision: Decision,
        op: HistoryOp,
        kind: ChangeKind,
    ) -> WriteSet:
        """A status change of one node (delete, restore, supersede, retract) from the
        stored ``before`` (the write rolls back if that row changed since it was read)."""
        event = self.event(
            op,
            after.memory_id,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={"status": after.status.value, "purge_at": after.purge_at},
        )
        return self.compose(
            nodes=(after,),
            events=(event,),
            changes=(ChangeEntry(before.memory_id, kind, before.summary),),
            expected=((before.memory_id, before.updated_at),),
        )

    def linked(self, edge: MemoryEdge, **detail: Any) -> WriteSet:
        """One new edge (``link``) with its LINK event."""
        return self.compose(
            edges=(edge,),
            events=(self._link_event(edge, detector=None, **detail),),
        )

    def ingested(
        self,
        *,
        created: Sequence[tuple[MemoryNode, Decision, Mapping[str, Any]]],
        merged: Sequence[tuple[MemoryNode, Source, str, Mapping[str, Any]]],
        edges: Sequence[MemoryEdge],
        refused: Sequence[tuple[Decision, Sequence[str], Mapping[str, Any]]],
        records: Sequence[IngestRecord],
        embeddings: Sequence[EmbeddingRow] = (),
    ) -> WriteSet:
        """One ingested file's ONE transaction.

        ``created``: (node, decision, where); ``merged``: (touched target,
        the chunk's source, reason, where) once per merged chunk; ``refused``:
        (decision, field names, where) — audited without content; ``where``
        is ``{"document", "chunk"}``.
        """
        events: list[HistoryEvent] = []
        changes: list[ChangeEntry] = []
        for node, decision, where in created:
            events.append(self.created_event(node, decision, ingest=where))
            changes.append(ChangeEntry(node.memory_id, ChangeKind.CREATED, node.summary))
        touched: dict[str, MemoryNode] = {}
        for target, _source, reason, where in merged:
            touched[target.memory_id] = target
            events.append(
                self.resolved_event(
                    HistoryOp.MERGE, target.memory_id, trigger="ingest", reason=reason, ingest=where
                )
            )
            changes.append(ChangeEntry(target.memory_id, ChangeKind.MERGED, target.summary))
        events += [self._link_event(e, detector=None) for e in edges]
        events += [
            self.refusal_event(MemoryOp.STORE, d, None, fields=list(fields), ingest=where)
            for d, fields, where in refused
        ]
        return self.compose(
            nodes=(*(n for n, _, _ in created), *touched.values()),
            edges=edges,
            extra_sources=tuple((t.memory_id, src) for t, src, _, _ in merged),
            ingest_records=records,
            events=events,
            changes=changes,
            embeddings=embeddings,
            # a merge target is written back as it was read (touched keeps its
            # updated_at): a delete or an edit since then rolls the write back (S12-R4)
            expected=tuple((t.memory_id, t.updated_at) for t in touched.values()),
        )

    def _link_event(
        self, edge: MemoryEdge, detector: str | None = "resolve", **detail: Any
    ) -> HistoryEvent:
        return self.event(
            HistoryOp.LINK,
            edge.from_memory_id,
            stop_reason=StopReason.SUCCESS_STORED,
            detector=detector,
            detail={
                "edge_id": edge.edge_id,
                "edge_type": edge.edge_type.value,
                "to": edge.to_memory_id,
                **detail,
            },
        )

    def merge(
        self,
        candidate: Candidate,
        old: MemoryNode,
        source: Source,
        resolution: Resolution,
        *,
        confidence_nudge: float,
    ) -> WriteSet:
        """The same statement again: touch ``old``, nudge its confidence, add the source."""
        node = touched(old, self.at, confidence_nudge)
        event = self.resolved_event(
            HistoryOp.MERGE,
            old.memory_id,
            trigger="capture",
            rule=candidate.rule,
            reason=resolution.reason,
        )
        return self.compose(
            nodes=(node,),
            extra_sources=((old.memory_id, source),),
            events=(event,),
            changes=(ChangeEntry(old.memory_id, ChangeKind.MERGED, old.summary),),
        )

    def new_node(
        self,
        candidate: Candidate,
        node: MemoryNode,
        resolution: Resolution,
        decision: Decision,
        superseded: Sequence[MemoryNode],
    ) -> tuple[WriteSet, tuple[str, ...], tuple[EdgeRef, ...]]:
        """A new node with its edges; ``superseded`` (read by the caller) become superseded.

        Returns the write, the memory ids touched and the edges for the report.
        """
        nodes: list[MemoryNode] = [node]
        edges: list[MemoryEdge] = []
        events: list[HistoryEvent] = [
            self.created_event(
                node,
                decision,
                trigger="capture",
                rule=candidate.rule,
                outcome=resolution.outcome.value,
            )
        ]
        for old in superseded:
            if old.status is not MemoryStatus.ACTIVE:
                continue
            nodes.append(
                old.model_copy(update={"status": MemoryStatus.SUPERSEDED, "updated_at": self.at})
            )
            events.append(
                self.resolved_event(
                    HistoryOp.SUPERSEDE,
                    old.memory_id,
                    by=node.memory_id,
                    status=MemoryStatus.SUPERSEDED.value,
                )
            )
        links = [
            *((EdgeType.UPDATES, o.memory_id, 1.0) for o in superseded),
            *((EdgeType.CONTRADICTS, m, 1.0) for m in resolution.contradicts),
            *((EdgeType.RELATED_TO, m, s) for m, s in resolution.related),
        ]
        for edge_type, to_id, weight in links:
            edge = MemoryEdge(
                edge_id=_new_id("edge"),
                orchestrator_id=self.orchestrator,
                from_memory_id=node.memory_id,
                to_memory_id=to_id,
                edge_type=edge_type,
                weight=weight,
                reason=(resolution.reason or None)
                if edge_type is not EdgeType.RELATED_TO
                else None,
                created_at=self.at,
            )
            edges.append(edge)
            events.append(self._link_event(edge))
        kind = ChangeKind.UPDATED if resolution.outcome is Outcome.UPDATED else ChangeKind.CREATED
        write = self.compose(
            nodes=nodes,
            edges=edges,
            events=events,
            changes=(ChangeEntry(node.memory_id, kind, node.summary),),
        )
        ids = (node.memory_id, *(o.memory_id for o in superseded), *resolution.contradicts)
        refs = tuple(
            EdgeRef(e.edge_type.value, e.from_memory_id, e.to_memory_id, e.weight) for e in edges
        )
        return write, ids, refs
