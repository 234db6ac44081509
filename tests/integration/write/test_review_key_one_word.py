"""Review S17-R5: a key that adds one word to a harmless text says what the gate refuses.

8cf2305 reads a key that adds at most one word to the memory's text with the pattern
detectors alone (capture's keys, "todo.landlord_boiler", were refused with their harmless
memories by the heads). The one word added can be the whole sensitive fact: beside "Dana
tested positive for the flu" the key "dana_tested_positive_for_hiv" is stored, and beside
"Dana is a registered voter" the key "dana_is_a_registered_offender" — each refused as a
text, and as a key beside another text. ``get``, ``list``, HTTP and a LangGraph item's key
hand the key back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import MemoryEngine, NewMemory

SENSITIVE = {
    "health": ("Dana tested positive for the flu", "dana_tested_positive_for_hiv"),
    "criminal": ("Dana is a registered voter", "dana_is_a_registered_offender"),
}


def _add(tmp_path: Path, content: str, key: str) -> str:
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing") as engine:
        memory = NewMemory(content=content, key=key, type="Fact", category="KNOWLEDGE",
                           source_kind="USER_EXPLICIT", user_id="dana")  # fmt: skip
        return engine.add(memory).stop_reason.value


@pytest.mark.parametrize(("content", "key"), SENSITIVE.values(), ids=SENSITIVE.keys())
def test_a_key_that_adds_the_sensitive_word_is_refused(
    tmp_path: Path, content: str, key: str
) -> None:
    assert _add(tmp_path, content, key) == "FORBIDDEN_CATEGORY"


@pytest.mark.parametrize(("content", "key"), SENSITIVE.values(), ids=SENSITIVE.keys())
def test_the_same_key_beside_another_text_is_refused(
    tmp_path: Path, content: str, key: str
) -> None:
    """What the key says is refused when it adds more than one word (the rule before 8cf2305)."""
    assert _add(tmp_path, "The build runs nightly", key) == "FORBIDDEN_CATEGORY"


def test_a_capture_key_that_adds_one_word_is_kept(tmp_path: Path) -> None:
    """The near miss 8cf2305 was made for."""
    assert _add(tmp_path, "Call the landlord about the boiler", "todo.landlord_boiler") == (
        "SUCCESS_STORED"
    )


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("Call the landlord about the boiler", "landlord_boiler_call_monday"),
        ("Ship the billing dashboard", "fact.billing_dashboard_ship"),
        ("Ana prefers short replies", "prefers.short_replies_ana"),
    ],
)
def test_a_key_that_adds_a_harmless_word_is_kept(tmp_path: Path, content: str, key: str) -> None:
    """Near misses: a harmless added word, and capture's namespaces, keep the memory."""
    assert _add(tmp_path, content, key) == "SUCCESS_STORED"


def test_a_sensitive_word_as_the_namespace_is_still_read(tmp_path: Path) -> None:
    """Only capture's namespaces ("todo.", "fact.") are exempt, not any word before a dot."""
    assert _add(tmp_path, "Dana tested positive", "hiv.dana_tested_positive") == (
        "FORBIDDEN_CATEGORY"
    )
