"""What lifecycle operations return: frozen values with ``to_json``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memvault.lifecycle.audit import AuditReport
from memvault.results import fields_json

__all__ = ["ForgetReport", "LifecycleReport", "Transition"]


@dataclass(frozen=True, slots=True)
class Transition:
    """One memory that changed state in a lifecycle run."""

    memory_id: str
    reason: str
    purge_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Its fields; ``purge_at`` only when set.

        >>> Transition("mem_1", "ttl").to_json()
        {'memory_id': 'mem_1', 'reason': 'ttl'}
        """
        return fields_json(self, omit=("purge_at",) if self.purge_at is None else ())


@dataclass(frozen=True, slots=True)
class LifecycleReport:
    """What one ``run_lifecycle`` changed."""

    now: str
    soft_deleted: tuple[Transition, ...] = ()
    purged: tuple[Transition, ...] = ()
    proposals_expired: tuple[str, ...] = ()
    refused: tuple[Transition, ...] = ()
    revision: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "counts": {
                "soft_deleted": len(self.soft_deleted),
                "purged": len(self.purged),
                "proposals_expired": len(self.proposals_expired),
                "refused": len(self.refused),
            },
            "soft_deleted": [t.to_json() for t in self.soft_deleted],
            "purged": [t.to_json() for t in self.purged],
            "proposals_expired": list(self.proposals_expired),
            "refused": [t.to_json() for t in self.refused],
            "revision": self.revision,
        }


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """Proof of a right-to-erasure run: what was removed, what is left, chain verdict."""

    user_id: str
    memories_purged: int
    proposals_erased: int
    remaining: int
    audit: AuditReport
    purged_ids: tuple[str, ...] = field(default=(), repr=False)
    #: What was removed where (memories, source files, manifests, log lines,
    #: agent threads, …); filled by the engine, which sees the files.
    cleaned: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user_id": self.user_id,
            "memories_purged": self.memories_purged,
            "proposals_erased": self.proposals_erased,
            "remaining": self.remaining,
            "audit": self.audit.to_json(),
        }
        if self.cleaned:
            data["cleaned"] = dict(self.cleaned)
        return data
