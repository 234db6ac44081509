"""Session 15: the last minutes' happenings, everyone present doing something, a guess,
approval of an idea, and how-to questions keep nothing; a team's size said "right now" is
kept as the team's current size (the moment's headcount in a room, a call or a day keeps
nothing). Each shape has a near miss. Sentences written for this file (no evaluation set
was copied)."""

from __future__ import annotations

import pytest

from memvault.extract.context import team_size
from memvault.extract.speech import help_question
from tests.unit.extract.test_team_and_silence import kept


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


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("We're six people right now.", "Noor's team is six people right now."),
        ("There are two of us right now.", "There are two people in Noor's team right now."),
        ("There are eleven of us.", "There are eleven people in Noor's team."),
        ("The data team is currently 7 people.", "The data team is currently 7 people."),
    ],
)
def test_a_team_size_said_now_is_the_teams_fact(text: str, stored: str) -> None:
    assert team_size(text)
    assert kept(text) == [("Fact", stored)]


@pytest.mark.parametrize(
    "text",
    [
        "There are two of us in the office right now.",
        "We're six people on the call right now.",
        "There are eleven of us here tonight.",
    ],
)
def test_the_moments_headcount_keeps_nothing(text: str) -> None:
    assert not team_size(text)
    assert kept(text) == []
