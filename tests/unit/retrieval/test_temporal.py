"""The time a question names, as a window of memory timestamps (issue 17)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.retrieval.temporal import time_window

NOW = datetime(2023, 7, 1, 13, 38, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("Who did Maria have dinner with on May 3, 2023?", "2023-05-02", "2023-05-06"),
        ("What did Gina find for her store on 1 February, 2023?", "2023-01-31", "2023-02-04"),
        ("What setback did Melanie face in October 2023?", "2023-10-01", "2023-11-01"),
        ("When did Melanie go camping in June?", "2023-06-01", "2023-07-01"),
        ("When did she go camping in August?", "2022-08-01", "2022-09-01"),
        ("How many times has Melanie gone to the beach in 2023?", "2023-01-01", "2024-01-01"),
        ("What did John do the week before August 3, 2023?", "2023-07-20", "2023-08-04"),
        ("I mentioned a sports event two weeks ago. What was it?", "2023-06-10", "2023-06-24"),
        ("What did I cook yesterday?", "2023-06-30", "2023-07-01"),
        ("What did I buy last month?", "2023-04-30", "2023-07-02"),
        ("Where did we eat last Saturday?", "2023-06-23", "2023-06-26"),
        ("What did we discuss on 2023-06-12?", "2023-06-11", "2023-06-15"),
    ],
)
def test_windows(question: str, start: str, end: str) -> None:
    window = time_window(question, NOW)
    assert window is not None, question
    assert (window.start.date().isoformat(), window.end.date().isoformat()) == (start, end)


@pytest.mark.parametrize(
    "question",
    [
        "What does Caroline like to paint?",
        "Does she like May flowers?",  # a month name without a preposition is not a time
        "Where did Caroline move from 4 years ago?",  # when it happened, not when it was said
        "What did they do last year?",  # too wide to tell memories apart
        "How many days before the Rack Fest did I go?",
    ],
)
def test_no_window(question: str) -> None:
    assert time_window(question, NOW) is None


def test_a_naive_now_is_taken_as_utc() -> None:
    window = time_window("what happened yesterday", datetime(2023, 7, 1, 9, 0))
    assert window is not None and window.start.tzinfo is UTC
