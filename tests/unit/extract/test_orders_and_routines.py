"""Session 17 shapes: an order about the assistant's answers said verb first, and a weekly
routine said in another language, are kept (as a preference, as a fact) — each with a
near miss that must not be: the moment's request for one thing, a task's place, this
week's weekday. Sentences written for this file (no evaluation set was copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.speech import standing_order
from memvault.extract.text import split_sentences
from memvault.extract.when import RECURRING_OTHER

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="ines", speaker="Ines")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Please quote prices in euros. I never think in dollars.", "euros"),
        ("Show shell commands for zsh, never fish.", "zsh"),
        ("Explain regex things step by step, I get lost quickly.", "step by step"),
        ("Keep summaries to three bullets when you recap a meeting.", "three bullets"),
        ("Use metric units in anything you write for me.", "metric"),
        ("When you suggest recipes, please skip anything with peanuts.", "peanuts"),
    ],
)
def test_an_order_about_the_answers_is_a_preference(text: str, word: str) -> None:
    got = kept(text)
    assert any(t == "Preference" and word in c.lower() for t, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "Please give me an example of a decorator.",
        "Show me the stack trace from the last run.",
        "Keep it somewhere safe for me.",
        "Put the boiler service on my list.",
        "Give him some time.",
        "Please use the side door today.",
    ],
)
def test_the_moments_request_or_a_task_is_no_standing_order(text: str) -> None:
    assert not standing_order(text)


@pytest.mark.parametrize(
    "text",
    [
        "Show me the stack trace from the last run.",
        "Give him some time.",
        "Please use the side door today.",
    ],
)
def test_the_moments_request_keeps_nothing(text: str) -> None:
    assert kept(text) == []


def test_an_order_after_its_comma_is_not_taken_for_an_intro() -> None:
    # "Show …, never …" used to lose its first half as a lead-in ("never Objective-C")
    got = kept("Show diagrams in Mermaid, never PlantUML.")
    assert any("Mermaid" in c and "PlantUML" in c for _, c in got), got


def test_a_condition_stays_with_the_request_it_conditions() -> None:
    clauses = split_sentences("When you draft invoices, please add the VAT number.")[0][1]
    assert clauses == ["When you draft invoices, please add the VAT number."]
    # the condition alone is no clause: nothing says "When the assistant drafts invoices."
    got = kept("When you draft invoices, please add the VAT number.")
    assert [t for t, _ in got] == ["Preference"], got
    assert "VAT number" in got[0][1]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Los martes doy clases de cerámica en el centro cívico.", "martes"),
        ("Jeden Freitag mache ich die Abrechnung für die Werkstatt.", "freitag"),
        ("W każdy czwartek prowadzę zajęcia z pierwszej pomocy.", "czwartek"),
        ("Her salı sabahı fırını temizliyorum.", "salı"),
        ("Le mercredi après-midi, je garde mes neveux.", "mercredi"),
    ],
)
def test_a_weekly_routine_in_another_language_is_a_fact(text: str, word: str) -> None:
    got = kept(text)
    assert any(t == "Fact" and word in c.lower() for t, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "El martes tengo dentista.",  # one Tuesday, not every Tuesday
        "Le mercredi 4 juin, je suis en congé.",  # a date
        "Jag måste lämna in rapporten på fredag.",  # this Friday
        "Ik bel je om donderdag.",
    ],
)
def test_one_weekday_or_a_date_is_no_routine(text: str) -> None:
    assert RECURRING_OTHER.search(text) is None


@pytest.mark.parametrize("text", ["Hoy los martes no abrimos.", "¿Los martes abrís?"])
def test_a_routines_words_today_or_asked_keep_nothing(text: str) -> None:
    assert RECURRING_OTHER.search(text) is not None
    assert kept(text) == []


def test_a_task_said_with_its_weekday_keeps_its_type() -> None:
    assert RECURRING_OTHER.search("rappelle-moi chaque vendredi de vérifier les sauvegardes")
    got = kept("Rappelle-moi chaque vendredi de vérifier les sauvegardes.")
    assert got and all(t == "Todo" for t, _ in got), got


@pytest.mark.parametrize(
    "text",
    [
        "Gorgeous fog over the harbour this morning. Everything looks like a painting.",
        "What a week, the scanner crashed three times. I could sleep for a day.",
        "Hoy el taller huele a barniz. Me pone de buen humor.",
    ],
)
def test_a_comment_after_a_one_off_of_the_day_keeps_nothing(text: str) -> None:
    assert kept(text) == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # the day's words in a todo's sentence: a task, not the moment's comment
        ("I need to call the glazier today. He owes me a quote.", "glazier"),
        # no words of the day: the comment is kept as it was
        ("Our studio renders everything in Blender. Everything comes out consistent.", "Blender"),
    ],
)
def test_without_a_one_off_of_the_day_the_turn_keeps_its_memory(text: str, word: str) -> None:
    assert any(word in c for _, c in kept(text)), kept(text)


@pytest.mark.parametrize(
    ("text", "both"),
    [
        ("Our press runs at Letterpress Row. It's a hundred years old.", ("Row", "hundred years")),
        ("I prefer short answers. They are easier to read on my phone.", ("short", "phone")),
    ],
)
def test_a_comment_on_a_lasting_memory_joins_it(text: str, both: tuple[str, str]) -> None:
    got = kept(text)
    assert len(got) == 1, got
    assert all(w in got[0][1] for w in both), got


def test_a_comment_on_a_task_or_two_sentences_later_stays_out() -> None:
    # a todo keeps its own words; a comment two sentences on comments on the one before it
    got = kept("I need to renew the van insurance. It was a pain last year.")
    assert len(got) == 1 and "pain" not in got[0][1], got
    got = kept("We bake with a wood oven. Deliveries go to Porto. It's a lot of work.")
    assert not any("lot of work" in c and "wood oven" in c for _, c in got), got
