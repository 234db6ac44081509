"""Session 18: a clause that names the tool a kind of work is done with is the stack's
fact, in any language the reader reads, however unsure the reader is; a date, a question,
an exclamation, today's words, a request to the listener or a forbidden family's words
are not. Sentences written for this file (no evaluation set was copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.stack import tool_named

NOW = datetime(2026, 4, 14, 10, 0, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="oona", speaker="Oona")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("Payroll runs through Gusto.", "Gusto"),
        ("Les devis partent via Pennylane.", "Pennylane"),
        ("Die Baupläne zeichne ich in ArchiCAD.", "ArchiCAD"),
        ("Wysyłki robimy przez DPD.", "DPD"),
        ("Los turnos se reservan en Calendly.", "Calendly"),
        ("発注書はXeroで作っています。", "Xero"),
        ("Our logs end up in an S3 bucket.", "S3"),
    ],
)
def test_a_tool_named_after_a_cue_is_read(text: str, tool: str) -> None:
    assert tool_named(text) == tool


@pytest.mark.parametrize(
    "text",
    [
        "We met on Monday.",  # a date's word
        "The workshop opened in 2019.",  # a year
        "Is the invoice in Xero?",  # a question
        "Finally back in Lisbon!",  # an exclamation
        "Today I'm sketching in Figma.",  # today's words
        "Hoy trabajo en Figma.",  # today's words in Spanish
        "Send me the link to the Figma board.",  # a request to the listener
        "My cousin was diagnosed with Crohn's.",  # a forbidden family's words
        "I keep everything in my head.",  # no name
        "Gusto handles payroll.",  # the name opens the clause: no cue before it
    ],
)
def test_no_tool_is_read(text: str) -> None:
    assert tool_named(text) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # read unsure or as a one-off by the reader (kept nothing before session 18)
        ("I trace the patterns with a Cricut.", "Cricut"),
        ("예약은 Airbnb로 받아요.", "Airbnb"),
        ("Zamówienia przychodzą przez Allegro.", "Allegro"),
        # read surely already: still a fact
        ("Payroll runs through Gusto.", "Gusto"),
    ],
)
def test_the_stack_fact_is_kept_as_a_fact(text: str, words: str) -> None:
    got = kept(text)
    assert [kind for kind, _ in got] == ["Fact"] and words in got[0][1], got


@pytest.mark.parametrize(
    "text",
    ["Is the invoice in Xero?", "Send me the link to the Figma board.", "Hoy trabajo en Figma."],
)
def test_the_near_misses_keep_no_fact(text: str) -> None:
    assert not any(kind == "Fact" for kind, _ in kept(text)), kept(text)
