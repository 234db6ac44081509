"""Resolve relative dates against the message time (pure functions).

A memory must still be true when it is read months later, so "yesterday" or
"next Friday" becomes a calendar date when the statement is written.

>>> from datetime import date
>>> resolve_relative_dates("Dana met Ana yesterday", date(2026, 1, 15))
'Dana met Ana on 2026-01-14'
>>> resolve_relative_dates("Dana ships it by next Friday", date(2026, 1, 15))
'Dana ships it by Friday 2026-01-23'
>>> resolve_relative_dates("the review is on Monday", date(2026, 1, 15))
'the review is on Monday 2026-01-19'
>>> resolve_relative_dates("Dana runs on Sunday evenings", date(2026, 1, 15))
'Dana runs on Sunday evenings'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from memvault.model.text import NUMBER_WORDS

__all__ = ["WEEKDAYS", "has_date_expression", "resolve_relative_dates"]

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_PREP = r"(?P<prep>\b(?:on|by|until|before|after|from|since|for)\s+)?"
#: A weekday followed by a plural part of the day is a habit ("on Sunday evenings"),
#: not a date: it is never resolved (nor is "Sundays" or "every Sunday").
_HABIT = r"(?!\s+(?:mornings|afternoons|evenings|nights|lunchtimes)\b)"
_DAY = (
    r"(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    + _HABIT
    + r"(?!\s+\d{4}-\d{2}-\d{2})"  # already resolved ("Friday 2026-01-23")
)
_NUM = r"(?P<n>\d{1,3}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month)s?"


def _iso(d: date) -> str:
    return d.isoformat()


def _day(match: re.Match[str], d: date) -> str:
    """The user's weekday, then its date: "Friday 2026-01-23" (the word they said stays)."""
    return f"{match['day']} {_iso(d)}"


def _count(raw: str) -> int:
    return int(raw) if raw.isdigit() else NUMBER_WORDS[raw.lower()]


def _add_months(d: date, months: int, *, keep_day: bool = False) -> date:
    month = d.month - 1 + months
    year, month = d.year + month // 12, month % 12 + 1
    if not keep_day:
        return date(year, month, 1)
    for day in (d.day, 30, 29, 28):  # clamp 31 Jan + 1 month to the month's last day
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)


def _shift(today: date, n: int, unit: str) -> date:
    if unit == "day":
        return today + timedelta(days=n)
    if unit == "week":
        return today + timedelta(weeks=n)
    return _add_months(today, n, keep_day=True)


def _next_weekday(today: date, weekday: int, *, skip_this_week: bool) -> date:
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0:
        ahead = 7
    result = today + timedelta(days=ahead)
    if skip_this_week and ahead < 7 and result.isocalendar()[1] == today.isocalendar()[1]:
        # "next Friday" said on a Monday means the Friday of next week.
        result += timedelta(days=7)
    return result


def _last_weekday(today: date, weekday: int) -> date:
    back = (today.weekday() - weekday) % 7 or 7
    return today - timedelta(days=back)


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], str]]


def _with_prep(match: re.Match[str], text: str, default: str = "on ") -> str:
    prep = match.group("prep")
    return f"{prep}{text}" if prep else f"{default}{text}"


def _monday(today: date, weeks: int) -> date:
    return today - timedelta(days=today.weekday()) + timedelta(weeks=weeks)


#: A preposition before a relative week or month ("from next week", "since last month")
#: stays before the date: "from the week of …", never "from in the week of …".
_SPAN_PREP = r"(?P<prep>\b(?:from|starting|since|as of|beginning|until|till|through)\s+)?"


_RULES: tuple[Rule, ...] = (
    (
        re.compile(_PREP + r"\byesterday\b(?!['’]s)", re.I),
        lambda m, t: _with_prep(m, _iso(t - timedelta(days=1))),
    ),
    (
        re.compile(
            _PREP + r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b(?!['’]s)", re.I
        ),
        lambda m, t: _with_prep(m, _iso(t)),
    ),
    (
        re.compile(_PREP + r"\btomorrow\b(?!['’]s)", re.I),
        lambda m, t: _with_prep(m, _iso(t + timedelta(days=1))),
    ),
    (
        re.compile(_PREP + r"\b(?:the )?day after tomorrow\b(?!['’]s)", re.I),
        lambda m, t: _with_prep(m, _iso(t + timedelta(days=2))),
    ),
    (
        re.compile(_PREP + r"\bnext " + _DAY + r"\b", re.I),
        lambda m, t: _with_prep(
            m, _day(m, _next_weekday(t, WEEKDAYS.index(m["day"].lower()), skip_this_week=True))
        ),
    ),
    (
        re.compile(_PREP + r"\blast " + _DAY + r"\b", re.I),
        lambda m, t: _with_prep(m, _day(m, _last_weekday(t, WEEKDAYS.index(m["day"].lower())))),
    ),
    (
        re.compile(_PREP + r"\bthis (?:coming )?" + _DAY + r"\b", re.I),
        lambda m, t: _with_prep(
            m, _day(m, _next_weekday(t, WEEKDAYS.index(m["day"].lower()), skip_this_week=False))
        ),
    ),
    (
        re.compile(r"(?P<prep>\b(?:on|by|until|before|after)\s+)" + _DAY + r"\b", re.I),
        lambda m, t: _with_prep(
            m, _day(m, _next_weekday(t, WEEKDAYS.index(m["day"].lower()), skip_this_week=False))
        ),
    ),
    (
        re.compile(r"\bin " + _NUM + r" " + _UNIT + r"\b", re.I),
        lambda m, t: "on " + _iso(_shift(t, _count(m["n"]), m["unit"].lower())),
    ),
    (
        re.compile(_NUM + r" " + _UNIT + r" ago\b", re.I),
        lambda m, t: "on " + _iso(_shift(t, -_count(m["n"]), m["unit"].lower())),
    ),
    (
        re.compile(_SPAN_PREP + r"\bnext week\b", re.I),
        lambda m, t: _with_prep(m, "the week of " + _iso(_monday(t, 1)), "in "),
    ),
    (
        re.compile(_SPAN_PREP + r"\blast week\b", re.I),
        lambda m, t: _with_prep(m, "the week of " + _iso(_monday(t, -1)), "in "),
    ),
    (
        re.compile(_SPAN_PREP + r"\bthis week\b", re.I),
        lambda m, t: _with_prep(m, "the week of " + _iso(_monday(t, 0)), "in "),
    ),
    (
        re.compile(_SPAN_PREP + r"\bnext month\b", re.I),
        lambda m, t: _with_prep(m, _add_months(t, 1).strftime("%B %Y"), "in "),
    ),
    (
        re.compile(_SPAN_PREP + r"\blast month\b", re.I),
        lambda m, t: _with_prep(m, _add_months(t, -1).strftime("%B %Y"), "in "),
    ),
    (
        re.compile(r"\bnext year\b", re.I),
        lambda m, t: f"in {t.year + 1}",
    ),
    (
        re.compile(r"\blast year\b", re.I),
        lambda m, t: f"in {t.year - 1}",
    ),
)

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ANY_DATE = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|this (?:morning|afternoon|evening)"
    r"|(?:next|last|this) (?:week|month|year|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)|(?:on|by|until|before) (?:monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)"
    + _HABIT
    + r"|in \w+ (?:days?|weeks?|months?)|\w+ (?:days?|weeks?|months?) ago"
    r"|\d{4}-\d{2}-\d{2}"
    # a calendar day: "12-14 February", "on 3 March", "November 3rd", "Dec 24"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?(?:\s*[-–]\s*\d{{1,2}}(?:st|nd|rd|th)?)?\s+(?:of\s+)?{_MONTH}"
    rf"|(?!may\b){_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?!\d))\b",
    re.I,
)


def has_date_expression(text: str) -> bool:
    """True when ``text`` names a (relative or ISO) date.

    >>> has_date_expression("I met Ana yesterday"), has_date_expression("I like tea")
    (True, False)
    >>> has_date_expression("offsite on 12-14 February"), has_date_expression("approved on Nov 3rd")
    (True, True)
    """
    return _ANY_DATE.search(text) is not None


def resolve_relative_dates(text: str, today: date) -> str:
    """Replace every relative date expression in ``text`` by a calendar date.

    Expressions are replaced one rule at a time, longest forms first, so
    "the day after tomorrow" never becomes "the day after <date>".
    """
    out = text
    for pattern, render in sorted(_RULES, key=lambda r: -len(r[0].pattern)):
        out = pattern.sub(lambda m, render=render: render(m, today), out)  # type: ignore[misc]
    return out
