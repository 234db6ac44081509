"""The TTL rules as pure functions over nodes and a moment (spec §7).

>>> from datetime import datetime, UTC
>>> parse_timestamp("2026-01-01T00:00:00.000000Z") == datetime(2026, 1, 1, tzinfo=UTC)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from memvault.lifecycle.settings import LifecyclePolicy
from memvault.model.enums import MemoryStatus
from memvault.model.node import MemoryNode

__all__ = [
    "Expiry",
    "expiry_reason",
    "last_activity",
    "parse_timestamp",
    "plan_expiry",
    "purge_due",
]


def parse_timestamp(text: str) -> datetime:
    """An aware UTC datetime from memvault's ISO-8601 text (naive means UTC)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def last_activity(node: MemoryNode) -> datetime:
    """The later of the last update and the last recorded access."""
    stamps = [node.updated_at, node.created_at]
    if node.last_accessed_at:
        stamps.append(node.last_accessed_at)
    return parse_timestamp(max(stamps))


@dataclass(frozen=True, slots=True)
class Expiry:
    """A memory the sweep will soft-delete, and which rule fired."""

    node: MemoryNode
    reason: str  # "idle" or "ttl_class"


def expiry_reason(node: MemoryNode, now: datetime, policy: LifecyclePolicy) -> str | None:
    """``"ttl_class"``, ``"idle"`` or ``None`` for one active node.

    Trigger: a node that is active and not pinned.
    Why: spec §7 — untouched for ``idle_after`` *and* below the importance
    threshold; the TTL class caps the lifetime whatever the importance.
    Outcome: the first rule that fires names the reason in the audit event.
    """
    if node.status is not MemoryStatus.ACTIVE or node.pinned:
        return None
    lifetime = policy.lifetime(node.ttl_class)
    if lifetime is not None and now - parse_timestamp(node.updated_at) >= lifetime:
        return "ttl_class"
    idle = now - last_activity(node)
    if idle >= policy.idle_after and node.importance < policy.importance_threshold:
        return "idle"
    return None


def plan_expiry(
    nodes: Iterable[MemoryNode], now: datetime, policy: LifecyclePolicy
) -> list[Expiry]:
    """The nodes to soft-delete at ``now``, in id order (deterministic)."""
    found = []
    for node in nodes:
        reason = expiry_reason(node, now, policy)
        if reason is not None:
            found.append(Expiry(node, reason))
    return sorted(found, key=lambda e: e.node.memory_id)


def purge_due(node: MemoryNode, now: datetime) -> bool:
    """True for a soft-deleted node whose ``purge_at`` has come."""
    return (
        node.status is MemoryStatus.SOFT_DELETED
        and node.purge_at is not None
        and parse_timestamp(node.purge_at) <= now
    )
