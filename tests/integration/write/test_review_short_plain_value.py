"""Review S18-R7: a plain value of a word or two beside the memory's text is read by no head.

A memory's ``key`` / ``value`` hold a fact as a slot: "Mia's status" = "schizophrenia".
``value_adds`` reads a plain value that wraps the text with its remainder (S16-R2: "Dana:
HIV positive" beside "Dana"), and any value of three plain words or more; a value of one or
two words that does not repeat the text is read by the pattern detectors alone.
"schizophrenia" or "diagnosis: schizophrenia" beside "Mia's status", "HIV positive" beside
"Mia", "arrested twice" beside "Mia's record" are SUCCESS_STORED, and ``get``, ``list`` and
``GET /v1/memories`` hand the value back; the text and value as one sentence ("Mia's status:
schizophrenia") are refused. The same words as the ``summary`` are stored too, and the
bulletin quotes the summary in place of the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, NewMemory

SLOTS = {
    "one word": ("Mia's status", "schizophrenia", "FORBIDDEN_CATEGORY"),
    "named": ("Mia's status", "diagnosis: schizophrenia", "FORBIDDEN_CATEGORY"),
    "two words": ("Mia", "HIV positive", "FORBIDDEN_CATEGORY"),
    "record": ("Mia's record", "arrested twice", "FORBIDDEN_CATEGORY"),
}
HELD = {
    "said whole": ("Mia's status: schizophrenia", "", "FORBIDDEN_CATEGORY"),
    "wrapped": ("Mia", "Mia: HIV positive", "FORBIDDEN_CATEGORY"),
    "status": ("Mia's status", "done", "SUCCESS_STORED"),
    "editor": ("Mia's editor", "vim", "SUCCESS_STORED"),
}

_SLOT: dict[str, Any] = {
    "type": "Fact",
    "category": "KNOWLEDGE",
    "source_kind": "USER_EXPLICIT",
    "user_id": "dana",
}


def _add(tmp_path: Path, content: str, value: str) -> str:
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing") as engine:
        memory = NewMemory(content=content, value=value, key="status", **_SLOT)
        return engine.add(memory).stop_reason.value


@pytest.mark.parametrize(("content", "value", "expected"), SLOTS.values(), ids=SLOTS.keys())
def test_a_short_value_is_read_with_its_text(
    tmp_path: Path, content: str, value: str, expected: str
) -> None:
    assert _add(tmp_path, content, value) == expected


@pytest.mark.parametrize(("content", "summary"), [(c, v) for c, v, _ in SLOTS.values()])
def test_a_short_summary_is_read_with_its_text(tmp_path: Path, content: str, summary: str) -> None:
    """The same words as the summary, which the bulletin quotes instead of the text."""
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing") as engine:
        memory = NewMemory(content=content, summary=summary, **_SLOT)
        assert engine.add(memory).stop_reason.value == "FORBIDDEN_CATEGORY"


@pytest.mark.parametrize(("content", "value", "expected"), HELD.values(), ids=HELD.keys())
def test_what_is_read_today_and_ordinary_slots(
    tmp_path: Path, content: str, value: str, expected: str
) -> None:
    """Refused today (the sentence, a value wrapping the text), and near misses stored."""
    assert _add(tmp_path, content, value) == expected
