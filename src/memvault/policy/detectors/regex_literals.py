"""What every match of a regex needs, read from the pattern itself (no text involved).

:mod:`prefilter` asks these questions once per pattern and keeps the answers in its
shared needle scan: the literals a match starts with (:func:`needles_of`), literal
sets every match contains one member of (:func:`required_literals`, all of them:
:func:`literal_sets`), whether every match needs a decimal digit in the text
(:func:`needs_digit`) or a digit unless a literal stands in for it (:func:`digit_or`).
Each answer is a necessary condition of a match; none ever claims more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from re import _casefix as _sre_casefix  # type: ignore[attr-defined]
from re import _constants as _sre_constants  # type: ignore[attr-defined]
from re import _parser as _sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = [
    "MORE_SETS",
    "digit_or",
    "literal_sets",
    "needle_regex",
    "needles_of",
    "needs_digit",
    "required_literals",
    "risky_chars",
    "trie_pattern",
]

_META = set("\\()[]{}.*+?|^$")
_ZERO_WIDTH_PREFIXES = ("(?=", "(?!", "(?<=", "(?<!")


def _scan(p: str, start: int = 0) -> Iterator[tuple[int, str, int, bool]]:
    """Walk regex ``p`` from ``start``: ``(offset, token, depth, syntax)`` for each escape
    pair or character, with the group depth after it; nothing escaped or inside a
    ``[…]`` class is syntax."""
    depth = 0
    in_class = False
    i = start
    while i < len(p):
        if p[i] == "\\":
            yield i, p[i : i + 2], depth, False
            i += 2
            continue
        ch = p[i]
        syntax = not in_class
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        yield i, ch, depth, syntax
        i += 1


def _split_alternatives(p: str) -> list[str] | None:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for _, token, depth, syntax in _scan(p):
        if syntax and token == "|" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(token)
    parts.append("".join(cur))
    return parts if depth == 0 else None


def _group_end(p: str, start: int) -> int:
    for i, token, depth, syntax in _scan(p, start):
        if syntax and token == ")" and depth == 0:
            return i
    return -1


def _first_literals(alt: str) -> set[str] | None:
    i = 0
    while True:
        if alt.startswith("\\b", i):
            i += 2
        elif alt.startswith(("(?i)", "(?m)", "(?s)"), i):
            i += 4
        elif alt.startswith("(?im)", i):
            i += 5
        elif alt.startswith("^", i):
            i += 1
        elif alt.startswith(("\\s*", "\\s+"), i):
            i += 3
        elif alt.startswith(_ZERO_WIDTH_PREFIXES, i):
            end = _group_end(alt, i)
            if end < 0:
                return None
            i = end + 1
        else:
            break
    if i >= len(alt):
        return None
    if alt[i] == "(":
        end = _group_end(alt, i)
        if end < 0 or alt[end + 1 : end + 2] in ("?", "*") or alt.startswith("{0", end + 1):
            return None
        inner = alt[i + 1 : end]
        m = re.match(r"\?(?:[aiLmsux-]*:|P<\w+>)", inner)
        if m:
            inner = inner[m.end() :]
        return _alternatives_literals(inner)
    run: list[str] = []
    while i < len(alt):
        ch = alt[i]
        if ch == "\\":
            nxt = alt[i + 1 : i + 2]
            if nxt.isalnum() or not nxt:
                break
            run.append(nxt)
            i += 2
            continue
        if ch in _META:
            if ch in "?*{" and run:
                run.pop()
            break
        run.append(ch)
        i += 1
    lit = "".join(run).lower()
    if len(lit) >= 2 or (len(lit) == 1 and not (lit.isascii() and lit.isalnum())):
        return {lit}
    return None


@cache
def needles_of(pattern: str) -> frozenset[str] | None:
    r"""Literal strings one of which every match must start with (lower-cased), or None.

    A cheap substring test with these skips a regex that cannot match; None means
    the pattern has no literal start and must always run.

    >>> sorted(needles_of(r"\b(?:diabet\w*|cancer)s?\b|\bhiv\b"))
    ['cancer', 'diabet', 'hiv']
    """
    found = _alternatives_literals(pattern)
    return None if found is None else frozenset(found)


def _alternatives_literals(pattern: str) -> set[str] | None:
    """The literal starts of every top-level alternative of ``pattern``; None if one has none."""
    alts = _split_alternatives(pattern)
    if alts is None:
        return None
    out: set[str] = set()
    for a in alts:
        sub = _first_literals(a)
        if sub is None:
            return None
        out |= sub
    return out


class _Trie(dict[str, "_Trie"]):
    """A character trie; the key "" marks the end of a word."""


def trie_pattern(words: frozenset[str]) -> str:
    """One regex matching any of ``words``, common prefixes factored (fast in ``re``).

    >>> trie_pattern(frozenset({"pass", "passport", "pin"}))
    'p(?:ass(?:port)?|in)'
    """
    trie = _Trie()
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, _Trie())
        node[""] = _Trie()

    def build(node: _Trie) -> str:
        keys = sorted(k for k in node if k)
        if not keys:
            return ""
        alts = [re.escape(k) + build(node[k]) for k in keys]
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


@cache
def needle_regex(pattern: str) -> re.Pattern[str] | None:
    r"""A regex for the start needles of ``pattern`` (None: it has none).

    >>> needle_regex(r"\b(?:passport|pin)\b").pattern
    'p(?:assport|in)'
    """
    needles = needles_of(pattern)
    if needles is None:
        return None
    # A needle that is a prefix of another makes the longer one redundant.
    minimal = frozenset(n for n in needles if not any(o != n and n.startswith(o) for o in needles))
    return re.compile(trie_pattern(minimal))


# ------------------------------------------------- required literals (anywhere)

_P = _sre_constants
_REPEATS = (_P.MAX_REPEAT, _P.MIN_REPEAT, _P.POSSESSIVE_REPEAT)

#: ``re``'s extra case-insensitive equivalences (``i``/``ı``, ``s``/``ſ``, ``σ``/``ς``,
#: ``в``/``ᲀ`` …): lower-case code point → the others it matches.
_FOLDS: dict[int, tuple[int, ...]] = dict(_sre_casefix._EXTRA_CASES)


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two literal sets: longest shortest needle, then fewest."""
    if a is None or b is None:
        return a if b is None else b
    key_a = (min(map(len, a)), -len(a))
    key_b = (min(map(len, b)), -len(b))
    return a if key_a >= key_b else b


#: a class of at most this many literal characters inside a literal run ("l[ií]tio") is
#: read as one literal per character, while the run stays within this many strings
_MAX_CLASS = 4
_MAX_EXPANSIONS = 16
#: one-character needles a match may be known by: marks rare in prose ("me / Pass!2026",
#: "a|b"); a letter, a digit, a space or a full stop occurs in almost every text
_RARE_MARKS = frozenset("/|:@=#<>{}[]\\_~^`$%&*+;")


def _class_chars(av: Any) -> list[str] | None:
    """The lower-cased characters of a small positive class of literals (``[ií]``), else None."""
    if not av or len(av) > _MAX_CLASS:
        return None
    chars: set[str] = set()
    for op, code in av:
        if op is not _P.LITERAL or len(chr(code).lower()) != 1:
            return None  # a range, a category, a negation
        chars.add(chr(code).lower())
    return sorted(chars)


def _literal_strings(items: Any) -> list[str] | None:
    """The strings a parsed sequence of literals and small classes matches, else None."""
    out = [""]
    for op, av in items:
        if op is _P.LITERAL and len(chr(av).lower()) == 1:
            out = [r + chr(av).lower() for r in out]
        elif op is _P.IN and (chars := _class_chars(av)) is not None:
            out = [r + c for r in out for c in chars]
        else:
            return None
        if len(out) > _MAX_EXPANSIONS:
            return None
    return out


def _required_sets(items: Any) -> list[frozenset[str]]:
    """Lower-cased literal sets of a parsed sequence: every match contains a member of EACH.

    A run of literals is one string; a small class inside it multiplies the run
    ("l[ií]tio" is {"litio", "lítio"}), and so does a group of literal alternatives
    ("\\.(?:com|net)" is {".com", ".net"}).
    """
    sets: list[frozenset[str]] = []
    run = [""]

    def flush() -> None:
        nonlocal run
        if run != [""]:
            sets.append(frozenset(run))
        run = [""]

    for op, av in items:
        if op is _P.LITERAL and len(chr(av).lower()) == 1:
            run = [r + chr(av).lower() for r in run]
        elif op is _P.IN and (chars := _class_chars(av)) is not None:
            if len(run) * len(chars) > _MAX_EXPANSIONS:
                flush()
            run = [r + c for r in run for c in chars]
        elif op is _P.AT:
            continue  # zero-width (\b, ^, $): the literals around it stay adjacent
        elif (
            op is _P.BRANCH
            and (alts := _branch_strings(av[1])) is not None
            and len(run) * len(alts) <= _MAX_EXPANSIONS * 4
        ):
            run = [r + a for r in run for a in alts]
        elif op is _P.SUBPATTERN:
            flush()
            sets += _required_sets(av[-1])
        elif op is _P.ATOMIC_GROUP:
            flush()
            sets += _required_sets(av)
        elif op is _P.BRANCH:
            flush()
            branches = [_best(_required_sets(b)) for b in av[1]]
            if all(b is not None for b in branches):
                sets.append(frozenset().union(*(b for b in branches if b)))
        elif op in _REPEATS:
            flush()
            low, _high, sub = av
            if low >= 1:
                sets += _required_sets(sub)
        else:
            flush()  # a large class, a wildcard, a lookaround, "İ": no certain literal
    flush()
    return sets


def _branch_strings(alternatives: Any) -> list[str] | None:
    out: list[str] = []
    for alternative in alternatives:
        strings = _literal_strings(alternative)
        if strings is None or "" in strings:
            return None
        out += strings
    return out


def _best(sets: list[frozenset[str]]) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    for found in sets:
        best = _better(best, found)
    return best


def _required_in(items: Any) -> frozenset[str] | None:
    """Lower-cased literals one of which every match of a parsed sequence contains."""
    return _best(_required_sets(items))


def _usable(found: frozenset[str]) -> bool:
    """A literal set worth a test: no needle shorter than two characters but a rare mark."""
    return all(len(n) >= 2 or n in _RARE_MARKS for n in found)


def _decimal_range(low: int, high: int) -> bool:
    r"""Every code point of ``[low, high]`` is a decimal digit (``\d``: category Nd)."""
    return high - low < 64 and all(chr(c).isdecimal() for c in range(low, high + 1))


def _is_digit_item(op: Any, av: Any) -> bool:
    r"""A single-character item that only matches decimal digits (``\d``, ``[0-9]``, ``٣``)."""
    if op is _P.LITERAL:
        return isinstance(av, int) and _decimal_range(av, av)
    if op is _P.IN:
        return bool(av) and all(
            (o is _P.CATEGORY and a is _P.CATEGORY_DIGIT)
            or (o is _P.LITERAL and _decimal_range(a, a))
            or (o is _P.RANGE and _decimal_range(a[0], a[1]))
            for o, a in av
        )
    return False


def _needs_digit(items: Any) -> bool:
    """True when every match of a parsed sequence needs a decimal digit in the text.

    A positive lookaround counts: what it must see is in the text, if not in the
    match ("(?=[A-Z]{0,6}\\d)" before an ID) — the prefilter asks about the text.
    """
    for op, av in items:
        if _is_digit_item(op, av):
            return True
        if op is _P.ASSERT and _needs_digit(av[1]):
            return True
        if op is _P.SUBPATTERN and _needs_digit(av[-1]):
            return True
        if op is _P.ATOMIC_GROUP and _needs_digit(av):
            return True
        if op is _P.BRANCH and all(_needs_digit(b) for b in av[1]):
            return True
        if op in _REPEATS and av[0] >= 1 and _needs_digit(av[2]):
            return True
    return False


@cache
def needs_digit(pattern: str, flags: int = 0) -> bool:
    r"""True when every match of ``pattern`` needs a decimal digit (``\d``) in the text.

    >>> needs_digit(r"\b\d{3}-\d{2}-\d{4}\b"), needs_digit(r"\b(?:ssn|\d{9})\b")
    (True, False)
    >>> needs_digit(r"id:\s*(?=[a-z]{0,3}\d)\w+")
    True
    """
    try:
        return _needs_digit(_sre_parse.parse(pattern, flags))
    except Exception:
        return False


def digit_or(items: Any) -> frozenset[str] | None:
    r"""Literals such that every match needs a digit or contains one of them (empty: a digit),
    for a parsed pattern (``re._parser.parse``); None when neither holds.

    For a branch some of whose alternatives need no digit but each holds a literal:
    GPS coordinates in five shapes, one of them "///word.word.word".

    >>> sorted(digit_or(_sre_parse.parse(r"\d+\.\d+|///[a-z]+")))
    ['///']
    """
    if _needs_digit(items):
        return frozenset()
    for op, av in items:
        if op is _P.SUBPATTERN:
            found = digit_or(av[-1])
            if found is not None:
                return found
        elif op is _P.BRANCH:
            out: set[str] = set()
            for alternative in av[1]:
                if _needs_digit(alternative):
                    continue
                literals = _required_in(alternative)
                if literals is None or not _usable(literals):
                    break
                out |= literals
            else:
                return frozenset(out)
    return None


@cache
def required_literals(pattern: str, flags: int = 0) -> frozenset[str] | None:
    r"""Lower-cased strings one of which every match of ``pattern`` contains, or None.

    Unlike :func:`needles_of` (literals a match must *start* with), these may sit
    anywhere in the match, so patterns that open with a class or an optional
    group get a prefilter too. None: no literal of two or more characters is
    certain.

    >>> sorted(required_literals(r"\b(?:half[- ])?(?:american|german)s?\b"))
    ['american', 'german']
    >>> sorted(required_literals(r"\w{3,}(?:ectomy|itis)\b"))
    ['ectomy', 'itis']
    >>> required_literals(r"\d{3}-\d{4}") is None
    True
    """
    found = literal_sets(pattern, flags)
    return found[0] if found else None


@cache
def literal_sets(pattern: str, flags: int = 0) -> tuple[frozenset[str], ...]:
    r"""Every usable required literal set of ``pattern``, the most selective first.

    >>> [sorted(s) for s in literal_sets(r"\b(?:my|his) \w+ (?:insulin|warfarin) dose")]
    [[' insulin dose', ' warfarin dose'], ['his ', 'my ']]
    """
    try:
        found = _required_sets(_sre_parse.parse(pattern, flags))
    except Exception:
        return ()  # an unusual construct: no prefilter, the pattern always runs
    usable = [f for f in dict.fromkeys(found) if _usable(f)]
    return tuple(sorted(usable, key=lambda f: (min(map(len, f)), -len(f)), reverse=True))


#: more literal sets tested beside :func:`required_literals` (every one must be present)
MORE_SETS = 2


def risky_chars(needle: str) -> set[str]:
    """Characters ``re`` folds onto a letter of ``needle`` that ``str.lower`` does not.

    >>> sorted(risky_chars("ss"))
    ['ſ']
    """
    letters = {ord(ch) for ch in needle}
    risky = {chr(f) for code in letters for f in _FOLDS.get(code, ())}
    if ord("i") in letters:
        risky.add("\u0307")
    return risky
