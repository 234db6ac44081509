"""Forbidden slots: the noun phrase of "my X is …" decides, never the value."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message
from memvault.extract.rules import RuleExtractor
from memvault.extract.sensitive import sensitive_slot


@pytest.mark.parametrize(
    ("slot", "family"),
    [
        ("religion", "identity_trait"),
        ("sexual orientation", "identity_trait"),
        ("political views", "identity_trait"),
        ("blood type", "health"),
        ("medication", "health"),
        ("criminal record", "criminal"),
        ("PIN", "credentials"),
        ("password for the VPN", "credentials"),
        ("passport number", "gov_id"),
        ("social_security_number", "gov_id"),
        ("IBAN", "financial"),
        ("home address", "location"),
    ],
)
def test_forbidden_slots(slot: str, family: str) -> None:
    assert sensitive_slot(slot) == family


@pytest.mark.parametrize(
    "slot",
    [
        "favourite editor",
        "email address",
        "IP address",
        "team",
        "race bike",  # "race" alone is not a slot noun: marathons are fine
        "orientation day",
        "manager",
        "pinned tab",
    ],
)
def test_ordinary_slots(slot: str) -> None:
    assert sensitive_slot(slot) is None


def test_the_rule_extractor_marks_the_candidate() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    extract = RuleExtractor().extract
    (religion,) = extract(
        Message(text="My religion is Buddhism.", speaker="Leo"), now=now
    ).candidates
    assert religion.sensitive == "identity_trait"
    (editor,) = extract(
        Message(text="My favourite editor is Vim.", speaker="Leo"), now=now
    ).candidates
    assert editor.sensitive == ""
