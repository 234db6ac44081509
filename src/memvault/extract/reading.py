"""What the clause reader's verdict does to a clause: drop it, type it, or word it.

The rules fill slots and resolve dates; the reader (:mod:`memvault.extract.reader`)
decides what is kept and as which type:

- :func:`silent` — the clause is a question, chit-chat or a one-off (or its
  whole sentence is a one-off: "dentist appointment tomorrow, so I can't join
  the standup" is about tomorrow, not a standing constraint): nothing is kept;
- :func:`retype` — a rule built a candidate and the reader is confident it is
  another type ("I use helix every day" read as a fact about the stack, not a
  like): the rule's wording and slot stay, the type and category change;
- :func:`statement_candidate` — no rule knows the phrasing ("the api is
  written in go", "gotta fix the flaky test before friday", "ping me tomorrow
  about the invoice"): the user's own words, in the third person, become the
  statement, typed by the reader.

>>> from datetime import date
>>> from memvault.extract.clause import Clause
>>> from memvault.extract.reader import Reading
>>> r = Reading("todo", 0.9, (("todo", 0.9),))
>>> c = statement_candidate(Clause("gotta fix the flaky test before friday", "Tom",
...                                date(2026, 11, 23)), r)
>>> c.type.value, c.content
('Todo', 'Tom needs to fix the flaky test before 2026-11-27.')
"""

from __future__ import annotations

import re
from dataclasses import replace

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.clause import IMPORTANCE, TTL_BY_CATEGORY, Clause, candidate
from memvault.extract.reader import SILENT, TYPES, Reading
from memvault.extract.text import object_slug, slug
from memvault.model.enums import MemoryType

__all__ = [
    "RETYPE_MIN",
    "SILENT_OVER_RULE",
    "UPDATE_CUE",
    "as_current_state",
    "english_like",
    "overrules_rules",
    "reading_label",
    "retype",
    "silent",
    "statement_candidate",
]

#: The reader overrides a rule's type only at or above this probability.
RETYPE_MIN = 0.6
#: A clause a rule understood is dropped as silent only at or above this probability.
SILENT_OVER_RULE = 0.7
#: A sentence read as a one-off silences its clauses at or above this probability.
SENTENCE_SILENT_MIN = 0.5

UPDATE_CUE = re.compile(
    r"\b(?:now|no longer|these days|nowadays|any ?more|scratch that|used to|instead of"
    r"|from now on|change of plan"
    # "switched to", "moved the builds to", "upgraded the cluster to", "replaced X with"
    r"|(?:switched|changed|moved|migrated|upgraded|downgraded|upgrade|migrate|switch)"
    r"(?:\s+[\w.+#/-]+){0,4}?\s+(?:to|from|over|onto)"
    r"|replaced(?:\s+[\w.+#/-]+){1,4}?\s+with)\b",
    re.I,
)
# Rules whose type is structural (a todo reported done closes the todo; a
# procedure is numbered steps): the reader never retypes them.
# Standing instructions, diets and named slots ("my timezone is …") are typed by
# their rule too: the slot says more than the wording.
_KEEP_RULE_TYPE = frozenset(
    {
        "todo_done",
        "procedure",
        "preferred_name",
        "reply_in",
        "instruction",
        "want_you",
        "by_default",
        "constraint",
        "unavailable",
        "diet",
        "favourite",
        "prefer",
        "prefer_over",
        "goal",
        "todo",
        "decision",
        "remember",
    }
)

_NEED = re.compile(
    r"^(?:i\s+)?(?:still\s+)?(?:need to|needs to|gotta|got to|have to|has to|'ve got to"
    r"|must|should|ought to)\s+(?P<x>.+)$"
    r"|^(?:to do|todo|to-do|on my list|action item(?: for me)?)\s*[:-]\s*(?P<y>.+)$",
    re.I,
)
_REMIND = re.compile(
    r"^(?:(?:please\s+)?(?:remind|nudge|ping)\s+me\s+(?P<when>.*?)\s*(?P<to>to|about)\s+(?P<x>.+)"
    r"|reminder\s*[:-]\s*(?P<y>.+)|set a reminder (?:to|for)\s+(?P<z>.+)"
    r"|make sure i\s+(?P<w>.+))$",
    re.I,
)


_ABOUT_THIS = re.compile(
    r"\b(?:love|like|hate|enjoy|prefer|dig|adore)s?\s+(?:it|this|that|them)(?:\s+\w+)?\W*$", re.I
)


_LEAD_ONLY = re.compile(
    r"^(?:before i forget|remind me|quick question|one more thing|last thing|just so you know"
    r"|for context|some context|small correction|not sure if i told you|as i said)\W*$",
    re.I,
)


# The commonest English function words: every English clause of some length has a
# few, a clause in another language almost none ("an", "a", "me" are shared).
_ENGLISH = frozenset(
    """the a an to of in on for with and or but is are was were be been am i i'm we we're my
    our you it it's this that at by from as have has had do does did not no so if will would
    can should need needs use uses just all me us they their there what when how up out about
    into than then also very every each after before our's isn't don't doesn't""".split()
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def english_like(text: str) -> bool:
    """Whether ``text`` reads as English (the language the reader was trained on).

    Short clauses pass; from four words on, at least a fifth must be common
    English function words. Kept in the user's words, a clause the reader only
    guessed at would be stored unparsed — in any language, sensitive or not.

    >>> english_like("we deploy the api with helm"), english_like("Wir deployen mit Helm jeden Tag")
    (True, False)
    """
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 4:
        return True
    return sum(w in _ENGLISH for w in words) >= 0.2 * len(words)


_DECIDED = re.compile(
    r"\b(?:decid\w*|agreed?|chose|chosen|settled|going with|go with|picked|voted|approved)\b",
    re.I,
)


def as_current_state(cand: Candidate, text: str) -> Candidate:
    """A change stated as done ("we moved the builds to Nx", "upgraded to Vault 1.17")
    is the new state of things — a Fact — unless the clause says it was decided.

    The type of an update follows what it replaces (a fact about the stack), so
    the memory it supersedes and the new one are of one kind.
    """
    if cand.cue is not ChangeCue.UPDATE or cand.type not in (MemoryType.DECISION, MemoryType.EVENT):
        return cand
    if _DECIDED.search(text) or cand.rule in _KEEP_RULE_TYPE:
        return cand
    return replace(
        cand,
        type=MemoryType.FACT,
        category="KNOWLEDGE",
        importance=max(cand.importance, IMPORTANCE.get("KNOWLEDGE", 50)),
        ttl_class=TTL_BY_CATEGORY.get("KNOWLEDGE", cand.ttl_class),
    )


def silent(clause: Reading, sentence: Reading | None, *, explicit: bool, text: str) -> str:
    """Why nothing is kept of this clause ("" = keep it)."""
    if explicit:
        return ""
    if text.rstrip().endswith("?"):
        return "question mark"
    if (
        sentence is not None
        and sentence.label == "oneoff"
        and sentence.score >= SENTENCE_SILENT_MIN
    ):
        return "one-off sentence"
    if clause.label in SILENT:
        return clause.label  # the only reason a rule's reading can outweigh
    return ""


def reading_label(reading: Reading | None) -> str:
    """The reader's label ("" without a reading)."""
    return "" if reading is None else reading.label


#: Rules that only saw a date ("… today", "… this afternoon"): a sure one-off
#: reading outweighs them — a dated clause is as often today's plan as an event.
_DATED_RULES = frozenset({"event"})


def overrules_rules(reading: Reading | None, rule: str = "") -> bool:
    """A silent reading confident enough to drop a clause a rule would have kept."""
    if reading is None or reading.label not in SILENT:
        return False
    return reading.score >= SILENT_OVER_RULE or (rule in _DATED_RULES and reading.sure)


def retype(cand: Candidate, reading: Reading) -> Candidate:
    """The rule's candidate with the reader's type when it is confident and it differs."""
    if cand.rule in _KEEP_RULE_TYPE or reading.label not in TYPES:
        return cand
    if cand.rule == "my_x_is" and cand.type is MemoryType.PREFERENCE:
        return cand  # "my timezone is …": the slot noun made it a preference
    type_, category = TYPES[reading.label]
    if cand.type is type_ and (reading.label != "reminder" or cand.category == "REMINDER"):
        return cand
    if reading.score < RETYPE_MIN:
        return cand
    if cand.type is type_:  # same type, more specific category (a reminder)
        return replace(cand, category=category)
    return replace(
        cand,
        type=type_,
        category=category,
        importance=max(cand.importance, IMPORTANCE.get(category, 50)),
        ttl_class=TTL_BY_CATEGORY.get(category, cand.ttl_class),
        exclusive=cand.exclusive and type_ in (MemoryType.FACT, MemoryType.PREFERENCE),
    )


def statement_candidate(clause: Clause, reading: Reading) -> Candidate | None:
    """A candidate in the user's own words, typed by the reader (no rule knew the phrasing)."""
    if reading.label not in TYPES or reading.label == "procedure":
        # Steps are kept only as a whole (numbered, or on "remember these steps"):
        # describing what one usually does is not a procedure to store (spec §12).
        return None
    type_, category = TYPES[reading.label]
    text = clause.text.strip()
    if _ABOUT_THIS.search(text) or _LEAD_ONLY.match(text) or not english_like(text):
        return None  # "this is so cool, I love it": a reaction to the chat, not a taste
    key_text = text
    if reading.label in {"todo", "reminder"}:
        remind = _REMIND.match(text)
        need = _NEED.match(text)
        if remind:
            action = remind["x"] or remind["y"] or remind["z"] or remind["w"] or ""
            when = (remind["when"] or "").strip()
            phrase = f"{action} {when}".strip() if when else action
            link = "about" if remind["to"] == "about" else "to"
            content = clause.statement(f"{clause.subject} wants a reminder {link} {phrase}")
            key_text = action
            category = "REMINDER"
        elif need:
            action = need["x"] or need["y"] or ""
            content = clause.statement(f"{clause.subject} needs to {action}")
            key_text = action
        else:
            content = clause.statement()
        key = "todo." + object_slug(key_text)
    else:
        content = clause.statement()
        key = f"{reading.label}.{slug(text)}"
    if not re.search(r"[A-Za-z]", content) or len(text.split()) < 3:
        return None  # "remind me", "before I forget": a lead-in, not a statement
    return candidate(
        clause,
        f"reader.{reading.label}",
        content,
        type_,
        category,
        key,
        clause.value(key_text),
        cue=ChangeCue.UPDATE if UPDATE_CUE.search(text) else ChangeCue.ASSERT,
        confidence=round(min(0.9, 0.5 + reading.score / 2), 3),
    )
