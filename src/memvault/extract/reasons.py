"""A preference's reason, said in the next sentence, stays with the preference.

"I prefer short answers with the numbers first. I read them between customers.",
"Please give depths in metres, never feet. My students are all metric.": the
second sentence says why the user wants things that way. Kept alone it is a
memory that says little ("Desmond reads them between customers.", "Marisol's
students are all metric.") and is recalled without the preference it explains;
on the readable evaluation sets 37 of the 40 facts and preferences kept right
after a preference were such reasons. :func:`join_reason` makes the reason the
preference's second sentence.

Joined only to a preference that asks something of the listener or is about its
answers ("Please give …", "Keep your replies …", "I prefer short answers …") — two
tastes ("I love jazz. I drink green tea.") stay two memories, and a sentence with a
taste of its own ("… I like to work them out") is no reason.
Never joined: a preference that names the user (an introduction), a reason that
states a change, a fact that names a tool (the stack's own fact: "The till runs on
Lightspeed"), an explicit "remember …", a sensitive or refused clause, a memory in
the user's words beside a rewritten one, or anything past the statement's
constraints (two sentences, 280 characters).

>>> from memvault.model.enums import MemoryType
>>> taste = Candidate(content="Ana prefers short answers.", type=MemoryType.PREFERENCE,
...                   category="PREFERENCE", key="prefers.short", value="x", rule="prefer",
...                   said="I prefer short answers.")
>>> why = Candidate(content="Ana reads them on the bus.", type=MemoryType.FACT,
...                 category="KNOWLEDGE", key="fact.bus", value="y", rule="reader.fact",
...                 said="I read them on the bus.")
>>> out, _, joined = join_reason([taste, why], {id(taste): 0, id(why): 1})
>>> [c.content for c in out], [c.content for c in joined]
(['Ana prefers short answers. Ana reads them on the bus.'], ['Ana reads them on the bus.'])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memvault.extract.attach import refused_alone
from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.constraints import check_statement
from memvault.extract.context import about_replies, wants_replies
from memvault.extract.deciding import asked_of_listener
from memvault.extract.reading import INTRODUCTIONS, UPDATE_CUE, VERBATIM_RULE
from memvault.extract.stack import tool_named
from memvault.model.enums import MemoryType

__all__ = ["join_reason"]

_REASONS = frozenset({MemoryType.FACT, MemoryType.PREFERENCE})
#: What the answers are ("I prefer short answers", "I like explanations with …").
_ANSWER_WORDS = frozenset(
    "reply replies answer answers response responses explanation explanations example"
    " examples snippet snippets summary summaries feedback recipe recipes code unit units"
    " measurement measurements spelling format".split()
)
#: A taste of the sentence's own ("I love green tea"): a second preference, not a reason.
_TASTE_WORDS = frozenset(
    "like likes love loves prefer prefers enjoy enjoys hate hates favourite favorite adore".split()
)
_WORD = re.compile(r"[a-z]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _about_the_answers(said: str) -> bool:
    """Whether a preference asks the listener for something or is about its answers."""
    return (
        asked_of_listener(said)
        or about_replies(said)
        or wants_replies(said)
        or not _ANSWER_WORDS.isdisjoint(_words(said))
    )


def _joins(host: Candidate, reason: Candidate) -> bool:
    """Whether ``reason`` (the sentence after ``host``) may be ``host``'s reason."""
    said = reason.said or reason.content
    return not (
        host.type is not MemoryType.PREFERENCE
        or not _about_the_answers(host.said or host.content)
        or not _TASTE_WORDS.isdisjoint(_words(said))
        or reason.type not in _REASONS
        or host.rule in INTRODUCTIONS
        or reason.rule in INTRODUCTIONS
        or reason.rule == "remember"
        or host.sensitive
        or reason.sensitive
        or reason.cue is not ChangeCue.ASSERT
        or UPDATE_CUE.search(said) is not None
        or host.rule.startswith(VERBATIM_RULE) is not reason.rule.startswith(VERBATIM_RULE)
        or (reason.type is MemoryType.FACT and tool_named(said) is not None)
    )


def join_reason(
    candidates: Sequence[Candidate], sentence_of: dict[int, int]
) -> tuple[list[Candidate], dict[int, int], list[Candidate]]:
    """The candidates with each preference's reason joined to it, their sentences (by
    ``id``, as ``sentence_of``) and the reasons joined."""
    out = list(candidates)
    where = dict(sentence_of)
    joined: list[Candidate] = []
    i = 1
    while i < len(out):
        host, reason = out[i - 1], out[i]
        at = where.get(id(host))
        if at is None or where.get(id(reason)) != at + 1 or not _joins(host, reason):
            i += 1
            continue
        content = f"{host.content} {reason.content}"
        problems = check_statement(content)
        if host.rule.startswith(VERBATIM_RULE):
            problems = tuple(p for p in problems if p != "first_or_second_person")
        if problems or refused_alone(reason.said or reason.content):
            i += 1
            continue
        both = replace(host, content=content, said=f"{host.said} {reason.said}".strip())
        del where[id(host)], where[id(reason)]
        where[id(both)] = at
        out[i - 1 : i + 1] = [both]
        joined.append(reason)
    return out, where, joined
