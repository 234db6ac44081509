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

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memvault.errors import MemvaultError, ValidationFailed
from memvault.lifecycle.audit import (
    AuditReport,
    BrokenRow,
    verify_anchor,
    verify_chain,
    verify_rows,
)
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.proposals import (
    PROPOSAL_KINDS,
    ProposalResult,
    consent_fields,
    decide,
    is_expired,
    proposal_json,
)
from memvault.lifecycle.reports import ForgetReport, LifecycleReport, Transition
from memvault.lifecycle.settings import LifecyclePolicy
from memvault.lifecycle.ttl import plan_expiry, purge_due
from memvault.lifecycle.worker import Consolidator, RecallFn
from memvault.model.decision import Decision
from memvault.model.enums import (
    ChangeKind,
    EdgeType,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    StopReason,
)
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.results import WriteResult, history_json
from memvault.store.anchor import StoreAnchor
from memvault.store.base import ChangeEntry, HistoryEvent, NodeFilter, Store, WriteSet
from memvault.store.records import EventCount, OpEvent, Proposal, ProposalStatus
from memvault.write.commit import WriteBuilder
from memvault.write.pipeline import WritePipeline
from memvault.write.similarity import Similarity

__all__ = ["EngineHooks", "LifecycleService", "ProposalError"]

ALL_STATUSES = tuple(MemoryStatus)
#: What a right-of-access export shows: everything held except soft-deleted
#: memories, which no read path returns (they are counted in the summary).
EXPORTED_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.RETRACTED)
_PAGE = 5000


class ProposalError(MemvaultError):
    """The proposal does not exist in this orchestrator, or was already decided."""

    hint = "list open proposals with `memvault proposals list`"

    def __init__(self, proposal_id: str, problem: str) -> None:
        super().__init__(f"proposal {proposal_id!r} {problem}")
        self.proposal_id = proposal_id
        self.problem = problem


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


class LifecycleService:
    """TTL sweep, purge, proposals, audit verification, export and forget."""

    def __init__(self, hooks: EngineHooks, policy: LifecyclePolicy | None = None) -> None:
        self.hooks = hooks
        self.policy = policy or LifecyclePolicy()

    # -- helpers -------------------------------------------------------------

    @property
    def _store(self) -> Store:
        return self.hooks.store

    @property
    def _orch(self) -> str:
        return self.hooks.orchestrator

    def _builder(self, at: str, thread_id: str = "default") -> WriteBuilder:
        return self.hooks.writes().builder(at, thread_id)

    def _apply(self, write: WriteSet) -> int:
        """Every lifecycle write reaches the store through the write pipeline."""
        return self.hooks.writes().apply(write)

    def _event(self, op: HistoryOp, at: str, **fields: Any) -> HistoryEvent:
        memory_id = fields.pop("memory_id", None)
        return self._builder(at).event(op, memory_id, **fields)

    def _nodes(self, flt: NodeFilter) -> list[MemoryNode]:
        """Every node matching ``flt`` (paged through the store's filtered listing)."""
        out: list[MemoryNode] = []
        while True:
            page = self._store.list_nodes(self._orch, flt, limit=_PAGE, offset=len(out))
            out.extend(page)
            if len(page) < _PAGE:
                return out

    def _batches(self, items: Sequence[Any]) -> Iterator[Sequence[Any]]:
        size = self.policy.batch_size
        for start in range(0, len(items), size):
            yield items[start : start + size]

    # -- TTL and purge -------------------------------------------------------

    def run(self, now: datetime | None = None, *, thread_id: str = "default") -> LifecycleReport:
        """Expire proposals, soft-delete what the TTL rules select, purge what is due."""
        moment = now or self.hooks.now()
        at = self.hooks.stamp(moment)
        expired = self._expire_proposals(moment, at)
        cutoff = self.hooks.stamp(moment - self.policy.shortest_window())
        candidates = self._nodes(NodeFilter(pinned=False, updated_before=cutoff))
        soft: list[Transition] = []
        refused: list[Transition] = []
        revision: int | None = None
        purge_at = self.hooks.stamp(moment + self.policy.purge_after)
        writes = self.hooks.writes()
        for batch in self._batches(plan_expiry(candidates, moment, self.policy)):
            nodes, events, changes, ops = [], [], [], []
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
                nodes.append(node)
                events.append(
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
                    )
                )
                changes.append(ChangeEntry(node.memory_id, ChangeKind.SOFT_DELETED, node.summary))
                ops.append(self._op(at, "worker", "ttl", node))
                soft.append(Transition(node.memory_id, expiry.reason, purge_at))
            revision = self._apply(
                self._builder(at, thread_id).compose(
                    nodes=nodes, events=events, changes=changes, op_events=ops
                )
            )
        due = [
            n
            for n in self._nodes(NodeFilter(status=(MemoryStatus.SOFT_DELETED,)))
            if purge_due(n, moment)
        ]
        purged, purge_revision = self._purge(due, at, "purge_at reached", thread_id)
        return LifecycleReport(
            now=at,
            soft_deleted=tuple(soft),
            purged=tuple(purged),
            proposals_expired=tuple(expired),
            refused=tuple(refused),
            revision=purge_revision or revision or self._store.revision(self._orch),
        )

    def _purge(
        self, nodes: Sequence[MemoryNode], at: str, reason: str, thread_id: str
    ) -> tuple[list[Transition], int | None]:
        """Hard-delete ``nodes`` in batches: the only hard delete there is."""
        done: list[Transition] = []
        revision = None
        for batch in self._batches(sorted(nodes, key=lambda n: n.memory_id)):
            ids = tuple(n.memory_id for n in batch)
            revision = self._apply(
                self._builder(at, thread_id).compose(
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
                    op_events=tuple(self._op(at, "worker", "purge", n) for n in batch),
                )
            )
            done.extend(Transition(i, reason) for i in ids)
        if done:
            self.hooks.log("info", "purged", count=len(done), reason=reason)
        return done, revision

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
            gate_allows=lambda op, node: self.hooks.writes().judge(op, node).allowed,
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
        return self.plan_proposal(
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
        """A user's memories, their edges and history, and proposals, as records.

        The first record describes the export, the last one sums it up.
        """
        at = self.hooks.stamp(self.hooks.now())
        yield {
            "record": "export",
            "format": "memvault.export/1",
            "orchestrator": self._orch,
            "user_id": user_id,
            "exported_at": at,
        }
        nodes = sorted(
            self._nodes(NodeFilter(user_id=user_id, status=EXPORTED_STATUSES)),
            key=lambda n: (n.created_at, n.memory_id),
        )
        events = 0
        for node in nodes:
            record = {"record": "memory", **node.to_json()}
            record["edges"] = [
                e.to_json() for e in self._store.edges_of(self._orch, [node.memory_id])
            ]
            yield record
            for event in self._store.history(self._orch, node.memory_id, limit=2**62):
                events += 1
                yield {"record": "history", **history_json(event)}
        proposals = self._store.proposals(self._orch, user_id=user_id, limit=2**62)
        for proposal in proposals:
            yield {"record": "proposal", **proposal_json(proposal)}
        hidden = self._nodes(NodeFilter(user_id=user_id, status=(MemoryStatus.SOFT_DELETED,)))
        yield {
            "record": "summary",
            "memories": len(nodes),
            "history_events": events,
            "proposals": len(proposals),
            "soft_deleted_pending_purge": len(hidden),
        }

    def forget_user(self, user_id: str, *, thread_id: str = "default") -> ForgetReport:
        """Right to erasure: purge every memory of ``user_id`` and erase their proposals."""
        at = self.hooks.stamp(self.hooks.now())
        nodes = self._nodes(NodeFilter(user_id=user_id, status=ALL_STATUSES))
        purged, _ = self._purge(nodes, at, "right_to_erasure", thread_id)
        proposals = self._store.proposals(self._orch, user_id=user_id, limit=2**62)
        erased = [_erase(p, at) for p in proposals]
        for batch in self._batches(erased):
            self._apply(self._builder(at).compose(proposals=batch))
        remaining = len(self._nodes(NodeFilter(user_id=user_id, status=ALL_STATUSES)))
        remaining += len(self._store.proposals(self._orch, user_id=user_id, limit=2**62))
        return ForgetReport(
            user_id=user_id,
            memories_purged=len(purged),
            proposals_erased=len(erased),
            remaining=remaining,
            audit=self.verify(),
            purged_ids=tuple(t.memory_id for t in purged),
        )

    # -- proposals -----------------------------------------------------------

    def _refusal(
        self, at: str, memory_id: str | None, decision: Decision, **detail: Any
    ) -> HistoryEvent:
        """A refusal row (TTL, proposals: ``detail`` says what it was)."""
        return self._builder(at).refusal_event(None, decision, memory_id, **detail)

    def _consent_event(self, at: str, proposal: Proposal, decision: str) -> HistoryEvent:
        """Audit of a consent step: a refusal-to-store until the user says yes."""
        consent = Decision(StopReason.MISSING_EXPLICIT_CONSENT, detector="consent")
        detail = {"proposal_id": proposal.proposal_id, "kind": proposal.kind, "decision": decision}
        return self._builder(at).refusal_event(None, consent, None, **detail)

    def propose(
        self,
        content: str,
        *,
        kind: str,
        user_id: str | None,
        fields: Mapping[str, Any],
    ) -> ProposalResult:
        """Queue an inferred memory for the user's consent (never stored directly)."""
        result, write = self.plan_proposal(content, kind=kind, user_id=user_id, fields=fields)
        if write is not None:
            self._apply(write)
        return result

    def plan_proposal(
        self,
        content: str,
        *,
        kind: str,
        user_id: str | None,
        fields: Mapping[str, Any],
    ) -> tuple[ProposalResult, WriteSet | None]:
        """What :meth:`propose` would write, without writing it (the worker batches it)."""
        if kind not in PROPOSAL_KINDS:
            raise ValidationFailed(
                f"unknown proposal kind {kind!r}",
                errors=(("kind", f"one of {sorted(PROPOSAL_KINDS)}"),),
            )
        candidate = {k: v for k, v in fields.items() if v is not None}
        candidate.update(content=content, user_id=user_id)
        now = self.hooks.now()
        at = self.hooks.stamp(now)
        writes = self.hooks.writes()
        try:
            node = writes.build_fields({**consent_fields(candidate), "content": content})
        except ValidationFailed as exc:
            return ProposalResult(exc.stop_reason, reason=exc.message, detector="schema"), None
        # Trigger: a candidate the gate would refuse even with the user's consent.
        # Why: forbidden content must not be kept anywhere, not even as a proposal.
        # Outcome: refused now (audited without content); nothing is queued.
        decision = writes.judge(MemoryOp.STORE, node)
        if not decision.allowed and decision.stop_reason is not StopReason.MISSING_EXPLICIT_CONSENT:
            refusal = self._refusal(at, None, decision, op="PROPOSE")
            writes.log_refusal("PROPOSE", decision)
            return (
                ProposalResult(
                    decision.stop_reason, reason=decision.reason, detector=decision.detector
                ),
                self._builder(at).events_only(refusal),
            )
        proposal = Proposal(
            proposal_id=self.hooks.new_id("prop"),
            orchestrator_id=self._orch,
            kind=kind,
            candidate=candidate,
            status=ProposalStatus.PENDING,
            created_at=at,
            expires_at=self.hooks.stamp(now + self.policy.proposal_ttl),
            user_id=user_id,
        )
        write = self._builder(at).compose(
            events=(self._consent_event(at, proposal, "proposed"),),
            proposals=(proposal,),
            op_events=(OpEvent(at, "worker", "propose", "ok", category=node.category),),
        )
        return (
            ProposalResult(
                StopReason.MISSING_EXPLICIT_CONSENT,
                proposal_id=proposal.proposal_id,
                reason=f"awaiting the user's consent until {proposal.expires_at}",
                detector="consent",
            ),
            write,
        )

    def _expire_proposals(self, now: datetime, at: str) -> list[str]:
        pending = self._store.proposals(self._orch, status=ProposalStatus.PENDING, limit=2**62)
        expired = [decide(p, ProposalStatus.EXPIRED, at) for p in pending if is_expired(p, now)]
        for batch in self._batches(expired):
            self._apply(
                self._builder(at).compose(
                    events=tuple(self._consent_event(at, p, "expired") for p in batch),
                    proposals=batch,
                    op_events=tuple(OpEvent(at, "worker", "expire", "ok") for _ in batch),
                )
            )
        return [p.proposal_id for p in expired]

    def proposals(
        self, *, status: ProposalStatus | None = None, user_id: str | None = None
    ) -> list[Proposal]:
        """Proposals of this orchestrator (expired ones are marked so first)."""
        now = self.hooks.now()
        self._expire_proposals(now, self.hooks.stamp(now))
        return self._store.proposals(self._orch, status=status, user_id=user_id, limit=2**62)

    def _pending(self, proposal_id: str) -> Proposal:
        found = self._store.proposals(self._orch, proposal_id=proposal_id, limit=1)
        if not found:
            raise ProposalError(proposal_id, "does not exist in this orchestrator")
        proposal = found[0]
        now = self.hooks.now()
        if is_expired(proposal, now):
            self._expire_proposals(now, self.hooks.stamp(now))
            raise ProposalError(proposal_id, f"expired at {proposal.expires_at}")
        if proposal.status is not ProposalStatus.PENDING:
            raise ProposalError(proposal_id, f"was already decided ({proposal.status.value})")
        return proposal

    def confirm(self, proposal_id: str, *, thread_id: str = "default") -> WriteResult:
        """The user said yes: write the candidate as USER_EXPLICIT through the gate."""
        proposal = self._pending(proposal_id)
        at = self.hooks.stamp(self.hooks.now())
        candidate = proposal.candidate
        writes = self.hooks.writes()
        fields = {**consent_fields(candidate), "content": str(candidate.get("content", ""))}
        try:
            node = writes.build_fields(fields)
        except ValidationFailed as exc:
            decision = writes.judge_invalid(MemoryOp.STORE, exc, fields)
            return self._refuse_confirmed(proposal, decision, at)
        decision = writes.judge(MemoryOp.STORE, node)
        if (
            decision.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT
            and decision.detector == "consent"
        ):
            # Trigger: a consent-gated field ("call me Ana", a city) the user confirmed.
            # Why: this confirmation *is* the explicit consent the gate asks for.
            # Outcome: stored; the audit names the consent as the deciding check.
            decision = Decision(
                StopReason.SUCCESS_STORED,
                detector="consent.confirmed",
                reason=f"the user confirmed proposal {proposal.proposal_id}",
            )
        if not decision.allowed:
            return self._refuse_confirmed(proposal, decision, at)
        event = self._builder(at).created_event(node, decision, proposal_id=proposal.proposal_id)
        decided = decide(
            proposal,
            ProposalStatus.CONFIRMED,
            at,
            stop_reason=decision.stop_reason.value,
            memory_id=node.memory_id,
        )
        replaced, edges, superseding = self._supersede(candidate.get("replaces"), node, at)
        # Trigger: the user confirmed. Why: the refusal rows of this proposal (the
        # gate's MISSING_EXPLICIT_CONSENT, the "proposed" step) stay — the refusal
        # happened, and the chain is append-only — but the confirmation itself is no
        # refusal. Outcome: it is the CREATE row (detector ``consent.confirmed``,
        # ``detail.proposal_id``), which links back to those rows; no third refusal.
        write = self._builder(at, thread_id).compose(
            nodes=(node, *replaced),
            edges=edges,
            events=(event, *superseding),
            changes=(
                ChangeEntry(node.memory_id, ChangeKind.CREATED, node.summary),
                *(ChangeEntry(n.memory_id, ChangeKind.UPDATED, n.summary) for n in replaced),
            ),
            proposals=(decided,),
            op_events=(self._op(at, "hotpath", "confirm", node),),
        )
        return writes.commit(write, WriteResult(decision.stop_reason, memory_id=node.memory_id))

    def _supersede(
        self, replaces: Any, node: MemoryNode, at: str
    ) -> tuple[tuple[MemoryNode, ...], tuple[MemoryEdge, ...], tuple[HistoryEvent, ...]]:
        """A confirmed consolidation supersedes the memories it rewrites (Updates edges)."""
        ids = [str(i) for i in replaces] if isinstance(replaces, list) else []
        old = [
            n
            for n in self._store.get_nodes(self._orch, ids)
            if n.status in (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)
        ]
        nodes = tuple(
            n.model_copy(update={"status": MemoryStatus.SUPERSEDED, "updated_at": at}) for n in old
        )
        edges = tuple(
            MemoryEdge(
                edge_id=self.hooks.new_id("edge"),
                orchestrator_id=self._orch,
                from_memory_id=node.memory_id,
                to_memory_id=n.memory_id,
                edge_type=EdgeType.UPDATES,
                reason="confirmed consolidation",
                created_at=at,
            )
            for n in old
        )
        events = tuple(
            self._event(
                HistoryOp.SUPERSEDE, at, memory_id=n.memory_id, detail={"by": node.memory_id}
            )
            for n in old
        )
        return nodes, edges, events

    def _refuse_confirmed(self, proposal: Proposal, decision: Decision, at: str) -> WriteResult:
        """The user said yes but the gate said no: the proposal ends ``refused``."""
        decided = decide(
            proposal, ProposalStatus.REFUSED, at, stop_reason=decision.stop_reason.value
        )
        self._apply(
            self._builder(at).compose(
                events=(
                    self._refusal(
                        at, None, decision, proposal_id=proposal.proposal_id, consent="confirmed"
                    ),
                ),
                proposals=(decided,),
                op_events=(OpEvent(at, "hotpath", "confirm", "skipped"),),
            )
        )
        self.hooks.writes().log_refusal(MemoryOp.STORE, decision)
        self.hooks.log(
            "info",
            "proposal_refused",
            proposal_id=proposal.proposal_id,
            stop_reason=decision.stop_reason.value,
            detector=decision.detector,
        )
        return WriteResult(decision.stop_reason, reason=decision.reason, detector=decision.detector)

    def reject(self, proposal_id: str) -> Proposal:
        """The user said no: nothing is stored and the candidate's text is dropped."""
        proposal = self._pending(proposal_id)
        at = self.hooks.stamp(self.hooks.now())
        decided = decide(proposal, ProposalStatus.REJECTED, at)
        self._apply(
            self._builder(at).compose(
                events=(self._consent_event(at, proposal, "rejected"),),
                proposals=(decided,),
                op_events=(OpEvent(at, "hotpath", "reject", "ok"),),
            )
        )
        return decided


def _erase(proposal: Proposal, at: str) -> Proposal:
    """A proposal after its user exercised the right to erasure."""
    status = (
        ProposalStatus.REJECTED if proposal.status is ProposalStatus.PENDING else proposal.status
    )
    erased = decide(proposal, status, at, erased=True)
    return Proposal(
        proposal_id=erased.proposal_id,
        orchestrator_id=erased.orchestrator_id,
        kind=erased.kind,
        candidate={},
        status=erased.status,
        created_at=erased.created_at,
        expires_at=erased.expires_at,
        user_id=None,
        decided_at=proposal.decided_at or at,
        outcome={"erased": True},
    )
