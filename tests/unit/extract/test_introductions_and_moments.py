"""Introductions said at the start of a longer clause, and clauses that keep nothing.

Every sentence is written for this test (none comes from an evaluation set).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def kept(text: str, speaker: str = "Tom") -> list[tuple[str, str, str]]:
    x = RuleExtractor().extract(Message(text=text, speaker=speaker), now=NOW)
    return [(c.type.value, c.rule, c.content) for c in x.candidates]


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("Meu nome é Rafaela e sou enfermeira em Porto Alegre.", "enfermeira"),
        ("Hola, soy Inés, restauradora de muebles en Cádiz.", "restauradora"),
        ("Cześć, jestem Ola i pracuję jako geodetka w Lublinie.", "geodetka"),
        ("Hallo, ich bin Malte, Zimmermann aus Kiel.", "zimmermann"),
        ("Привет, я Денис, инженер-сметчик.", "инженер"),
        ("大家好，我是李娜，是一名牙科护士。", "牙科护士"),
    ],
)
def test_an_introduction_that_goes_on_keeps_the_job_with_the_name(text: str, job: str) -> None:
    # a name said first, the job after it in the same clause: kept whole, word for word
    (only,) = kept(text)
    assert only[0] == "Fact" and only[1] == "introduction_lead"
    assert job in only[2].lower() and only[2].rstrip(".") == text.rstrip(".")


def test_a_name_alone_is_the_name_fact() -> None:
    assert kept("hey, Tom here.") == [("Fact", "introduction_lead", "The user's name is Tom.")]
    assert kept("I'm Nico — indie dev, mostly Rust.", speaker="Nico") == [
        ("Fact", "introduction_lead", "The user's name is Nico — indie dev, mostly Rust.")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I'm British, so tea comes first.",  # a capital after "I'm" is no name
        "Ich bin Schreiner, seit zwölf Jahren.",  # German nouns are capitalised
    ],
)
def test_no_name_is_made_of_a_capitalised_word(text: str) -> None:
    assert all(rule != "introduction_lead" for _, rule, _ in kept(text))


@pytest.mark.parametrize(
    "text",
    [
        "Our wiki is down for maintenance until noon.",
        "just finished a double shift, my feet are done",
        "ugh, phone is at 9%, talk later",
    ],
)
def test_a_moment_keeps_nothing(text: str) -> None:
    assert kept(text) == []


def test_an_unsure_goal_without_a_goal_s_words_keeps_nothing() -> None:
    # the reason after a decision is no goal of its own
    got = kept("We moved the docs to Docusaurus. Nobody liked editing the old wiki.")
    assert [t for t, _, _ in got] == ["Fact"] or [t for t, _, _ in got] == ["Decision"]
    # a goal said as one is kept
    assert "Goal" in {t for t, _, _ in kept("My goal this year is to learn Portuguese.")}


def test_what_follows_a_name_is_who_the_person_is() -> None:
    # "context of a kept memory" silenced the job after "Hi, I'm Ana." (the name kept)
    got = kept("Hi, I'm Ana. I spend my days restoring harpsichords in Ghent.", speaker="Ana")
    assert any("harpsichords" in content for _, _, content in got), got
    # "I'm Kwame, I do …": a comma and the speaker going on make the capital a name
    (only,) = kept("Hi! I'm Kwesi, I do payroll for a chain of bakeries.", speaker="Kwesi")
    assert only[1] == "introduction_lead" and "payroll" in only[2]
