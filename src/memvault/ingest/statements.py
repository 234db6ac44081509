"""Ingest's chunk → candidate step: memory-sized statements in the author's words.

A document paragraph is several statements; a stored memory is one (the
writing constraints every write kind passes, :mod:`memvault.write.validators`,
allow one or two sentences). :func:`statements` cuts a chunk at sentence ends
into one candidate per sentence — exact slices of the text, never reworded,
never truncated: a sentence longer than the node's bound is cut at whitespace
into consecutive pieces that together hold every character. A forbidden
sentence is then refused alone by the gate, and its neighbours are kept.

Sentence ends are counted the way the validator counts them (abbreviations such
as "e.g." and "vs." and numbers such as "3.5" do not end a sentence), and a
list marker ("1. ", "- ") starts a piece instead of ending one.

>>> [s.text for s in statements("We ship on Fridays. Tests run first, e.g. unit tests. Done!")]
['We ship on Fridays.', 'Tests run first, e.g. unit tests.', 'Done!']
>>> [(s.line, s.text) for s in statements("1. Build it.\\n2. Ship v2.1 now.")]
[(0, '1. Build it.'), (1, '2. Ship v2.1 now.')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memvault.write.validators import problems_of

__all__ = ["STATEMENT_CHARS", "Statement", "is_code_block", "message_parts", "statements"]

#: A statement longer than this is cut at whitespace (the node allows 4,000).
STATEMENT_CHARS = 1000

# A sentence end: terminal punctuation (optionally closed by a quote or bracket)
# followed by whitespace. Not after an abbreviation the validator ignores, or a
# list number at the start of a line ("1."), and not inside "3.5" (no whitespace follows there).
_END = re.compile(r"[.!?]+[\"')\]]*(?=\s)|[。！？]+(?=\S)")
_ABBREVIATION = re.compile(
    r"(?:(?:^|[\s(])(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|st)|(?:^|\n)[ \t]*\d+)$", re.I
)
_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")


@dataclass(frozen=True)
class Statement:
    """One candidate's text and its line offset inside the chunk (0-based)."""

    line: int
    text: str


def is_code_block(text: str) -> bool:
    """True for a fenced code block, which is kept whole (code is not prose).

    >>> is_code_block("```sh\\nmake test\\n```")
    True
    """
    return bool(_FENCE.match(text))


def _cuts(text: str) -> list[int]:
    """Offsets after each sentence end (where the next statement starts)."""
    cuts: list[int] = []
    for match in _END.finditer(text):
        head = text[: match.start() + 1]
        if match.group(0) == "." and _ABBREVIATION.search(head[:-1]):
            continue
        end = match.end()
        while end < len(text) and text[end].isspace():
            end += 1
        cuts.append(end)
    return cuts


def _bounded(piece: str, limit: int) -> list[str]:
    """``piece`` cut at whitespace into parts of at most ``limit`` characters."""
    parts: list[str] = []
    while len(piece) > limit:
        cut = piece.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        parts.append(piece[:cut].rstrip())
        piece = piece[cut:].lstrip()
    if piece.strip():
        parts.append(piece)
    return parts


def statements(text: str, *, limit: int = STATEMENT_CHARS) -> list[Statement]:
    """The statements of a chunk, in order, each an exact slice of ``text``.

    Lines are split too: a line break followed by a list marker, or after a
    line that ends a sentence, starts a new statement.

    >>> [s.text for s in statements("- install the tool\\n- run it")]
    ['- install the tool\\n- run it']
    >>> [s.text for s in statements("- Install it.\\n- Run it.\\n- Check it.")]
    ['- Install it.', '- Run it.', '- Check it.']
    >>> statements("Nichts.  Gar nichts.")[1]
    Statement(line=0, text='Gar nichts.')
    """
    if is_code_block(text) or (_LIST.match(text) and len(text) <= limit and not problems_of(text)):
        # Code is not prose, and a short list of items that are not sentences
        # ("- build / - test") is one statement: both are kept whole.
        return [Statement(0, part) for part in _bounded(text, limit)]
    starts = {0, *_cuts(text)}
    for match in re.finditer(r"\n[ \t]*(?:[-*+]|\d+[.)])[ \t]", text):
        starts.add(match.start() + 1)
    out: list[Statement] = []
    bounds = sorted(s for s in starts if s < len(text))
    for begin, end in zip(bounds, [*bounds[1:], len(text)], strict=True):
        piece = text[begin:end].strip()
        if not piece:
            continue
        line = text.count("\n", 0, begin + (len(text[begin:end]) - len(text[begin:end].lstrip())))
        out.extend(Statement(line, part) for part in _bounded(piece, limit))
    return out


def message_parts(text: str, limit: int, *, sentences: int | None = None) -> list[str]:
    """A long message as consecutive exact slices of ``text``, each at most ``limit`` long.

    Whole statements (:func:`statements`) are packed in order while they fit
    (and, with ``sentences``, up to that many per part); only the whitespace
    at a cut is left out: tabs and line breaks inside a part are kept, and no
    character of a statement is lost.

    >>> message_parts("One.\\tTwo is here.\\nThree! Four?", 18)
    ['One.\\tTwo is here.', 'Three! Four?']
    >>> message_parts("A. B. C.", 100, sentences=2)
    ['A. B.', 'C.']
    """
    parts: list[tuple[int, int]] = []
    count = 0
    position = 0
    for statement in statements(text, limit=limit):
        start = text.index(statement.text, position)
        end = position = start + len(statement.text)
        if parts and end - parts[-1][0] <= limit and (sentences is None or count < sentences):
            parts[-1] = (parts[-1][0], end)
            count += 1
        else:
            parts.append((start, end))
            count = 1
    return [text[a:b] for a, b in parts]
