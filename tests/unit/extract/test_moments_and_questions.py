"""Session 15: the last minutes' happenings, everyone present doing something, a guess,
approval of an idea, and how-to questions keep nothing; each has a near miss that is
kept. Sentences written for this file (no evaluation set was copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.reading import help_question

NOW = datetime(2026, 6, 9, 14, 0, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="oskar", speaker="Oskar")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    "text",
    [
        "The conference wifi just died, so I'm on my phone.",
        "My dog just ate half a sandwich off the counter.",
        "I've just noticed the printer is out of cyan.",
        "Everyone here is cheering at the screen.",
        "We're all huddled around one laptop.",
        "Must be the humidity making the glue fail.",
        "Ooh, a cold frame for the seedlings is a clever idea.",
    ],
)
def test_the_moment_a_guess_or_approval_keeps_nothing(text: str) -> None:
    assert kept(text) == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # a change or a milestone said with "just" is kept
        ("We just switched the CI to Buildkite.", "buildkite"),
        ("I just started a new job at Fennwick.", "fennwick"),
        # simple present is how things are, not the moment
        ("Everyone here uses Linux.", "linux"),
        # an obligation, not a guess
        ("I must renew the domain before Friday.", "domain"),
    ],
)
def test_near_misses_are_kept(text: str, word: str) -> None:
    assert any(word in c.lower() for _, c in kept(text)), kept(text)


@pytest.mark.parametrize(
    "text",
    [
        "How do you migrate a cron job to a Kubernetes CronJob safely? We run it all on EKS.",
        "Is it bad to water succulents every week? Mine are on the balcony.",
        "Quel éditeur conseilles-tu pour du Rust ? Je code surtout en Python.",
    ],
)
def test_a_how_to_question_makes_its_context_silent(text: str) -> None:
    assert kept(text) == []


def test_a_question_back_to_the_listener_silences_nothing() -> None:
    assert not help_question("How do you like Lisbon?")
    assert not help_question("Et toi, ça va ?")
    got = kept("How do you like the new office? We moved the team to Porto in March.")
    assert any("porto" in c.lower() for _, c in got), got
