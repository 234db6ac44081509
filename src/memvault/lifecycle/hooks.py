"""What the lifecycle services get from the engine, and the write steps they share.

:class:`EngineHooks` are the few engine capabilities the lifecycle uses (no
import of the engine); :class:`WriteSteps` builds and applies their writes
through the one write pipeline (its builder, its refusal rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memvault.lifecycle.settings import LifecyclePolicy
from memvault.lifecycle.worker import RecallFn
from memvault.model.decision import Decision
from memvault.model.enums import HistoryOp
from memvault.model.node import MemoryNode
from memvault.store.base import HistoryEvent, Store, WriteSet
from memvault.store.records import OpEvent
from memvault.write.commit import WriteBuilder
from memvault.write.pipeline import WritePipeline
from memvault.write.similarity import Similarity

__all__ = ["EngineHooks", "WriteSteps"]


@dataclass(frozen=True, slots=True)
class EngineHooks:
    """The engine capabilities the lifecycle uses (no import of the engine)."""

    store: Store
    orchestrator: str
    actor: str | None
    now: Callable[[], datetime]
    stamp: Callable[[datetime], str]
    new_id: Callable[[str], str]
    #: The one write pipeline (gate, node building, refusal records, commit).
    writes: Callable[[], WritePipeline]
    log: Callable[..., None]
    #: Neighbours for consolidation (the engine's search); text search if absent.
    recall: RecallFn | None = None
    #: The similarity model for consolidation bands; lexical if absent.
    similarity: Similarity | None = None


class WriteSteps:
    """The write steps of a lifecycle service: every write is built by the pipeline's
    builder and reaches the store through the pipeline (``hooks.writes()``)."""

    def __init__(self, hooks: EngineHooks, policy: LifecyclePolicy | None = None) -> None:
        self.hooks = hooks
        self.policy = policy or LifecyclePolicy()
        # the hooks are frozen: their store and orchestrator are this service's for good
        self._store: Store = hooks.store
        self._orch: str = hooks.orchestrator

    def _builder(self, at: str, thread_id: str = "default") -> WriteBuilder:
        return self.hooks.writes().builder(at, thread_id)

    def _apply(self, write: WriteSet) -> int:
        """Every lifecycle write reaches the store through the write pipeline."""
        return self.hooks.writes().apply(write)

    def _event(self, op: HistoryOp, at: str, **fields: Any) -> HistoryEvent:
        memory_id = fields.pop("memory_id", None)
        return self._builder(at).event(op, memory_id, **fields)

    def _batches(self, items: Sequence[Any]) -> Iterator[Sequence[Any]]:
        size = self.policy.batch_size
        for start in range(0, len(items), size):
            yield items[start : start + size]

    @staticmethod
    def _op(
        at: str,
        node: str,
        op: str,
        memory: MemoryNode | None = None,
        status: str = "ok",
        similarity: float | None = None,
    ) -> OpEvent:
        return OpEvent(
            at=at,
            node=node,
            op=op,
            status=status,
            memory_id=memory.memory_id if memory else None,
            category=memory.category if memory else None,
            best_similarity=similarity,
        )

    def _refusal(
        self, at: str, memory_id: str | None, decision: Decision, **detail: Any
    ) -> HistoryEvent:
        """A refusal row (TTL, proposals: ``detail`` says what it was)."""
        return self._builder(at).refusal_event(None, decision, memory_id, **detail)
