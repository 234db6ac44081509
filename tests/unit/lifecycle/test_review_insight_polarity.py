"""REVIEW S13-R9: an insight says what the user prefers, not what they prefer something over.

The recurring-preference rule counted every capitalised thing a preference named, so
three preferences of something over Java ("prefers Python over Java", "Go to Java",
"Kotlin rather than Java") proposed "consistently prefers Java"; preferences that are
complaints ("overwhelmed by Slack notifications", "hates Slack threads") proposed
"consistently prefers Slack", an inference built on the user's feelings (contract §4.8).
"""

from __future__ import annotations

import pytest

from memvault.lifecycle.insights import detect
from memvault.model.enums import MemoryType


def _found(texts: list[str], kind: MemoryType = MemoryType.PREFERENCE) -> list[str]:
    memories = [(f"m{i}", kind, t) for i, t in enumerate(texts)]
    return [i.content for i in detect(memories, "Noor")]


def test_what_a_preference_is_preferred_over_is_never_the_insight() -> None:
    found = _found(
        [
            "Noor prefers Python over Java for scripts",
            "Noor prefers Go to Java for services",
            "Noor would rather use Kotlin than Java",
            "Noor picks Rust instead of Java for CLIs",
        ]
    )
    assert not any("Java" in f for f in found), found


#: Complaints about a thing, and moods tied to a weekday: no insight rests on them.
FEELINGS = [
    (
        MemoryType.PREFERENCE,
        "Noor gets overwhelmed by Slack notifications|Noor is annoyed by Slack huddles"
        "|Noor hates Slack threads|Noor avoids Slack on weekends",
    ),
    (
        MemoryType.FACT,
        "Noor gets grumpy on Monday mornings|Noor dreads Mondays"
        "|Noor gets frustrated with Monday meetings",
    ),
]


@pytest.mark.parametrize(("kind", "texts"), FEELINGS)
def test_complaints_and_moods_make_no_insight(kind: MemoryType, texts: str) -> None:
    found = _found(texts.split("|"), kind)
    assert found == [], found


def test_a_plain_recurring_preference_is_still_found() -> None:
    found = _found(
        [
            "Noor prefers Postgres for new services",
            "Noor wants Postgres in the staging stack",
            "Noor likes Postgres window functions",
        ]
    )
    assert found == ["Noor consistently prefers Postgres (3 of their preferences name it)."]
