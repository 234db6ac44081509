"""When a query asks about a time: the window of memory timestamps it names (pure functions).

"What did Maria donate in December 2023?", "Who did Maria have dinner with on
May 3, 2023?", "I mentioned a sports event two weeks ago", "What did John do
the week before August 3, 2023?": the answer was stored at (or told about in
a conversation held at) a time the question names. The write path stamps every
memory with the caller's timestamp; :func:`time_window` turns the question's
time expression into a window of such timestamps, relative ones against the
moment the search runs. Ranking then favours candidates stored inside the
window (:mod:`memvault.retrieval.hybrid`); a query naming no time is left
alone.

>>> from datetime import UTC, datetime
>>> now = datetime(2023, 7, 1, 13, 38, tzinfo=UTC)
>>> w = time_window("I mentioned a sports event two weeks ago. What was it?", now)
>>> w.start.date().isoformat(), w.end.date().isoformat()
('2023-06-10', '2023-06-24')
>>> w = time_window("What did Maria donate in December 2023?", now)
>>> w.start.date().isoformat(), w.end.date().isoformat()
('2023-12-01', '2024-01-01')
>>> time_window("What does Caroline like to paint?", now) is None
True
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memvault.model.text import NUMBER_WORDS

__all__ = ["TimeWindow", "time_window"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS.pop("may", None)
_MONTHS["may"] = 5
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
#: The shared number words plus vague counts a question may use ("a few weeks ago").
_NUMBER_WORDS = {
    **NUMBER_WORDS,
    "couple of": 2,
    "few": 3,
    "several": 3,
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAYNUM = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_NUM = r"(?P<n>\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month|year)s?"

#: Absolute dates, most specific first: "May 3, 2023", "3 May, 2023",
#: "2023-05-03", "May 2023", "in 2023".
_ABSOLUTE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b"), "day"),
    (re.compile(r"\b" + _MONTH + r"\s+" + _DAYNUM + r",?\s+" + _YEAR + r"\b", re.I), "day"),
    (
        re.compile(r"\b" + _DAYNUM + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR + r"\b", re.I),
        "day",
    ),
    (re.compile(r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b", re.I), "month"),
    (re.compile(r"\b(?:in|on|of|during)\s+" + _MONTH + r"\b(?!\s*\d)", re.I), "month_only"),
    (re.compile(r"\b(?:in|of|during|since)\s+" + _YEAR + r"\b", re.I), "year"),
)
#: "two weeks before August 11, 2023", "the week before …", "last weekend before …".
_BEFORE = re.compile(
    r"\b(?:(?:the\s+)?" + _NUM + r"\s+" + _UNIT + r"|(?:the\s+)?(?P<span>week|weekend|month|day))"
    r"\s+(?:before|prior\s+to)\s*$",
    re.I,
)


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """Memory timestamps in ``[start, end)`` are inside the time the query names."""

    start: datetime
    end: datetime
    phrase: str

    def contains(self, moment: datetime) -> bool:
        """Whether ``moment`` (aware) falls in the window.

        >>> may, june = datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC)
        >>> w = TimeWindow(may, june, "May")
        >>> w.contains(datetime(2023, 5, 8, tzinfo=UTC)), w.contains(june)
        (True, False)
        """
        return self.start <= moment < self.end


def _count(raw: str) -> int:
    raw = raw.lower()
    return int(raw) if raw.isdigit() else _NUMBER_WORDS.get(raw, 1)


def _days(n: int, unit: str) -> int:
    return n * {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[unit]


def _month_number(raw: str) -> int:
    return int(raw) if raw.isdigit() else _MONTHS[raw.lower().rstrip(".")]


def _absolute(query: str, now: datetime) -> TimeWindow | None:
    for pattern, grain in _ABSOLUTE:
        match = pattern.search(query)
        if match is None:
            continue
        try:
            groups = match.groupdict()
            if grain == "year":
                year = int(groups["year"])
                start, end = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
            elif grain in ("month", "month_only"):
                month = _month_number(groups["month"])
                if grain == "month":
                    year = int(groups["year"])
                else:  # the latest such month not after now
                    year = now.year if month <= now.month else now.year - 1
                start = datetime(year, month, 1, tzinfo=UTC)
                end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
            else:
                day = datetime(
                    int(groups["year"]),
                    _month_number(groups["month"]),
                    int(groups["day"]),
                    tzinfo=UTC,
                )
                before = _BEFORE.search(query[: match.start()])
                if before is not None:
                    unit = (before.group("unit") or before.group("span") or "week").lower()
                    back = _days(_count(before.group("n") or "1"), unit)
                    start, end = day - timedelta(days=back + 7), day + timedelta(days=1)
                else:
                    # told about on that day, or in the conversation of the next days
                    start, end = day - timedelta(days=1), day + timedelta(days=3)
        except (ValueError, KeyError):
            continue
        return TimeWindow(start, end, match.group(0).strip())
    return None


_RELATIVE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b" + _NUM + r"\s+" + _UNIT + r"\s+ago\b", re.I), "ago"),
    (re.compile(r"\byesterday\b", re.I), "yesterday"),
    (re.compile(r"\b(?:today|tonight|this morning|this evening)\b", re.I), "today"),
    (re.compile(r"\b(?:last|past|previous)\s+(?P<span>week(?:end)?|month)\b", re.I), "last"),
    (
        re.compile(r"\b(?:last|past|previous)\s+" + _NUM + r"\s+" + _UNIT + r"\b", re.I),
        "past_n",
    ),
    (re.compile(r"\bthis\s+(?P<span>week(?:end)?|month)\b", re.I), "this"),
    (
        re.compile(r"\blast\s+(?P<weekday>" + "|".join(_WEEKDAYS) + r")\b", re.I),
        "weekday",
    ),
)


def _relative(query: str, now: datetime) -> TimeWindow | None:
    today = datetime(now.year, now.month, now.day, tzinfo=UTC)
    for pattern, kind in _RELATIVE:
        match = pattern.search(query)
        if match is None:
            continue
        groups = match.groupdict()
        if kind == "ago":
            if groups["unit"].lower() == "year":
                continue  # "moved here 4 years ago": when it happened, not when it was said
            back = _days(_count(groups["n"]), groups["unit"].lower())
            slack = max(1, back // 2)
            start, end = today - timedelta(days=back + slack), today - timedelta(days=back - slack)
        elif kind == "yesterday":
            start, end = today - timedelta(days=1), today
        elif kind == "today":
            start, end = today, today + timedelta(days=1)
        elif kind in ("last", "this"):
            span = groups["span"].lower()
            back = {"week": 14, "weekend": 10, "month": 62}[span]
            if kind == "this":
                back = {"week": 7, "weekend": 7, "month": 31}[span]
            start, end = today - timedelta(days=back), today + timedelta(days=1)
        elif kind == "past_n":
            back = _days(_count(groups["n"]), groups["unit"].lower())
            start, end = today - timedelta(days=back + 1), today + timedelta(days=1)
        else:
            weekday = _WEEKDAYS[groups["weekday"].lower()]
            back = (today.weekday() - weekday) % 7 or 7
            day = today - timedelta(days=back)
            start, end = day - timedelta(days=1), day + timedelta(days=2)
        return TimeWindow(start, end, match.group(0).strip())
    return None


def time_window(query: str, now: datetime) -> TimeWindow | None:
    """The window of timestamps ``query`` asks about, or ``None`` when it names no time.

    Absolute dates ("on May 3, 2023", "in December 2023", "the week before
    August 3, 2023") win over relative ones ("two weeks ago", "last month"),
    which count back from ``now`` (the search's clock). A day is widened to the
    days after it (a thing is often told about a day or two later); "N units
    ago" to half the span either side.

    >>> now = datetime(2023, 4, 20, 10, 12, tzinfo=UTC)
    >>> w = time_window("Who did Maria have dinner with on May 3, 2023?", now)
    >>> w.start.date().isoformat(), w.end.date().isoformat(), w.phrase
    ('2023-05-02', '2023-05-06', 'May 3, 2023')
    >>> w = time_window("What did John do the week before August 3, 2023?", now)
    >>> w.start.date().isoformat(), w.end.date().isoformat()
    ('2023-07-20', '2023-08-04')
    >>> time_window("What did I buy last month?", now).start.date().isoformat()
    '2023-02-17'
    >>> time_window("Does she like May flowers?", now) is None
    True
    """
    aware = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    return _absolute(query, aware) or _relative(query, aware)
