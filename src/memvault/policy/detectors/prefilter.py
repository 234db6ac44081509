"""Prefilters of the detectors' regexes: which patterns may match a text, found at once.

A detector holds dozens of rules and runs each on every view of every field. Most
cannot match most texts: a rule that starts with "passport" needs that word, one
that reads a card number needs a digit. This module reads each pattern once and
derives the tests every match must pass — a literal it starts with
(:func:`needles_of`), a literal it contains (:func:`required_literals`), a digit
(:func:`needs_digit`) — then answers for a text, with one scan for every
registered literal, which patterns may match (:func:`may_match`,
:class:`PatternIndex`). Each test is a necessary condition, so a skip never
changes a finding (``tests/unit/policy/test_prefilter.py``). What each pattern needs is
read in :mod:`regex_literals`; this module keeps the shared scan and the index.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from re import _parser as _sre_parse  # type: ignore[attr-defined]

from memvault.policy.detectors.regex_literals import (
    MORE_SETS,
    digit_or,
    literal_sets,
    needles_of,
    needs_digit,
    required_literals,
    risky_chars,
)

__all__ = [
    "PatternIndex",
    "may_match",
    "needles_of",
    "needs_digit",
    "register_patterns",
    "required_literals",
]


@cache
def _digit_needles(pattern: str, flags: int) -> frozenset[str] | None:
    """:func:`digit_or` of ``pattern`` (minimal, registered with the shared scan)."""
    try:
        found = digit_or(_sre_parse.parse(pattern, flags))
    except Exception:
        return None
    if found:
        found = frozenset(n for n in found if not any(o != n and o in n for o in found))
        if any(risky_chars(n) for n in found):
            return None  # a needle re may fold onto another letter: keep it simple
        _register(found)
    return found


_DIGIT = re.compile(r"\d")


@cache
def _required_needles(
    pattern: str, flags: int
) -> tuple[frozenset[str], tuple[frozenset[str], ...], frozenset[str]] | None:
    """The minimal :func:`required_literals` of a pattern, up to two more sets every match
    also holds one of ("my … dose" needs an owner word AND a dose word), and the
    characters that void them all.

    Trigger: ``re`` matches a literal case-insensitively by its simple lower
    case plus a few extra folds, ``str.lower`` by the full mapping.
    Why: where they differ (``ſ`` matches ``s``; ``"İ".lower()`` is ``i`` + U+0307;
    a final ``Σ`` lowers to ``ς``), a match could hide from the needle search.
    Outcome: a text holding such a character for one of the needles' letters is
    never skipped (a test checks this against ``re`` over every code point).
    The needles join the shared scan (:func:`_present`).
    """
    sets = [
        frozenset(n for n in found if not any(o != n and o in n for o in found))
        for found in literal_sets(pattern, flags)[: 1 + MORE_SETS]
    ]
    if not sets:
        return None
    risky = frozenset(c for needles in sets for needle in needles for c in risky_chars(needle))
    for needles in sets:
        _register(needles)
    return sets[0], tuple(sets[1:]), risky


@cache
def _char_class(chars: frozenset[str]) -> re.Pattern[str]:
    """A regex for any of ``chars`` (never matching when there are none)."""
    return re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]" if chars else "(?!)")


@cache
def _start_needles(pattern: str) -> frozenset[str] | None:
    """The minimal start needles of ``pattern``, registered with the shared scan."""
    needles = needles_of(pattern)
    if needles is None:
        return None
    minimal = frozenset(n for n in needles if not any(o != n and n.startswith(o) for o in needles))
    _register(minimal)
    return minimal


def _register(needles: frozenset[str]) -> None:
    if not needles <= _SCAN.needles:
        with _SCAN_LOCK:
            _PENDING.update(needles)


@dataclass(frozen=True, slots=True)
class _Filter:
    """What every match of one pattern needs; each test alone is a reason to skip it."""

    starts: frozenset[str] | None  # a match starts with one of these (lower-cased)
    required: frozenset[str] | None  # a match contains one of these
    more: tuple[frozenset[str], ...]  # ... and one of each of these
    risky: re.Pattern[str] | None  # a character that voids ``required`` and ``more``
    digit: bool  # a match needs a decimal digit in the text ...
    undigit: frozenset[str]  # ... unless it holds one of these ("///word.word.word")

    def literals_pass(self, lower_text: str, present: frozenset[str]) -> bool:
        """``required`` and every ``more`` set have a needle present (or a risky fold)."""
        if (self.required is None or not self.required.isdisjoint(present)) and all(
            not s.isdisjoint(present) for s in self.more
        ):
            return True
        risky = self.risky
        return (
            risky is not None and not lower_text.isascii() and risky.search(lower_text) is not None
        )

    def digit_passes(self, has_digit: bool, present: frozenset[str]) -> bool:
        return not self.digit or has_digit or not self.undigit.isdisjoint(present)


@cache
def _filter(pattern: str, flags: int) -> _Filter:
    required = _required_needles(pattern, flags)
    undigit = _digit_needles(pattern, flags)
    return _Filter(
        starts=_start_needles(pattern),
        required=None if required is None else required[0],
        more=() if required is None else required[1],
        risky=None if required is None else _char_class(required[2]),
        digit=undigit is not None,
        undigit=undigit or frozenset(),
    )


@cache
def _filter_needing(pattern: str, flags: int, needs: str | None, needs_flags: int) -> _Filter:
    """:func:`_filter` of ``pattern``, plus the literals of ``needs``: a pattern every match
    of ``pattern`` contains a match of (a rule names it; its literals are one more set)."""
    f = _filter(pattern, flags)
    extra = None if needs is None else _required_needles(needs, needs_flags)
    if extra is None:
        return f
    own = _required_needles(pattern, flags)
    return _Filter(
        starts=f.starts,
        required=f.required if f.required is not None else extra[0],
        more=(*f.more, extra[0]) if f.required is not None else f.more,
        risky=_char_class(extra[2] | (own[2] if own is not None else frozenset())),
        digit=f.digit,
        undigit=f.undigit,
    )


def _filter_of(pattern: re.Pattern[str], needs: re.Pattern[str] | None) -> _Filter:
    if needs is None:
        return _filter(pattern.pattern, pattern.flags)
    return _filter_needing(pattern.pattern, pattern.flags, needs.pattern, needs.flags)


def _passes(f: _Filter, lower_text: str, present: frozenset[str]) -> bool:
    if f.starts is not None and f.starts.isdisjoint(present):
        return False
    if not f.literals_pass(lower_text, present):
        return False
    return f.digit_passes(_DIGIT.search(lower_text) is not None, present)


def register_patterns(patterns: Iterable[re.Pattern[str]]) -> None:
    """Put the needles of ``patterns`` into the shared scan before first use.

    A detector module registers its rules at import, so the scan is built once
    (a pattern met later still joins it, at the cost of one more build).
    """
    for pattern in patterns:
        _filter(pattern.pattern, pattern.flags)


class _Scan:
    """Every registered needle of every pattern, as one automaton, and what each state finds.

    Trigger: one text is scanned for ~4,000 needles (every rule's literals).
    Why: a trie regex searched again from each match + 1 cost a Python call per
      needle occurrence (~13 a text) and tried the trie's branches one by one at
      each position: ~40 µs a text, the largest single part of the detectors.
    Outcome: an Aho–Corasick automaton over the needles, read one character at a
      time (its transitions memoised as they are met): each state knows every
      needle that ends there, so one pass gives exactly the set of needles that
      occur in the text (~18 µs a text) — the set the trie regex gave
      (``tests/unit/policy/test_prefilter.py``).
    """

    def __init__(self, needles: frozenset[str]) -> None:
        self.needles = needles
        goto: list[dict[str, int]] = [{}]
        ends: list[str | None] = [None]
        for needle in sorted(needles):
            state = 0
            for ch in needle:
                nxt = goto[state].get(ch)
                if nxt is None:
                    nxt = len(goto)
                    goto.append({})
                    ends.append(None)
                    goto[state][ch] = nxt
                state = nxt
            ends[state] = needle
        fail = [0] * len(goto)
        found: list[frozenset[str]] = [frozenset()] * len(goto)
        queue = deque(goto[0].values())
        while queue:  # breadth first: a state's failure is shallower, so done first
            state = queue.popleft()
            own = ends[state]
            found[state] = found[fail[state]] | {own} if own is not None else found[fail[state]]
            for ch, nxt in goto[state].items():
                back = fail[state]
                while back and ch not in goto[back]:
                    back = fail[back]
                fail[nxt] = goto[back].get(ch, 0) if state else 0
                queue.append(nxt)
        self._goto = goto
        self._fail = fail
        #: the needles that end in each state (its own and its failure chain's)
        self.found = found
        self._finds = [bool(f) for f in found]
        #: transitions, memoised per state as texts meet them (a character in no
        #: needle always leads back to the root, and is never stored)
        self._delta: list[dict[str, int]] = [dict(g) for g in goto]
        self._alphabet = frozenset(ch for needle in needles for ch in needle)
        self._memoised = 0

    def _step(self, state: int, ch: str) -> int:
        """The transition from ``state`` on ``ch`` (a character of some needle), memoised."""
        goto, fail = self._goto, self._fail
        back = state
        while back and ch not in goto[back]:
            back = fail[back]
        nxt = goto[back].get(ch, 0)
        if self._memoised < _MEMO_MAX:  # bounded: a long-running gate meets any text
            self._delta[state][ch] = nxt
            self._memoised += 1
        return nxt

    def present(self, lower_text: str) -> frozenset[str]:
        """The needles that occur anywhere in ``lower_text``."""
        delta, finds, alphabet = self._delta, self._finds, self._alphabet
        state = 0
        ended: set[int] = set()
        for ch in lower_text:
            nxt = delta[state].get(ch)
            if nxt is None:
                nxt = self._step(state, ch) if ch in alphabet else 0
            state = nxt
            if finds[state]:
                ended.add(state)
        if not ended:
            return frozenset()
        found = self.found
        return frozenset().union(*[found[s] for s in ended])


#: memoised transitions at most (a few MB); past it, each is computed again
_MEMO_MAX = 500_000


_SCAN = _Scan(frozenset())
_SCAN_LOCK = threading.Lock()
#: needles registered since the scan was built (the next ``_present`` rebuilds it)
_PENDING: set[str] = set()
#: lower-cased text -> the registered needles present in it, for the texts in flight only:
#: every detector scans the same few views of one candidate, so a handful of entries gives
#: every hit a large cache gives (dev + fresh_g, 850 texts: equal CPU at 32 and 4096) and
#: the gate does not keep the last thousands of texts it judged — refused secrets among
#: them — in the memory of a long-running process (cleared when full)
_PRESENT: dict[str, frozenset[str]] = {}
_PRESENT_MAX = 32


def _needle_scan() -> _Scan:
    global _SCAN
    if _PENDING:
        with _SCAN_LOCK:
            if _PENDING:
                _SCAN = _Scan(_SCAN.needles | _PENDING)
                _PENDING.clear()
                _PRESENT.clear()
    return _SCAN


def _present(lower_text: str) -> frozenset[str]:
    """The registered needles that occur (anywhere) in ``lower_text``.

    Trigger: one text meets ~50 needle prefilters per view (every rule of
      every detector), each a separate regex search.
    Why: the Python call per search cost more than the search.
    Outcome: one overlapping scan of the text finds every registered needle it
      holds (cached by text); a rule's prefilter is then a set intersection —
      the same answer as searching for its own needles.
    """
    scan = _needle_scan()
    found = _PRESENT.get(lower_text)
    if found is None:
        found = scan.present(lower_text)
        if len(_PRESENT) >= _PRESENT_MAX:
            _PRESENT.clear()
        if scan is _SCAN and not _PENDING:  # not built with a scan replaced meanwhile
            _PRESENT[lower_text] = found
    return found


def may_match(
    pattern: re.Pattern[str], lower_text: str, needs: re.Pattern[str] | None = None
) -> bool:
    """False only when ``pattern`` certainly cannot match ``lower_text`` (lower-cased).

    Every test that applies must pass: a literal every match starts with
    (:func:`needles_of`), a literal every match contains (:func:`required_literals`
    — void on the rare text holding a character ``re`` case-folds onto a
    needle's letter that ``str.lower`` does not), a digit when every match
    needs one (:func:`needs_digit`). The literals of every pattern are found
    at once by :func:`_present`. A pattern with none of the three always runs.
    """
    f = _filter_of(pattern, needs)
    if f.starts is None and f.required is None and not f.undigit:
        return not f.digit or _DIGIT.search(lower_text) is not None
    return _passes(f, lower_text, _present(lower_text))


class PatternIndex:
    r""":func:`may_match` of many patterns at once: which of them may match a text.

    Trigger: a detector holds dozens of rules and runs each on every view of
      every field (~200 :func:`may_match` calls per write).
    Why: the Python call per rule cost more than the scans it saves.
    Outcome: one lookup of the needles :func:`_present` found gives the
      patterns whose start needles occur; only those (and the few patterns
      without start needles) take their other tests. The set is exactly
      ``{i for i, p in enumerate(patterns) if may_match(p, lower_text)}``
      (``tests/unit/policy/test_prefilter.py``).

    >>> index = PatternIndex([re.compile(r"\bpassport\b"), re.compile(r"\d{4}")])
    >>> sorted(index.candidates("my passport")), sorted(index.candidates("room 1234"))
    ([0], [1])
    """

    def __init__(
        self,
        patterns: Iterable[re.Pattern[str]],
        needs: Iterable[re.Pattern[str] | None] | None = None,
    ) -> None:
        self.patterns = tuple(patterns)
        #: per pattern, a pattern each of its matches contains a match of (or None)
        self.needs = tuple(needs) if needs is not None else (None,) * len(self.patterns)
        self._built: _Built | None = None

    def _build(self) -> _Built:
        filters = tuple(_filter_of(p, n) for p, n in zip(self.patterns, self.needs, strict=True))
        free: dict[str, list[int]] = {}  # start needle -> patterns with no other test
        checked: dict[str, list[int]] = {}  # start needle -> patterns with more tests
        always: list[int] = []  # no test at all
        digit: list[int] = []  # a digit only
        undigit: dict[str, list[int]] = {}  # a digit or one of these needles, nothing else
        required: dict[str, list[int]] = {}  # no start needle: a needle every match holds
        #: ... and its ``risky`` character, which voids the needle on a non-ASCII text
        risky: list[tuple[int, re.Pattern[str]]] = []
        for i, f in enumerate(filters):
            if f.starts is not None:
                more = f.required is not None or f.digit
                for needle in f.starts:
                    (checked if more else free).setdefault(needle, []).append(i)
            elif f.required is None:
                if not f.digit:
                    always.append(i)
                    continue
                digit.append(i)
                for needle in f.undigit:
                    undigit.setdefault(needle, []).append(i)
            else:
                for needle in f.required:
                    required.setdefault(needle, []).append(i)
                if f.risky is not None:
                    risky.append((i, f.risky))
        built = _Built(
            {n: tuple(ids) for n, ids in free.items()},
            {n: tuple(ids) for n, ids in checked.items()},
            frozenset(always),
            frozenset(digit),
            {n: tuple(ids) for n, ids in undigit.items()},
            {n: tuple(ids) for n, ids in required.items()},
            tuple(risky),
            filters,
        )
        self._built = built
        return built

    def candidates(self, lower_text: str) -> frozenset[int]:
        """Indices of the patterns that may match ``lower_text`` (lower-cased).

        Trigger: ~5 calls per candidate, every view of every field.
        Why: testing each pattern without a start needle, and looking up every
          needle present, was ~40% of the detectors' time on a bulk load.
        Outcome: patterns are grouped by the tests they need when the index is
          built; a call intersects the needles present with each group's needles
          (in C) and tests the digit once — the same set as testing each pattern.
        """
        built = self._built or self._build()
        present = _present(lower_text)
        digit: bool | None = None  # whether the text holds a digit, found once if asked
        kept: set[int] = set(built.always)
        if built.digit:
            digit = _DIGIT.search(lower_text) is not None
            if digit:
                kept.update(built.digit)
            else:
                for needle in present & built.undigit_needles:
                    kept.update(built.undigit[needle])
        maybe: set[int] = set()  # a needle is present; a digit (or nothing else) remains
        for needle in present & built.free_needles:
            kept.update(built.free[needle])
        for needle in present & built.checked_needles:
            maybe.update(built.checked[needle])
        for needle in present & built.required_needles:
            maybe.update(built.required[needle])
        if built.risky and not lower_text.isascii():
            # a required needle voided by a character ``re`` folds onto it
            maybe.update(i for i, char in built.risky if char.search(lower_text))
        filters = built.filters
        for i in maybe - kept:
            f = filters[i]
            if (f.required is not None or f.more) and not f.literals_pass(lower_text, present):
                continue
            if f.digit:
                if digit is None:
                    digit = _DIGIT.search(lower_text) is not None
                if not f.digit_passes(digit, present):
                    continue
            kept.add(i)
        return frozenset(kept)


@dataclass(frozen=True, slots=True)
class _Built:
    """A :class:`PatternIndex`'s lookup tables (built on first use)."""

    free: dict[str, tuple[int, ...]]
    checked: dict[str, tuple[int, ...]]
    always: frozenset[int]
    digit: frozenset[int]
    undigit: dict[str, tuple[int, ...]]
    required: dict[str, tuple[int, ...]]
    risky: tuple[tuple[int, re.Pattern[str]], ...]
    filters: tuple[_Filter, ...]
    # the needles of each table as sets: ``present & needles`` walks the smaller one
    free_needles: frozenset[str] = field(init=False)
    checked_needles: frozenset[str] = field(init=False)
    undigit_needles: frozenset[str] = field(init=False)
    required_needles: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "free_needles", frozenset(self.free))
        object.__setattr__(self, "checked_needles", frozenset(self.checked))
        object.__setattr__(self, "undigit_needles", frozenset(self.undigit))
        object.__setattr__(self, "required_needles", frozenset(self.required))
