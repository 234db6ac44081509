"""Forbidden slots: the noun phrase of "my X is …" decides, never the value."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message
from memvault.extract.rules import RuleExtractor
from memvault.extract.sensitive import sensitive_slot, sensitive_words


@pytest.mark.parametrize(
    ("slot", "family"),
    [
        ("religion", "identity_trait"),
        ("sexual orientation", "identity_trait"),
        ("political views", "identity_trait"),
        ("blood type", "health"),
        ("medication", "health"),
        ("criminal record", "criminal"),
        ("PIN", "credentials"),
        ("password for the VPN", "credentials"),
        ("passport number", "gov_id"),
        ("social_security_number", "gov_id"),
        ("IBAN", "financial"),
        ("home address", "location"),
    ],
)
def test_forbidden_slots(slot: str, family: str) -> None:
    assert sensitive_slot(slot) == family


@pytest.mark.parametrize(
    "slot",
    [
        "favourite editor",
        "email address",
        "IP address",
        "team",
        "race bike",  # "race" alone is not a slot noun: marathons are fine
        "orientation day",
        "manager",
        "pinned tab",
    ],
)
def test_ordinary_slots(slot: str) -> None:
    assert sensitive_slot(slot) is None


def test_the_rule_extractor_marks_the_candidate() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    extract = RuleExtractor().extract
    (religion,) = extract(
        Message(text="My religion is Buddhism.", speaker="Leo"), now=now
    ).candidates
    assert religion.sensitive == "identity_trait"
    (editor,) = extract(
        Message(text="My favourite editor is Vim.", speaker="Leo"), now=now
    ).candidates
    assert editor.sensitive == ""


@pytest.mark.parametrize(
    "text",
    [
        "My landlord is on trial for embezzlement, hope the flat is not affected.",
        "My cousin got charged with shoplifting last week.",
        "Our team lead is being prosecuted for money laundering.",
        "my old boss was sentenced to two years",
    ],
)
def test_criminal_proceedings_told_as_news_are_marked_whatever_rule_reads_them(text: str) -> None:
    # session 6: "my X is being prosecuted for …" went through the my_x_is rule unmarked
    # and the gate let it pass (fresh_6's two leaked words)
    x = RuleExtractor().extract(
        Message(text=text, speaker="Tom"), now=datetime(2026, 1, 1, tzinfo=UTC)
    )
    # marked, or (said of someone else in words no rule read) not kept at all
    assert all(c.sensitive == "criminal" for c in x.candidates), x.candidates
    assert x.candidates or any("someone else" in t.decision for t in x.trace), x.trace


def test_tooling_words_near_crime_stay_ordinary() -> None:
    assert sensitive_words("we built a fraud detection model in Spark") is None
    assert sensitive_words("the trial license of the IDE runs out friday") is None


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("påminn mig att ta min medicin", "health"),
        ("jeg er gravid igen", "health"),
        ("우울증 약을 먹어야 해요", "health"),
        ("mujhe dawai leni hai", "health"),
        ("降压药每天早上吃", "health"),
        ("han sitter i fängelse", "criminal"),
    ],
)
def test_forbidden_words_in_more_languages(text: str, family: str) -> None:
    assert sensitive_words(text) == family


def test_ordinary_words_near_those_lists_stay_ordinary() -> None:
    for text in (
        "abort the migration",
        "diagnose the flaky test",
        "Kristen is our PM",
        "Ich habe Angst vor Spinnen",
        "vi använder Postgres",
        "우리 팀은 Go를 써요",
    ):
        assert sensitive_words(text) is None, text
