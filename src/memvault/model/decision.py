"""The value every governance decision is (STYLE principle 10)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memvault.model.enums import StopReason

__all__ = ["Decision", "Span"]


@dataclass(frozen=True, slots=True)
class Span:
    """Where in the candidate text a detector fired (``start``/``end`` are offsets)."""

    field: str
    start: int
    end: int
    label: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """Exactly one stop reason, which detector decided it, and why.

    >>> Decision(StopReason.SUCCESS_STORED).allowed
    True
    """

    stop_reason: StopReason
    detector: str | None = None
    reason: str = ""
    spans: tuple[Span, ...] = field(default_factory=tuple)

    @property
    def allowed(self) -> bool:
        return self.stop_reason.is_success
