"""Insights (implementation spec §3): patterns across a user's memories, proposed, never stored.

A rule-based detector over one user's recent active memories. It finds

- a **recurring preference** — the same tool, language or thing named by three
  or more of the user's preferences ("prefers Python for scripts", "wants code
  examples in Python", "likes Python type hints" → "Dana consistently prefers
  Python"), and
- a **stable working pattern** — the same weekday or part of the day named by
  three or more memories ("deploys on Fridays", "demo every Friday", "retro on
  Friday" → "Dana's work often falls on Fridays").

Every insight only ever becomes a consent *proposal* (kind ``insight``): the
user confirms it or it expires. Inferences about personality, emotion or
health are never proposed (contract §4.8): an insight whose evidence or
wording touches them is dropped here, and the gate judges every proposal too.

>>> from memvault.model.enums import MemoryType
>>> texts = ["Dana prefers Python for scripts.", "Dana wants code examples in Python.",
...          "Dana likes Python type hints.", "Dana loves green tea."]
>>> found = detect([(f"m{i}", MemoryType.PREFERENCE, t) for i, t in enumerate(texts)], "Dana")
>>> [(i.key, i.content) for i in found]
[('insight.prefers.python', 'Dana consistently prefers Python (3 of their preferences name it).')]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memvault.model.enums import MemoryType

__all__ = ["FORBIDDEN_INFERENCE", "MIN_EVIDENCE", "Insight", "detect"]

#: How many memories must share a pattern before it is proposed.
MIN_EVIDENCE = 3
#: Feelings said about a thing or a day (review S13-R9): never evidence of a pattern.
_FEELINGS = "overwhelm annoy frustrat grump irritab dread panic exhaust".split()
#: Words an insight may never rest on or name (contract §4.8: no personality,
#: emotion or health inferences).
FORBIDDEN_INFERENCE = re.compile(
    r"\b(?:anxious|anxiety|depress\w*|stress\w*|mood|moody|emotion\w*|feel\w*|happy|sad|angry"
    r"|lonely|personality|introvert\w*|extrovert\w*|insecure|confiden\w*|lazy|health\w*|sick"
    r"|ill|illness|doctor|therap\w*|medic\w*|diagnos\w*|pain|tired|sleep\w*|diet\w*|weight"
    r"|pregnan\w*|allerg\w*|upset|nervous|scared|afraid|fear\w*|worr(?:y|ied|ies)|hate[sd]?"
    r"|hating|" + r"\w*|".join(_FEELINGS) + r"\w*)\b",
    re.I,
)
#: A preference that turns something down (avoid, dislike, don't, never, no longer …):
#: none of its things is preferred.
_TURNED_DOWN = re.compile(
    r"(?i)\b(?:avoid\w*|dislike\w*|detest\w*|never|no\s+longer|stopped|refuses?"
    r"|can(?:no|')t\s+stand|(?:do|does)(?:\s+not|n't))\b"
)
#: Where a preference starts naming what it is preferred over ("Python over Java",
#: "Kotlin rather than Java", "Rust instead of Java", "not Java", "Go to Java").
_OVER = re.compile(
    r"(?i:\b(?:over|than|instead\s+of|versus|vs\.?|not)\b)|(?<=[\w+#])\s+to\s+(?=[A-Z])"
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_PARTS = ("morning", "afternoon", "evening", "night")
_TIME_WORD = re.compile(r"\b(" + "|".join(_WEEKDAYS + _PARTS) + r")s?\b", re.I)
# A thing a preference names: a capitalised word or a known tech token (not the subject).
_THING = re.compile(r"\b([A-Z][\w+#.-]*[\w+#]|[a-z]+\d[\w.]*)\b")
_COMMON = frozenset(
    {"The", "A", "An", "It", "This", "That", "When", "If", "For", "In", "On", "And", "Or"}
)


@dataclass(frozen=True, slots=True)
class Insight:
    """A pattern to propose: the statement, its slot key and the memories behind it."""

    content: str
    key: str
    evidence: tuple[str, ...]
    kind: str  # "recurring_preference" | "working_pattern"


def _things(text: str, subject: str) -> set[str]:
    names = {w.lower() for w in subject.split()}
    return {
        m.group(1)
        for m in _THING.finditer(text)
        if m.group(1) not in _COMMON
        and m.group(1).lower() not in names
        and not m.group(1).lower().startswith(subject.lower())
    }


def detect(memories: Iterable[tuple[str, MemoryType, str]], subject: str) -> list[Insight]:
    """Insights from ``(memory_id, type, content)`` of one user (``subject``: their name)."""
    by_thing: dict[str, list[str]] = defaultdict(list)
    by_time: dict[str, list[str]] = defaultdict(list)
    shown: dict[str, str] = {}
    for memory_id, type_, content in memories:
        if FORBIDDEN_INFERENCE.search(content):
            continue  # never build on a memory about mood, health or personality
        if type_ is MemoryType.PREFERENCE and not _TURNED_DOWN.search(content):
            # only what is preferred, not what it is preferred over (review S13-R9)
            for thing in _things(_OVER.split(content, maxsplit=1)[0], subject):
                by_thing[thing.lower()].append(memory_id)
                shown.setdefault(thing.lower(), thing)
        for word in {m.group(1).lower() for m in _TIME_WORD.finditer(content)}:
            by_time[word].append(memory_id)
    found: list[Insight] = []
    for thing, ids in sorted(by_thing.items()):
        if len(set(ids)) >= MIN_EVIDENCE:
            found.append(
                Insight(
                    f"{subject} consistently prefers {shown[thing]} "
                    f"({len(set(ids))} of their preferences name it).",
                    f"insight.prefers.{thing}",
                    tuple(dict.fromkeys(ids)),
                    "recurring_preference",
                )
            )
    for word, ids in sorted(by_time.items()):
        if len(set(ids)) >= MIN_EVIDENCE:
            label = word.capitalize() + "s" if word in _WEEKDAYS else f"the {word}"
            found.append(
                Insight(
                    f"{subject}'s work often falls on {label} "
                    f"({len(set(ids))} memories mention it).",
                    f"insight.pattern.{word}",
                    tuple(dict.fromkeys(ids)),
                    "working_pattern",
                )
            )
    return [i for i in found if not FORBIDDEN_INFERENCE.search(i.content)]


def new_insights(found: Sequence[Insight], proposed_keys: Iterable[str]) -> list[Insight]:
    """``found`` minus the insights already proposed (pending or answered)."""
    seen = set(proposed_keys)
    return [i for i in found if i.key not in seen]
