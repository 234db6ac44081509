"""The default extractor: deterministic rules, no LLM, well under a millisecond a turn.

From the user's own turn it proposes 0–5 typed candidates — preferences,
constraints, workflow defaults, goals, todos (and todos reported done),
decisions, dated events, facts about the user's work and projects, explicit
"remember …" requests, and (only on an explicit trigger such as "remember these
steps for releasing: …") a numbered Procedure. Everything else — greetings,
thanks, questions, small talk — yields nothing.

Each candidate is a normalised third-person statement (the speaker's name
instead of pronouns, relative dates resolved against the message time), 1–2
sentences, at most 280 characters, checked by
:func:`memvault.extract.constraints.check_statement`; a statement that fails is
reported in ``Extraction.dropped``, never stored. The raw turn is never a
candidate.

Rules run per clause, each inside its own ``try``: a rule that raises is
reported in ``Extraction.errors`` and the other clauses' candidates survive.

>>> from datetime import UTC, datetime
>>> from memvault.extract.base import Message
>>> x = RuleExtractor().extract(
...     Message(text="Hi! I moved from Lisbon to Porto and I love coffee.", speaker="Dana"),
...     now=datetime(2026, 1, 15, tzinfo=UTC))
>>> [c.content for c in x.candidates]
['Dana now lives in Porto, having moved from Lisbon.', 'Dana loves coffee.']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime

from memvault.extract.base import Candidate, ChangeCue, Extraction, Message, Role
from memvault.extract.constraints import check_statement, normalise_statement, third_person
from memvault.extract.dates import has_date_expression, resolve_relative_dates
from memvault.extract.sensitive import sensitive_slot
from memvault.extract.text import head_phrase, object_slug, slug, split_clauses
from memvault.model.enums import MemoryType, TTLClass

__all__ = [
    "DEFAULT_RULES",
    "MAX_CANDIDATES",
    "Clause",
    "Rule",
    "RuleExtractor",
    "extract_procedure",
]

#: At most this many candidates per turn (spec §13: 1–5).
MAX_CANDIDATES = 5
_VALUE_MAX = 200

_IMPORTANCE = {
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
_TTL = {"TODO": TTLClass.MEDIUM, "REMINDER": TTLClass.MEDIUM, "EVENT": TTLClass.MEDIUM}

_CHITCHAT = re.compile(
    r"^(?:hi|hey|hello|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|thanks?|thank you"
    r"|thx|ty|cheers|ok(?:ay)?|k|cool|nice|great|awesome|lol|haha+|hmm+|yes|yeah|yep|no|nope"
    r"|sure|got it|sounds good|bye|see you|cya|np|no problem|you're welcome|wow|oh|ah|right"
    r"|perfect|exactly|indeed|alright|fine|good|brb|ttyl)\b[\s!.,:)(]*(?:\w+[\s!.,]*){0,3}$",
    re.I,
)
_FILLER = re.compile(
    r"^(?:so|well|also|btw|by the way|oh|and|but|actually|fyi|anyway|ok(?:ay)?|just so you know"
    r"|for the record|heads up|honestly|plus|hey|hi|hello|please|quick note|side note|ps)"
    r"[\s,:!-]+",
    re.I,
)
_LEADING_DATE = re.compile(
    r"^(?P<d>yesterday|today|tonight|tomorrow|this (?:morning|afternoon|evening|week)"
    r"|(?:next|last) (?:week|month|year|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|\w+ (?:days?|weeks?) ago),?\s+(?P<rest>.+)$",
    re.I,
)
_ADV = r"(?:(?:really|usually|always|generally|mostly|honestly|definitely|absolutely|totally|"
_ADV += r"actually|also|still|much|strongly|truly|kind of|sort of|just)\s+)*"


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
        return normalise_statement(
            resolve_relative_dates(third_person(raw, self.subject), self.today)
        )

    def value(self, text: str) -> str:
        return resolve_relative_dates(third_person(text.strip(" .,!"), self.subject), self.today)[
            :_VALUE_MAX
        ]


Build = Callable[[re.Match[str], Clause], Candidate | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A named pattern and the function that turns its match into a candidate."""

    name: str
    pattern: re.Pattern[str]
    build: Build


def _cand(
    clause: Clause,
    rule: str,
    content: str,
    type_: MemoryType,
    category: str,
    key: str,
    value: str,
    **extra: object,
) -> Candidate:
    importance = _IMPORTANCE.get(category, 50) + (10 if clause.explicit else 0)
    fields: dict[str, object] = {
        "content": content,
        "type": type_,
        "category": category,
        "key": key[:128],
        "value": value[:_VALUE_MAX] or content[:_VALUE_MAX],
        "subject": clause.subject,
        "importance": min(100, importance),
        "confidence": 1.0 if clause.explicit else 0.9,
        "ttl_class": _TTL.get(category, TTLClass.LONG),
        "rule": rule,
        "said": clause.said or clause.text,
    }
    fields.update(extra)
    return Candidate(**fields)  # type: ignore[arg-type]


def _cue(*flags: object) -> ChangeCue:
    return ChangeCue.UPDATE if any(flags) else ChangeCue.ASSERT


# -- builders ---------------------------------------------------------------


def _moved(m: re.Match[str], c: Clause) -> Candidate:
    new, old = c.value(m["new"]), c.value(m["old"] or "")
    text = f"{c.subject} now lives in {new}" + (f", having moved from {old}" if old else "")
    return _cand(
        c,
        "moved",
        normalise_statement(text),
        MemoryType.FACT,
        "KNOWLEDGE",
        "home_city",
        new,
        exclusive=True,
        cue=ChangeCue.UPDATE,
        previous_value=old,
    )


def _lives(m: re.Match[str], c: Clause) -> Candidate:
    value = c.value(head_phrase(m["v"]) if " now" not in m["v"] else m["v"])
    negated = bool(m["neg"])
    verb = "no longer lives" if m["neg"] and "longer" in m["neg"] else "lives"
    if negated and verb == "lives":
        verb = "does not live"
    return _cand(
        c,
        "lives_in",
        normalise_statement(f"{c.subject} {verb} in {value}"),
        MemoryType.FACT,
        "KNOWLEDGE",
        "home_city",
        value,
        exclusive=True,
        negated=negated,
        cue=_cue(m["now"], m["neg"] and "longer" in m["neg"], m["any"]),
    )


def _employer(m: re.Match[str], c: Clause) -> Candidate:
    value = c.value(m["v"])
    return _cand(
        c,
        "employer",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        "employer",
        value,
        exclusive=True,
        cue=_cue(m["now"]),
    )


def _occupation(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "occupation",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        "occupation",
        c.value(m["v"]),
        exclusive=True,
        cue=_cue(m["now"]),
    )


def _prefer_over(m: re.Match[str], c: Clause) -> Candidate:
    a, b = head_phrase(m["a"]), head_phrase(m["b"])
    key = "prefers." + "_vs_".join(sorted([slug(a, max_words=3), slug(b, max_words=3)]))
    return _cand(
        c,
        "prefer_over",
        c.statement(),
        MemoryType.PREFERENCE,
        "PREFERENCE",
        key,
        c.value(a),
        exclusive=True,
        cue=_cue(m["now"]),
    )


def _prefer(m: re.Match[str], c: Clause) -> Candidate:
    obj = m["a"].strip(" .!")
    if " for " in obj:
        what, domain = obj.split(" for ", 1)
    else:
        what = head_phrase(obj)
        domain = what.split()[-1] if what.split() else what
    return _cand(
        c,
        "prefer",
        c.statement(),
        MemoryType.PREFERENCE,
        "PREFERENCE",
        "prefers." + slug(domain, max_words=3),
        c.value(what),
        exclusive=True,
        cue=_cue(m["now"]),
    )


def _likes(negated: bool) -> Build:
    def build(m: re.Match[str], c: Clause) -> Candidate | None:
        obj = head_phrase(m["x"])
        if not obj or obj.lower() in {"it", "that", "this", "them", "to"}:
            return None
        update = bool(m.groupdict().get("any")) or "longer" in (m.groupdict().get("neg") or "")
        return _cand(
            c,
            "dislikes" if negated else "likes",
            c.statement(),
            MemoryType.PREFERENCE,
            "PREFERENCE",
            "likes." + slug(obj, max_words=4),
            c.value(obj),
            negated=negated,
            cue=_cue("x" if update else None),
        )

    return build


def _favourite(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "favourite",
        c.statement(),
        MemoryType.PREFERENCE,
        "PREFERENCE",
        "favourite." + slug(m["what"], max_words=3),
        c.value(m["v"]),
        exclusive=True,
        cue=_cue(m["now"]),
    )


def _call_me(m: re.Match[str], c: Clause) -> Candidate:
    name = c.value(m["v"])
    return _cand(
        c,
        "preferred_name",
        normalise_statement(f"{c.subject} prefers to be called {name}"),
        MemoryType.PREFERENCE,
        "PREFERENCE",
        "preferred_name",
        name,
        exclusive=True,
    )


def _instruction(m: re.Match[str], c: Clause) -> Candidate | None:
    mode = m["mode"].lower()
    rest = m["rest"].strip(" .!")
    if not rest or len(rest.split()) < 2:
        return None
    negated = mode in {"never", "don't", "do not", "stop"}
    action = third_person(rest, c.subject)
    if mode == "never":
        text = f"{c.subject} wants the assistant to never {action}"
    elif negated:
        text = f"{c.subject} does not want the assistant to {action}"
    else:
        text = f"{c.subject} wants the assistant to always {action}"
    return _cand(
        c,
        "instruction",
        normalise_statement(resolve_relative_dates(text, c.today)),
        MemoryType.PREFERENCE,
        "CONSTRAINT" if negated else "WORKFLOW_DEFAULT",
        "rule." + slug(rest, max_words=5),
        c.value(rest),
        negated=negated,
    )


def _want_you(m: re.Match[str], c: Clause) -> Candidate:
    negated = bool(m["neg"])
    action = third_person(m["rest"].strip(" .!"), c.subject)
    verb = "does not want" if negated else "wants"
    return _cand(
        c,
        "want_you",
        normalise_statement(f"{c.subject} {verb} the assistant to {action}"),
        MemoryType.PREFERENCE,
        "CONSTRAINT" if negated else "WORKFLOW_DEFAULT",
        "rule." + slug(m["rest"], max_words=5),
        c.value(m["rest"]),
        negated=negated,
    )


def _reply_in(m: re.Match[str], c: Clause) -> Candidate:
    lang = c.value(m["v"])
    return _cand(
        c,
        "reply_in",
        normalise_statement(f"{c.subject} wants replies in {lang}"),
        MemoryType.PREFERENCE,
        "WORKFLOW_DEFAULT",
        "reply_language",
        lang,
        exclusive=True,
    )


def _by_default(m: re.Match[str], c: Clause) -> Candidate:
    rest = m["rest"].strip(" .!")
    action = third_person(rest, c.subject)
    return _cand(
        c,
        "by_default",
        normalise_statement(f"{c.subject} wants the assistant to {action} by default"),
        MemoryType.PREFERENCE,
        "WORKFLOW_DEFAULT",
        "rule." + slug(rest, max_words=5),
        c.value(rest),
    )


def _constraint(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "constraint",
        c.statement(),
        MemoryType.PREFERENCE,
        "CONSTRAINT",
        "constraint." + slug(m["rest"], max_words=5),
        c.value(m["rest"]),
        negated=True,
    )


def _diet(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "diet",
        c.statement(),
        MemoryType.PREFERENCE,
        "CONSTRAINT",
        "diet." + slug(m["x"], max_words=4),
        c.value(m["x"]),
    )


def _goal(m: re.Match[str], c: Clause) -> Candidate | None:
    x = m["x"].strip(" .!")
    if len(x.split()) < 2 and not c.explicit:
        return None
    return _cand(c, "goal", c.statement(), MemoryType.GOAL, "GOAL", "goal." + slug(x), c.value(x))


def _todo(m: re.Match[str], c: Clause) -> Candidate:
    x = m["x"].strip(" .!")
    reminder = bool(m["remind"])
    content = (
        normalise_statement(
            resolve_relative_dates(
                f"{c.subject} wants a reminder to {third_person(x, c.subject)}", c.today
            )
        )
        if reminder
        else c.statement()
    )
    return _cand(
        c,
        "todo",
        content,
        MemoryType.TODO,
        "REMINDER" if reminder else "TODO",
        "todo." + object_slug(x),
        c.value(x),
    )


def _done(m: re.Match[str], c: Clause) -> Candidate:
    x = m["x"].strip(" .!")
    verb = m["verb"].lower()
    key = "todo." + (slug(x) if verb in {"finished", "completed", "done"} else object_slug(x))
    return _cand(
        c,
        "todo_done",
        c.statement(),
        MemoryType.EVENT,
        "EVENT",
        key,
        c.value(f"{verb} {x}"),
        cue=ChangeCue.DONE,
    )


def _decision(m: re.Match[str], c: Clause) -> Candidate:
    x = m["x"].strip(" .!")
    return _cand(
        c,
        "decision",
        c.statement(),
        MemoryType.DECISION,
        "DECISION",
        "decision." + slug(x),
        c.value(x),
    )


def _project_config(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "project_config",
        c.statement(),
        MemoryType.FACT,
        "PROJECT_CONFIG",
        f"{slug(m['thing'], max_words=3)}.{slug(m['verb'].replace('now ', ''), max_words=2)}",
        c.value(m["v"]),
        exclusive=True,
        cue=_cue(m["now"], m["now2"]),
    )


def _use_for(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "use_for",
        c.statement(),
        MemoryType.FACT,
        "PROJECT_CONFIG",
        "uses.for_" + slug(m["purpose"], max_words=4),
        c.value(m["v"]),
        exclusive=True,
        cue=_cue(m["now"]),
    )


def _working_on(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "working_on",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        "works_on." + slug(m["v"], max_words=4),
        c.value(m["v"]),
    )


def _learning(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "learning",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        "learning." + slug(head_phrase(m["v"]), max_words=4),
        c.value(m["v"]),
    )


def _numeric(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "numeric",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        slug(m["thing"], max_words=4),
        c.value(f"{m['n']} {m['unit']}".strip()),
        exclusive=True,
        cue=_cue(m["now"], m["now0"]),
        sensitive=sensitive_slot(m["thing"]) or "",
    )


_PREFERENCE_NOUNS = re.compile(
    r"\b(?:favou?rite|preferred|name|nickname|pronouns|editor|ide|shell|timezone|time zone"
    r"|language|stack|os|browser|theme)\b",
    re.I,
)


def _my_x_is(m: re.Match[str], c: Clause) -> Candidate | None:
    thing = m["thing"].strip()
    if thing.lower() in {"point", "question", "bad", "guess", "god", "pleasure", "day"}:
        return None
    preference = _PREFERENCE_NOUNS.search(thing) is not None
    return _cand(
        c,
        "my_x_is",
        c.statement(),
        MemoryType.PREFERENCE if preference else MemoryType.FACT,
        "PREFERENCE" if preference else "KNOWLEDGE",
        slug(thing, max_words=4),
        c.value(m["v"]),
        exclusive=True,
        negated=bool(m["neg"]),
        cue=_cue(m["now"], m["neg"]),
        sensitive=sensitive_slot(thing) or "",
    )


def _event(m: re.Match[str], c: Clause) -> Candidate | None:
    if not has_date_expression(c.text):
        return None
    return _cand(
        c,
        "event",
        c.statement(),
        MemoryType.EVENT,
        "EVENT",
        "event." + slug(resolve_relative_dates(c.text, c.today), max_words=8),
        c.value(m["rest"]),
    )


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


#: Rules in priority order; the first that builds a candidate wins a clause.
DEFAULT_RULES: tuple[Rule, ...] = (
    Rule(
        "moved",
        _r(
            r"^(?:i|we)(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)"
            r"\s+(?:from\s+(?P<old>.+?)\s+)?to\s+(?P<new>.+)$"
        ),
        _moved,
    ),
    Rule(
        "lives_in",
        _r(
            r"^i\s+(?:(?P<now>now|currently)\s+)?(?P<neg>no longer|don't|do not)?\s*"
            r"(?:live|am living|'m living|reside)\s+in\s+(?P<v>.+?)(?P<any>\s+any\s?more)?$"
        ),
        _lives,
    ),
    Rule(
        "based_in",
        _r(r"^i(?:'m| am)\s+(?:(?P<now>now)\s+)?based\s+in\s+(?P<v>.+?)(?P<neg>)(?P<any>)$"),
        _lives,
    ),
    Rule(
        "employer",
        _r(
            r"^i(?:'ve| have)?\s+(?:(?P<now>now|just|recently)\s+)?(?:work|am working|'m working"
            r"|joined|started (?:at|working at|working for))\s+(?:at\s+|for\s+)?(?P<v>[A-Z0-9].+)$"
        ),
        _employer,
    ),
    Rule(
        "occupation",
        _r(
            r"^i(?:'m| am| work as)\s+(?:(?P<now>now)\s+)?(?:a|an|the)\s+(?P<v>(?:[\w-]+\s+){0,3}"
            r"(?:engineer|developer|designer|manager|scientist|analyst|researcher|teacher|writer"
            r"|consultant|architect|student|founder|lead|director|nurse|lawyer|accountant"
            r"|product owner|administrator|admin|intern|freelancer|editor|marketer)s?\b.*)$"
        ),
        _occupation,
    ),
    Rule(
        "prefer_over",
        _r(
            r"^i\s+(?:(?P<now>now|still)\s+)?" + _ADV + r"prefer\s+(?P<a>.+?)\s+"
            r"(?:over|to|rather than|instead of)\s+(?P<b>.+)$"
        ),
        _prefer_over,
    ),
    Rule("prefer", _r(r"^i\s+(?:(?P<now>now)\s+)?" + _ADV + r"prefer\s+(?P<a>.+)$"), _prefer),
    Rule(
        "favourite",
        _r(
            r"^my\s+(?:new\s+)?(?:favou?rite|preferred)\s+(?P<what>.+?)\s+(?:is|are)\s+"
            r"(?:(?P<now>now)\s+)?(?P<v>.+)$"
        ),
        _favourite,
    ),
    Rule("call_me", _r(r"^(?:please\s+)?call me\s+(?P<v>[\w' -]{1,40})$"), _call_me),
    Rule(
        "want_you",
        _r(
            r"^i\s+(?P<neg>don't\s+|do not\s+)?(?:want|need|would like|'d like|prefer)\s+you\s+to"
            r"\s+(?P<rest>.+)$"
        ),
        _want_you,
    ),
    Rule(
        "reply_in",
        _r(
            r"^(?:please\s+)?(?:always\s+)?(?:reply|respond|answer|write|talk)\s+(?:to me\s+)?in"
            r"\s+(?P<v>[A-Za-z]+)(?:\s+(?:from now on|by default|please|only))?$"
        ),
        _reply_in,
    ),
    Rule(
        "by_default",
        _r(r"^(?:by default|from now on|going forward),?\s+(?P<rest>(?!i\b)[a-z].+)$"),
        _by_default,
    ),
    Rule(
        "instruction",
        _r(
            r"^(?:please\s+)?(?P<mode>always|never|don't|do not|stop)\s+"
            r"(?P<rest>(?!forget\b|worry\b|mind\b)[a-z]+\b.*)$"
        ),
        _instruction,
    ),
    Rule(
        "constraint",
        _r(
            r"^i\s+(?:don't|do not|never|can't|cannot|can not)\s+(?P<rest>(?:work|take|attend"
            r"|join|travel|fly|drive|meet|do meetings|answer|check)\b.+)$"
        ),
        _constraint,
    ),
    Rule(
        "unavailable",
        _r(r"^i(?:'m| am)\s+(?P<rest>(?:not available|unavailable|off|out of office)\b.+)$"),
        _constraint,
    ),
    Rule(
        "diet",
        _r(
            r"^i(?:'m| am)\s+(?:a\s+)?(?P<x>vegetarian|vegan|pescatarian|lactose intolerant"
            r"|allergic to .+|gluten[- ]free|teetotal|sober)$"
        ),
        _diet,
    ),
    Rule(
        "dislikes",
        _r(
            r"^i\s+" + _ADV + r"(?P<neg>don't|do not|never|no longer|rarely)\s+(?:really\s+)?"
            r"(?:like|love|enjoy|drink|eat|use|want|watch|play|listen to|read|care for)\s+"
            r"(?P<x>.+?)(?P<any>\s+any\s?more)?$"
        ),
        _likes(negated=True),
    ),
    Rule(
        "hates",
        _r(
            r"^i\s+" + _ADV + r"(?:hate|dislike|detest|can't stand|cannot stand|avoid)\s+"
            r"(?P<x>.+)$"
        ),
        _likes(negated=True),
    ),
    Rule(
        "not_fan",
        _r(r"^i(?:'m| am)\s+not\s+(?:a\s+(?:big\s+)?fan of|into|fond of|keen on)\s+(?P<x>.+)$"),
        _likes(negated=True),
    ),
    Rule(
        "goal",
        _r(
            r"^(?:my\s+(?:main\s+|big\s+|long[- ]term\s+|\w+\s+)?goal\s+(?:is|for .+? is)\s+to"
            r"|i\s+(?:want|plan|hope|aim|intend|am planning|am aiming|am hoping|would like"
            r"|am going|will try)\s+to|i'(?:m|d)\s+(?:planning|aiming|hoping|going|like|love)"
            r"\s+to)"
            r"\s+(?P<x>.+)$"
        ),
        _goal,
    ),
    Rule(
        "likes",
        _r(
            r"^i\s+" + _ADV + r"(?:love|like|enjoy|adore|drink|eat|use|watch|play|listen to"
            r"|read)\s+(?P<x>.+)$"
        ),
        _likes(negated=False),
    ),
    Rule(
        "fan_of",
        _r(r"^i(?:'m| am)\s+(?:a\s+(?:big\s+|huge\s+)?fan of|into|fond of|keen on)\s+(?P<x>.+)$"),
        _likes(negated=False),
    ),
    Rule(
        "todo",
        _r(
            r"^(?:i\s+(?:still\s+|really\s+)?(?:need|have|must|got|gotta|'ve got|should)\s+to"
            r"|i\s+must|i\s+have got to|(?:todo|to-do|to do)\s*:|(?P<remind>remind me to"
            r"|don't let me forget to|do not let me forget to))\s+(?P<x>.+)$"
        ),
        _todo,
    ),
    Rule(
        "todo_done",
        _r(
            r"^i(?:'ve| have)?\s+(?:just\s+|already\s+|finally\s+)?(?P<verb>finished|completed"
            r"|done|sent|submitted|fixed|shipped|paid|booked|called|emailed|filed|renewed"
            r"|cancelled|canceled|returned|wrote|written|published|merged|closed|resolved"
            r"|reviewed|scheduled|ordered|bought)\s+(?P<x>.+)$"
        ),
        _done,
    ),
    Rule(
        "decision",
        _r(
            r"^(?:(?:i|we)(?:'ve| have)?\s+(?:just\s+|finally\s+)?(?:decided|chose|chosen|picked"
            r"|settled on|went with|are going with|'re going with|will go with|agreed)"
            r"\s+(?:to\s+|on\s+)?|(?:the\s+)?(?:final\s+)?decision(?:\s+is)?\s*:?\s+)(?P<x>.+)$"
        ),
        _decision,
    ),
    Rule(
        "use_for",
        _r(
            r"^(?:we|i)\s+(?:(?P<now>now|currently)\s+)?use\s+(?P<v>.+?)\s+(?:for|to)\s+"
            r"(?P<purpose>.+)$"
        ),
        _use_for,
    ),
    Rule(
        "project_config",
        _r(
            r"^(?:our|my|the)\s+(?P<thing>[\w\s-]{2,40}?)\s+(?:(?P<now>now)\s+)?(?P<verb>uses"
            r"|runs on|is (?P<now2>now )?(?:deployed (?:to|on)|hosted on|written in|built with)"
            r"|depends on|deploys to)\s+(?P<v>.+)$"
        ),
        _project_config,
    ),
    Rule(
        "working_on",
        _r(
            r"^(?:i|we)(?:'m| am|'re| are)\s+(?:currently\s+|now\s+)?(?:working on|building"
            r"|leading|maintaining|developing)\s+(?P<v>.+)$"
        ),
        _working_on,
    ),
    Rule(
        "learning",
        _r(r"^i(?:'m| am)\s+(?:currently\s+|now\s+)?(?:learning|studying|taking)\s+(?P<v>.+)$"),
        _learning,
    ),
    Rule(
        "numeric",
        _r(
            r"^(?:my|our)\s+(?P<thing>[\w\s'-]{2,40}?)\s+(?:(?P<now0>now)\s+)?(?:has|have|is"
            r"|are|costs|takes)\s+(?:(?P<now>now)\s+)?(?:about\s+|around\s+)?(?P<n>\d[\d,.]*k?)\s*(?P<unit>[\w\s]*)$"
        ),
        _numeric,
    ),
    Rule(
        "my_x_is",
        _r(
            r"^(?:my|our)\s+(?P<thing>[\w\s'-]{2,40}?)\s+(?:(?:is|are)\s+(?:(?P<now>now)\s+)?"
            r"(?P<neg>no longer\s+)?|(?P<changed>changed to|has changed to)\s+)(?P<v>.+)$"
        ),
        _my_x_is,
    ),
    Rule(
        "event",
        _r(r"^(?:i|we)(?:'ve|'ll|'m| have| will| am| are)?\s+(?P<rest>.+)$"),
        _event,
    ),
)

_REMEMBER = _r(
    r"^(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget|make a note|"
    r"save|store)(?:\s+that)?\s*[:,]?\s+(?P<rest>.+)$"
)
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


_INTRO = re.compile(
    r"^(?P<intro>[\w\s']{2,30}),\s+(?=(?:i|i'm|i've|i'd|my|we|we're|our|please|always|never)\b)",
    re.I,
)


def _clean(clause: str) -> str:
    out = clause.strip()
    for _ in range(3):
        stripped = _FILLER.sub("", out)
        intro = _INTRO.match(stripped)
        if intro and not has_date_expression(intro["intro"]):
            # "Just to be clear, I prefer tabs" → "I prefer tabs"
            stripped = stripped[intro.end() :]
        if stripped == out:
            break
        out = stripped
    date_first = _LEADING_DATE.match(out)
    if date_first:
        out = f"{date_first['rest'].rstrip(' .!')} {date_first['d']}"
    return out.strip().rstrip(".!")


def _is_chitchat(clause: str) -> bool:
    words = clause.split()
    first_person = re.match(r"^(?:i|i'm|we're|my|our)\b", clause, re.I) is not None
    return (
        len(words) < 2
        or (len(words) < 3 and not first_person)
        or clause.rstrip().endswith("?")
        or _CHITCHAT.match(clause) is not None
        or not re.search(
            r"\b(?:i|i'm|i've|i'd|my|we|our|me|remember|todo|to-do|decision|call)\b"
            r"|^(?:always|never|don't|do not|stop|please|reply|respond|answer|by "
            r"default|from now on|going forward)",
            clause,
            re.I,
        )
    )


class RuleExtractor:
    """Deterministic, rule-based extractor (the default; no LLM, no network).

    ``rules`` replaces the rule table (tests use this to inject a failing
    rule); ``max_candidates`` bounds the output per turn.
    """

    name = "rules"

    def __init__(
        self, rules: Sequence[Rule] = DEFAULT_RULES, *, max_candidates: int = MAX_CANDIDATES
    ) -> None:
        self.rules = tuple(rules)
        self.max_candidates = max_candidates

    def extract(self, message: Message, *, now: datetime) -> Extraction:
        """Candidates from one user turn (other roles are never write triggers)."""
        if message.role is not Role.USER:
            return Extraction(extractor=self.name, skipped=f"role {message.role.value!r}")
        moment = message.at or now
        subject = message.subject
        candidates: list[Candidate] = []
        errors: list[str] = []
        dropped: list[tuple[str, str]] = []

        procedure = extract_procedure(message.text, subject)
        clauses = [] if procedure else split_clauses(message.text)
        if procedure is not None:
            candidates.append(procedure)
        for raw in clauses:
            cand = self._clause(raw, subject, moment.date(), errors)
            if cand is None:
                continue
            limit = 1000 if cand.type.value == "Procedure" else 280
            problems = check_statement(cand.content, max_chars=limit)
            if problems:
                dropped.append((cand.content[:280], ",".join(problems)))
                continue
            if all(c.content != cand.content for c in candidates):
                candidates.append(cand)
        return Extraction(
            tuple(candidates[: self.max_candidates]),
            tuple(errors),
            extractor=self.name,
            dropped=tuple(dropped),
        )

    def _clause(self, raw: str, subject: str, today: date, errors: list[str]) -> Candidate | None:
        text = _clean(raw)
        explicit = False
        remembered = _REMEMBER.match(text)
        if remembered:
            explicit = True
            text = _clean(remembered["rest"])
            if text.lower().startswith("to "):
                text = "I need " + text
        if not explicit and _is_chitchat(text):
            return None
        clause = Clause(text, subject, today, explicit, said=raw.strip())
        for rule in self.rules:
            try:
                match = rule.pattern.match(text)
                if match is None:
                    continue
                cand = rule.build(match, clause)
            except Exception as exc:
                # Trigger: a rule raised (a bug, or an injected fault in a test).
                # Why: one bad rule must not cost the turn its other candidates.
                # Outcome: the error is reported; the next rule gets the clause.
                errors.append(f"rule {rule.name}: {type(exc).__name__}: {exc}"[:200])
                continue
            if cand is not None:
                return cand
        if explicit and not text.rstrip().endswith("?"):
            return replace(
                _cand(
                    clause,
                    "remember",
                    clause.statement(),
                    MemoryType.FACT,
                    "KNOWLEDGE",
                    "note." + slug(text),
                    clause.value(text),
                ),
            )
        return None
