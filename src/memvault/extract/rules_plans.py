"""Rules for what the user means to do or has settled: goals, todos (and todos
reported done), decisions, project configuration, tools used for a job, dated events.

Each rule is a named pattern matched against one cleaned clause and a builder
that turns the match into a candidate; :mod:`memvault.extract.rules` runs them
in its priority order (the first that builds a candidate wins the clause).
"""

from __future__ import annotations

import re

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.clause import Clause, Rule, slot_rule
from memvault.extract.clause import candidate as _cand
from memvault.extract.clause import change_cue as _cue
from memvault.extract.clause import rx as _r
from memvault.extract.constraints import normalise_statement, third_person
from memvault.extract.dates import has_date_expression, resolve_relative_dates
from memvault.extract.text import object_slug, slug
from memvault.model.enums import MemoryType

__all__ = ["RULES"]


def _goal(m: re.Match[str], c: Clause) -> Candidate | None:
    x = m["x"].strip(" .!")
    if len(x.split()) < 2 and not c.explicit:
        return None
    return _cand(c, "goal", c.statement(), MemoryType.GOAL, "GOAL", "goal." + slug(x), c.value(x))


#: A list item that names a thing, not an action ("todo: the VAT filing").
_OBJECT_FIRST = re.compile(r"(?:the|a|an|my|our|this|that|these|those|it|i|we|\w+'s)\b", re.I)


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
        else c.statement(f"I need to {x}")
        # "todo: merge PR #58" is the user's task, said as a list item
        if m["listed"] and _OBJECT_FIRST.match(x) is None
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


_use_for = slot_rule(
    "use_for",
    MemoryType.FACT,
    "PROJECT_CONFIG",
    "uses.for_",
    slot="purpose",
    exclusive=True,
    cues=("now",),
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


_RULES: tuple[Rule, ...] = (
    Rule(
        "goal",
        _r(
            r"^(?:my\s+(?:main\s+|big\s+|long[- ]term\s+|\w+\s+)?goal\s+(?:is|(?:for|this|next)"
            r" .+? is)\s+to"
            r"|i\s+(?:want|plan|hope|aim|intend|am planning|am aiming|am hoping|would like"
            r"|am going|will try)\s+to|i'(?:m|d)\s+(?:planning|aiming|hoping|going|like|love)"
            r"\s+to)"
            r"\s+(?P<x>.+)$"
        ),
        _goal,
    ),
    Rule(
        "todo",
        _r(
            r"^(?:i\s+(?:still\s+|really\s+)?(?:need|have|must|got|gotta|'ve got|should)\s+to"
            r"|i\s+must|i\s+have got to|(?P<listed>(?:todo|to-do|to do)\s*:)"
            r"|(?P<remind>remind me to"
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
        "event",
        _r(r"^(?:i|we)(?:'ve|'ll|'m| have| will| am| are)?\s+(?P<rest>.+)$"),
        _event,
    ),
)

#: This module's rules, by name (the priority order is kept in ``rules.py``).
RULES: dict[str, Rule] = {rule.name: rule for rule in _RULES}
