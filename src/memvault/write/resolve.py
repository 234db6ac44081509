"""Resolve a candidate against its neighbours: a pure decision, no I/O.

Given a candidate and the active memories recalled for it (same orchestrator,
same user and project scope), each with a calibrated similarity, decide:

==============  ===========================================================
outcome         when
==============  ===========================================================
merged          same statement: equal normalised content; or same key,
                value and polarity; or similarity ≥ ``duplicate`` with the
                same polarity and no conflicting value → touch the old node
updated         same key with a new value (or flipped polarity) *and* an
                explicit change cue ("moved to", "now prefers", "no longer");
                or a change cue and the closest memory of the same type on
                the same topic (similarity plus slot family or shared words);
                a todo reported done → new node, ``Updates`` edge, old node
                superseded
contradiction   same key, opposite polarity or a different value of an
                exclusive key, no change cue; or similarity ≥
                ``contradiction`` with opposite polarity or a different
                number → ``Contradicts`` edge, both stay active
related         similarity ≥ ``related`` → ``RelatedTo`` edges, weight =
                similarity, top ``related_top_k``
stored          none of the above
==============  ===========================================================

>>> from memvault.extract.base import Candidate
>>> from memvault.model.enums import MemoryType
>>> c = Candidate("Dana does not drink coffee.", MemoryType.PREFERENCE, "PREFERENCE",
...               "likes.coffee", "coffee", negated=True)
>>> old = NeighbourView("m1", "Dana loves coffee.", "likes.coffee", "coffee", "Preference", 0.8)
>>> r = resolve(c, [old], bands_for("lexical"))
>>> r.outcome.value, r.contradicts
('contradiction', ('m1',))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.reader import english_like
from memvault.extract.text import content_tokens, has_negation
from memvault.write.config import SimilarityBands, bands_for

__all__ = ["NeighbourView", "Outcome", "Resolution", "bands_for", "resolve"]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


class Outcome(StrEnum):
    """What happened to a candidate (the ``outcome`` of the capture JSON)."""

    STORED = "stored"
    MERGED = "merged"
    UPDATED = "updated"
    CONTRADICTION = "contradiction"
    RELATED = "related"
    REJECTED = "rejected"
    #: consent-gated: queued as a proposal the user can confirm (nothing stored yet)
    PROPOSED = "proposed"


@dataclass(frozen=True, slots=True)
class NeighbourView:
    """What the resolver needs to know about one recalled active memory."""

    memory_id: str
    content: str
    key: str
    value: str
    type: str
    similarity: float


@dataclass(frozen=True, slots=True)
class Resolution:
    """The decision for one candidate; ids refer to existing memories."""

    outcome: Outcome
    merge_into: str | None = None
    supersedes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    related: tuple[tuple[str, float], ...] = ()
    reason: str = ""


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


#: Types an update cue may supersede by meaning (todos and events close by key only).
_UPDATABLE = frozenset({"Fact", "Preference", "Decision", "Goal"})


#: How far below the related band a change cue may still find the memory it changes.
UPDATE_SLACK = 0.1

#: Key families every reader-kept clause of a type shares (no slot of their own).
_GENERIC = frozenset({"fact", "event", "todo", "note", "goal", "decision"})

#: What a reversal ("changed my mind", "scratch that") takes back: a plan, not a fact.
_PLANS = frozenset({"Decision", "Goal"})
_REVERSAL = re.compile(
    r"\b(?:after all|change of plan|scratch that|on second thought|actually no"
    r"|chang(?:ed|ing) (?:my|our|their) minds?|decided against)\b",
    re.I,
)

_PREFERENCE_SLOTS = frozenset({"likes", "prefers", "favourite", "preference"})
#: Words of a change cue ("switched to", "now", "any more"): shared by a change and
#: an unrelated memory that happened to say "now", they are no evidence of a topic.
_CUE_WORDS = frozenset(
    """now switched switch changed change moved move mind longer anymore days nowadays
    instead actually keeping keep still""".split()
)


def _family(key: str) -> str:
    """The slot family of a key ("prefers.editor" → "preference"; "" without one)."""
    if "." not in key:
        return ""
    head = key.split(".", 1)[0]
    return "preference" if head in _PREFERENCE_SLOTS else head


def _slot_match(key: str, other: str) -> bool:
    """The same slot: one family and a shared word in the slot's object.

    A generic family alone is no slot: every clause the reader kept as a fact is
    keyed ``fact.…``, every event ``event.…`` — those need a shared word in the key.

    >>> _slot_match("likes.coffee", "prefers.tea_over_coffee")
    True
    >>> _slot_match("fact.daughter_school", "fact.evening_runs")
    False
    >>> _slot_match("prefers.light_themes", "likes.dark_mode")
    True
    """
    family = _family(key)
    if not family or _family(other) != family:
        return False
    if family not in _GENERIC:
        return True  # a named slot: "prefers.dark_mode" and "prefers.light_themes"
    return bool(set(key.split(".", 1)[1].split("_")) & set(other.split(".", 1)[1].split("_")))


_RELATION = re.compile(
    r"^\S+(?:\s\S+)?['’]s\s+(?:(?:older|younger|little|big|best|new|old|eldest|youngest)\s+)?"
    r"(?P<who>daughter|son|kid|child|children|baby|wife|husband|partner|spouse|boyfriend"
    r"|girlfriend|fianc[ée]e?|mom|mum|mother|dad|father|parent|brother|sister|sibling"
    r"|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|niece|nephew|friend"
    r"|roommate|flatmate|neighbou?r|boss|manager|colleague|coworker|co-worker|dog|cat|pet"
    r"|puppy|kitten)s?\b",
    re.I,
)


def _holder(content: str) -> str:
    """Whom a statement is about: a person or pet of the speaker's, or "" (the speaker).

    >>> _holder("Maya's daughter goes to Oakwood Primary."), _holder("Maya runs at 6am.")
    ('daughter', '')
    """
    found = _RELATION.match(content)
    return found["who"].lower().rstrip("s") if found else ""


def _same_topic(candidate: Candidate, n: NeighbourView, bands: SimilarityBands) -> bool:
    """Vector similarity plus slot match: same type, close in meaning, about the same
    person, and the same slot or shared content words besides the speaker."""
    if n.type not in _UPDATABLE or candidate.type.value not in _UPDATABLE:
        return False
    if _holder(candidate.content) != _holder(n.content):
        # Trigger: a change cue ("switched to evening runs") and a close memory about
        #          someone else ("Maya's daughter goes to Oakwood Primary").
        # Why: a change the speaker states about themself never changes a fact about
        #      their daughter, however close the words are (both mention school, mornings).
        # Outcome: not the same topic; the old memory stays active.
        return False
    ignore = {w.lower() for w in candidate.subject.split()} | {"team"}
    shared = (content_tokens(candidate.content) & content_tokens(n.content)) - ignore - _CUE_WORDS
    if (
        shared
        and n.similarity >= bands.related - UPDATE_SLACK
        and _numbers(candidate.content) - _numbers(n.content)
        and _numbers(n.content) - _numbers(candidate.content)
    ):
        # Trigger: a change cue, a shared topic word and a new number ("scratch that,
        #          the standup moved to 10:15" after "the standup is at 9:30").
        # Why: a time, a version or a size changed is a slot's new value, however
        #      the change is phrased or typed (a decision, a fact).
        # Outcome: the same topic; the old memory is superseded.
        return True
    if n.type != candidate.type.value:
        # Trigger: a change cue, and the memory it changes was typed otherwise
        #          ("we moved the sync to Thursdays" — a decision — changes the fact
        #          "the team syncs on Tuesdays").
        # Why: the type says how a statement was phrased, not what it is about.
        # Outcome: across types only when close in meaning *and* sharing words.
        return n.similarity >= bands.related and len(shared) >= 1
    if n.similarity >= bands.contradiction:
        return bool(shared) or _slot_match(candidate.key, n.key)
    if _REVERSAL.search(candidate.content) and n.type in _PLANS and n.similarity >= bands.related:
        # Trigger: "actually I changed my mind, we're keeping RabbitMQ", and the
        #          closest related plan ("moving the job queue to Kafka").
        # Why: a reversal names what stays, not what it reverses: few shared words.
        # Outcome: the plan it reverses is superseded (only the closest one).
        return True
    # Only ever asked under an explicit change cue ("these days", "switched to"): the
    # new value makes the statement less similar than a plain paraphrase ("uses VS
    # Code for everything" → "these days uses Zed for everything": 0.55 with MiniLM),
    # so the bar is a notch below the related band, with the slot or words to match.
    if n.similarity < bands.related - UPDATE_SLACK:
        return False
    if n.similarity >= bands.related and shared:
        return True  # close in meaning and one topic word ("standup" at 9:30 → at 10)
    return _slot_match(candidate.key, n.key) or len(shared) >= 2


_CJK_PAIR = re.compile(r"(?=([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2}))")


def _one_topic(candidate: Candidate, n: NeighbourView) -> bool:
    """Whether a close neighbour is about what the candidate is about, beyond the vectors.

    English statements: the similarity band says so. In other languages the
    English sentence model reads two unrelated statements of one language as close
    (0.6–0.7: "请用中文回答我" and "我在深圳做嵌入式开发"), so a different number
    or a negation is a conflict only when the two share a word of four letters or
    more besides numbers and the speaker's name, or two CJK characters in a row.

    >>> from memvault.model.enums import MemoryType
    >>> c = Candidate("Somos seis en el equipo.", MemoryType.FACT, "KNOWLEDGE", "", "", subject="A")
    >>> _one_topic(c, NeighbourView("m1", "Vivo en Lugo desde 2019.", "", "", "Fact", 0.75))
    False
    >>> _one_topic(c, NeighbourView("m2", "Somos cuatro en el equipo.", "", "", "Fact", 0.8))
    True
    """
    if english_like(candidate.content) and english_like(n.content):
        return True
    ignore = {w.lower() for w in candidate.subject.split()}
    words = {
        w
        for w in content_tokens(candidate.content) & content_tokens(n.content)
        if len(w) > 3 and not _NUMBER.fullmatch(w)
    } - ignore
    if words:
        return True
    pairs = set(_CJK_PAIR.findall(candidate.content)) & set(_CJK_PAIR.findall(n.content))
    return bool(pairs)


def _repeated(
    candidate: Candidate, neighbours: Sequence[NeighbourView], bands: SimilarityBands
) -> NeighbourView | None:
    """What a statement that says it is a repeat ("as I mentioned, …") repeats.

    Trigger: "As I mentioned, our main cluster runs 15.4 in eu-north-1" after "Our
             main cluster runs version 15.4 in eu-north-1": close, not identical.
    Why: the user says it was said before; a second memory would only repeat it.
    Outcome: the closest memory of the same type in the related band, on the same
             topic, with no number of its own the repeat contradicts, is touched.
    """
    for n in sorted(neighbours, key=lambda n: (-n.similarity, n.memory_id)):
        if n.type != candidate.type.value or n.similarity < bands.related:
            continue
        if _numbers(candidate.content) - _numbers(n.content) or not _one_topic(candidate, n):
            continue
        if has_negation(n.content) != (candidate.negated or has_negation(candidate.content)):
            continue
        return n
    return None


def _names_old_value(candidate: Candidate, n: NeighbourView) -> bool:
    """A change names the value it replaces ("we replaced Kong with Envoy"), and the
    memory holds that value as a word ("the API gateway is Kong") about the same person.

    Close meaning is no requirement: the new statement names the new value, which
    makes it read unlike the old one, and the named old value is the surer link.
    A todo or an event is never changed this way (a todo closes on "done").
    """
    if n.type in {"Todo", "Event"} or _holder(candidate.content) != _holder(n.content):
        return False
    value = _norm(candidate.previous_value)
    # a Latin name inside Japanese or Chinese text ("主にVueを使っています") is bounded by
    # what is not a Latin letter or digit: every CJK character is a word character
    edge = r"[A-Za-z0-9]" if value.isascii() else r"\w"
    found = re.search(rf"(?<!{edge}){re.escape(value)}(?!{edge})", _norm(n.content))
    return found is not None


def resolve(
    candidate: Candidate,
    neighbours: Sequence[NeighbourView],
    bands: SimilarityBands,
    *,
    related_top_k: int = 3,
) -> Resolution:
    """Decide merge / update / contradiction / related / stored for ``candidate``."""
    negated = candidate.negated or has_negation(candidate.content)
    content = _norm(candidate.content)
    value = _norm(candidate.value)
    supersedes: list[str] = []
    contradicts: list[str] = []
    related: list[tuple[str, float]] = []
    reasons: list[str] = []
    best_duplicate: NeighbourView | None = None

    for n in sorted(neighbours, key=lambda n: (-n.similarity, n.memory_id)):
        n_negated = has_negation(n.content)
        same_polarity = n_negated == negated
        same_key = bool(candidate.key) and n.key == candidate.key
        same_value = same_key and _norm(n.value) == value
        numbers_differ = (
            bool(_numbers(candidate.content))
            and bool(_numbers(n.content))
            and (_numbers(candidate.content) != _numbers(n.content))
        )

        # Trigger: a todo reported finished, and an open todo about the same thing.
        # Why: "sent the invoice" closes "send the invoice"; the todo stays explainable.
        # Outcome: new node Updates the todo, which becomes superseded.
        if candidate.cue is ChangeCue.DONE:
            if n.type == "Todo" and (same_key or n.similarity >= bands.done):
                supersedes.append(n.memory_id)
                reasons.append("todo done")
            elif n.type != "Todo" and _norm(n.content) == content:
                best_duplicate = best_duplicate or n
            continue

        duplicate = _norm(n.content) == content or (
            same_value and same_polarity and candidate.cue is not ChangeCue.UPDATE
        )
        if not duplicate and same_polarity and n.similarity >= bands.duplicate:
            conflicting = (same_key and not same_value and candidate.exclusive) or numbers_differ
            duplicate = not conflicting and candidate.cue is not ChangeCue.UPDATE
        if duplicate:
            best_duplicate = best_duplicate or n
            continue

        changed = candidate.cue is ChangeCue.UPDATE
        previous = _norm(candidate.previous_value)
        if (
            changed
            and previous
            and previous in _norm(n.content)
            and (same_key or n.similarity >= bands.related or _names_old_value(candidate, n))
        ):
            supersedes.append(n.memory_id)
            reasons.append(f"changed from {candidate.previous_value}")
        elif same_key and (not same_polarity or (candidate.exclusive and not same_value)):
            # Trigger: the same slot (key) with a new value or the opposite polarity.
            # Why: an explicit change cue means the old fact is history (update);
            #      without one we cannot tell which is true (contradiction).
            # Outcome: Updates + superseded, or Contradicts with both active.
            if changed:
                supersedes.append(n.memory_id)
                reasons.append("new value" if same_polarity else "no longer true")
            else:
                contradicts.append(n.memory_id)
                reasons.append("opposite polarity" if not same_polarity else "incompatible values")
        elif (
            n.similarity >= bands.contradiction
            and (not same_polarity or numbers_differ)
            and _one_topic(candidate, n)
        ):
            if changed:
                supersedes.append(n.memory_id)
                reasons.append("changed")
            else:
                contradicts.append(n.memory_id)
                reasons.append("negation" if not same_polarity else "numeric conflict")
        elif changed and not supersedes and _same_topic(candidate, n, bands):
            # Trigger: "now", "switched to", "these days", "scratch that" … and the
            #          closest earlier memory of the same type on the same topic,
            #          worded differently (no shared key).
            # Why: an update must replace what it changes even when the words differ
            #      ("now prefers light themes" vs "likes dark mode").
            # Outcome: Updates edge, the old memory superseded (only the closest one).
            supersedes.append(n.memory_id)
            reasons.append("changed (same topic)")
        elif n.similarity >= bands.related:
            related.append((n.memory_id, round(n.similarity, 4)))

    if best_duplicate is None and not supersedes and candidate.repeat:
        best_duplicate = _repeated(candidate, neighbours, bands)
    if best_duplicate is not None and not supersedes:
        return Resolution(
            Outcome.MERGED, merge_into=best_duplicate.memory_id, reason="same statement"
        )
    taken = set(supersedes) | set(contradicts)
    related = [(m, s) for m, s in related if m not in taken][:related_top_k]
    if supersedes:
        outcome = Outcome.UPDATED
    elif contradicts:
        outcome = Outcome.CONTRADICTION
    elif related:
        outcome = Outcome.RELATED
    else:
        outcome = Outcome.STORED
    return Resolution(
        outcome,
        supersedes=tuple(dict.fromkeys(supersedes)),
        contradicts=tuple(dict.fromkeys(contradicts))[:3],
        related=tuple(related),
        reason="; ".join(dict.fromkeys(reasons)),
    )
