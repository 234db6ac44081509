"""Rules for preferences and standing instructions: likes and dislikes, favourites,
how to be addressed or answered, defaults, constraints and diets.

Each rule is a named pattern matched against one cleaned clause and a builder
that turns the match into a candidate; :mod:`memvault.extract.rules` runs them
in its priority order (the first that builds a candidate wins the clause).
"""

from __future__ import annotations

import re

from memvault.extract.base import Candidate
from memvault.extract.clause import Build, Clause, Rule, slot_rule
from memvault.extract.clause import candidate as _cand
from memvault.extract.clause import change_cue as _cue
from memvault.extract.clause import rx as _r
from memvault.extract.constraints import normalise_statement, third_person
from memvault.extract.dates import resolve_relative_dates
from memvault.extract.text import head_phrase, slug
from memvault.model.enums import MemoryType

__all__ = ["RULES"]


_ADV = r"(?:(?:really|usually|always|generally|mostly|honestly|definitely|absolutely|totally|"
_ADV += r"actually|also|still|much|strongly|truly|kind of|sort of|just)\s+)*"


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
        if not negated and re.match(r"^i\s+(?:\w+\s+)*?use\b", c.text, re.I):
            # "I use Neovim for writing code": a fact about the user's stack, not a taste.
            return _cand(
                c,
                "uses",
                c.statement(),
                MemoryType.FACT,
                "KNOWLEDGE",
                "uses." + slug(obj, max_words=4),
                c.value(obj),
            )
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


_favourite = slot_rule(
    "favourite",
    MemoryType.PREFERENCE,
    "PREFERENCE",
    "favourite.",
    slot="what",
    words=3,
    exclusive=True,
    cues=("now",),
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


_constraint = slot_rule(
    "constraint",
    MemoryType.PREFERENCE,
    "CONSTRAINT",
    "constraint.",
    value="rest",
    slot="rest",
    words=5,
    negated=True,
)


_diet = slot_rule("diet", MemoryType.PREFERENCE, "CONSTRAINT", "diet.", value="x", slot="x")


_RULES: tuple[Rule, ...] = (
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
)

#: This module's rules, by name (the priority order is kept in ``rules.py``).
RULES: dict[str, Rule] = {rule.name: rule for rule in _RULES}
