"""What every detector returns, and the small helpers they share.

A detector is a pure function ``detect(doc: NormalizedText) -> list[Hit]``. A
:class:`Hit` names its detector (``family.rule``), the forbidden family or
injection technique, the view it matched in and where, and a reason a person can
read. The gate turns hits into findings with spans on the original text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from memvault.policy.normalize import NormalizedText, View

__all__ = [
    "FAMILIES",
    "Hit",
    "Rule",
    "clause_of",
    "may_match",
    "needles_of",
    "run_rules",
]

#: Forbidden families (contract §4) as the detectors and the bench name them.
FAMILIES = (
    "identity_trait",
    "health",
    "intimate",
    "criminal",
    "location",
    "credentials",
    "gov_id",
    "biometric",
    "financial",
    "inferred_profiling",
    "tool_output",
)


@dataclass(frozen=True, slots=True)
class Hit:
    """One detector firing on one span of one view."""

    detector: str
    family: str
    label: str
    view: View
    start: int
    end: int
    reason: str

    def original_span(self) -> tuple[int, int]:
        return self.view.to_original(self.start, self.end)


Validator = Callable[[re.Match[str], View], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """A regex (plus an optional validator) that is a finding by itself."""

    name: str
    family: str
    label: str
    pattern: re.Pattern[str]
    reason: str
    validate: Validator | None = None
    group: int = 0
    views: tuple[str, ...] = ("clean", "collapsed", "numeric")


_META = set("\\()[]{}.*+?|^$")
_ZERO_WIDTH_PREFIXES = ("(?=", "(?!", "(?<=", "(?<!")


def _split_alternatives(p: str) -> list[str] | None:
    parts: list[str] = []
    depth = 0
    in_class = False
    cur: list[str] = []
    i = 0
    while i < len(p):
        ch = p[i]
        if ch == "\\":
            cur.append(p[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts if depth == 0 else None


def _group_end(p: str, start: int) -> int:
    depth = 0
    i = start
    in_class = False
    while i < len(p):
        ch = p[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
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
        alts = _split_alternatives(inner)
        if alts is None:
            return None
        out: set[str] = set()
        for a in alts:
            sub = _first_literals(a)
            if sub is None:
                return None
            out |= sub
        return out
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
    alts = _split_alternatives(pattern)
    if alts is None:
        return None
    out: set[str] = set()
    for a in alts:
        sub = _first_literals(a)
        if sub is None:
            return None
        out |= sub
    return frozenset(out)


class _Trie(dict[str, "_Trie"]):
    """A character trie; the key "" marks the end of a word."""


def _trie_pattern(words: frozenset[str]) -> str:
    """One regex matching any of ``words``, common prefixes factored (fast in ``re``)."""
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
def _needle_regex(pattern: str) -> re.Pattern[str] | None:
    needles = needles_of(pattern)
    if needles is None:
        return None
    # A needle that is a prefix of another makes the longer one redundant.
    minimal = frozenset(n for n in needles if not any(o != n and n.startswith(o) for o in needles))
    return re.compile(_trie_pattern(minimal))


def may_match(pattern: re.Pattern[str], lower_text: str) -> bool:
    """False only when ``pattern`` certainly cannot match (none of its needles occur)."""
    rx = _needle_regex(pattern.pattern)
    return rx is None or rx.search(lower_text) is not None


def run_rules(doc: NormalizedText, rules: Iterable[Rule], *, first_only: bool = True) -> list[Hit]:
    """Apply ``rules`` to the views each one names (one hit per rule unless ``first_only``)."""
    hits: list[Hit] = []
    views = list(doc.views())
    lowers = [v.lower for v in views]
    for rule in rules:
        found = False
        for view, low in zip(views, lowers, strict=True):
            if view.name not in rule.views and not (
                "decoded" in rule.views and view.name.startswith("decoded")
            ):
                continue
            if not may_match(rule.pattern, low):
                continue
            for m in rule.pattern.finditer(view.text):
                if rule.validate is not None and not rule.validate(m, view):
                    continue
                hits.append(
                    Hit(
                        detector=rule.name,
                        family=rule.family,
                        label=rule.label,
                        view=view,
                        start=m.start(rule.group),
                        end=m.end(rule.group),
                        reason=rule.reason,
                    )
                )
                found = True
                if first_only:
                    break
            if found and first_only:
                break
    return hits


_CLAUSE_END = re.compile(r"[.;!?\n]")


def clause_of(text: str, start: int, end: int) -> str:
    """The sentence-ish clause around ``[start, end)`` (split on . ; ! ? and newlines)."""
    left = start
    while left > 0 and not (
        _CLAUSE_END.match(text[left - 1])
        and (left >= len(text) or text[left - 1] != "." or not text[left : left + 1].isalnum())
    ):
        left -= 1
    right = end
    while right < len(text) and not (
        _CLAUSE_END.match(text[right])
        and (text[right] != "." or right + 1 >= len(text) or not text[right + 1].isalnum())
    ):
        right += 1
    return text[left:right]
