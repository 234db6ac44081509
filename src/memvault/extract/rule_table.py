"""The rule table: every rule of the extractor by name, and the order they are tried in.

The rules live by topic in :mod:`~memvault.extract.rules_profile` (moves, home,
work, introductions, numbers), :mod:`~memvault.extract.rules_preferences` (tastes,
instructions, constraints, diets) and :mod:`~memvault.extract.rules_plans` (goals,
todos, decisions, the stack, events). :data:`DEFAULT_RULES` fixes their priority:
the first that builds a candidate wins a clause
(:func:`memvault.extract.deciding.decide_clause`).

>>> DEFAULT_RULES[0].name, DEFAULT_RULES[-1].name
('moved', 'event')
"""

from __future__ import annotations

from memvault.extract import rules_plans, rules_preferences, rules_profile
from memvault.extract.clause import Rule

__all__ = ["DEFAULT_RULES"]

_BY_NAME: dict[str, Rule] = {
    **rules_profile.RULES,
    **rules_preferences.RULES,
    **rules_plans.RULES,
}

#: Rules in priority order; the first that builds a candidate wins a clause.
DEFAULT_RULES: tuple[Rule, ...] = tuple(
    _BY_NAME[name]
    for name in (
        "moved",
        "introduction",
        "introduction_cjk",
        "introduction_lead",
        "lives_in",
        "based_in",
        "employer",
        "occupation",
        "prefer_over",
        "prefer",
        "favourite",
        "call_me",
        "want_you",
        "reply_in",
        "by_default",
        "instruction",
        "constraint",
        "unavailable",
        "diet",
        "dislikes",
        "hates",
        "not_fan",
        "goal",
        "likes",
        "fan_of",
        "todo",
        "todo_done",
        "decision",
        "use_for",
        "project_config",
        "working_on",
        "learning",
        "numeric",
        "my_x_is",
        "event",
    )
)
