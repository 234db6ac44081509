"""What the gate judges for one candidate of a capture call: the node, and the clause said.

:class:`CallJudge` asks the engine's gate about the node about to be written
and probes the words it came from — the clause as the user said it — keeping
the strictest decision. Candidates are judged one by one: a sensitive clause
refuses what it yields, never its harmless neighbours in the same turn, and
each refusal names its own finding. Only when an extractor gives no clause is
the whole turn probed instead (fail safe). Probes are judged once per text per
call, never stored, and only their content refusals count. A candidate whose
slot the extractor found forbidden ("my religion is …") is refused the same way.

>>> from memvault.model.enums import StopReason
>>> seen = []
>>> def gate(op, node):
...     seen.append(node.content)
...     if "allergic" in node.content:
...         return Decision(StopReason.FORBIDDEN_CATEGORY, "detector.health.condition")
...     return Decision(StopReason.SUCCESS_STORED)
>>> judge = CallJudge(gate, source="I'm allergic to nuts. My manager is Priya.")
>>> from memvault.model import CapturedBy, MemoryNode, Source, SourceKind, SourceType
>>> def node(text):
...     return MemoryNode(memory_id="m1", orchestrator_id="acme", type="Fact",
...         category="KNOWLEDGE", content=text,
...         source=Source(source_type=SourceType.CHANNEL_TRANSCRIPT,
...                       captured_by=CapturedBy.EXTRACTOR, source_kind=SourceKind.USER_EXPLICIT),
...         created_at="2026-01-01T00:00:00.000000Z", updated_at="2026-01-01T00:00:00.000000Z")
>>> from memvault.extract.base import Candidate
>>> from memvault.model.enums import MemoryType
>>> c = Candidate("Ravi's manager is Priya.", MemoryType.FACT, "KNOWLEDGE", "manager", "Priya",
...               said="My manager is Priya")
>>> judge.judge(c, node(c.content)).stop_reason.value    # the allergy clause is not its own
'SUCCESS_STORED'
>>> a = Candidate("Ravi has a nut allergy.", MemoryType.FACT, "KNOWLEDGE", "allergy", "nuts",
...               said="I'm allergic to nuts")
>>> judge.judge(a, node(a.content)).detector             # its clause carries the finding
'detector.health.condition'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from memvault.extract.base import Candidate
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, StopReason
from memvault.model.node import MemoryNode
from memvault.policy.learned import LearnedLayer, default_layer

__all__ = [
    "CONTENT_REFUSALS",
    "PERSONAL_FAMILIES",
    "RAW_WORDS_MARGIN",
    "CallJudge",
    "GateFn",
    "raw_words_check",
]

GateFn = Callable[[MemoryOp, MemoryNode], Decision]
"""The engine's gate seam: pure, returns one stop reason (may raise; caught here)."""

#: The only verdicts taken from a probe: what the words say, not how they are stored.
CONTENT_REFUSALS = frozenset({StopReason.FORBIDDEN_CATEGORY, StopReason.INJECTION_DETECTED})

_PROBE_MAX = 4000

#: Detectors that judge the words themselves (forbidden families, injection, a
#: classifier), as opposed to checks on the candidate's category or provenance.
_WORD_DETECTORS = ("detector.", "classifier", "classifier_hook")


#: A candidate kept in the user's own words — the clause reader kept a clause no
#: rule parsed — is refused when a learned head's log-odds come within this many
#: nats of its threshold's: nothing about such a clause was understood but its
#: label, so the benefit of the doubt goes to the user's privacy. A margin in
#: log-odds is the same doubt for every head: half the threshold (the rule before
#: session 15) was 2.4-2.8 nats under the personal heads calibrated near 0.9 —
#: stack facts in Italian and "Every change goes through a PR." were refused — and
#: 1.1 nats under criminal's 0.515. Chosen on the seen sets fresh_10-19 and the
#: bundled non-fresh sets: 1.5 refuses 23 harmless clauses there instead of 51, and
#: one more that carried a sensitive word (docs/write-path.md).
RAW_WORDS_MARGIN = 1.5

#: The families whose mere mention is personal, judged with the margin. Credentials,
#: ids, money and places are named by ordinary clauses all the time ("we pin
#: ruff", "rotate the api tokens"); their values are the gate's detectors' business.
PERSONAL_FAMILIES = frozenset(
    {"identity_trait", "health", "intimate", "criminal", "biometric", "inferred_profiling"}
)

#: Candidates whose rule says no rule read the clause (statements in raw words).
_RAW_RULES = ("reader.",)


def _log_odds(p: float) -> float:
    q = min(max(p, 1e-9), 1.0 - 1e-9)
    return math.log(q / (1.0 - q))


def raw_words_check(
    text: str, *, layer: LearnedLayer | None = None, margin: float = RAW_WORDS_MARGIN
) -> Decision | None:
    """A content refusal when a personal head's log-odds on ``text`` come within
    ``margin`` nats of its threshold's.

    Pure arithmetic on the n-gram heads (no encoder); a broken layer refuses
    (INTERNAL_INCONSISTENCY), as the gate does.

    >>> raw_words_check("we deploy the api with argo cd") is None
    True
    """
    lay = layer or default_layer()
    if lay.error is not None:
        return Decision(
            StopReason.INTERNAL_INCONSISTENCY, detector="classifier", reason=lay.error[:200]
        )
    near = [
        s
        for s in lay.judge_text(text, use_encoder=False)
        if s.family in PERSONAL_FAMILIES and _log_odds(s.score) >= _log_odds(s.threshold) - margin
    ]
    if not near:
        return None
    worst = max(near, key=lambda s: _log_odds(s.score) - _log_odds(s.threshold))
    reason = (
        StopReason.INJECTION_DETECTED
        if worst.family == "injection"
        else StopReason.FORBIDDEN_CATEGORY
    )
    return Decision(
        reason,
        detector=f"classifier.{worst.family}",
        reason=f"{worst.family}: learned score {worst.score:.3f} within {margin} log-odds of "
        f"threshold {worst.threshold:.3f} (a clause kept in the user's own words)",
    )


def _brief(decision: Decision) -> str:
    return f"{decision.stop_reason.value} {decision.detector or ''}".strip()


class CallJudge:
    """The gate's verdicts for one capture call; ``source`` is the user's turn, if any."""

    def __init__(
        self,
        gate: GateFn,
        *,
        source: str | None = None,
        log: Callable[..., None] | None = None,
        wary: Callable[[str], Decision | None] | None = None,
    ) -> None:
        self.gate = gate
        self.wary = wary
        self.source = " ".join((source or "").split())[:_PROBE_MAX]
        self.log = log
        self.seen: dict[str, Decision] = {}
        #: One entry per judged candidate: what the gate saw and said (never stored).
        self.trace: list[dict[str, str]] = []

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
        """The gate's decision on the node and on the clause the user said.

        Trigger: detectors read attribution ("I'm allergic to …"), which the
        third-person rewrite removes.
        Why: a rewrite must never launder forbidden content past the gate; but
        one sensitive clause must not refuse the other candidates of a turn
        ("I moved to Lisbon. I'm allergic to peanuts." keeps the move).
        Outcome: the strictest of the node's decision and its own clause's
        content refusals (forbidden category, injection); the whole turn is
        probed only for a candidate without a clause. A slot the extractor
        found forbidden ("my religion is …") is refused the same way.
        """
        verdicts: list[Decision] = []
        if candidate.sensitive:
            # first: at equal priority the extractor's structural finding is named
            words = candidate.sensitive_in == "words"
            verdicts.append(
                Decision(
                    StopReason.FORBIDDEN_CATEGORY,
                    detector="extract.sensitive_words" if words else "extract.sensitive_slot",
                    reason=f"{candidate.sensitive}: "
                    + (
                        "the clause it comes from names a forbidden family"
                        if words
                        else "the statement fills a forbidden slot"
                    ),
                )
            )
        verdicts.append(self.check(MemoryOp.STORE, node))
        said = " ".join(candidate.said.split())[:_PROBE_MAX]
        if self.wary is not None and candidate.rule.startswith(_RAW_RULES):
            # Trigger: the reader kept a clause no rule parsed, in the user's words.
            # Why: no slot, no rewrite — the words are all the structure there is, and
            #      a sensitive one would be stored as said.
            # Outcome: refused when a learned head comes near its threshold.
            try:
                wary = self.wary(said or node.content)
            except Exception as exc:
                if self.log is not None:
                    self.log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
                wary = Decision(
                    StopReason.INTERNAL_INCONSISTENCY, detector="classifier", reason="raised"
                )
            if wary is not None:
                verdicts.append(wary)
        text = said or self.source
        if text and text != node.content:
            probe = self.seen.get(text)
            if probe is None:
                probe = self._probe(node, text)
                self.seen[text] = probe
            word_refusal = (probe.detector or "").startswith(_WORD_DETECTORS)
            if probe.stop_reason in CONTENT_REFUSALS and (said or word_refusal):
                # Trigger: the whole turn stands in for a missing clause.
                # Why: rules about the candidate's own shape (a TODO may not be
                #      location-based) must not judge the other sentences.
                # Outcome: from the turn, only what the words themselves say counts.
                verdicts.append(probe)
        decision = min(verdicts, key=lambda d: d.stop_reason.priority)
        self.trace.append(
            {
                "content": node.content,
                "key": node.key or "",
                "said": said,
                "probe": text if text != node.content else "",
                "verdicts": "; ".join(_brief(d) for d in verdicts),
                "decision": _brief(decision),
            }
        )
        return decision

    def _probe(self, node: MemoryNode, text: str) -> Decision:
        # Trigger: a probe only asks "may these words be written at all?".
        # Why: judged as an UPDATE, the same content checks run without the
        #      per-user usage lookup a STORE needs for its caps (a probe is
        #      never written; caps are the node's own check).
        # Outcome: the same content refusals, one store query fewer per probe; its
        #          summary is cleared (the node's is of the node's content, judged there).
        update: dict[str, Any] = {"content": text, "summary": ""}
        return self.check(MemoryOp.UPDATE, node.model_copy(update=update))
