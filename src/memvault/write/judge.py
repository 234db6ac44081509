"""What the gate judges for one capture call: each node, the clause said, the turn.

:class:`CallJudge` asks the engine's gate about the node about to be written
and probes the words it came from — the clause as the user said it and the
whole user turn — keeping the strictest decision. Probes are judged once per
text per call (a turn with three candidates is judged once), never stored, and
only their content refusals count; from the turn, only those of the word
detectors (a category rule about the candidate does not judge other
sentences). A candidate whose slot the extractor found forbidden ("my
religion is …") is refused the same way.

>>> from memvault.model.enums import StopReason
>>> seen = []
>>> def gate(op, node):
...     seen.append(node.content)
...     if "gay" in node.content:
...         return Decision(StopReason.FORBIDDEN_CATEGORY, "detector.identity.orientation")
...     return Decision(StopReason.SUCCESS_STORED)
>>> judge = CallJudge(gate, source="I'm gay and my partner is Tom.")
>>> from memvault.model import CapturedBy, MemoryNode, Source, SourceKind, SourceType
>>> node = MemoryNode(memory_id="m1", orchestrator_id="acme", type="Fact",
...     category="KNOWLEDGE", content="Ravi's partner is Tom.",
...     source=Source(source_type=SourceType.CHANNEL_TRANSCRIPT,
...                   captured_by=CapturedBy.EXTRACTOR, source_kind=SourceKind.USER_EXPLICIT),
...     created_at="2026-01-01T00:00:00.000000Z", updated_at="2026-01-01T00:00:00.000000Z")
>>> from memvault.extract.base import Candidate
>>> from memvault.model.enums import MemoryType
>>> c = Candidate(node.content, MemoryType.FACT, "KNOWLEDGE", "partner", "Tom",
...               said="my partner is Tom")
>>> judge.judge(c, node).stop_reason.value, len(seen)
('FORBIDDEN_CATEGORY', 3)
>>> _ = judge.judge(c, node); len(seen)   # the clause and the turn are not judged again
4
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memvault.extract.base import Candidate
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, StopReason
from memvault.model.node import MemoryNode

__all__ = ["CONTENT_REFUSALS", "CallJudge", "GateFn"]

GateFn = Callable[[MemoryOp, MemoryNode], Decision]
"""The engine's gate seam: pure, returns one stop reason (may raise; caught here)."""

#: The only verdicts taken from a probe: what the words say, not how they are stored.
CONTENT_REFUSALS = frozenset({StopReason.FORBIDDEN_CATEGORY, StopReason.INJECTION_DETECTED})

_PROBE_MAX = 4000

#: Detectors that judge the words themselves (forbidden families, injection, a
#: classifier), as opposed to checks on the candidate's category or provenance.
_WORD_DETECTORS = ("detector.", "classifier_hook")


class CallJudge:
    """The gate's verdicts for one capture call; ``source`` is the user's turn, if any."""

    def __init__(
        self,
        gate: GateFn,
        *,
        source: str | None = None,
        log: Callable[..., None] | None = None,
    ) -> None:
        self.gate = gate
        self.source = " ".join((source or "").split())[:_PROBE_MAX]
        self.log = log
        self.seen: dict[str, Decision] = {}

    def check(self, op: MemoryOp, node: MemoryNode) -> Decision:
        """One gate call; an exception is INTERNAL_INCONSISTENCY (fail closed)."""
        try:
            return self.gate(op, node)
        except Exception as exc:
            if self.log is not None:
                self.log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
            return Decision(
                StopReason.INTERNAL_INCONSISTENCY, detector="gate", reason="gate raised"
            )

    def judge(self, candidate: Candidate, node: MemoryNode) -> Decision:
        """The gate's decision on the node, on the clause the user said, and on the turn.

        Trigger: detectors read attribution ("I'm allergic to …"), which the
        third-person rewrite removes; and the clause split can cut a candidate
        off from the forbidden words beside it ("I'm gay and my partner is
        Tom" → "Ravi's partner is Tom").
        Why: a rewrite or a split must never launder forbidden content past the
        gate; the contract forbids storing what is *derived* from it too.
        Outcome: the strictest decision; only content refusals (forbidden
        category, injection) are taken from the probes, which are judged once
        per text per call and discarded, never stored. A slot the extractor
        found forbidden ("my religion is …") is refused the same way.
        """
        verdicts = [self.check(MemoryOp.STORE, node)]
        if candidate.sensitive:
            verdicts.append(
                Decision(
                    StopReason.FORBIDDEN_CATEGORY,
                    detector="extract.sensitive_slot",
                    reason=f"{candidate.sensitive}: the statement fills a forbidden slot",
                )
            )
        said = " ".join(candidate.said.split())[:_PROBE_MAX]
        for text in dict.fromkeys((said, self.source)):
            if not text or text == node.content:
                continue
            probe = self.seen.get(text)
            if probe is None:
                probe = self._probe(node, text)
                self.seen[text] = probe
            if probe.stop_reason not in CONTENT_REFUSALS:
                continue
            if text != said and not (probe.detector or "").startswith(_WORD_DETECTORS):
                # Trigger: the turn holds more than this candidate's clause.
                # Why: rules about the candidate's own shape (a TODO may not be
                #      location-based) must not judge the other sentences of the
                #      turn ("I need to send the invoice. When I get home I cook").
                # Outcome: from the turn, only what the words themselves say counts.
                continue
            verdicts.append(probe)
        return min(verdicts, key=lambda d: d.stop_reason.priority)

    def _probe(self, node: MemoryNode, text: str) -> Decision:
        # Trigger: a probe only asks "may these words be written at all?".
        # Why: judged as an UPDATE, the same content checks run without the
        #      per-user usage lookup a STORE needs for its caps (a probe is
        #      never written; caps are the node's own check).
        # Outcome: the same content refusals, one store query fewer per probe.
        update: dict[str, Any] = {"content": text}
        return self.check(MemoryOp.UPDATE, node.model_copy(update=update))
