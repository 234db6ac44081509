"""Session 12 shapes: standing orders said verb-first, requests in other languages, asides,
a later sentence's taste, proper names after a kept memory, and words that only look
sensitive (the unified-diff order, both requests, the accented word, the praise aside,
the Finnish sentence and the domain were each handled wrongly before the change)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.context import context_of_kept, stands_alone, taste_said
from memvault.extract.foreign import in_a_read_language
from memvault.extract.sensitive import sensitive_words

NOW = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="dana", speaker="Dana")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("When you show diffs, use unified format with three lines of context.", "unified"),
        ("keep commit messages under 50 characters", "50 characters"),
    ],
)
def test_a_standing_order_said_verb_first_is_a_preference(text: str, word: str) -> None:
    got = kept(text)
    assert any(t == "Preference" and word in c for t, c in got), got


def test_an_order_for_today_is_not_a_standing_preference() -> None:
    assert kept("keep it short today, I'm on my phone") == []


@pytest.mark.parametrize(
    "text",
    [
        "Donne-moi les recettes en grammes, jamais en tasses, s'il te plaît.",
        "Kod örneklerini TypeScript ile ver lütfen, Java istemiyorum.",
    ],
)
def test_a_request_in_another_language_is_a_preference_in_the_users_words(text: str) -> None:
    assert kept(text) == [("Preference", text)]


def test_a_later_sentence_naming_a_tool_is_its_own_memory_in_english() -> None:
    assert not context_of_kept("Sim is in Gazebo.")
    assert context_of_kept("The migration took two sprints.")
    got = kept("Our robot arm runs ROS 2 on a Jetson Orin. Sim is in Gazebo.")
    assert any("Gazebo" in c for _, c in got), got


def test_a_later_sentence_read_as_a_taste_without_a_tastes_words_is_context() -> None:
    assert taste_said("I'd rather have tables") and not taste_said("It's me and one part-timer.")
    got = kept(
        "I sell handmade leather wallets out of a workshop in Galway. It's me and one part-timer."
    )
    assert [t for t, _ in got] == ["Fact"], got


def test_an_accented_lower_case_word_is_no_name() -> None:
    assert not stands_alone("L'aria condizionata è rotta")
    assert stands_alone("Il server è su Hetzner")
    # … and the sentence after a one-off carries the moment on
    assert kept("Che caldo oggi in ufficio! L'aria condizionata è rotta.") == []


def test_praise_of_the_assistant_starts_an_aside() -> None:
    assert kept("You always explain things so clearly. My team lead should take notes.") == []


def test_a_language_outside_the_corpus_keeps_nothing_on_an_unsure_reading() -> None:
    assert not in_a_read_language("Taustajärjestelmä julkaistaan joka torstai klusterille")
    assert in_a_read_language("Llevo el marketing de una tienda en Sevilla")
    assert kept("Taustajärjestelmä julkaistaan joka torstai klusterille Argolla.") == []


def test_a_domain_is_no_identity_word() -> None:
    assert (
        sensitive_words("Trasy planujemy w Trans.eu, a tachografy czytamy przez TachoScan") is None
    )
    assert sensitive_words("mój kolega jest trans") == "identity_trait"


@pytest.mark.parametrize(
    "text",
    [
        # session 16: a bare "instead" after an aside is the moment's alternative
        "The office is freezing today. So I'm working from the library instead.",
        "Our router died an hour ago. So I'm tethering from my phone instead.",
    ],
)
def test_the_moments_alternative_after_an_aside_keeps_nothing(text: str) -> None:
    assert kept(text) == []


def test_a_change_after_an_aside_is_still_kept() -> None:
    # near miss: "instead of" names what it replaces — a change, kept
    got = kept("The office is freezing today. We moved the standup to Zoom instead of the café.")
    assert any("standup to Zoom instead of" in c for _, c in got), got
