"""What a pass reports: one :class:`FileOutcome` per file, gathered in an :class:`IngestReport`.

``IngestReport.to_json()`` is the ``memvault ingest --json`` document.

>>> from memvault.ingest.model import RejectReason, Rejection
>>> bad = FileOutcome("x.pdf", REJECTED, reasons=(Rejection(RejectReason.UNSUPPORTED_TYPE, "no"),))
>>> IngestReport((bad,), 0.01).to_json()["rejected"][0]["reasons"]
['UNSUPPORTED_TYPE']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memvault.ingest.model import Rejection

__all__ = ["DUPLICATE", "PENDING", "PROCESSED", "REJECTED", "FileOutcome", "IngestReport"]

PROCESSED, REJECTED, DUPLICATE, PENDING = "processed", "rejected", "duplicate", "pending"


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file (one entry of the pass report)."""

    name: str
    status: str
    reasons: tuple[Rejection, ...] = ()
    memory_ids: tuple[str, ...] = ()
    #: stored memories this file's candidates merged into (no new node)
    merged_ids: tuple[str, ...] = ()
    refused: tuple[dict[str, Any], ...] = ()
    edge_ids: tuple[str, ...] = ()
    manifest: str | None = None
    sha256: str | None = None
    duplicate_of: str | None = None
    recovered: bool = False

    @property
    def memory_count(self) -> int:
        return len(self.memory_ids)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"file": self.name, "manifest": self.manifest}
        if self.status == REJECTED:
            data["reasons"] = [r.code.value for r in self.reasons]
            data["details"] = [r.to_json() for r in self.reasons]
            stops = sorted({str(r["stop_reason"]) for r in self.refused})
            if stops:
                data["stop_reasons"] = stops
        elif self.status == PROCESSED:
            data["memories"] = list(self.memory_ids)
            data["merged_into"] = list(self.merged_ids)
            data["edges"] = list(self.edge_ids)
            data["refused"] = list(self.refused)
            if self.recovered:
                data["recovered"] = True
        elif self.status == DUPLICATE:
            data["sha256"] = self.sha256
            data["duplicate_of"] = self.duplicate_of
        return data


@dataclass(frozen=True)
class IngestReport:
    """The outcome of one pass: files by status, and how long it took."""

    outcomes: tuple[FileOutcome, ...]
    seconds: float
    #: seconds per stage summed over files (``read``, ``parse``, ``gate``, ``resolve``,
    #: ``commit``; ``embed`` is worker-thread time, overlapping the others)
    timings: dict[str, float] = field(default_factory=dict)

    def _with(self, status: str) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def processed(self) -> list[FileOutcome]:
        return self._with(PROCESSED)

    @property
    def rejected(self) -> list[FileOutcome]:
        return self._with(REJECTED)

    @property
    def duplicates(self) -> list[FileOutcome]:
        return self._with(DUPLICATE)

    @property
    def pending(self) -> list[FileOutcome]:
        return self._with(PENDING)

    @property
    def memories(self) -> int:
        return sum(o.memory_count for o in self.outcomes)

    @property
    def merged(self) -> int:
        """Candidates that merged into a stored memory instead of creating one."""
        return sum(len(o.merged_ids) for o in self.outcomes)

    def to_json(self) -> dict[str, Any]:
        """``{"processed": [...], "rejected": [{"file", "reasons"}], "duplicates": [...]}``."""
        return {
            "processed": [o.to_json() for o in self.processed],
            "rejected": [o.to_json() for o in self.rejected],
            "duplicates": [o.to_json() for o in self.duplicates],
            "pending": [o.name for o in self.pending],
            "memories": self.memories,
            "merged": self.merged,
            "seconds": round(self.seconds, 3),
            "timings_s": dict(self.timings),
        }
