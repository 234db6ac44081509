"""Consent: inferred memories wait as proposals until their user says yes or no.

A proposal is queued instead of a write (DESIGN §2.4): the gate's refusal and
the "proposed" step are audited without its content; the user confirms it (it
is written as USER_EXPLICIT through the gate), rejects it (its text is
dropped), or lets it expire. Erasure erases a user's proposals too.

>>> import tempfile
>>> from memvault.engine import MemoryEngine
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None) as engine:
...     queued = engine.propose("Prefers window seats", user_id="u1",
...                             type="Preference", category="PREFERENCE")
...     [p.status.value for p in engine.proposals(user_id="u1")]
['pending']
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memvault.errors import (
    MemvaultError,
    ProposalDecidedError,
    StaleWriteError,
    ValidationFailed,
)
from memvault.lifecycle.hooks import WriteSteps
from memvault.lifecycle.proposals import (
    PROPOSAL_KINDS,
    ProposalResult,
    consent_fields,
    decide,
    is_expired,
)
from memvault.model.decision import Decision
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, MemoryOp, MemoryStatus, StopReason
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.results import WriteResult
from memvault.store.base import ChangeEntry, HistoryEvent, WriteSet
from memvault.store.records import OpEvent, Proposal, ProposalStatus

__all__ = ["ConsentService", "ProposalError"]


#: refusals that decide nothing about a proposal's content: it stays pending (a gate that
#: could not judge — INTERNAL_INCONSISTENCY, fail closed — neither: review S16-R8)
_TRANSIENT = frozenset(
    {StopReason.POLICY_DISABLED, StopReason.ENTITLEMENT_CAP, StopReason.INTERNAL_INCONSISTENCY}
)


class ProposalError(MemvaultError):
    """The proposal does not exist in this orchestrator, or was already decided."""

    hint = "list open proposals with `memvault proposals list`"

    def __init__(self, proposal_id: str, problem: str) -> None:
        super().__init__(f"proposal {proposal_id!r} {problem}")
        self.proposal_id = proposal_id
        self.problem = problem


#: One decision on proposals at a time in this process.
#: Trigger: two decisions on one proposal at once (two confirmations — a retried
#:   request, a double click —, a confirmation and a rejection, an erasure).
#: Why: each read the proposal pending and wrote its decision: both confirmations
#:   stored a memory, and a rejection answered "rejected" while the memory was stored.
#: Outcome: read, judge and write under this lock; across processes the store
#:   decides only a pending proposal (store/records.py proposal_decidable_sql) and rolls
#:   the losing write back.
_DECIDING = threading.RLock()

#: How many times a confirmation is tried on a fresh read when a memory it replaces
#: changed between its read and its commit (:class:`StaleWriteError`).
FRESH_READS = 3


class ConsentService(WriteSteps):
    """Proposals: queue, list, confirm, reject, expire, and erase a user's."""

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
        _, decision = writes.judged(MemoryOp.STORE, node)
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

    def expire(self, now: datetime, at: str) -> list[str]:
        """Mark the pending proposals past their expiry ``expired``; their ids."""
        with _DECIDING:
            return self._expire(now, at)

    def _expire(self, now: datetime, at: str) -> list[str]:
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
        self.expire(now, self.hooks.stamp(now))
        return self._store.proposals(self._orch, status=status, user_id=user_id, limit=2**62)

    def _pending(self, proposal_id: str) -> Proposal:
        found = self._store.proposals(self._orch, proposal_id=proposal_id, limit=1)
        if not found:
            raise ProposalError(proposal_id, "does not exist in this orchestrator")
        proposal = found[0]
        now = self.hooks.now()
        if is_expired(proposal, now):
            self.expire(now, self.hooks.stamp(now))
            raise ProposalError(proposal_id, f"expired at {proposal.expires_at}")
        if proposal.status is not ProposalStatus.PENDING:
            raise ProposalError(proposal_id, f"was already decided ({proposal.status.value})")
        return proposal

    def confirm(self, proposal_id: str, *, thread_id: str = "default") -> WriteResult:
        """The user said yes: write the candidate as USER_EXPLICIT through the gate."""
        with _DECIDING:
            # Trigger: a memory the proposal replaces is deleted, edited or erased
            #   between the read of it and the commit (review S12).
            # Why: the confirmation wrote its superseded copy over that write (a
            #   delete undone, an edit lost).
            # Outcome: the store refuses the stale copy; the confirmation is built
            #   again from a fresh read (a deleted memory is then left as it is).
            for attempt in range(FRESH_READS):
                try:
                    return self._confirm(proposal_id, thread_id)
                except StaleWriteError:
                    if attempt == FRESH_READS - 1:
                        raise
            raise AssertionError("unreachable")

    def _confirm(self, proposal_id: str, thread_id: str) -> WriteResult:
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
        draft, decision = writes.judged(MemoryOp.STORE, node)
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
        old, edges, superseding = self._supersede(candidate.get("replaces"), node, at)
        replaced = tuple(
            n.model_copy(update={"status": MemoryStatus.SUPERSEDED, "updated_at": at}) for n in old
        )
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
            embeddings=writes.rows([draft]),
            expected=tuple((n.memory_id, n.updated_at) for n in old),  # as read
        )
        return writes.commit(write, WriteResult(decision.stop_reason, memory_id=node.memory_id))

    def _supersede(
        self, replaces: Any, node: MemoryNode, at: str
    ) -> tuple[tuple[MemoryNode, ...], tuple[MemoryEdge, ...], tuple[HistoryEvent, ...]]:
        """The memories a confirmed consolidation supersedes, as stored (the caller writes
        them superseded), with their Updates edges and SUPERSEDE events."""
        ids = [str(i) for i in replaces] if isinstance(replaces, list) else []
        # Trigger: a proposal's ``replaces`` names memories (capture's update target, a
        #   consolidation pair — or any id a caller put in ``propose(replaces=...)``).
        # Why: confirming it superseded any memory of the orchestrator, another user's
        #   too: a write by id past the caller's scope (store/scope.py same_owner).
        # Outcome: only memories of the confirmed memory's own user and project are
        #   superseded; any other id is left as it is.
        old = [
            n
            for n in self._store.get_nodes(self._orch, ids)
            if n.status in (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)
            and n.user_id == node.user_id
            and n.project_id == node.project_id
        ]
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
        return tuple(old), edges, events

    def _refuse_confirmed(self, proposal: Proposal, decision: Decision, at: str) -> WriteResult:
        """The user said yes but the gate said no: the proposal ends ``refused``.

        Trigger: a refusal that says nothing about the content — memory switched off
          (POLICY_DISABLED) or a cap reached for now (ENTITLEMENT_CAP).
        Why: recorded as decided, the user's consent was lost for good: with memory on
          again, the confirmation answered "already decided" (review S14-R10).
        Outcome: the refusal is audited and the proposal stays pending.
        """
        transient = decision.stop_reason in _TRANSIENT
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
                proposals=() if transient else (decided,),
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
        with _DECIDING:
            proposal = self._pending(proposal_id)
            at = self.hooks.stamp(self.hooks.now())
            decided = decide(proposal, ProposalStatus.REJECTED, at)
            try:
                self._apply(
                    self._builder(at).compose(
                        events=(self._consent_event(at, proposal, "rejected"),),
                        proposals=(decided,),
                        op_events=(OpEvent(at, "hotpath", "reject", "ok"),),
                    )
                )
            except ProposalDecidedError:  # another process decided it first
                raise ProposalError(proposal_id, "was already decided") from None
            return decided

    def erase_user(self, user_id: str, at: str) -> int:
        """Right to erasure: every proposal of ``user_id`` loses its text and user."""
        with _DECIDING:
            proposals = self._store.proposals(self._orch, user_id=user_id, limit=2**62)
            erased = [_erase(p, at) for p in proposals]
            for batch in self._batches(erased):
                self._apply(self._builder(at).compose(proposals=batch))
            return len(erased)


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
