"""What the gate's checks read and say: a prepared candidate and a finding.

The gate (:mod:`memvault.policy.gate`) prepares a candidate once
(:class:`Prepared`) and runs every :class:`Check` on it; each check yields zero or
more :class:`Finding` values (:mod:`memvault.policy.checks_record` for the record's
shape and provenance, :mod:`memvault.policy.checks_content` for what its words say).

>>> finding(StopReason.SCHEMA_INVALID, "schema", "text is empty").detector
'schema'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memvault.model.decision import Span
from memvault.model.enums import MemoryOp, StopReason
from memvault.model.node import CONTENT_MAX
from memvault.policy.candidate import Candidate, GateContext
from memvault.policy.contract import CategorySpec
from memvault.policy.normalize import NormalizedText

__all__ = ["CONTENT_OPS", "JUDGED_MAX", "Check", "CheckFn", "Finding", "Prepared", "finding"]

CONTENT_OPS = (MemoryOp.STORE, MemoryOp.UPDATE)

#: The most characters of one field the detectors and the learned layer read.
#: Trigger: a text far over ``CONTENT_MAX`` (a refused 1 MB body, a 64k field).
#: Why: judging it whole cost CPU for a text refused either way (review R3).
#: Outcome: the first ``JUDGED_MAX`` characters (what a memory can hold) are
#: judged; the text's bound (BOUNDS_EXCEEDED) refuses a longer one whatever they
#: hold, and a higher reason found there still wins (fail closed). Capture's
#: probes of a turn are cut to the same length (write/judge.py ``_PROBE_MAX``).
JUDGED_MAX = CONTENT_MAX


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's objection: a stop reason, the detector that raised it, why, where."""

    stop_reason: StopReason
    detector: str
    reason: str
    spans: tuple[Span, ...] = ()
    family: str | None = None


@dataclass(frozen=True, slots=True)
class Prepared:
    """What every check reads, computed once per evaluation."""

    candidate: Candidate
    context: GateContext
    op: MemoryOp | None
    category: str
    category_inferred: bool
    spec: CategorySpec | None
    key: str
    value: str
    fields: tuple[tuple[str, NormalizedText], ...]
    #: the ``key`` field is a slug of the text (:func:`_slug_of`): the detectors skip it
    key_is_slug: bool = False


CheckFn = Callable[[Prepared], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class Check:
    """A named check. ``name`` is what a finding's ``detector`` starts with."""

    name: str
    run: CheckFn


def finding(reason: StopReason, detector: str, why: str, family: str | None = None) -> Finding:
    """A finding without spans (a check about the record, not a place in its text)."""
    return Finding(reason, detector, why, (), family)
