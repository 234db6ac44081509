"""The async face of the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memvault.lifecycle import AuditReport, ForgetReport, LifecycleReport
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.proposals import ProposalResult
from memvault.model.enums import (
    EdgeType,
)
from memvault.model.node import MemoryNode
from memvault.results import EngineStats, MemoryView, SearchResults, WriteResult
from memvault.store.base import (
    HistoryEvent,
)
from memvault.store.records import Proposal
from memvault.write import CaptureResult

if TYPE_CHECKING:
    pass
from memvault.engine._sync import MemoryEngine
from memvault.engine._types import P, T


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

    async def supersede(self, memory_id: str, *, by: str) -> WriteResult:
        return await self._run(self.sync.supersede, memory_id, by=by)

    async def retract(self, memory_id: str) -> WriteResult:
        return await self._run(self.sync.retract, memory_id)

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

    async def count_memories(self, filters: Any = None) -> int:
        return await self._run(self.sync.count_memories, filters)

    async def audit_events(self, **options: Any) -> list[HistoryEvent]:
        return await self._run(self.sync.audit_events, **options)

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
