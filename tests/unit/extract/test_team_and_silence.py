"""Session 14 shapes: a team's standing rules, sizes and decisions are kept (and typed
right), while the same words about today, a decision not made yet, leaving the chat and a
reaction to the assistant's suggestion keep nothing. Each kept shape has a near miss that
must stay silent. Sentences written for this file (no evaluation set was copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.clause import Clause
from memvault.extract.context import (
    decision_said,
    leaves_chat,
    praises_listener,
    standing_fact,
)
from memvault.extract.foreign import keep_other_language
from memvault.extract.gloss import glosses
from memvault.extract.reader import Reading

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="noor", speaker="Noor")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Every schema migration needs a review from the DBA before it ships.", "dba"),
        ("Our rule is that nothing goes to production on a Friday.", "friday"),
        ("We tag every release with the build date.", "build date"),
        ("Hotfix branches are always cut from the last release tag.", "hotfix"),
        ("The support desk is seven people across two time zones.", "seven"),
    ],
)
def test_a_teams_standing_rule_or_size_is_a_fact(text: str, word: str) -> None:
    got = kept(text)
    assert any(t == "Fact" and word in c.lower() for t, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "This migration still needs one more review before lunch.",
        "Nothing goes to production today, the pipeline is red.",
        "The small meeting room is booked until 2pm.",
    ],
)
def test_the_same_words_about_today_keep_nothing(text: str) -> None:
    assert kept(text) == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Final call: we keep the billing service on Java.", "java"),
        ("We've settled on Caddy as the reverse proxy.", "caddy"),
    ],
)
def test_a_decision_said_without_decided_is_a_decision(text: str, word: str) -> None:
    got = kept(text)
    assert any(t == "Decision" and word in c.lower() for t, c in got), got


def test_a_decision_not_made_yet_is_no_decision() -> None:
    assert not decision_said("we still haven't decided between Caddy and Traefik")
    assert not decision_said("Aún no hemos decidido si cambiar de proveedor")
    assert not decision_said("まだ決めていません")
    assert decision_said("I can't stand the old proxy, so we decided on Caddy")
    assert not any(t == "Decision" for t, _ in kept("We haven't decided on a proxy yet."))


def test_decided_in_japanese_and_romanian_is_glossed_as_a_decision() -> None:
    assert "we decided" in glosses("来年から見積もりは全部PDFで送ることにしました。")
    assert "we decided" in glosses("Am hotărât să lucrez doar cu furnizori locali.")
    # a plain past tense without a choice is not
    assert "we decided" not in glosses("昨日は早く寝ました。")


@pytest.mark.parametrize(
    "text",
    [
        "Got to run, the electrician just showed up.",
        "The school called, have to go.",
        "I have to go, sorry!",
        "gtg, back in an hour",
    ],
)
def test_leaving_the_chat_keeps_nothing(text: str) -> None:
    assert leaves_chat(text.split(". ")[0]) or leaves_chat(text)
    assert kept(text) == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("I have to go to the tax office on Thursday.", "tax office"),
        ("Gotta run the payroll export before Friday.", "payroll"),
    ],
)
def test_a_task_that_starts_like_leaving_is_still_a_todo(text: str, word: str) -> None:
    assert not leaves_chat(text)
    got = kept(text)
    assert any(t == "Todo" and word in c for t, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "Perfect, the third option is the one I'll go with. Thanks!",
        "Nice, that layout reads much better.",
        "Ah, the shorter query works now, cheers.",
    ],
)
def test_a_reaction_to_the_assistants_suggestion_keeps_nothing(text: str) -> None:
    assert kept(text) == []


def test_a_reaction_followed_by_the_speakers_own_fact_keeps_the_fact() -> None:
    assert not praises_listener("Great, our team moved the docs to Docusaurus last month")
    got = kept("Great, our team moved the docs to Docusaurus last month.")
    assert any("Docusaurus" in c for _, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "Everybody here was clapping when the servers came back.",
        "The taxi's here, talk later.",
    ],
)
def test_someone_or_something_here_is_no_name(text: str) -> None:
    assert not any("name is" in c for _, c in kept(text))


def test_a_name_signed_with_here_is_still_a_name() -> None:
    got = kept("Ilse here, one more thing about the invoices.")
    assert any("name is Ilse" in c for _, c in got), got


@pytest.mark.parametrize(
    "text", ["Super, merci beaucoup !", "Muchas gracias, de verdad.", "¡Gracias, amiga!"]
)
def test_thanks_in_a_few_words_of_another_language_keeps_nothing(text: str) -> None:
    assert kept(text) == []


def test_thanks_before_a_fact_in_another_language_keeps_the_fact() -> None:
    got = kept("Danke, wir nutzen jetzt Postgres 16.")
    assert any("Postgres 16" in c for _, c in got), got


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Refund requests are logged in a Notion board.", "Notion"),
        ("Supplier invoices come through Tradeshift.", "Tradeshift"),
    ],
)
def test_where_work_goes_is_the_stacks_fact(text: str, word: str) -> None:
    assert standing_fact(text)
    got = kept(text)
    assert any(t == "Fact" and word in c for t, c in got), got


@pytest.mark.parametrize(
    "text",
    [
        "The refund requests are stuck in Notion again today.",
        "The scans go to Box tomorrow.",
    ],
)
def test_where_work_is_right_now_keeps_nothing(text: str) -> None:
    assert not standing_fact(text)
    assert kept(text) == []


def test_a_team_size_is_a_fact_and_todays_headcount_is_not() -> None:
    assert standing_fact("we're a team of four on the night desk")
    assert not standing_fact("there are four of us in the office today")
    assert any(t == "Fact" and "four" in c for t, c in kept("We're a team of four on nights."))
    assert kept("There are four of us in the office today.") == []


def _unsure(label: str, score: float) -> Reading:
    scores = ((label, score), ("oneoff", 0.6))
    return Reading(label, score, scores, share=0.6, sure=False, mass=0.6)


def test_a_fact_in_another_language_read_surely_by_its_head_and_naming_things_is_kept() -> None:
    named = Clause(
        "Le site tourne sur Django et les paiements passent par Mollie", "Noor", NOW.date()
    )
    plain = Clause("le site tourne bien et les paiements passent vite", "Noor", NOW.date())
    bar = (0.8, 0.825)
    kept_named, why = keep_other_language(
        named, _unsure("fact", 0.95), says=False, lead=False, bar=bar
    )
    assert kept_named is not None and kept_named.type.value == "Fact", why
    # the fact head not sure enough, or nothing named: unread
    assert (
        keep_other_language(named, _unsure("fact", 0.85), says=False, lead=False, bar=bar)[0]
        is None
    )
    assert (
        keep_other_language(plain, _unsure("fact", 0.95), says=False, lead=False, bar=bar)[0]
        is None
    )
    # a moment in the same language, naming things, keeps nothing end to end
    assert kept("Aujourd'hui Mollie est en panne, les paiements attendent.") == []


def test_a_choice_said_in_so_many_words_is_a_decision_whatever_the_reading() -> None:
    got = kept("As a crew we decided to rotate the night shifts every month.")
    assert any(t == "Decision" and "rotate" in c for t, c in got), got
    # the same words without a choice made are no decision
    assert not any(t == "Decision" for t, _ in kept("We rotate the night shifts every month."))


def test_a_comment_with_its_subject_dropped_is_no_question() -> None:
    got = kept("We decided to move the wiki to Outline next quarter. Should make search bearable.")
    assert any(t == "Decision" and "Outline" in c for t, c in got), got
