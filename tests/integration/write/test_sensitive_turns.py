"""Sensitive turns: neither a clause split nor a slot the detectors miss lets content through."""

from __future__ import annotations

from typing import Any

from memvault.extract import Message
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, MemoryStatus, StopReason
from memvault.model.node import MemoryNode
from memvault.store import NodeFilter, SQLiteStore
from memvault.store.base import Store
from memvault.write import CapturePipeline, Outcome
from tests.conftest import StepClock
from tests.integration.write.conftest import policy_gate


def say(p: CapturePipeline, text: str) -> Any:
    return p.capture_message(Message(text=text, user_id="ravi", speaker="Ravi"))


def stored(store: Store) -> list[str]:
    rows = store.list_nodes("acme", NodeFilter(status=tuple(MemoryStatus)), limit=100)
    return [n.content for n in rows]


def test_a_split_clause_is_judged_on_its_own_words(
    pipeline: CapturePipeline,
) -> None:
    # Issue 21: per candidate, not per turn. "I'm gay" yields nothing to store and
    # nothing of it is stored; the clause "my partner is Tom" is judged on its own.
    result = say(pipeline, "I'm gay and my partner is Tom.")
    assert all("gay" not in c.content.lower() for c in result.candidates)
    assert all("gay" not in text.lower() for text in stored(pipeline.store))
    for event in pipeline.store.history("acme"):
        assert "gay" not in event.canonical().lower()


def test_a_sensitive_clause_refuses_its_candidate_not_its_neighbour(
    pipeline: CapturePipeline,
) -> None:
    result = say(pipeline, "I'm allergic to peanuts and I love Thai curry.")
    assert len(result.candidates) == 2
    by_text = {c.content: c for c in result.candidates}
    allergy = [c for t, c in by_text.items() if "peanut" in t.lower()]
    curry = [c for t, c in by_text.items() if "curry" in t.lower()]
    assert allergy and all(c.stop_reason is StopReason.FORBIDDEN_CATEGORY for c in allergy)
    assert curry and all(c.outcome is Outcome.STORED for c in curry)
    assert all("peanut" not in t.lower() for t in stored(pipeline.store))


def test_a_clean_turn_is_untouched(pipeline: CapturePipeline) -> None:
    result = say(pipeline, "I love jazz and my partner is Tom.")
    assert [c.outcome for c in result.candidates] == [Outcome.STORED, Outcome.STORED]


def test_a_forbidden_slot_is_refused_whatever_its_value(pipeline: CapturePipeline) -> None:
    for text in ("My religion is Buddhism.", "My blood type is AB negative."):
        (cand,) = say(pipeline, text).candidates
        assert cand.stop_reason is StopReason.FORBIDDEN_CATEGORY, text
        assert cand.detector == "extract.sensitive_slot", text
    assert stored(pipeline.store) == []
    events = pipeline.store.history("acme")
    assert [e.detector for e in events] == ["extract.sensitive_slot"] * 2
    assert all("Buddhism" not in e.canonical() for e in events)


def test_ordinary_slots_are_stored(pipeline: CapturePipeline) -> None:
    for text in ("My favourite editor is Vim.", "My email address is ravi@example.com."):
        (cand,) = say(pipeline, text).candidates
        assert cand.outcome is Outcome.STORED, text


def test_each_text_is_judged_once_per_call(sqlite: SQLiteStore) -> None:
    judged: list[str] = []

    def counting_gate(op: MemoryOp, node: MemoryNode) -> Decision:
        judged.append(node.content)
        return policy_gate(op, node)

    p = CapturePipeline(store=sqlite, orchestrator="acme", gate=counting_gate, clock=StepClock())
    turn = "I love jazz and I drink green tea."
    result = p.capture_message(Message(text=turn, user_id="ravi", speaker="Ravi"))
    assert [c.outcome for c in result.candidates] == [Outcome.STORED, Outcome.STORED]
    assert judged.count(turn) == 0  # each candidate has its clause: the turn is not judged
    assert len(judged) == len(set(judged)) == 4  # two nodes, two clauses


def test_rules_about_a_candidate_do_not_judge_the_other_sentences(
    pipeline: CapturePipeline,
) -> None:
    # A todo may not be location-based; a location phrase in another sentence is no reason.
    (todo,) = say(
        pipeline, "I need to send the invoice to Acme. When I get home I cook."
    ).candidates
    assert todo.outcome is Outcome.STORED
    (located,) = say(pipeline, "Remind me to buy milk when I get home.").candidates
    assert located.stop_reason is StopReason.FORBIDDEN_CATEGORY
    assert located.detector == "category_rules.location_reminder"
