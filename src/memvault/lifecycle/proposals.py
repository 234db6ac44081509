"""Consent proposals (spec §3, §10; DESIGN §2.4): pure helpers.

Anything inferred about a user — a theory-of-mind insight, a consolidation
that rewrites a user fact, a sensitive profile field such as a preferred name
or language — is not written as memory. It becomes a proposal that waits for
the user's yes (then it is written as ``USER_EXPLICIT`` through the gate,
which may still refuse it), their no, or expiry after seven days.

>>> redact({"content": "Prefers Lisbon", "type": "Preference", "category": "PREFERENCE"})
{'type': 'Preference', 'category': 'PREFERENCE'}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from memvault.lifecycle.ttl import parse_timestamp
from memvault.model.enums import StopReason
from memvault.results import fields_json
from memvault.store.records import Proposal, ProposalStatus

__all__ = [
    "PROPOSAL_KINDS",
    "ProposalResult",
    "consent_fields",
    "consent_links",
    "decide",
    "is_expired",
    "proposal_json",
    "redact",
]

#: What a proposal is about.
PROPOSAL_KINDS = frozenset({"insight", "profile_field", "consolidation"})

#: Candidate keys that survive a decision: structure, never text.
_KEPT_AFTER_DECISION = ("type", "category", "replaces")


def redact(candidate: Mapping[str, Any]) -> dict[str, Any]:
    """The candidate without its text (what a decided proposal keeps)."""
    return {k: candidate[k] for k in _KEPT_AFTER_DECISION if k in candidate}


def consent_fields(candidate: Mapping[str, Any]) -> dict[str, Any]:
    """The ``add`` fields of a confirmed candidate: the user said it, so USER_EXPLICIT."""
    fields = {k: v for k, v in candidate.items() if k not in ("content", "replaces")}
    fields["source_kind"] = "USER_EXPLICIT"
    fields["captured_by"] = "user"
    return fields


def is_expired(proposal: Proposal, now: datetime) -> bool:
    return proposal.status is ProposalStatus.PENDING and parse_timestamp(proposal.expires_at) <= now


def decide(proposal: Proposal, status: ProposalStatus, at: str, **outcome: Any) -> Proposal:
    """The proposal after a decision: new status, text dropped, outcome kept."""
    return replace(
        proposal,
        status=status,
        decided_at=at,
        candidate=redact(proposal.candidate),
        outcome={k: v for k, v in outcome.items() if v is not None},
    )


def consent_links(proposals: Iterable[Proposal]) -> dict[str, dict[str, Any]]:
    """What became of each decided proposal, by id: what links a refusal row to its end.

    A consent-gated write leaves ``MISSING_EXPLICIT_CONSENT`` refusal rows (the
    gate's, and the "proposed" step, ``detail.proposal_id``); they stay — the
    refusal happened. The user's confirmation is the memory's ``CREATE`` row
    (detector ``consent.confirmed``, the same ``proposal_id``). Readers of the
    audit (the inspector's timeline, ``memvault audit refusals``) show each
    refusal row with this outcome beside it.

    >>> from memvault.store.records import ProposalStatus
    >>> p = Proposal("prop_1", "acme", "profile_field", {}, ProposalStatus.CONFIRMED, "t", "t",
    ...              outcome={"memory_id": "mem_9", "stop_reason": "SUCCESS_STORED"})
    >>> consent_links([p])["prop_1"]["memory_id"]
    'mem_9'
    """
    return {
        p.proposal_id: {
            "status": p.status.value,
            "decided_at": p.decided_at,
            "memory_id": p.outcome.get("memory_id"),
            "stop_reason": p.outcome.get("stop_reason"),
        }
        for p in proposals
        if p.status is not ProposalStatus.PENDING
    }


def proposal_json(proposal: Proposal) -> dict[str, Any]:
    return {
        "proposal_id": proposal.proposal_id,
        "kind": proposal.kind,
        "status": proposal.status.value,
        "user_id": proposal.user_id,
        "created_at": proposal.created_at,
        "expires_at": proposal.expires_at,
        "decided_at": proposal.decided_at,
        "candidate": dict(proposal.candidate),
        "outcome": dict(proposal.outcome),
    }


@dataclass(frozen=True, slots=True)
class ProposalResult:
    """What ``propose`` returns.

    ``stop_reason`` is ``MISSING_EXPLICIT_CONSENT`` when a proposal was
    queued (nothing was stored yet), or the gate's refusal when the candidate
    could never be stored (then nothing is queued either).
    """

    stop_reason: StopReason
    proposal_id: str | None = None
    reason: str = ""
    detector: str | None = None

    @property
    def queued(self) -> bool:
        return self.proposal_id is not None

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)
