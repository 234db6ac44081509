"""The lifecycle worker: applies TTL, purge, consent and erasure through the store.

The engine owns one :class:`LifecycleService` and hands it the few engine
capabilities it needs as :class:`EngineHooks` (the write pipeline, the clock,
the log). Each transition is one atomic write built by the pipeline's
builder, with its ``history`` event, its delta-header change entry and its
operational event; gating, refusal records and failures are the pipeline's.

>>> import tempfile
>>> from memvault.engine import MemoryEngine
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as engine:
...     engine.run_lifecycle().to_json()["counts"]
{'soft_deleted': 0, 'purged': 0, 'proposals_expired': 0, 'refused': 0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from memvault.errors import StaleWriteError
from memvault.lifecycle.audit import (
    AuditReport,
    BrokenRow,
    verify_anchor,
    verify_chain,
    verify_rows,
)
from memvault.lifecycle.consent import ConsentService
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.hooks import EngineHooks, WriteSteps
from memvault.lifecycle.proposals import (
    ProposalResult,
    proposal_json,
)
from memvault.lifecycle.reports import ForgetReport, LifecycleReport, Transition
from memvault.lifecycle.settings import LifecyclePolicy
from memvault.lifecycle.ttl import plan_expiry, purge_due
from memvault.lifecycle.worker import Consolidator
from memvault.model.enums import (
    ChangeKind,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    StopReason,
)
from memvault.model.node import MemoryNode
from memvault.results import history_json
from memvault.store.anchor import StoreAnchor
from memvault.store.base import ChangeEntry, HistoryEvent, NodeFilter, WriteSet
from memvault.store.records import EventCount, OpEvent
from memvault.store.scope import reader_key

__all__ = ["LifecycleService"]

ALL_STATUSES = tuple(MemoryStatus)
#: What a right-of-access export shows: everything held except soft-deleted
#: memories, which no read path returns (they are counted in the summary).
EXPORTED_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.RETRACTED)
#: The ``format`` of ``export_user``'s header record; /2 added the ``thread_mark`` records.
EXPORT_FORMAT = "memvault.export/2"
_PAGE = 5000


#: The ``detail`` keys of a history event that name another memory: a link's
#: target, a supersede's successor, a merge's replaced rows.
_POINTER_KEYS = ("to", "by", "replaces")


def _points_within(event: HistoryEvent, own: set[str]) -> bool:
    """Whether every memory ``event`` points at is one of ``own`` (an export's rule).

    >>> from memvault.model.enums import HistoryOp
    >>> link = HistoryEvent("e1", "acme", HistoryOp.LINK, "t", "m1", detail={"to": "m9"})
    >>> _points_within(link, {"m1", "m9"}), _points_within(link, {"m1"})
    (True, False)
    """
    for key in _POINTER_KEYS:
        value = event.detail.get(key)
        named = value if isinstance(value, list | tuple) else (value,)
        if any(isinstance(v, str) and v not in own for v in named):
            return False
    return True


class LifecycleService(WriteSteps):
    """TTL sweep, purge, consolidation, audit verification, export and forget;
    proposals are its :attr:`consent` service's."""

    def __init__(self, hooks: EngineHooks, policy: LifecyclePolicy | None = None) -> None:
        super().__init__(hooks, policy)
        self.consent = ConsentService(hooks, self.policy)

    def _nodes(self, flt: NodeFilter) -> list[MemoryNode]:
        """Every node matching ``flt`` (paged through the store's filtered listing)."""
        out: list[MemoryNode] = []
        while True:
            page = self._store.list_nodes(self._orch, flt, limit=_PAGE, offset=len(out))
            out.extend(page)
            if len(page) < _PAGE:
                return out

    # -- TTL and purge -------------------------------------------------------

    def run(self, now: datetime | None = None, *, thread_id: str = "default") -> LifecycleReport:
        """Expire proposals, soft-delete what the TTL rules select, purge what is due."""
        moment = now or self.hooks.now()
        at = self.hooks.stamp(moment)
        expired = self.consent.expire(moment, at)
        cutoff = self.hooks.stamp(moment - self.policy.shortest_window())
        candidates = self._nodes(NodeFilter(pinned=False, updated_before=cutoff))
        soft: list[Transition] = []
        refused: list[Transition] = []
        revision: int | None = None
        purge_at = self.hooks.stamp(moment + self.policy.purge_after)
        writes = self.hooks.writes()
        for batch in self._batches(plan_expiry(candidates, moment, self.policy)):
            # per memory: its soft-deleted copy, event, change, op event, transition
            parts: dict[str, tuple[MemoryNode, HistoryEvent, ChangeEntry, OpEvent, Transition]] = {}
            events = []
            read: dict[str, str] = {}
            for expiry in batch:
                node = expiry.node.model_copy(
                    update={
                        "status": MemoryStatus.SOFT_DELETED,
                        "purge_at": purge_at,
                        "updated_at": at,
                    }
                )
                decision = writes.judge(MemoryOp.DELETE, node)
                if not decision.allowed:
                    events.append(self._refusal(at, node.memory_id, decision))
                    writes.log_refusal(MemoryOp.DELETE, decision, memory_id=node.memory_id)
                    refused.append(Transition(node.memory_id, decision.stop_reason.value))
                    continue
                read[node.memory_id] = expiry.node.updated_at
                parts[node.memory_id] = (
                    node,
                    self._event(
                        HistoryOp.TTL,
                        at,
                        memory_id=node.memory_id,
                        stop_reason=decision.stop_reason,
                        detector=decision.detector,
                        detail={
                            "reason": expiry.reason,
                            "status": "soft_deleted",
                            "purge_at": purge_at,
                        },
                    ),
                    ChangeEntry(node.memory_id, ChangeKind.SOFT_DELETED, node.summary),
                    self._op(at, "worker", "ttl", node),
                    Transition(node.memory_id, expiry.reason, purge_at),
                )

            build = partial(self._ttl_write, at, thread_id, parts, events, read)
            written, kept = self._apply_unchanged(list(parts), build)
            revision = written if written is not None else revision
            soft.extend(parts[i][4] for i in kept)
        due = [
            n
            for n in self._nodes(NodeFilter(status=(MemoryStatus.SOFT_DELETED,)))
            if purge_due(n, moment)
        ]
        # a memory restored (or changed) since it was read here is not purged
        purged, purge_revision = self._purge(due, at, "purge_at reached", thread_id, as_read=True)
        return LifecycleReport(
            now=at,
            soft_deleted=tuple(soft),
            purged=tuple(purged),
            proposals_expired=tuple(expired),
            refused=tuple(refused),
            revision=purge_revision or revision or self._store.revision(self._orch),
        )

    def _ttl_write(
        self,
        at: str,
        thread_id: str,
        parts: dict[str, tuple[MemoryNode, HistoryEvent, ChangeEntry, OpEvent, Transition]],
        refusals: Sequence[HistoryEvent],
        read: dict[str, str],
        ids: Sequence[str],
    ) -> WriteSet:
        """A TTL batch's write of the memories ``ids`` (as read) and its refusals."""
        chosen = [parts[i] for i in ids]
        return replace(
            self._builder(at, thread_id).compose(
                nodes=[c[0] for c in chosen],
                events=[*refusals, *(c[1] for c in chosen)],
                changes=[c[2] for c in chosen],
                op_events=[c[3] for c in chosen],
            ),
            expected=tuple((i, read[i]) for i in ids),
        )

    def _purge(
        self,
        nodes: Sequence[MemoryNode],
        at: str,
        reason: str,
        thread_id: str,
        *,
        as_read: bool = False,
    ) -> tuple[list[Transition], int | None]:
        """Hard-delete ``nodes`` in batches: the only hard delete there is.

        ``as_read``: only as they were read — one changed since (restored, updated)
        is left alone (the TTL sweep's purge; erasure purges whatever is there).
        """
        done: list[Transition] = []
        revision = None
        read = {n.memory_id: n.updated_at for n in nodes}
        by_id = {n.memory_id: n for n in nodes}
        for batch in self._batches(sorted(nodes, key=lambda n: n.memory_id)):

            def purge_write(ids: Sequence[str]) -> WriteSet:
                write = self._builder(at, thread_id).compose(
                    purge_ids=ids,
                    events=tuple(
                        self._event(
                            HistoryOp.PURGE,
                            at,
                            memory_id=i,
                            stop_reason=StopReason.SUCCESS_DELETED,
                            detector="lifecycle",
                            detail={"reason": reason},
                        )
                        for i in ids
                    ),
                    # Trigger: a purge is a transition the delta header must show once.
                    # Why: its summary would quote the memory being erased.
                    # Outcome: an entry without text; older entries are blanked by the store.
                    changes=tuple(ChangeEntry(i, ChangeKind.DELETED, "") for i in ids),
                    op_events=tuple(self._op(at, "worker", "purge", by_id[i]) for i in ids),
                )
                return (
                    replace(write, expected=tuple((i, read[i]) for i in ids)) if as_read else write
                )

            batch_revision, ids = self._apply_unchanged([n.memory_id for n in batch], purge_write)
            revision = batch_revision if batch_revision is not None else revision
            done.extend(Transition(i, reason) for i in ids)
        if done:
            self.hooks.log("info", "purged", count=len(done), reason=reason)
        return done, revision

    def _apply_unchanged(
        self, ids: list[str], build: Callable[[Sequence[str]], WriteSet]
    ) -> tuple[int | None, list[str]]:
        """Apply ``build(ids)``; a memory changed since it was read drops out and the
        rest is written again. The revision (None: nothing written) and the ids written.

        Trigger: a user restores, pins or edits a memory while the sweep holds its copy.
        Why: the sweep then wrote that copy back (the edit lost, the memory deleted) or
          purged a memory just restored (restore answered success; 3 of 6 races).
        Outcome: the store refuses a write from a stale copy
          (:class:`~memvault.errors.StaleWriteError`); that memory waits for the next run.
        """
        pending = list(ids)
        while True:
            write = build(pending)
            if not pending and not write.events:
                return None, []
            try:
                return self._apply(write), pending
            except StaleWriteError as exc:
                if exc.memory_id not in pending:
                    raise
                pending.remove(exc.memory_id)

    # -- consolidation --------------------------------------------------------

    def consolidate(
        self, now: datetime | None = None, *, thread_id: str = "default"
    ) -> ConsolidationReport:
        """One run of the consolidation worker (spec §4); see :mod:`memvault.lifecycle.worker`."""
        moment = now or self.hooks.now()
        worker = Consolidator(
            store=self._store,
            orchestrator=self._orch,
            policy=self.policy,
            stamp=self.hooks.stamp,
            new_id=self.hooks.new_id,
            writes=self.hooks.writes,
            gate_allows=lambda op, node: self.hooks.writes().judged(op, node)[1].allowed,
            propose=self._propose_rewrite,
            recall=self.hooks.recall,
            similarity=self.hooks.similarity,
        )
        report = worker.run(moment, thread_id=thread_id)
        self.hooks.log(
            "info",
            "consolidated",
            pairs=report.pairs_checked,
            merged=len(report.merged),
            linked=len(report.linked),
            proposed=len(report.proposed),
            seconds=round(report.seconds, 3),
        )
        return report

    def _propose_rewrite(
        self, older: MemoryNode, newer: MemoryNode
    ) -> tuple[ProposalResult, WriteSet | None]:
        """A newer statement rewrites a user's fact: ask the user (DESIGN §2.4)."""
        return self.consent.plan_proposal(
            newer.content,
            kind="consolidation",
            user_id=newer.user_id,
            fields={
                "type": newer.type.value,
                "category": newer.category,
                "importance": max(older.importance, newer.importance),
                "project_id": newer.project_id,
                "replaces": [older.memory_id, newer.memory_id],
            },
        )

    # -- operational events --------------------------------------------------

    def record(
        self,
        node: str,
        op: str,
        status: str = "ok",
        *,
        memory_id: str | None = None,
        category: str | None = None,
        best_similarity: float | None = None,
    ) -> None:
        """Record one operational event on its own (best effort, never raises)."""
        try:
            event = OpEvent(
                self.hooks.stamp(self.hooks.now()),
                node,
                op,
                status,
                memory_id,
                category,
                best_similarity,
            )
            self._apply(self._builder(event.at).compose(op_events=(event,)))
        except Exception as exc:  # operational tracking must never break a caller
            self.hooks.log("warning", "op_event_not_recorded", error=f"{type(exc).__name__}: {exc}")

    def operations(self, *, since: str | None = None) -> dict[str, Any]:
        """Counts of operational events by node, by op, by node/op and by day."""
        rows: list[EventCount] = self._store.event_counts(self._orch, since=since)
        by_node: dict[str, int] = {}
        by_op: dict[str, int] = {}
        by_node_op: dict[str, int] = {}
        by_day: dict[str, dict[str, int]] = {}
        for r in rows:
            by_node[r.node] = by_node.get(r.node, 0) + r.count
            by_op[r.op] = by_op.get(r.op, 0) + r.count
            key = f"{r.node}/{r.op}"
            by_node_op[key] = by_node_op.get(key, 0) + r.count
            day = by_day.setdefault(r.day, {})
            day[key] = day.get(key, 0) + r.count
        return {
            "total": sum(by_node.values()),
            "by_node": dict(sorted(by_node.items())),
            "by_op": dict(sorted(by_op.items())),
            "by_node_op": dict(sorted(by_node_op.items())),
            "by_day": by_day,
        }

    # -- audit ----------------------------------------------------------------

    def verify(self, anchor: StoreAnchor | None = None) -> AuditReport:
        """Walk the whole audit chain, re-hash the live rows against it, compare ``anchor``.

        The first broken thing is reported: a history row that was edited or
        removed, a memory row whose content no longer matches the digest its last
        audited write recorded, or a database behind its anchor file (a rollback).
        """
        try:
            events = self._store.history(self._orch, limit=2**62)
            head = self._store.audit_head(self._orch)
            nodes = self._all_rows()
        except (ValueError, KeyError, TypeError) as exc:
            # Trigger: a row edited into something that no longer parses
            # (bad JSON, unknown op). Why: that is tampering too, not a crash.
            # Outcome: the chain is reported broken, with what failed.
            reason = f"a history or memory row cannot be read: {type(exc).__name__}: {exc}"
            return AuditReport(False, 0, "", BrokenRow(0, None, reason))
        report = verify_rows(events, nodes, verify_chain(events, head))
        return verify_anchor(report, anchor)

    def _all_rows(self) -> list[MemoryNode]:
        every = NodeFilter(status=tuple(MemoryStatus))
        rows: list[MemoryNode] = []
        while True:
            page = self._store.list_nodes(self._orch, every, limit=10_000, offset=len(rows))
            rows.extend(page)
            if len(page) < 10_000:
                return rows

    # -- export and forget ---------------------------------------------------

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """A user's memories, their edges and history, proposals and seen-marks, as records.

        The first record describes the export, the last one sums it up.
        """
        at = self.hooks.stamp(self.hooks.now())
        yield {
            "record": "export",
            "format": EXPORT_FORMAT,
            "orchestrator": self._orch,
            "user_id": user_id,
            "exported_at": at,
        }
        nodes = sorted(
            self._nodes(NodeFilter.of_user_any_spelling(user_id, EXPORTED_STATUSES)),
            key=lambda n: (n.created_at, n.memory_id),
        )
        events = 0
        # only edges between the user's own exported memories: an edge to another
        # user's memory (a shared conversation id's 'follows', a link made by hand)
        # would name that memory's id (REVIEW S11-R5 remark)
        own = {n.memory_id for n in nodes}
        for node in nodes:
            record = {"record": "memory", **node.to_json()}
            record["edges"] = [
                e.to_json()
                for e in self._store.edges_of(self._orch, [node.memory_id])
                if e.from_memory_id in own and e.to_memory_id in own
            ]
            yield record
            for event in self._store.history(self._orch, node.memory_id, limit=2**62):
                if _points_within(event, own):  # else the event names another's memory
                    events += 1
                    yield {"record": "history", **history_json(event)}
        proposals = self._store.proposals(self._orch, user_id=user_id, limit=2**62)
        for proposal in proposals:
            yield {"record": "proposal", **proposal_json(proposal)}
        # the delta header's seen-marks: which threads the user read, up to which revision
        marks = self._store.reader_marks(self._orch, reader_key(user_id))
        for thread_id, revision in marks:
            yield {"record": "thread_mark", "thread_id": thread_id, "revision": revision}
        hidden = self._nodes(NodeFilter.of_user_any_spelling(user_id, (MemoryStatus.SOFT_DELETED,)))
        yield {
            "record": "summary",
            "memories": len(nodes),
            "history_events": events,
            "proposals": len(proposals),
            "thread_marks": len(marks),
            "soft_deleted_pending_purge": len(hidden),
        }

    def forget_user(self, user_id: str, *, thread_id: str = "default") -> ForgetReport:
        """Right to erasure: purge every memory of ``user_id`` and erase their proposals."""
        at = self.hooks.stamp(self.hooks.now())
        # Trigger: a confirmation of one of the user's proposals during the erasure.
        # Why: with the memories purged first, a confirmation between the two steps
        #   stored a memory of the user after the purge (12 of 20 races left one).
        # Outcome: the proposals are erased first (no longer pending: a later
        #   confirmation is refused), then every memory is read and purged — one
        #   confirmed before the erasure is among them.
        erased = self.consent.erase_user(user_id, at)
        nodes = self._nodes(NodeFilter.of_user_any_spelling(user_id, ALL_STATUSES))
        purged, _ = self._purge(nodes, at, "right_to_erasure", thread_id)
        remaining = len(self._nodes(NodeFilter.of_user_any_spelling(user_id, ALL_STATUSES)))
        remaining += len(self._store.proposals(self._orch, user_id=user_id, limit=2**62))
        return ForgetReport(
            user_id=user_id,
            memories_purged=len(purged),
            proposals_erased=erased,
            remaining=remaining,
            audit=self.verify(),
            purged_ids=tuple(t.memory_id for t in purged),
        )
