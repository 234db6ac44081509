"""Insights (spec §3): rule-based patterns over a user's memories, only ever proposed."""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.lifecycle.insights import detect
from memvault.model.enums import MemoryType, StopReason
from memvault.store.base import NodeFilter
from tests.helpers import add_fields

PREF = {"type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"}
FACT = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}


def test_a_recurring_preference_and_a_working_pattern_are_proposed_once(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as e:
        for text in (
            "Dana prefers Python for scripts.",
            "Dana wants code examples in Python.",
            "Dana likes Python type hints.",
            "Dana loves green tea.",
        ):
            assert add_fields(e, text, user_id="dana", **PREF).ok
        for text in (
            "Dana deploys the billing service on Fridays.",
            "Dana runs the team demo on Friday.",
            "Dana writes the weekly report on Friday.",
        ):
            assert add_fields(e, text, user_id="dana", **FACT).ok
        before = len(e.store.list_nodes("acme", NodeFilter(user_id="dana"), limit=100))
        results = e.propose_insights("dana")
        assert [r.stop_reason for r in results] == [StopReason.MISSING_EXPLICIT_CONSENT] * 2
        pending = e.proposals(user_id="dana", status="pending")
        texts = sorted(str(p.candidate["content"]) for p in pending)
        assert texts == [
            "Dana consistently prefers Python (3 of their preferences name it).",
            "Dana's work often falls on Fridays (3 memories mention it).",
        ]
        assert {p.kind for p in pending} == {"insight"}
        assert e.propose_insights("dana") == []  # never proposed twice
        after = len(e.store.list_nodes("acme", NodeFilter(user_id="dana"), limit=100))
        assert after == before == 7  # nothing stored until the user confirms


def test_no_insight_rests_on_health_mood_or_personality() -> None:
    memories = [
        ("m1", MemoryType.FACT, "Dana feels stressed on Mondays."),
        ("m2", MemoryType.FACT, "Dana is tired every Monday."),
        ("m3", MemoryType.FACT, "Dana sees the therapist on Monday."),
        ("m4", MemoryType.PREFERENCE, "Dana prefers Sertraline in the morning."),
    ]
    assert detect(memories, "Dana") == []


def test_two_mentions_are_not_a_pattern() -> None:
    memories = [
        ("m1", MemoryType.PREFERENCE, "Dana prefers Rust for services."),
        ("m2", MemoryType.PREFERENCE, "Dana likes Rust macros."),
    ]
    assert detect(memories, "Dana") == []
