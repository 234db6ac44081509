"""The consolidation worker's decisions, as pure functions (spec §4).

A *pair* is a candidate memory and one of its recalled neighbours (same
user, same project). Deterministic rules, no LLM, classify it:

==========  ===============================================================
decision    when
==========  ===============================================================
merge       the same statement: equal normalised text, or similarity at or
            above the ``duplicate`` band with the same polarity, the same
            numbers and the same type → the weaker node is superseded by the
            stronger one, which keeps both sources
propose     a user's fact that a newer statement rewrites: similarity at or
            above ``contradiction`` with opposite polarity or different
            numbers → a consent proposal (the user decides which is true)
contradict  the same, for memories that are not about a user → a
            ``Contradicts`` edge; both stay active
link        similarity at or above ``related`` → ``RelatedTo``, weight = score
skip        anything else
==========  ===============================================================

>>> classify(pair_view("a", "Dana drinks 2 coffees a day", "Preference", "u1"),
...          pair_view("b", "Dana drinks 3 coffees a day", "Preference", "u1"),
...          0.8, DEFAULT_BANDS["lexical"])
'propose'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memvault.write.config import DEFAULT_BANDS, SimilarityBands

__all__ = [
    "DEFAULT_BANDS",
    "ConsolidationReport",
    "PairView",
    "classify",
    "fingerprint",
    "has_negation",
    "lexical_overlap",
    "numbers",
    "pair_key",
    "pair_view",
]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|no longer|"
    r"\w+n't|dont|doesnt|didnt|isnt|wasnt|cannot)\b",
    re.IGNORECASE,
)
_STOP = frozenset(
    "a an the and or of to in on at for with by is are was were be been it its this that "
    "as from has have had do does did i you he she they we my your his her their our".split()
)


@dataclass(frozen=True, slots=True)
class PairView:
    """What the rules need to know about one side of a pair."""

    memory_id: str
    content: str
    type: str
    user_id: str | None


def pair_view(memory_id: str, content: str, type_: str, user_id: str | None) -> PairView:
    return PairView(memory_id, content, type_, user_id)


def pair_key(a: str, b: str) -> str:
    """An order-free key for a pair of memory ids.

    >>> pair_key("mem_b", "mem_a")
    'mem_a+mem_b'
    """
    return "+".join(sorted((a, b)))


def fingerprint(a: str, b: str, score: float) -> tuple[str, float]:
    """Spec §4: ``(id_a, id_b, round(score, 2))`` — a pair is rechecked if its score moved."""
    return pair_key(a, b), round(score, 2)


def numbers(text: str) -> frozenset[str]:
    return frozenset(n.replace(",", "") for n in _NUMBER.findall(text))


def has_negation(text: str) -> bool:
    return _NEGATION.search(text) is not None


def _words(text: str) -> frozenset[str]:
    return frozenset(
        w for w in (t.lower() for t in _WORD.findall(text)) if w not in _STOP and not w.isdigit()
    )


def lexical_overlap(a: str, b: str) -> bool:
    """True when the two texts share a content word (a cheap pre-filter)."""
    return bool(_words(a) & _words(b))


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def classify(a: PairView, b: PairView, similarity: float, bands: SimilarityBands) -> str:
    """``merge``, ``propose``, ``contradict``, ``link`` or ``skip`` for one pair.

    Trigger: two memories of one user and project that recall each other.
    Why: the hot path resolved them against each other only if they arrived
    in that order and inside its caps; the worker catches the rest, but a
    change to what a user said is theirs to confirm (DESIGN §2.4).
    Outcome: one decision, the same for the same inputs.
    """
    same_polarity = has_negation(a.content) == has_negation(b.content)
    na, nb = numbers(a.content), numbers(b.content)
    numbers_differ = bool(na) and bool(nb) and na != nb
    if _norm(a.content) == _norm(b.content):
        return "merge"
    if similarity >= bands.duplicate and same_polarity and na == nb and a.type == b.type:
        return "merge"
    if similarity >= bands.contradiction and (not same_polarity or numbers_differ):
        return "propose" if a.user_id is not None else "contradict"
    if similarity >= bands.related:
        return "link"
    return "skip"


@dataclass(frozen=True, slots=True)
class ConsolidationReport:
    """What one consolidation run looked at and changed."""

    now: str
    candidates: int = 0
    pairs_checked: int = 0
    skipped_fingerprint: int = 0
    merged: tuple[tuple[str, str, float], ...] = ()  # (kept, superseded, similarity)
    linked: tuple[tuple[str, str, float], ...] = ()
    contradicted: tuple[tuple[str, str, float], ...] = ()
    proposed: tuple[tuple[str, str, str], ...] = ()  # (proposal id, older, newer)
    capped_users: tuple[str, ...] = ()
    truncated: bool = False
    seconds: float = 0.0
    similarity_model: str = "lexical"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "counts": {
                "candidates": self.candidates,
                "pairs_checked": self.pairs_checked,
                "skipped_fingerprint": self.skipped_fingerprint,
                "merged": len(self.merged),
                "linked": len(self.linked),
                "contradicted": len(self.contradicted),
                "proposed": len(self.proposed),
            },
            "merged": [{"kept": k, "superseded": s, "similarity": x} for k, s, x in self.merged],
            "linked": [{"from": a, "to": b, "similarity": x} for a, b, x in self.linked],
            "contradicted": [
                {"from": a, "to": b, "similarity": x} for a, b, x in self.contradicted
            ],
            "proposed": [{"proposal_id": p, "older": o, "newer": n} for p, o, n in self.proposed],
            "capped_users": list(self.capped_users),
            "truncated": self.truncated,
            "seconds": round(self.seconds, 3),
            "similarity_model": self.similarity_model,
        }


def top_decile_access(counts: Sequence[int], fraction: float) -> int:
    """The smallest ``access_count`` that is in the top ``fraction`` (never 0).

    >>> top_decile_access([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 0.1)
    9
    """
    positive = sorted((c for c in counts if c > 0), reverse=True)
    if not positive or fraction <= 0:
        return 2**62
    keep = max(1, int(len(counts) * fraction))
    return positive[min(keep, len(positive)) - 1]
