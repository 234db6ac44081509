"""The rule table: every topic module's rules are tried, each once, in one fixed order."""

from __future__ import annotations

from memvault.extract import rules_plans, rules_preferences, rules_profile
from memvault.extract.rules import DEFAULT_RULES


def test_every_rule_is_tried_exactly_once() -> None:
    names = [r.name for r in DEFAULT_RULES]
    topics = [rules_profile.RULES, rules_preferences.RULES, rules_plans.RULES]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(n for t in topics for n in t)
    assert sum(len(t) for t in topics) == len(names)  # no name defined twice


def test_specific_rules_come_before_the_catch_alls() -> None:
    names = [r.name for r in DEFAULT_RULES]
    assert names[0] == "moved" and names[-1] == "event"  # "event" takes any dated "I …"
    assert names.index("numeric") < names.index("my_x_is")
    assert names.index("todo_done") < names.index("decision")
