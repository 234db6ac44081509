"""No sensitive word of a turn survives into a stored memory (issue 16's leak regression).

Every sentence here is written for this test (none comes from an evaluation set).
Each test checks the stored text, key and value of every memory and every
history row, not only the capture report.
"""

from __future__ import annotations

from typing import Any

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.model.enums import MemoryStatus, StopReason
from memvault.store import NodeFilter
from memvault.store.base import Store
from memvault.write import CapturePipeline, Outcome


def say(p: CapturePipeline, text: str) -> Any:
    return p.capture_message(Message(text=text, user_id="noor", speaker="Noor"))


def stored_text(store: Store) -> str:
    """Everything a stored memory holds that a reader could see, lower-cased."""
    rows = store.list_nodes("acme", NodeFilter(status=tuple(MemoryStatus)), limit=500)
    parts = [f"{n.content} {n.key} {n.value} {n.summary}" for n in rows]
    parts += [e.canonical() for e in store.history("acme")]
    return " ".join(parts).lower()


@pytest.mark.parametrize(
    ("turn", "words"),
    [
        # German: a colleague's diagnosis and sick leave
        (
            "Unser Praktikant Jonas ist an Gürtelrose erkrankt und fällt drei Wochen aus.",
            ("gürtelrose", "erkrankt"),
        ),
        # French: a neighbour's court date
        (
            "Mon voisin Karim passe au tribunal jeudi pour une histoire de vol à l'étalage.",
            ("tribunal", "vol"),
        ),
        # Portuguese: a friend's pregnancy
        ("A minha amiga Inês está grávida de gémeos, nascem em maio.", ("grávida", "gémeos")),
    ],
)
def test_a_sensitive_clause_in_another_language_is_never_stored(
    pipeline: CapturePipeline, turn: str, words: tuple[str, ...]
) -> None:
    # A clause in another language may be kept word for word (the reader reads
    # eleven languages): its words then meet the same sensitive-word check.
    result = say(pipeline, turn)
    text = stored_text(pipeline.store)
    assert all(w not in text for w in words), (turn, result.to_json())
    for cand in result.candidates:
        if any(w in cand.content.lower() for w in words):
            assert cand.stop_reason is StopReason.FORBIDDEN_CATEGORY, result.to_json()
            assert cand.detector == "extract.sensitive_words", result.to_json()


@pytest.mark.parametrize(
    ("turn", "word", "family"),
    [
        ("my landlord Marta is a devout muslim so no pork at the housewarming", "muslim", None),
        ("My flatmate Bruno is bipolar and he skips his meds when he travels.", "bipolar", None),
        ("My girlfriend is a product designer at a fintech in Oslo.", "girlfriend", "intimate"),
        (
            "my apartment is at 14 Rua das Flores, third floor, save it for deliveries",
            "flores",
            "location",
        ),
    ],
)
def test_every_candidate_of_a_sensitive_clause_is_refused_whatever_rule_read_it(
    pipeline: CapturePipeline, turn: str, word: str, family: str | None
) -> None:
    result = say(pipeline, turn)
    assert word not in stored_text(pipeline.store), result.to_json()
    with_word = [c for c in result.candidates if word in c.content.lower()]
    assert all(c.stop_reason is StopReason.FORBIDDEN_CATEGORY for c in with_word)
    if family is not None:
        assert any(c.detector == "extract.sensitive_words" for c in with_word), result.to_json()


def test_the_harmless_clause_beside_a_sensitive_one_is_still_kept(
    pipeline: CapturePipeline,
) -> None:
    result = say(pipeline, "My husband works nights at the depot. I prefer replies in Spanish.")
    assert "husband" not in stored_text(pipeline.store)
    kept = [c for c in result.candidates if c.outcome is Outcome.STORED]
    assert any("spanish" in c.content.lower() for c in kept), result.to_json()


def test_the_trace_names_each_clause_decision_and_the_gate_verdict(
    pipeline: CapturePipeline,
) -> None:
    result = say(pipeline, "thanks! my wife is a nurse. I prefer dark mode.")
    clauses = [t["clause"] for t in result.trace if "clause" in t]
    gates = [t["gate"] for t in result.trace if "gate" in t]
    assert [c["said"] for c in clauses] == ["thanks!", "my wife is a nurse.", "I prefer dark mode."]
    assert clauses[0]["decision"].startswith("silent:")
    assert clauses[1]["decision"] == "rule:my_x_is"
    assert clauses[2]["decision"].startswith("rule:prefer")
    refused = next(g for g in gates if "wife" in g["said"])
    assert refused["decision"] == "FORBIDDEN_CATEGORY extract.sensitive_words"
    assert "trace" not in result.to_json()  # the CLI's JSON keeps its shape


def test_an_unread_clause_says_why_in_the_extraction_trace() -> None:
    from datetime import UTC, datetime

    x = RuleExtractor().extract(
        Message(
            # Finnish is outside the reader's corpus (German is read since session 7)
            text="Taustajärjestelmä julkaistaan joka torstai klusterille Argolla.",
            speaker="Ina",
        ),
        now=datetime(2026, 3, 2, tzinfo=UTC),
    )
    assert x.candidates == ()
    assert [t.decision.split(" ")[0] for t in x.trace] == ["silent:unread"]
    assert "not English" in x.trace[0].decision


def test_a_change_cue_updates_the_memory_it_changes_across_types(
    hashed: CapturePipeline,
) -> None:
    say(hashed, "Our design review happens every Tuesday afternoon.")
    result = say(hashed, "We moved the design review to Thursday afternoons now.")
    outcomes = [c.outcome for c in result.candidates]
    assert Outcome.UPDATED in outcomes, result.to_json()


def test_a_sensitive_turn_keeps_nothing_about_someone_else_or_in_raw_words(
    pipeline: CapturePipeline,
) -> None:
    # the party is about the sister the first sentence names as pregnant
    result = say(
        pipeline,
        "My sister is pregnant with twins. We are throwing her a baby party in Lisbon next month.",
    )
    assert "lisbon" not in stored_text(pipeline.store), result.to_json()
    # another language: the unsure sensitive clause is not kept, nor its neighbour
    result = say(
        pipeline, "Mi hermana está embarazada. Vamos a hacer una fiesta en Lisboa el mes que viene."
    )
    assert "lisboa" not in stored_text(pipeline.store), result.to_json()
    # a clause a rule read about the speaker stays ("I prefer replies in Spanish")
    result = say(pipeline, "My husband works nights at the depot. I prefer replies in Spanish.")
    assert "spanish" in stored_text(pipeline.store), result.to_json()
