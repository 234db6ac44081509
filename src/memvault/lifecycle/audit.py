"""Verifying the tamper-evident audit chain (spec §8).

Every ``history`` row stores the previous row's hash and its own hash over
its canonical form. Walking the rows in write order and recomputing both
shows an edited row (its hash no longer matches), a deleted row in the middle
(the next row's ``prev_hash`` points at nothing) and, by comparing with the
head the store recorded at write time, a deleted last row.

>>> from memvault.store.records import AuditHead
>>> verify_chain([], AuditHead(0, GENESIS_HASH)).ok
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memvault.store.base import GENESIS_HASH, HistoryEvent, chain_hash
from memvault.store.records import AuditHead

__all__ = ["AuditReport", "BrokenRow", "verify_chain"]


@dataclass(frozen=True, slots=True)
class BrokenRow:
    """The first row where the chain does not hold."""

    position: int  # 1-based, in write order
    event_id: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "event_id": self.event_id, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict on one orchestrator's audit chain."""

    ok: bool
    events: int
    head_hash: str
    broken: BrokenRow | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events": self.events,
            "head_hash": self.head_hash,
            "first_broken": self.broken.to_json() if self.broken else None,
        }


def verify_chain(events: Sequence[HistoryEvent], head: AuditHead) -> AuditReport:
    """Check every link of ``events`` (write order) and the recorded ``head``."""
    prev = GENESIS_HASH
    for position, event in enumerate(events, start=1):
        if event.prev_hash != prev:
            reason = "prev_hash does not match the previous row (a row was removed or replaced)"
            return _broken(events, prev, position, event.event_id, reason)
        if event.hash != chain_hash(prev, event):
            reason = "hash does not match the row's content (the row was edited)"
            return _broken(events, prev, position, event.event_id, reason)
        prev = event.hash
    if head.events != len(events) or head.hash != prev:
        # Trigger: the chain is internally consistent but shorter (or longer)
        # than what was written. Why: deleting the last rows leaves no broken
        # link behind. Outcome: report the position after the last good row.
        reason = (
            f"the chain ends after {len(events)} rows at {prev[:12]}…, but {head.events} rows "
            f"ending at {head.hash[:12]}… were written (rows at the end were removed)"
        )
        return _broken(events, prev, len(events) + 1, None, reason)
    return AuditReport(True, len(events), prev)


def _broken(
    events: Sequence[HistoryEvent], prev: str, position: int, event_id: str | None, reason: str
) -> AuditReport:
    return AuditReport(False, len(events), prev, BrokenRow(position, event_id, reason))
