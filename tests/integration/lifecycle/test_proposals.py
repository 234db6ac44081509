"""Consent proposals: queued not stored, confirmed through the gate, rejected, expired."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.errors import ValidationFailed
from memvault.lifecycle.consent import ProposalError
from memvault.model import HistoryOp, MemoryNode, MemoryOp, StopReason
from memvault.model.decision import Decision
from memvault.store.records import ProposalStatus
from tests.conftest import StepClock
from tests.integration.lifecycle.conftest import DAY, open_engine


class WordGate:
    """A real (tiny) gate: refuses any candidate whose text holds a banned word.

    ``banned`` can change between propose and confirm, as a contract can.
    """

    def __init__(self, *banned: str) -> None:
        self.banned = set(banned)

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
        if any(word in node.content.lower() for word in self.banned):
            return Decision(StopReason.FORBIDDEN_CATEGORY, detector="word_gate", reason="banned")
        return Decision(StopReason.SUCCESS_STORED, detector="word_gate")


@pytest.fixture
def gated(home: Path, clock: StepClock) -> MemoryEngine:
    engine = open_engine(home, clock)
    engine.gate = WordGate("diagnosis")
    return engine


def _propose(engine: MemoryEngine, content: str, **fields: object) -> str:
    result = engine.propose(
        content,
        kind="profile_field",
        user_id="u1",
        type="Preference",
        category="PREFERENCE",
        source_kind="DERIVED_UNVERIFIED",
        **fields,
    )
    assert result.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT
    assert result.proposal_id is not None
    return result.proposal_id


def test_a_proposal_is_not_a_memory_until_confirmed(gated: MemoryEngine) -> None:
    pid = _propose(gated, "Preferred name is Sam")
    assert gated.list_memories() == []
    assert gated.search("Sam").hits == ()
    [pending] = gated.proposals(status="pending")
    assert pending.proposal_id == pid and pending.candidate["content"] == "Preferred name is Sam"
    result = gated.confirm_proposal(pid)
    assert result.stop_reason is StopReason.SUCCESS_STORED and result.memory_id
    node = gated.get(result.memory_id).node
    assert node.source.source_kind.value == "USER_EXPLICIT"
    assert node.source.captured_by.value == "user" and node.user_id == "u1"
    [done] = gated.proposals()
    assert done.status is ProposalStatus.CONFIRMED
    assert done.outcome == {"memory_id": result.memory_id, "stop_reason": "SUCCESS_STORED"}
    assert "content" not in done.candidate  # the memory holds the text now, not the proposal
    create = gated.history(result.memory_id)[0]
    assert create.op is HistoryOp.CREATE and create.detail["proposal_id"] == pid
    with pytest.raises(ProposalError, match="already decided"):
        gated.confirm_proposal(pid)
    assert gated.verify_audit().ok


def test_the_gate_can_still_refuse_a_confirmed_proposal(gated: MemoryEngine) -> None:
    pid = _propose(gated, "Prefers the night shift")
    assert isinstance(gated.gate, WordGate)
    gated.gate.banned.add("night")  # the contract changed while the proposal waited
    result = gated.confirm_proposal(pid)
    assert result.stop_reason is StopReason.FORBIDDEN_CATEGORY and result.memory_id is None
    assert gated.list_memories() == []
    [done] = gated.proposals()
    assert done.status is ProposalStatus.REFUSED
    assert done.outcome == {"stop_reason": "FORBIDDEN_CATEGORY"}
    assert "content" not in done.candidate


def test_forbidden_inferences_are_not_even_queued(gated: MemoryEngine) -> None:
    result = gated.propose(
        "Has a diagnosis of asthma",
        user_id="u1",
        type="Fact",
        category="PREFERENCE",
        source_kind="DERIVED_UNVERIFIED",
    )
    assert result.stop_reason is StopReason.FORBIDDEN_CATEGORY and not result.queued
    assert gated.proposals() == []
    refusal = gated.store.history("acme")[-1]
    assert refusal.op is HistoryOp.REFUSE and "asthma" not in str(refusal.detail)


def test_invalid_candidates_are_refused_with_the_schema_reason(gated: MemoryEngine) -> None:
    result = gated.propose("x", user_id="u1", type="Mood", category="PREFERENCE")
    assert result.stop_reason is StopReason.SCHEMA_INVALID and not result.queued


def test_reject_drops_the_text(gated: MemoryEngine) -> None:
    pid = _propose(gated, "Speaks Portuguese at home")
    rejected = gated.reject_proposal(pid)
    assert rejected.status is ProposalStatus.REJECTED
    assert gated.proposals()[0].candidate == {"type": "Preference", "category": "PREFERENCE"}
    assert gated.list_memories() == []
    with pytest.raises(ProposalError):
        gated.confirm_proposal(pid)
    with pytest.raises(ProposalError, match="does not exist"):
        gated.reject_proposal("prop_nope")


def test_proposals_expire_after_seven_days(gated: MemoryEngine, clock: StepClock) -> None:
    first = _propose(gated, "Prefers email over chat")
    clock.now += 6 * DAY
    second = _propose(gated, "Prefers mornings")
    clock.now += 1 * DAY + DAY / 24
    report = gated.run_lifecycle()
    assert report.proposals_expired == (first,)
    with pytest.raises(ProposalError, match="already decided"):
        gated.confirm_proposal(first)
    clock.now += 7 * DAY
    with pytest.raises(ProposalError, match="expired"):
        gated.confirm_proposal(second)
    statuses = {p.proposal_id: p.status for p in gated.proposals()}
    assert statuses == {first: ProposalStatus.EXPIRED, second: ProposalStatus.EXPIRED}
    assert all("content" not in p.candidate for p in gated.proposals())
    assert gated.list_memories() == []
    decisions = [e.detail.get("decision") for e in gated.store.history("acme")]
    assert decisions.count("expired") == 2


def test_proposal_kinds_are_closed(gated: MemoryEngine) -> None:
    with pytest.raises(ValidationFailed):
        gated.propose("Prefers tea", kind="gossip", type="Preference", category="PREFERENCE")
