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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memvault.extract.base import Candidate
from memvault.model.clock import new_id as _new_id
from memvault.model.decision import Decision
from memvault.model.enums import (
    ChangeKind,
    EdgeType,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    StopReason,
)
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.base import ChangeEntry, HistoryEvent, WriteSet
from memvault.write.report import EdgeRef
from memvault.write.resolve import Outcome, Resolution

__all__ = ["WriteBuilder", "touched"]


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

    def refusal(self, candidate: Candidate, decision: Decision) -> WriteSet:
        """The audit row of a refused candidate: what kind it was, never its content."""
        event = self.event(
            HistoryOp.REFUSE,
            None,
            stop_reason=decision.stop_reason,
            detector=decision.detector,
            detail={
                "op": MemoryOp.STORE.value,
                "trigger": "capture",
                "rule": candidate.rule,
                "category": candidate.category,
            },
        )
        return WriteSet(self.orchestrator, self.at, events=(event,))

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
        event = self.event(
            HistoryOp.MERGE,
            old.memory_id,
            stop_reason=StopReason.SUCCESS_UPDATED,
            detector="resolve",
            detail={"trigger": "capture", "rule": candidate.rule, "reason": resolution.reason},
        )
        return WriteSet(
            self.orchestrator,
            self.at,
            nodes=(node,),
            extra_sources=((old.memory_id, source),),
            events=(event,),
            changes=(ChangeEntry(old.memory_id, ChangeKind.MERGED, old.summary),),
            thread_id=self.thread_id,
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
            self.event(
                HistoryOp.CREATE,
                node.memory_id,
                stop_reason=decision.stop_reason,
                detector=decision.detector,
                detail={
                    "type": node.type.value,
                    "category": node.category,
                    "trigger": "capture",
                    "rule": candidate.rule,
                    "outcome": resolution.outcome.value,
                },
            )
        ]
        for old in superseded:
            if old.status is not MemoryStatus.ACTIVE:
                continue
            nodes.append(
                old.model_copy(update={"status": MemoryStatus.SUPERSEDED, "updated_at": self.at})
            )
            events.append(
                self.event(
                    HistoryOp.SUPERSEDE,
                    old.memory_id,
                    stop_reason=StopReason.SUCCESS_UPDATED,
                    detector="resolve",
                    detail={"by": node.memory_id, "status": MemoryStatus.SUPERSEDED.value},
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
            events.append(
                self.event(
                    HistoryOp.LINK,
                    node.memory_id,
                    stop_reason=StopReason.SUCCESS_STORED,
                    detector="resolve",
                    detail={"edge_id": edge.edge_id, "edge_type": edge_type.value, "to": to_id},
                )
            )
        kind = ChangeKind.UPDATED if resolution.outcome is Outcome.UPDATED else ChangeKind.CREATED
        write = WriteSet(
            self.orchestrator,
            self.at,
            nodes=tuple(nodes),
            edges=tuple(edges),
            events=tuple(events),
            changes=(ChangeEntry(node.memory_id, kind, node.summary),),
            thread_id=self.thread_id,
        )
        ids = (node.memory_id, *(o.memory_id for o in superseded), *resolution.contradicts)
        refs = tuple(
            EdgeRef(e.edge_type.value, e.from_memory_id, e.to_memory_id, e.weight) for e in edges
        )
        return write, ids, refs
