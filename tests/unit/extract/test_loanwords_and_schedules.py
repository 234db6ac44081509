"""Session 16: an English clause with an accented loanword or place name is read as
English (rewritten, typed by the English keep rule), while a clause of another language
with the same words stays that language's; an hour given with a cron line is a schedule,
not the next hours' logistics. Sentences written for this file (no evaluation set was
copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.reader import english_like
from memvault.extract.when import CRON

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str, str]]:
    msg = Message(text=text, user_id="noor", speaker="Noor")
    return [(c.type.value, c.rule, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    "text",
    [
        "Weekends the neighbourhood café hosts 40 chess players.",
        "Since 2019 the Malmö office runs 3,500 builds weekly.",
        "the naïve approach was too slow for us",
        "São Paulo is where our support team sits",
        "We love the crème brûlée at the bistro",
    ],
)
def test_english_with_a_loanword_or_a_place_is_english(text: str) -> None:
    assert english_like(text)


@pytest.mark.parametrize(
    "text",
    [
        "Mi café favorito está en el centro",
        "Je bois un café avec l'équipe",
        "Vamos a São Paulo en marzo",
        "Das Café öffnet um acht",
        "Jag bor i Malmö med min fru",
        "Ich würde gern über München fahren",
        "Päivystys vaihtuu joka maanantai aamulla",  # Finnish: no English word at all
    ],
)
def test_another_language_with_the_same_words_is_not(text: str) -> None:
    assert not english_like(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Weekends the neighbourhood café hosts 40 chess players.", "café hosts 40 chess"),
        ("Since 2019 the Malmö office runs 3,500 builds weekly.", "Malmö office runs 3,500"),
    ],
)
def test_a_loanword_clause_is_read_by_the_english_keep_rule(text: str, words: str) -> None:
    # before: unread as another language (nothing kept) or kept unparsed, word for word
    got = kept(text)
    assert [(t, r) for t, r, _ in got] == [("Fact", "reader.fact")], got
    assert words in got[0][2]


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("the billing sync runs at 3 via `15 3 * * 1-5` in the scheduler", "`15 3 * * 1-5`"),
        ("our backup job fires at 02:00, cron is `0 2 * * *` on the db host", "`0 2 * * *`"),
    ],
)
def test_an_hour_given_with_a_cron_line_is_a_schedule(text: str, token: str) -> None:
    got = kept(text)
    assert any(t == "Fact" and token in c for t, _, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "the billing sync runs at 3 tomorrow, I will watch it",
        "I have a call at 3, back online later",
    ],
)
def test_an_hour_without_a_cron_line_stays_logistics(text: str) -> None:
    assert kept(text) == []


@pytest.mark.parametrize(
    ("text", "cron"),
    [
        ("`*/5 * * * *`", True),
        ("0 0 1 1 *", True),
        ("rooms 1 2 3 4 5", False),  # no star: a list of numbers
        ("a 2 * * * b", False),  # four fields
    ],
)
def test_cron_line(text: str, cron: bool) -> None:
    assert bool(CRON.search(text)) is cron


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Our shop is open until midnight every Friday.", "until midnight every Friday"),
        ("Our VPN is down for maintenance every Sunday night.", "every Sunday night"),
    ],
)
def test_the_moments_words_with_a_schedule_are_a_standing_fact(text: str, words: str) -> None:
    got = kept(text)
    assert any(t == "Fact" and words in c for t, _, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "The shop is open until midnight today.",
        "The VPN is down for maintenance, back after lunch.",
        "Our VPN is down until noon.",
    ],
)
def test_the_moments_words_without_a_schedule_keep_nothing(text: str) -> None:
    assert kept(text) == []
