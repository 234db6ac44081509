"""What a capture returns: every candidate with its stop reason, outcome and ids.

>>> from memvault.model.enums import StopReason
>>> r = CandidateReport("Dana loves coffee.", "Preference", "PREFERENCE",
...                     StopReason.SUCCESS_STORED, Outcome.STORED, ("mem_1",))
>>> CaptureResult("message", (r,)).to_json()["candidates"][0]["outcome"]
'stored'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memvault.model.enums import StopReason
from memvault.write.resolve import Outcome

__all__ = ["CandidateReport", "CaptureResult", "EdgeRef"]


@dataclass(frozen=True, slots=True)
class EdgeRef:
    """An edge written by a capture: ``{"type", "from", "to"}`` in JSON."""

    type: str
    from_id: str
    to_id: str
    weight: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "from": self.from_id, "to": self.to_id}


@dataclass(frozen=True, slots=True)
class CandidateReport:
    """One candidate's fate.

    ``memory_ids``: for ``stored``/``related`` the new node; ``merged`` the
    existing node that was touched; ``updated`` the new node then every node it
    superseded; ``contradiction`` the new node then the nodes it contradicts;
    ``rejected`` and ``proposed`` nothing (a proposal is not a memory until the
    user confirms it: ``proposal_id`` names it). ``stop_reason`` is the gate's
    (or the cap's) answer.
    """

    content: str
    type: str
    category: str
    stop_reason: StopReason
    outcome: Outcome
    memory_ids: tuple[str, ...] = ()
    edges: tuple[EdgeRef, ...] = ()
    reason: str = ""
    rule: str = ""
    detector: str | None = None
    proposal_id: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "content": self.content,
            "type": self.type,
            "category": self.category,
            "stop_reason": self.stop_reason.value,
            "outcome": self.outcome.value,
            "memory_ids": list(self.memory_ids),
            "edges": [e.to_json() for e in self.edges],
            # always present (null when no detector decided): a stable shape for callers
            "detector": self.detector or None,
        }
        if self.reason:
            data["reason"] = self.reason
        if self.rule:
            data["rule"] = self.rule
        if self.proposal_id:
            data["proposal_id"] = self.proposal_id
        return data


@dataclass(frozen=True, slots=True)
class CaptureResult:
    """The outcome of one capture call (a turn, a workflow output, a finding)."""

    trigger: str
    candidates: tuple[CandidateReport, ...] = ()
    extractor: str = ""
    errors: tuple[str, ...] = ()
    skipped: str = ""
    #: What the extractor and the gate decided, clause by clause and candidate by
    #: candidate (``bench extraction --trace``); never part of :meth:`to_json`.
    trace: tuple[dict[str, Any], ...] = ()

    @property
    def written(self) -> tuple[CandidateReport, ...]:
        """Candidates that changed memory (everything but ``rejected``)."""
        return tuple(c for c in self.candidates if c.outcome is not Outcome.REJECTED)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "trigger": self.trigger,
            "extractor": self.extractor,
            "candidates": [c.to_json() for c in self.candidates],
        }
        if self.errors:
            data["errors"] = list(self.errors)
        if self.skipped:
            data["skipped"] = self.skipped
        return data
