"""Spans a rewrite must never touch: identifiers, code, paths, versions, URLs, quotes.

A stored statement keeps the user's own words. The rewriting the extractor
does (pronouns → the speaker's name, relative dates → calendar dates, clause
splitting) runs on a *masked* text in which every such span is replaced by an
opaque placeholder, and the spans are put back byte-identical afterwards —
so "us-west-2" never meets the ``\\bus\\b`` of the pronoun rewriter, and a
quoted "we ship on Fridays" keeps its "we".

Protected: text in backticks or quotes, URLs, e-mail addresses, paths,
hashtags and @mentions, command-line flags, and any token that mixes letters
with digits or with ``-_./:=@#[]+~\\`` inside it (regions, versions, PR
numbers, package names with extras, file names, ``snake_case``). Plain
words — including "I'm", "don't" and hyphen-free prose — are left to the
rewriter.

>>> masked, spans = protect('Our servers are in us-west-2 and we pin "we ship it" v1.2.3.')
>>> masked.count(PLACEHOLDER_START), spans
(3, ('"we ship it"', 'us-west-2', 'v1.2.3'))
>>> restore(masked.replace("Our", "Lee's team's"), spans)
'Lee\\'s team\\'s servers are in us-west-2 and we pin "we ship it" v1.2.3.'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = [
    "PLACEHOLDER_PATTERN",
    "PLACEHOLDER_START",
    "identifiers",
    "protect",
    "protected",
    "restore",
]

#: Placeholders are private-use characters: never word characters, so no
#: ``\b`` pattern of a rewriter can start or end inside one.
PLACEHOLDER_START = "\ue000"
_END = "\ue001"
_DIGITS = "\ue010\ue011\ue012\ue013\ue014\ue015\ue016\ue017\ue018\ue019"
_PLACEHOLDER = re.compile(PLACEHOLDER_START + "([" + _DIGITS + "]+)" + _END)
#: A placeholder :func:`protect` puts in the text (to find or replace them).
PLACEHOLDER_PATTERN = _PLACEHOLDER

_QUOTED = (
    r"`[^`\n]+`"  # code in backticks
    r'|"[^"\n]{1,200}"'  # "double quotes"
    r"|“[^”\n]{1,200}”|„[^“”\n]{1,200}[“”]|«[^»\n]{1,200}»|‘[^’\n]{1,200}’"
    # 'single quotes' only when they open after a space or start and close before one
    r"|(?<![\w'])'(?=\S)[^'\n]{1,200}(?<=\S)'(?![\w'])"
)
_URL = r"(?:https?|ftp|ssh|git|s3|gs)://[^\s<>\"'`]+|www\.[^\s<>\"'`]+"
# A token: a run of non-space characters, judged once its sentence punctuation is off.
# Scripts written without spaces (CJK, kana, hangul, full-width forms) end a token: a
# Japanese sentence with a date in it ("11月末までに…。") is prose, not one identifier;
# an identifier inside it ("PR#7713を…") is still one.
_TOKEN = re.compile(r"[^\s\"“”«»`\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]+")
_SPAN = re.compile(f"{_QUOTED}|{_URL}")
_INNER = set("-_./:=@#[]+~\\<>|*&%$^")
_TRAILING = ".,;:!?)]}'\u2019"
_LEADING = "([{'\u2018"


#: Prose abbreviations written with inner dots ("e.g.", "i.e.", "a.m."), not identifiers:
#: masked, "e.g. v2026.11.3" split into two sentences and lost the version.
_ABBREVIATIONS = frozenset({"e.g", "i.e", "a.m", "p.m", "z.b", "d.h", "p.ej", "p.ex", "c.-à-d"})


def _is_identifier(token: str) -> bool:
    """A token written for a machine, not prose: kept byte-identical."""
    if len(token) < 2 or token.lower() in _ABBREVIATIONS:
        return False
    if token[0] in "#@" and len(token) > 1 and (token[1].isalnum() or token[1] == "_"):
        return True  # hashtags, @mentions, "#123"
    if token.startswith(("-", "/", "~/", "./", "../")) and any(ch.isalnum() for ch in token):
        return True  # flags, absolute and relative paths
    has_digit = any(ch.isdigit() for ch in token)
    has_alpha = any(ch.isalpha() for ch in token)
    inner = any(ch in _INNER for ch in token[1:-1])
    if has_digit and (has_alpha or inner):
        return True  # us-west-2, v1.2.3, py311, 10.0.0.1, 2026-01-15, PR#42
    if inner and "'" not in token and "\u2019" not in token:
        return True  # foo-bar, snake_case, pkg[extra], a/b, key=value, file.py
    return has_alpha and any(ch.isupper() for ch in token[1:]) and not token.isupper()


def _split_token(token: str) -> tuple[str, str, str]:
    """``(leading punctuation, core, trailing punctuation)`` of a whitespace token."""
    start, end = 0, len(token)
    while start < end and token[start] in _LEADING:
        start += 1
    while end > start and token[end - 1] in _TRAILING:
        # keep a closing bracket that belongs to the token: "pkg[extra]", "f(x)"
        if token[end - 1] in ")]}" and token.count(token[end - 1]) <= token.count(
            {")": "(", "]": "[", "}": "{"}[token[end - 1]]
        ):
            break
        end -= 1
    return token[:start], token[start:end], token[end:]


def _code(index: int) -> str:
    digits = "".join(_DIGITS[int(d)] for d in str(index))
    return f"{PLACEHOLDER_START}{digits}{_END}"


def protect(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with every protected span replaced by a placeholder, and the spans.

    >>> protect("bump numpy>=2.1 in `pyproject.toml`")[1]
    ('`pyproject.toml`', 'numpy>=2.1')
    >>> protect("11月末までに計画書を更新します。PR#7713を先にマージ。")[1]
    ('PR#7713',)
    >>> protect("we tag releases, e.g. v2026.11.3.")[1]
    ('v2026.11.3',)
    """
    if PLACEHOLDER_START in text:
        return text, ()  # already masked by an outer call: nothing new to protect
    spans: list[str] = []

    def keep(value: str) -> str:
        spans.append(value)
        return _code(len(spans) - 1)

    def whole(match: re.Match[str]) -> str:
        value = match.group(0)
        if value.startswith(("http", "ftp", "ssh", "git", "s3", "gs", "www")):
            lead, core, trail = _split_token(value)
            return lead + keep(core) + trail
        return keep(value)

    out = _SPAN.sub(whole, text)

    def token(match: re.Match[str]) -> str:
        value = match.group(0)
        if PLACEHOLDER_START in value:
            return value
        lead, core, trail = _split_token(value)
        if _is_identifier(core):
            return lead + keep(core) + trail
        return value

    return _TOKEN.sub(token, out), tuple(spans)


def restore(text: str, spans: Sequence[str]) -> str:
    """Put the protected ``spans`` back into a masked (and rewritten) ``text``."""

    def back(match: re.Match[str]) -> str:
        index = int("".join(str(_DIGITS.index(ch)) for ch in match.group(1)))
        return spans[index] if index < len(spans) else match.group(0)

    return _PLACEHOLDER.sub(back, text)


def protected(rewrite: Callable[[str], str], text: str) -> str:
    """``rewrite(text)`` applied to prose only: protected spans come back unchanged.

    >>> protected(str.upper, "ship v2.0 to eu-west-1 today")
    'SHIP v2.0 TO eu-west-1 TODAY'
    """
    masked, spans = protect(text)
    if not spans:
        return rewrite(text)
    return restore(rewrite(masked), spans)


def identifiers(text: str) -> tuple[str, ...]:
    """The protected spans of ``text`` (what must come out byte-identical).

    >>> identifiers("see PR #482 and https://ci.example.com/run/7.")
    ('https://ci.example.com/run/7', '#482')
    """
    return protect(text)[1]
