"""Session 18: an order to the listener about how to explain, answer or write, in another
language, is a preference however the reader reads it; the same verbs said of someone
else on a recent day are not. A stack fact said with a taste's label but no taste's words
is a fact; an order to the listener that names a language or a style stays a preference.
Sentences written for this file (no evaluation set was copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.foreign import asks_listener

NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="ines", speaker="Ines")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    "text",
    [
        "Explícame las fórmulas paso a paso.",  # read as nothing before session 18
        "回答は短くしてください。",  # read as nothing before session 18
        "Rispondimi sempre con esempi pratici.",
        "답변은 존댓말로 해 주세요.",
    ],
)
def test_an_order_about_the_answers_in_another_language_is_a_preference(text: str) -> None:
    assert asks_listener(text)
    assert kept(text) == [("Preference", text)]


@pytest.mark.parametrize("text", ["Mi jefe me escribió ayer.", "Ela me respondeu ontem."])
def test_the_same_verbs_said_of_yesterday_are_no_order(text: str) -> None:
    assert not asks_listener(text)
    assert not any(kind == "Preference" for kind, _ in kept(text)), kept(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I practise scales with Yousician.", "Fact"),  # a Preference before session 18
        ("I learn kanji with WaniKani.", "Fact"),
        ("I love sketching in Procreate.", "Preference"),  # a taste's words
        ("Write to me in Canadian English.", "Preference"),  # an order to the listener
        ("Use Canadian spelling in the reports.", "Preference"),
    ],
)
def test_a_tool_named_is_a_fact_unless_a_taste_or_an_order_is_said(text: str, kind: str) -> None:
    assert [k for k, _ in kept(text)] == [kind], kept(text)
