"""Lifecycle records a store keeps besides memories: proposals, operational events.

They travel inside a :class:`~memvault.store.base.WriteSet` (so a proposal's
decision and the memory it creates land in one transaction) and come back
from the narrow read methods of :class:`~memvault.store.base.Store`.

>>> OpEvent(at="2026-01-01T00:00:00.000000Z", node="worker", op="ttl", status="ok").node
'worker'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from memvault.errors import ProposalDecidedError, ValidationFailed

__all__ = [
    "OP_NODES",
    "OP_STATUSES",
    "AuditHead",
    "EventCount",
    "OpEvent",
    "Proposal",
    "ProposalStatus",
    "check_decided",
    "is_erasure",
    "proposal_decidable",
    "proposal_decidable_sql",
]

#: Where an operational event was emitted (implementation-spec §14).
OP_NODES = frozenset({"hotpath", "context", "episodic", "worker"})
#: How the operation ended.
OP_STATUSES = frozenset({"ok", "error", "skipped"})


@dataclass(frozen=True, slots=True)
class OpEvent:
    """One operational event (``events`` table): counts, never content.

    ``op`` is a short verb (classify, search, create, update, merge, delete,
    link, ttl, purge, restore, propose, confirm, reject, expire, …);
    ``best_similarity`` is the best neighbour score when one was computed.
    """

    at: str
    node: str
    op: str
    status: str
    memory_id: str | None = None
    category: str | None = None
    best_similarity: float | None = None

    def __post_init__(self) -> None:
        bad = []
        if self.node not in OP_NODES:
            bad.append(("node", f"must be one of {sorted(OP_NODES)}"))
        if self.status not in OP_STATUSES:
            bad.append(("status", f"must be one of {sorted(OP_STATUSES)}"))
        if not self.op or len(self.op) > 32:
            bad.append(("op", "must be 1..32 characters"))
        if bad:
            raise ValidationFailed("invalid operational event", errors=bad)


@dataclass(frozen=True, slots=True)
class EventCount:
    """Operational events of one (day, node, op, status), for ``stats``."""

    day: str
    node: str
    op: str
    status: str
    count: int


class ProposalStatus(StrEnum):
    """Life of a consent proposal (DESIGN §2.4)."""

    PENDING = "pending"
    CONFIRMED = "confirmed"  # the user said yes and the gate stored it
    REFUSED = "refused"  # the user said yes but the gate refused it
    REJECTED = "rejected"  # the user said no
    EXPIRED = "expired"  # nobody answered within the expiry window


@dataclass(frozen=True, slots=True)
class Proposal:
    """Something inferred about a user, waiting for the user's consent.

    ``candidate`` holds the fields of the memory to write if confirmed. Once a
    proposal is decided the candidate's text is dropped (a rejected inference
    is not kept; a confirmed one lives on as the memory), and ``outcome``
    records what happened (stop reason, memory id).
    """

    proposal_id: str
    orchestrator_id: str
    kind: str
    candidate: Mapping[str, Any]
    status: ProposalStatus
    created_at: str
    expires_at: str
    user_id: str | None = None
    decided_at: str | None = None
    outcome: Mapping[str, Any] = field(default_factory=dict)


def is_erasure(proposal: Proposal) -> bool:
    """Whether ``proposal`` is the erased form of a proposal (right to erasure)."""
    return bool(proposal.outcome.get("erased"))


def proposal_decidable_sql(mark: str) -> str:
    """The SQL condition under which a stored proposal (``proposals``) takes the new row
    (``excluded``; the upsert's ``DO UPDATE … WHERE``): only a pending one is decided,
    and only erasure rewrites a decided one (its parameter: 1 for an erasure, else 0).

    >>> proposal_decidable_sql("?")
    "(proposals.status = 'pending' OR ? = 1)"
    """
    return f"(proposals.status = 'pending' OR {mark} = 1)"


def proposal_decidable(stored: Proposal | None, new: Proposal) -> bool:
    """Whether ``new`` may replace ``stored`` (:func:`proposal_decidable_sql` in Python).

    >>> from dataclasses import replace
    >>> p = Proposal("prop_1", "acme", "insight", {}, ProposalStatus.CONFIRMED, "t0", "t1")
    >>> proposal_decidable(p, p), proposal_decidable(p, replace(p, outcome={"erased": True}))
    (False, True)
    """
    return stored is None or stored.status is ProposalStatus.PENDING or is_erasure(new)


def check_decided(new: Proposal, updated: bool) -> None:
    """Raise :class:`ProposalDecidedError` when a decision did not apply (``updated`` False).

    A proposal that was decided meanwhile is not expired again (nothing to do).
    """
    if not updated and new.status is not ProposalStatus.EXPIRED:
        raise ProposalDecidedError(new.proposal_id)


@dataclass(frozen=True, slots=True)
class AuditHead:
    """What the store recorded, at write time, about the end of the audit chain.

    Verifying the chain against it catches a deleted *last* row, which the
    chain alone cannot show.
    """

    events: int
    hash: str
