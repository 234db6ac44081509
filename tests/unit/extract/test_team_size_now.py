"""Session 15: a team's size said "right now" is the team's current size, kept as a fact
in the team's words; the moment's headcount (a room, a call, a day) keeps nothing.
Sentences written for this file (no evaluation set was copied)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.context import team_size

NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
X = RuleExtractor()


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="ines", speaker="Ines")
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("We're six people right now.", "Ines's team is six people right now."),
        ("There are two of us right now.", "There are two people in Ines's team right now."),
        ("There are eleven of us.", "There are eleven people in Ines's team."),
        (
            "The data team is currently 7 people.",
            "The data team is currently 7 people.",
        ),
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
