"""What every extraction rule works with: the clause it reads, the rule itself,
and the one helper that turns a rule's findings into a :class:`Candidate`.

>>> from datetime import date
>>> c = Clause("I love coffee", "Dana", date(2026, 1, 15))
>>> c.statement()
'Dana loves coffee.'
>>> cand = candidate(c, "likes", c.statement(), MemoryType.PREFERENCE, "PREFERENCE",
...                  "likes.coffee", c.value("coffee"))
>>> cand.key, cand.importance, cand.said
('likes.coffee', 60, 'I love coffee')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.change import changed_from
from memvault.extract.constraints import normalise_statement, third_person
from memvault.extract.dates import resolve_relative_dates
from memvault.extract.sensitive import sensitive_words
from memvault.extract.text import head_phrase, slug
from memvault.extract.verbatim import protected
from memvault.model.enums import MemoryType, TTLClass

__all__ = [
    "IMPORTANCE",
    "TTL_BY_CATEGORY",
    "VALUE_MAX",
    "Build",
    "Clause",
    "Rule",
    "candidate",
    "change_cue",
    "rx",
    "slot_rule",
]

VALUE_MAX = 200

IMPORTANCE = {
    "CONSTRAINT": 80,
    "WORKFLOW_DEFAULT": 70,
    "DECISION": 70,
    "PROCEDURE": 70,
    "GOAL": 65,
    "PREFERENCE": 60,
    "TODO": 60,
    "REMINDER": 60,
    "PROJECT_CONFIG": 60,
    "KNOWLEDGE": 55,
    "EVENT": 45,
}
#: Categories that expire sooner than the default (long) TTL.
TTL_BY_CATEGORY = {
    "TODO": TTLClass.MEDIUM,
    "REMINDER": TTLClass.MEDIUM,
    "EVENT": TTLClass.MEDIUM,
}


@dataclass(frozen=True, slots=True)
class Clause:
    """One first-person clause of a user's turn, with what a rule needs to write it."""

    text: str
    subject: str
    today: date
    explicit: bool = False
    said: str = ""

    def statement(self, text: str | None = None) -> str:
        """``text`` (default: the clause) in the third person, dates resolved, normalised."""
        raw = self.text if text is None else text
        return normalise_statement(protected(self._rewrite, raw))

    def value(self, text: str) -> str:
        return protected(self._rewrite, text.strip(" .,!"))[:VALUE_MAX]

    def _rewrite(self, masked: str) -> str:
        # Runs on the masked text: identifiers, code and quotes are placeholders.
        return resolve_relative_dates(third_person(masked, self.subject), self.today)


Build = Callable[[re.Match[str], Clause], Candidate | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A named pattern and the function that turns its match into a candidate."""

    name: str
    pattern: re.Pattern[str]
    build: Build


def candidate(
    clause: Clause,
    rule: str,
    content: str,
    type_: MemoryType,
    category: str,
    key: str,
    value: str,
    **extra: object,
) -> Candidate:
    """The candidate a rule proposes, with the importance, confidence, TTL and
    provenance every rule shares (explicit "remember …" requests rank higher)."""
    importance = IMPORTANCE.get(category, 50) + (10 if clause.explicit else 0)
    fields: dict[str, object] = {
        "content": content,
        "type": type_,
        "category": category,
        "key": key[:128],
        "value": value[:VALUE_MAX] or content[:VALUE_MAX],
        "subject": clause.subject,
        "importance": min(100, importance),
        "confidence": 1.0 if clause.explicit else 0.9,
        "ttl_class": TTL_BY_CATEGORY.get(category, TTLClass.LONG),
        "rule": rule,
        "said": clause.said or clause.text,
    }
    fields.update(extra)
    if fields.get("cue") is ChangeCue.UPDATE and not fields.get("previous_value"):
        # "we replaced Kong with Envoy": the value a change names is what it replaces
        fields["previous_value"] = changed_from(clause.said or clause.text)
    if not fields.get("sensitive"):
        # Trigger: the slot is ordinary, but the clause's words name a forbidden family
        #          ("my manager is …, she's pregnant", "our intern was arrested").
        # Why: every candidate a sensitive clause yields is refused, whichever rule
        #      (or the reader) read it — the rewrite must not launder the words.
        # Outcome: marked; capture refuses it (detector ``extract.sensitive_words``).
        found = sensitive_words(str(fields["said"]))
        if found:
            fields.update(sensitive=found, sensitive_in="words")
    return Candidate(**fields)  # type: ignore[arg-type]


def change_cue(*flags: object) -> ChangeCue:
    """UPDATE when any change marker ("now", "no longer", …) was seen, else ASSERT."""
    return ChangeCue.UPDATE if any(flags) else ChangeCue.ASSERT


def slot_rule(
    rule: str,
    type_: MemoryType,
    category: str,
    key: str,
    *,
    value: str = "v",
    slot: str | None = None,
    words: int = 4,
    head: bool = False,
    cues: tuple[str, ...] = (),
    **flags: bool,
) -> Build:
    """The builder most rules share: the clause as said, one slot's words as its value.

    The key is ``key`` followed by the slug (at most ``words`` words) of the
    match group ``slot`` — of its head phrase when ``head`` — or ``key`` alone
    without a slot; the value is group ``value``; the cue is UPDATE when any
    group named in ``cues`` matched; ``flags`` (``exclusive``, ``negated``)
    pass through to the candidate.

    >>> build = slot_rule("diet", MemoryType.PREFERENCE, "CONSTRAINT", "diet.", value="x", slot="x")
    >>> m = rx(r"i am (?P<x>vegan)").match("I am vegan")
    >>> c = build(m, Clause("I am vegan", "Ana", date(2026, 11, 26)))
    >>> (c.key, c.value, c.content) if c else None
    ('diet.vegan', 'vegan', 'Ana is vegan.')
    """

    def build(m: re.Match[str], c: Clause) -> Candidate:
        name = key
        if slot is not None:
            name += slug(head_phrase(m[slot]) if head else m[slot], max_words=words)
        extra: dict[str, object] = dict(flags)
        if cues:
            extra["cue"] = change_cue(*(m[g] for g in cues))
        return candidate(c, rule, c.statement(), type_, category, name, c.value(m[value]), **extra)

    return build


def rx(pattern: str) -> re.Pattern[str]:
    """A rule pattern: compiled case-insensitively."""
    return re.compile(pattern, re.I)
