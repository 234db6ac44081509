"""Text from real users, made storable at the edge (issue 17).

Tabs and line breaks are content and stay. Other control characters (C0
except tab, line feed and carriage return; DEL) cannot be stored — the node
model refuses them — so the write path removes them *before* validation and
records how many it removed, instead of refusing the whole memory: a user who
pastes a table from a terminal keeps the memory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CONTROL_CHARS", "NUMBER_WORDS", "Cleaned", "clean_fields", "clean_text"]

#: What the node model refuses: C0 controls except \t \n \r, and DEL.
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: Number words that count days, weeks or months in dates ("two weeks ago",
#: "in a month"): read by capture's date resolution and recall's time windows.
NUMBER_WORDS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}

#: Text fields of a memory that are cleaned (others are ids and enums).
TEXT_FIELDS = ("content", "summary", "key", "value")


@dataclass(frozen=True, slots=True)
class Cleaned:
    """Cleaned text and how many control characters were removed from it."""

    text: str
    removed: int = 0


def clean_text(text: str) -> Cleaned:
    """Remove control characters other than tab and line breaks.

    >>> clean_text("a\\tb\\nc")
    Cleaned(text='a\\tb\\nc', removed=0)
    >>> clean_text("bell\\x07 and\\x00 nul\\x7f")
    Cleaned(text='bell and nul', removed=3)
    """
    if not isinstance(text, str):
        return Cleaned(text)
    cleaned, removed = CONTROL_CHARS.subn("", text)
    return Cleaned(cleaned, removed)


def clean_fields(fields: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """``fields`` with every text field cleaned, and the total removed.

    >>> clean_fields({"content": "x\\x0by", "key": "k", "importance": 5})
    ({'content': 'xy', 'key': 'k', 'importance': 5}, 1)
    """
    out = dict(fields)
    total = 0
    for name in TEXT_FIELDS:
        value = out.get(name)
        if isinstance(value, str):
            cleaned = clean_text(value)
            out[name] = cleaned.text
            total += cleaned.removed
    return out, total
