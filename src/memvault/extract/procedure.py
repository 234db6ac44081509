"""Procedural memory (spec §12): imperative steps, kept as one Procedure.

Two triggers make a Procedure: an explicit request ("remember these steps for
…: …", or save/store/note/learn this procedure, process, workflow, checklist,
runbook, routine), or a list of numbered (or bulleted) steps — "To deploy:
1. … 2. … 3. …" — which would otherwise be split into garbage facts.
Describing what one usually does in prose never makes one.

>>> p = extract_procedure("To cut a release: 1. bump the version 2. tag it 3. push", "Dana")
>>> p.content
'Procedure for cut a release: 1. bump the version. 2. tag it. 3. push.'
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
    # the step's words as written: "qm clone …", "pnpm changeset", "aws iam …" name
    # commands; capitalised, they would no longer be the command the user typed
    return s.strip(" .,;")


# Two or more numbered (or bulleted) steps, each on its own line or inline: "1. … 2. …".
_NUMBERED = re.compile(r"(?:^|\n|\s)(?:step\s*)?(?P<n>\d{1,2})[.)]\s+(?=\S)", re.I)
_PROCEDURE_WORDS = re.compile(
    r"\b(?:steps?|process|procedure|how (?:to|we|i)|checklist|runbook|routine|workflow)\b", re.I
)
_BULLET = re.compile(r"(?:^|\n)\s*[-*•]\s+(?=\S)")
_INTRO_GOAL = re.compile(
    r"^(?:(?:here(?:'s| is| are)\s+)?(?:how\s+(?:we|i|to)\s+|the\s+(?:steps?|way|process)\s+"
    r"(?:for|to|of)\s+|steps?\s+(?:for|to)\s+|(?:my|our)\s+|to\s+)?)?(?P<goal>[^:\n]{2,80}?)"
    r"\s*(?:process|procedure|checklist|runbook|routine|steps)?\s*[:\-–]?\s*$",
    re.I,
)


def _numbered_steps(text: str) -> tuple[str, list[str]] | None:
    """``(intro, steps)`` when ``text`` lists at least two numbered steps 1, 2, … in order."""
    marks = list(_NUMBERED.finditer(text))
    numbers = [int(m["n"]) for m in marks]
    if len(marks) < 2 or numbers[:2] != [1, 2] or numbers != list(range(1, len(numbers) + 1)):
        bullets = list(_BULLET.finditer(text))
        if len(bullets) < 2:
            return None
        marks = bullets
    intro = text[: marks[0].start()].strip()
    bounds = [m.end() for m in marks]
    ends = [m.start() for m in marks[1:]] + [len(text)]
    steps = [text[a:b].strip(" \n,;") for a, b in zip(bounds, ends, strict=True)]
    return intro, [s for s in steps if s]


def _numbered_procedure(text: str, subject: str, max_steps: int) -> Candidate | None:
    found = _numbered_steps(text)
    if found is None:
        return None
    intro, raw_steps = found
    if not (intro.rstrip().endswith(":") or _PROCEDURE_WORDS.search(intro)):
        return None  # "I have 2 cats. 1. Tom 2. Jerry" is a list, not steps
    steps = [_imperative(s) for s in raw_steps][:max_steps]
    steps = [s for s in steps if s]
    if len(steps) < 2:
        return None
    last_sentence = re.split(r"(?<=[.!?])\s+", intro)[-1] if intro else ""
    goal_match = _INTRO_GOAL.match(last_sentence.rstrip(" :"))
    goal = (goal_match["goal"] if goal_match else last_sentence).strip(" .:") or "the task"
    return _procedure(goal, steps, subject, confidence=0.9, rule="procedure.numbered", said=text)


def _procedure(
    goal: str, steps: list[str], subject: str, *, confidence: float, rule: str, said: str
) -> Candidate:
    """The Procedure candidate: "Procedure for <goal>: 1. … 2. …", keyed by the goal."""
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
        confidence=confidence,
        rule=rule,
        said=said[:4000],
    )


def extract_procedure(text: str, subject: str, *, max_steps: int = 12) -> Candidate | None:
    """A Procedure candidate, only when the text explicitly asks to keep steps.

    >>> p = extract_procedure("Remember these steps for releasing: run the tests, "
    ...                       "then tag the commit, then publish the wheel", "Dana")
    >>> p.content
    'Procedure for releasing: 1. run the tests. 2. tag the commit. 3. publish the wheel.'
    >>> extract_procedure("I run the tests then tag the commit", "Dana") is None
    True
    """
    match = _PROCEDURE.search(text)
    if match is None:
        # Numbered steps ("1. … 2. …") are one Procedure, never a garbage Fact.
        return _numbered_procedure(text, subject, max_steps)
    steps = [_imperative(s) for s in _STEP_SPLIT.split(match["body"]) if s and s.strip()]
    steps = [s for s in steps if s][:max_steps]
    if len(steps) < 2:
        return None
    goal = (match["goal"] or "the task").strip(" .")
    return _procedure(goal, steps, subject, confidence=1.0, rule="procedure", said=match.group(0))
