"""Procedural memory (spec §12): numbered imperative steps, on an explicit trigger only.

Only "remember these steps for …: …" (or save/store/note/learn this procedure,
process, workflow, checklist, runbook, routine) makes a Procedure; describing
what one usually does never does.
"""

from __future__ import annotations

import re

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.clause import IMPORTANCE as _IMPORTANCE
from memvault.extract.constraints import third_person
from memvault.extract.text import slug
from memvault.model.enums import MemoryType

__all__ = ["extract_procedure"]

_PROCEDURE = re.compile(
    r"(?:remember|save|store|note|learn)\s+(?:this|these|the following|my|our)\s+"
    r"(?:steps|procedure|process|workflow|checklist|runbook|routine)"
    r"(?:\s+(?:for|to|when)\s+(?P<goal>[^:\n]{2,80}))?\s*:\s*(?P<body>.+)",
    re.I | re.S,
)
_STEP_SPLIT = re.compile(
    r"\n+\s*(?:\d+[.)]|[-*•])\s*|^\s*(?:\d+[.)]|[-*•])\s*|(?:,\s*|;\s*|\.\s+)"
    r"(?:and\s+)?(?:then|next|after that|finally|lastly)\b,?\s*|\s+(?:and\s+)?then\s+|;\s*",
    re.I,
)


def _imperative(step: str) -> str:
    s = re.sub(
        r"^(?:first(?:ly)?|then|next|finally|lastly|and)\b[,\s]*", "", step.strip(), flags=re.I
    )
    s = re.sub(r"^(?:i|you|we)\s+(?:should\s+|must\s+|need to\s+)?", "", s, flags=re.I)
    s = s.strip(" .,;")
    return s[:1].upper() + s[1:] if s else ""


def extract_procedure(text: str, subject: str, *, max_steps: int = 12) -> Candidate | None:
    """A Procedure candidate, only when the text explicitly asks to keep steps.

    >>> p = extract_procedure("Remember these steps for releasing: run the tests, "
    ...                       "then tag the commit, then publish the wheel", "Dana")
    >>> p.content
    'Procedure for releasing: 1. Run the tests. 2. Tag the commit. 3. Publish the wheel.'
    >>> extract_procedure("I run the tests then tag the commit", "Dana") is None
    True
    """
    match = _PROCEDURE.search(text)
    if match is None:
        return None
    steps = [_imperative(s) for s in _STEP_SPLIT.split(match["body"]) if s and s.strip()]
    steps = [s for s in steps if s][:max_steps]
    if len(steps) < 2:
        return None
    goal = (match["goal"] or "the task").strip(" .")
    numbered = " ".join(f"{i}. {s.rstrip('.')}." for i, s in enumerate(steps, start=1))
    content = f"Procedure for {third_person(goal, subject)}: {numbered}"
    return Candidate(
        content=content[:1000],
        type=MemoryType.PROCEDURE,
        category="PROCEDURE",
        key="procedure." + slug(goal),
        value=numbered[:1000],
        subject=subject,
        exclusive=True,
        cue=ChangeCue.UPDATE,
        importance=_IMPORTANCE["PROCEDURE"],
        confidence=1.0,
        rule="procedure",
        said=match.group(0)[:4000],
    )
