"""Lifecycle: TTL and purge, consent proposals, audit verification, export/forget.

The rules live here as pure functions and small values; the engine applies
them through the store, one atomic :class:`~memvault.store.base.WriteSet` at
a time, so every transition has its audit event and delta-header entry.
"""

from memvault.lifecycle.audit import AuditReport, BrokenRow, verify_chain
from memvault.lifecycle.proposals import PROPOSAL_KINDS, ProposalResult
from memvault.lifecycle.reports import ForgetReport, LifecycleReport, Transition
from memvault.lifecycle.settings import DEFAULT_CLASS_LIFETIMES, LifecyclePolicy
from memvault.lifecycle.ttl import Expiry, plan_expiry, purge_due

__all__ = [
    "DEFAULT_CLASS_LIFETIMES",
    "PROPOSAL_KINDS",
    "AuditReport",
    "BrokenRow",
    "Expiry",
    "ForgetReport",
    "LifecyclePolicy",
    "LifecycleReport",
    "ProposalResult",
    "Transition",
    "plan_expiry",
    "purge_due",
    "verify_chain",
]
