"""What reaches the store, and the one record of a refusal (DESIGN §4).

:class:`Recording` is the base of :class:`~memvault.write.pipeline.WritePipeline`:
``apply`` (the one call that reaches the store), ``commit`` (one transaction; the
one mapping of failures to stop reasons) and the refusal record (a ``REFUSE``
history row and a ``write_refused`` log line). It is not used on its own.

>>> import tempfile, pathlib
>>> from datetime import UTC, datetime
>>> from memvault.model.decision import Decision
>>> from memvault.model.enums import MemoryOp, StopReason
>>> from memvault.store import SQLiteStore
>>> from memvault.write.pipeline import WritePipeline
>>> from memvault.write.spec import OpenGate
>>> store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "m.db")
>>> p = WritePipeline(store=store, orchestrator="acme", gate=OpenGate(),
...                   clock=lambda: datetime(2026, 1, 15, tzinfo=UTC))
>>> refused = Decision(StopReason.FORBIDDEN_CATEGORY, detector="example")
>>> p.refuse(MemoryOp.STORE, refused).stop_reason.value
'FORBIDDEN_CATEGORY'
>>> [(e.op.value, e.stop_reason.value) for e in store.history("acme", limit=5)]
[('REFUSE', 'FORBIDDEN_CATEGORY')]
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from memvault.errors import (
    DuplicateEdgeError,
    StaleWriteError,
    StoreUnavailableError,
    ValidationFailed,
)
from memvault.model.clock import format_timestamp
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, StopReason
from memvault.results import WriteResult
from memvault.store.base import HistoryEvent, Store, WriteSet
from memvault.store.records import OpEvent
from memvault.write.commit import WriteBuilder, with_op_events
from memvault.write.gating import STORE_UNAVAILABLE, Judging
from memvault.write.spec import Clock

__all__ = ["Recording"]


class Recording(Judging):
    """Plumbing, commit and refusals of a write pipeline (attributes set by its ``__init__``)."""

    store: Store
    orchestrator: str
    clock: Clock
    #: REFUSE rows waiting for the next commit (inside :meth:`batched_refusals`; ``None``
    #: outside it — the block sets the instance's own list)
    _refusals: list[HistoryEvent] | None = None

    # -- plumbing ------------------------------------------------------------

    def now(self) -> str:
        """The clock, as a stored timestamp."""
        return format_timestamp(self.clock())

    def builder(self, at: str | None = None, thread_id: str = "default") -> WriteBuilder:
        """The pure builder of this pipeline's write sets (one moment, one thread)."""
        return WriteBuilder(self.orchestrator, self.agent_id, at or self.now(), thread_id)

    def apply(self, write: WriteSet) -> int:
        """The one call that reaches the store: ``write`` in one transaction; the new revision.

        Raises what the store raises (nothing was written). Writes whose
        caller wants a stop reason go through :meth:`commit`, which maps the
        failure; batch writers (ingest's file transaction, the lifecycle's
        sweeps) decide themselves what a failed batch means.
        """
        return self.store.apply(write)

    # -- refusals and failures ----------------------------------------------

    def record_refusal(
        self,
        op: MemoryOp | str,
        decision: Decision,
        *,
        memory_id: str | None = None,
        **detail: Any,
    ) -> None:
        """The one refusal record: a REFUSE history row and a ``write_refused`` log line.

        The row holds the stop reason, detector and field *names* — never content.
        The refusal stands even when the row cannot be written.
        """
        builder = self.builder()
        try:
            event = builder.refusal_event(op, decision, memory_id, **detail)
            if self._refusals is not None:
                self._refusals.append(event)  # written with the next commit (see below)
            else:
                self.apply(builder.events_only(event))
        except Exception as exc:
            self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")
        self.log_refusal(op, decision, memory_id=memory_id)

    @contextmanager
    def batched_refusals(self) -> Iterator[None]:
        """REFUSE rows recorded in the block ride along with the block's next commit.

        Trigger: a capture turn: a refused candidate next to stored ones.
        Why: each refusal record was an audit-only transaction of its own (an
          fsync and an anchor write), beside each stored candidate's.
        Outcome: the rows join the next write :meth:`commit` applies (after its
          own events, same transaction); what is left when the block ends — or
          when that write failed and rolled back — is written then, in one
          transaction. A write is never delayed or changed by them otherwise.
        """
        if self._refusals is not None:  # nested: the outer block writes them
            yield
            return
        self._refusals = []
        try:
            yield
        finally:
            pending, self._refusals = self._refusals, None
            if pending:
                try:
                    self.apply(self.builder().events_only(*pending))
                except Exception as exc:
                    self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")

    def log_refusal(
        self, op: MemoryOp | str, decision: Decision, *, memory_id: str | None = None
    ) -> None:
        """The log line of a refusal (for writes that carry their own REFUSE rows)."""
        self.log(
            "info",
            "write_refused",
            operation=op.value if isinstance(op, MemoryOp) else op,
            stop_reason=decision.stop_reason.value,
            detector=decision.detector,
            memory_id=memory_id,
        )

    def refuse(
        self,
        op: MemoryOp,
        decision: Decision,
        *,
        memory_id: str | None = None,
        errors: tuple[tuple[str, str], ...] = (),
    ) -> WriteResult:
        """Record a refusal and answer it (a refused STORE carries no memory id)."""
        self.record_refusal(
            op, decision, memory_id=memory_id, fields=sorted({f for f, _ in errors})
        )
        return WriteResult(
            decision.stop_reason,
            memory_id=None if op is MemoryOp.STORE else memory_id,
            reason=decision.reason,
            detector=decision.detector,
            errors=errors,
            store_unavailable=decision.detector == STORE_UNAVAILABLE,
        )

    def refuse_all(
        self, op: MemoryOp, decisions: Sequence[Decision], *, written: bool = False
    ) -> list[WriteResult]:
        """:meth:`refuse` for many STOREs at once: their REFUSE rows in one transaction.

        ``written``: the caller carries the rows in a write of its own
        (:meth:`refusal_rows`); only the log lines and the results are made here.
        """
        if not written:
            try:
                self.apply(self.builder().events_only(*self.refusal_rows(op, decisions)))
            except Exception as exc:
                self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")
        for decision in decisions:
            self.log_refusal(op, decision)
        return [
            WriteResult(
                d.stop_reason,
                memory_id=None,
                reason=d.reason,
                detector=d.detector,
                store_unavailable=d.detector == STORE_UNAVAILABLE,
            )
            for d in decisions
        ]

    def refusal_rows(
        self, op: MemoryOp, decisions: Sequence[Decision], builder: WriteBuilder | None = None
    ) -> list[HistoryEvent]:
        """The REFUSE rows of refused STOREs (what :meth:`refuse` records for each)."""
        builder = builder or self.builder()
        return [builder.refusal_event(op, d, None, fields=[]) for d in decisions]

    def invalid(
        self,
        op: MemoryOp,
        failed: ValidationFailed,
        *,
        memory_id: str | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> WriteResult:
        """Refuse input no node could be built from (schema ranked with the gate)."""
        decision = (
            self.judge_invalid(op, failed, fields)
            if fields is not None
            else Decision(failed.stop_reason, detector="schema", reason=failed.message)
        )
        errors = failed.errors if decision.detector == "schema" else ()
        return self.refuse(op, decision, memory_id=memory_id, errors=errors)

    def commit(
        self,
        write: WriteSet,
        result: WriteResult,
        *,
        op: MemoryOp = MemoryOp.STORE,
        node: str | None = "hotpath",
    ) -> WriteResult:
        """Apply ``write`` in one transaction; the one mapping of failures to stop reasons.

        A duplicate edge is a refusal (SCHEMA_INVALID, recorded); anything else
        is INTERNAL_INCONSISTENCY — the store rolled back, nothing partial is
        left, and the result names no memory (none was written). ``node``: the
        operational-event node of the write's audited events (``None``: none).
        """
        if node is not None:
            write = with_op_events(write, node)  # operational events (spec §14)
        carried = tuple(self._refusals or ()) if write.events else ()
        if carried:  # REFUSE rows of batched_refusals, after the write's own events
            write = replace(write, events=(*write.events, *carried))
        try:
            revision = self.apply(write)
            if carried and self._refusals is not None:
                del self._refusals[: len(carried)]
        except DuplicateEdgeError as exc:
            decision = Decision(StopReason.SCHEMA_INVALID, detector="schema", reason=str(exc))
            errors = (("edge", "an edge with this (from, to, type) already exists"),)
            return self.refuse(op, decision, memory_id=result.memory_id, errors=errors)
        except StaleWriteError:
            # the row this write read changed first: rolled back, and the engine
            # retries on a fresh read (review S11-R7) — no internal error
            raise
        except Exception as exc:
            # Trigger: anything unexpected while writing (I/O, corrupt file, bug).
            # Why: contract INV-8 — fail closed, never leave partial state.
            # Outcome: the store rolled back; the caller gets INTERNAL_INCONSISTENCY
            #          and no memory id (nothing was written under it).
            self.log("error", "write_failed", error=f"{type(exc).__name__}: {exc}")
            return WriteResult(
                StopReason.INTERNAL_INCONSISTENCY,
                reason=f"write failed and was rolled back: {type(exc).__name__}",
                # a read-only, full, locked or damaged store: exit 4 / 503, not a refusal
                store_unavailable=isinstance(exc, StoreUnavailableError),
            )
        return replace(result, revision=revision)

    def record_op_events(self, events: Sequence[OpEvent]) -> None:
        """Operational events on their own, one transaction (raises on failure)."""
        if events:
            self.apply(self.builder(events[-1].at).compose(op_events=events))
