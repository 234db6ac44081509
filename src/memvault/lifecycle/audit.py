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

from memvault.model.node import MemoryNode
from memvault.results import fields_json
from memvault.store.anchor import StoreAnchor
from memvault.store.base import GENESIS_HASH, HistoryEvent, chain_hash, recorded_digests, row_digest
from memvault.store.records import AuditHead

__all__ = ["AuditReport", "BrokenRow", "verify_anchor", "verify_chain", "verify_rows"]


@dataclass(frozen=True, slots=True)
class BrokenRow:
    """The first row where the chain does not hold."""

    position: int  # 1-based, in write order
    event_id: str | None
    reason: str
    memory_id: str | None = None  # a live row that no longer matches its recorded digest

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "event_id": self.event_id,
            "memory_id": self.memory_id,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict on one orchestrator's audit chain."""

    ok: bool
    events: int
    head_hash: str
    broken: BrokenRow | None = None
    #: live rows re-hashed against the digest the chain recorded for them
    rows_checked: int = 0
    #: live rows with no recorded digest (written before digests existed)
    rows_unverified: int = 0
    #: whether the anchor file outside the database was compared (None: no anchor)
    anchor_checked: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """Its fields in order, the broken row last as ``first_broken``."""
        first_broken = self.broken.to_json() if self.broken else None
        return {**fields_json(self, omit=("broken",)), "first_broken": first_broken}


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


def verify_rows(
    events: Sequence[HistoryEvent], nodes: Sequence[MemoryNode], report: AuditReport
) -> AuditReport:
    """Re-hash the live rows against the digests the (verified) chain recorded.

    The first mismatching row, in the order its digest was recorded, breaks the
    report. A row with no recorded digest (written before digests existed) is
    counted as unverified: the chain still covers its events, not its content,
    until its next write records one.
    """
    if not report.ok:
        return report
    latest = recorded_digests(events)
    mismatches: list[tuple[int, str]] = []
    unverified = 0
    for node in nodes:
        recorded = latest.get(node.memory_id)
        if recorded is None:
            unverified += 1
        elif row_digest(node) != recorded[1]:
            mismatches.append((recorded[0], node.memory_id))
    checked = len(nodes) - unverified
    if mismatches:
        position, memory_id = min(mismatches)
        reason = (
            f"memory {memory_id} no longer matches the digest recorded at row {position} "
            "(its content, key, value, type, category, status or provenance was changed "
            "outside memvault)"
        )
        broken = BrokenRow(position, events[position - 1].event_id, reason, memory_id)
        return AuditReport(False, report.events, report.head_hash, broken, checked, unverified)
    return AuditReport(True, report.events, report.head_hash, None, checked, unverified)


def verify_anchor(report: AuditReport, anchor: StoreAnchor | None) -> AuditReport:
    """Compare the chain's head with the anchor file written after every commit.

    Trigger: a whole database restored from an older copy holds a chain that is
    internally consistent — only something outside the database remembers more.
    Outcome: an anchor that recorded more events, or another head at the same
    count, breaks the report ("the database is behind its anchor").
    """
    if anchor is None:
        return report
    behind = anchor.history_count > report.events or (
        anchor.history_count == report.events and anchor.last_hash != report.head_hash
    )
    fields = (report.rows_checked, report.rows_unverified, True)
    if report.ok and behind:
        reason = (
            f"the database is behind its anchor: the anchor recorded {anchor.history_count} "
            f"events ending at {anchor.last_hash[:12]}…, the database holds {report.events} "
            f"ending at {report.head_hash[:12]}… (restored from an older copy?)"
        )
        broken = BrokenRow(report.events + 1, None, reason)
        return AuditReport(False, report.events, report.head_hash, broken, *fields)
    return AuditReport(report.ok, report.events, report.head_hash, report.broken, *fields)
