"""Parsers for the drop folder's three formats: ``.txt``, ``.md`` and ``.json``.

Each parser turns decoded text into a :class:`ParsedDocument` or raises
:class:`ParseFailure` with a machine-readable :class:`Rejection` (line and
column are 1-based). Parsers never look at the file system and never judge
content: every candidate they produce still goes through the governance gate.

* ``.txt`` — one candidate per statement (sentence) of each paragraph
  (blank-line separated), cut by :func:`memvault.ingest.statements.statements`
  in the author's words: a stored memory is one statement, as the writing
  constraints every write kind passes require.
* ``.md`` — optional front matter (``key: value`` lines between ``---``
  fences); headings give each chunk its section path (``key`` and ``value``);
  paragraphs and list items are cut into statements like ``.txt``; a code
  fence is one ``Procedure`` candidate, and a block holding an HTML comment stays whole:
  **HTML comments stay in the content**, hidden text is exactly what the gate
  must see.
* ``.json`` — the documented schema in ``docs/ingest.md``: typed memories,
  edges between them by ``ref``, and free ``text`` chunked like ``.txt``.

>>> doc = parse_text("First paragraph.\\n\\nSecond one.", name="notes.txt")
>>> [c.chunk_id for c in doc.candidates]
['p0001', 'p0002']
>>> doc = parse_markdown("# Setup\\n\\n- install\\n- run <!-- note -->\\n", name="a.md")
>>> doc.candidates[0].fields["content"], doc.candidates[0].fields["value"]
('- install\\n- run <!-- note -->', 'Setup')
>>> doc = parse_markdown("# Setup\\n\\nInstall it. Then run it. Done.\\n", name="a.md")
>>> [c.fields["content"] for c in doc.candidates]
['Install it.', 'Then run it.', 'Done.']
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from memvault.ingest.model import (
    MAX_CHUNK_CHARS,
    Candidate,
    EdgeSpec,
    ParsedDocument,
    ParseFailure,
    Rejection,
    RejectReason,
)
from memvault.ingest.statements import is_code_block, statements
from memvault.model.node import PROVENANCE_FIELDS

__all__ = [
    "DEFAULT_CATEGORY",
    "DEFAULT_TYPE",
    "PARSERS",
    "decode",
    "parse_json",
    "parse_markdown",
    "parse_text",
    "split_long",
]

#: Document chunks are cited knowledge (contract 19.1.0 category KNOWLEDGE).
DEFAULT_CATEGORY = "KNOWLEDGE"
DEFAULT_TYPE = "Fact"
#: A Markdown code fence's type and category (a snippet is a procedure, not a statement).
CODE_DEFAULTS = {"type": "Procedure", "category": "PROCEDURE"}

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_SLUG = re.compile(r"[^a-z0-9]+")


def decode(data: bytes) -> str:
    """Strict UTF-8 (a BOM is dropped); newlines normalised to ``\\n``.

    Raises :class:`ParseFailure` with ``ENCODING_ERROR`` and the byte offset,
    line and column of the first bad byte — the text is never guessed.

    >>> decode(b"a\\r\\nb")
    'a\\nb'
    >>> decode(b"ok\\n\\xff").__class__  # doctest: +SKIP
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _position(data, nul)
        raise ParseFailure(
            Rejection(
                RejectReason.ENCODING_ERROR,
                "NUL byte: binary content is not text",
                line=line,
                column=column,
                detail={"byte_offset": nul},
            )
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        raise ParseFailure(
            Rejection(
                RejectReason.ENCODING_ERROR,
                f"not valid UTF-8: {exc.reason}",
                line=line,
                column=column,
                detail={"byte_offset": exc.start, "encoding": "utf-8"},
            )
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _position(data: bytes, offset: int) -> tuple[int, int]:
    before = data[:offset]
    line = before.count(b"\n") + 1
    column = offset - (before.rfind(b"\n") + 1) + 1
    return line, column


def slug(text: str, limit: int = 48) -> str:
    """A lowercase ``a-z0-9-`` slug for keys.

    >>> slug("Build & Release: Steps!")
    'build-release-steps'
    """
    return _SLUG.sub("-", text.lower()).strip("-")[:limit].strip("-") or "doc"


def split_long(text: str, limit: int = MAX_CHUNK_CHARS) -> list[str]:
    """Split ``text`` into pieces of at most ``limit`` characters.

    Splits at sentence ends when it can, else at whitespace, else hard.

    >>> [len(p) for p in split_long("a" * 10, limit=4)]
    [4, 4, 2]
    """
    if len(text) <= limit:
        return [text] if text.strip() else []
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            head, sentence = sentence[:cut], sentence[cut:].lstrip()
            if current:
                pieces.append(current)
                current = ""
            pieces.append(head)
        if current and len(current) + 1 + len(sentence) > limit:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        pieces.append(current)
    return [p for p in (p.strip() for p in pieces) if p]


def _candidate(
    chunk_id: str,
    content: str,
    *,
    key: str,
    value: str,
    line: int,
    defaults: Mapping[str, Any],
) -> Candidate:
    fields: dict[str, Any] = {"type": DEFAULT_TYPE, "category": DEFAULT_CATEGORY}
    fields.update(defaults)
    fields.update({"content": content, "key": key[:128], "value": value[:1024]})
    return Candidate(chunk_id, fields, line=line)


# -- .txt --------------------------------------------------------------------


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """``(first line, paragraph)`` for each blank-line separated paragraph."""
    start: int | None = None
    lines: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if start is None:
                start = number
            lines.append(line)
        elif lines:
            assert start is not None
            yield start, "\n".join(lines).strip()
            start, lines = None, []
    if lines:
        assert start is not None
        yield start, "\n".join(lines).strip()


def _text_candidates(
    text: str, *, stem: str, title: str, prefix: str, defaults: Mapping[str, Any]
) -> list[Candidate]:
    out: list[Candidate] = []
    for index, (line, paragraph) in enumerate(_paragraphs(text), start=1):
        pieces = statements(paragraph)
        for part, piece in enumerate(pieces, start=1):
            chunk = f"{prefix}{index:04d}" + (f".{part}" if len(pieces) > 1 else "")
            out.append(
                _candidate(
                    chunk,
                    piece.text,
                    key=f"{stem}#{chunk}",
                    value=title,
                    line=line + piece.line,
                    defaults=defaults,
                )
            )
    return out


def parse_text(text: str, *, name: str) -> ParsedDocument:
    """Paragraph chunks of a plain-text file."""
    stem = slug(name.rsplit(".", 1)[0])
    title = name.rsplit(".", 1)[0][:256] or name
    return ParsedDocument(
        "txt", tuple(_text_candidates(text, stem=stem, title=title, prefix="p", defaults={}))
    )


# -- .md ---------------------------------------------------------------------

#: Front-matter keys that set fields of every chunk, and how to read them.
_FRONT_MATTER: dict[str, Callable[[str], Any]] = {
    "title": str,
    "type": str,
    "category": str,
    "importance": int,
    "confidence": float,
    "ttl_class": str,
    "project_id": str,
    "user_id": str,
}


def _front_matter(lines: list[str]) -> tuple[dict[str, Any], list[str], int]:
    """Parse ``---`` front matter; return (values, ignored keys, first body line index)."""
    if not lines or lines[0].strip() != "---":
        return {}, [], 0
    values: dict[str, Any] = {}
    ignored: list[str] = []
    for index in range(1, len(lines)):
        raw = lines[index]
        if raw.strip() in ("---", "..."):
            return values, ignored, index + 1
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if ":" not in raw:
            raise ParseFailure(
                Rejection(
                    RejectReason.PARSE_ERROR,
                    "front matter line is not 'key: value'",
                    line=index + 1,
                    column=1,
                )
            )
        key, _, value = raw.partition(":")
        key = key.strip().lower()
        text = value.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        reader = _FRONT_MATTER.get(key)
        if reader is None:
            ignored.append(key[:64])
            continue
        try:
            values[key] = reader(text)
        except ValueError:
            raise ParseFailure(
                Rejection(
                    RejectReason.PARSE_ERROR,
                    f"front matter {key!r} must be {reader.__name__}",
                    line=index + 1,
                    column=len(raw) - len(value.lstrip()) + 1,
                )
            ) from None
    raise ParseFailure(
        Rejection(
            RejectReason.PARSE_ERROR, "front matter is not closed with '---'", line=1, column=1
        )
    )


@dataclass
class _Block:
    line: int
    text: str


def _md_sections(lines: list[str], offset: int) -> Iterator[tuple[list[str], list[_Block]]]:
    """``(heading path, blocks)`` per section; fences and comments never split."""
    path: list[tuple[int, str]] = []
    blocks: list[_Block] = []
    current: list[str] = []
    start = 0
    fence: str | None = None
    in_comment = False

    def flush() -> None:
        nonlocal current
        if current and any(x.strip() for x in current):
            blocks.append(_Block(start, "\n".join(current).strip("\n")))
        current = []

    for index, line in enumerate(lines[offset:], start=offset + 1):
        if fence is None and not in_comment:
            heading = _HEADING.match(line)
            if heading:
                flush()
                if blocks:
                    yield [t for _, t in path], blocks
                    blocks = []
                level = len(heading.group(1))
                path = [(lv, t) for lv, t in path if lv < level] + [(level, heading.group(2))]
                continue
            if not line.strip():
                flush()
                continue
        if not current:
            start = index
        current.append(line)
        fence_match = _FENCE.match(line)
        if fence_match and not in_comment:
            marker = fence_match.group(1)
            fence = None if fence == marker else (fence or marker)
        if fence is None:
            # Trigger: an HTML comment that spans blank lines.
            # Why: hidden text must reach the gate whole, in the same chunk.
            # Outcome: the block continues until the comment closes.
            opened = line.count("<!--")
            closed = line.count("-->")
            if in_comment:
                in_comment = closed == 0 or line.rfind("<!--") > line.rfind("-->")
            else:
                in_comment = opened > 0 and line.rfind("<!--") > line.rfind("-->")
    flush()
    if blocks:
        yield [t for _, t in path], blocks


def _chunk_blocks(blocks: list[_Block]) -> Iterator[tuple[int, str]]:
    """One chunk per statement of each block (:func:`~memvault.ingest.statements.statements`).

    A block holding an HTML comment stays whole: hidden text reaches the gate
    with its context (and, like any candidate, is refused alone if it fails).
    """
    for block in blocks:
        if "<!--" in block.text and len(block.text) <= MAX_CHUNK_CHARS:
            yield block.line, block.text
            continue
        for piece in statements(block.text):
            yield block.line + piece.line, piece.text


def parse_markdown(text: str, *, name: str) -> ParsedDocument:
    """Section-aware chunks of a Markdown file (see the module docstring)."""
    lines = text.split("\n")
    meta, ignored, body = _front_matter(lines)
    title = str(meta.pop("title", "") or name.rsplit(".", 1)[0])[:256] or name
    stem = slug(title)
    candidates: list[Candidate] = []
    for section, (path, blocks) in enumerate(_md_sections(lines, body), start=1):
        heading = " › ".join(path) if path else title
        for part, (line, content) in enumerate(_chunk_blocks(blocks), start=1):
            chunk = f"s{section:04d}.c{part:02d}"
            key = f"{stem}/{slug(path[-1]) if path else 'intro'}#{chunk}"
            # A code fence is a how-to snippet, not prose: a Procedure unless the
            # front matter types the document (procedures keep their own shape).
            code = CODE_DEFAULTS if is_code_block(content) and "type" not in meta else {}
            candidates.append(
                _candidate(
                    chunk, content, key=key, value=heading, line=line, defaults={**code, **meta}
                )
            )
    notes: dict[str, Any] = {"ignored_front_matter": ignored} if ignored else {}
    return ParsedDocument("md", tuple(candidates), notes=notes)


# -- .json -------------------------------------------------------------------

_TOP_KEYS = frozenset({"memvault", "defaults", "memories", "edges", "text"})
#: Fields a memory (or ``defaults``) may set; everything else is refused.
MEMORY_FIELDS = frozenset(
    {
        "content",
        "type",
        "category",
        "key",
        "value",
        "summary",
        "importance",
        "confidence",
        "ttl_class",
        "pinned",
        "project_id",
        *PROVENANCE_FIELDS,
    }
)
_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}$")


def _schema(message: str, path: str) -> ParseFailure:
    return ParseFailure(Rejection(RejectReason.SCHEMA_INVALID, message, detail={"path": path}))


def parse_json(text: str, *, name: str) -> ParsedDocument:
    """Typed memories, edges and free text from a JSON document (docs/ingest.md)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseFailure(
            Rejection(RejectReason.PARSE_ERROR, exc.msg, line=exc.lineno, column=exc.colno)
        ) from None
    except RecursionError:
        raise ParseFailure(Rejection(RejectReason.PARSE_ERROR, "JSON nested too deeply")) from None
    if isinstance(data, list):
        data = {"memories": data}
    if not isinstance(data, dict):
        raise _schema("the document must be an object or an array of memories", "$")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise _schema(f"unknown top-level key(s): {', '.join(unknown)}", f"$.{unknown[0]}")
    if data.get("memvault", "ingest/1") != "ingest/1":
        raise _schema("unsupported schema version (expected 'ingest/1')", "$.memvault")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise _schema("'defaults' must be an object", "$.defaults")
    bad = sorted(set(defaults) - (MEMORY_FIELDS - {"content", "key", "value", "summary"}))
    if bad:
        raise _schema(f"'defaults' may not set: {', '.join(bad)}", f"$.defaults.{bad[0]}")
    memories = data.get("memories", [])
    if not isinstance(memories, list):
        raise _schema("'memories' must be an array", "$.memories")
    stem = slug(name.rsplit(".", 1)[0])
    candidates: list[Candidate] = []
    refs: set[str] = set()
    for index, item in enumerate(memories):
        where = f"$.memories[{index}]"
        if not isinstance(item, dict):
            raise _schema("a memory must be an object", where)
        fields: dict[str, Any] = {"type": DEFAULT_TYPE, "category": DEFAULT_CATEGORY}
        fields.update(defaults)
        ref = item.get("ref")
        if ref is not None:
            if not isinstance(ref, str) or not _REF.match(ref):
                raise _schema("'ref' must be an identifier (letters, digits, _.:-)", where)
            if ref in refs:
                raise _schema(f"duplicate ref {ref!r}", f"{where}.ref")
            refs.add(ref)
        # Unknown fields are passed on: building the node refuses them as
        # SCHEMA_INVALID for this memory alone (the rest of the file survives).
        fields.update({k: v for k, v in item.items() if k != "ref"})
        chunk = f"memories.{index}"
        if not fields.get("key"):
            fields["key"] = f"{stem}#{chunk}"
        candidates.append(Candidate(chunk, fields, ref=ref))
    edges = _json_edges(data.get("edges", []), refs)
    free = data.get("text", [])
    if isinstance(free, str):
        free = [free]
    if not isinstance(free, list) or not all(isinstance(t, str) for t in free):
        raise _schema("'text' must be a string or an array of strings", "$.text")
    title = name.rsplit(".", 1)[0][:256] or name
    text_defaults = {k: v for k, v in defaults.items() if k in {"importance", "project_id"}}
    for index, block in enumerate(free):
        candidates.extend(
            _text_candidates(
                block, stem=stem, title=title, prefix=f"text.{index}.p", defaults=text_defaults
            )
        )
    return ParsedDocument("json", tuple(candidates), edges=edges)


def _json_edges(raw: Any, refs: set[str]) -> tuple[EdgeSpec, ...]:
    if not isinstance(raw, list):
        raise _schema("'edges' must be an array", "$.edges")
    edges: list[EdgeSpec] = []
    for index, item in enumerate(raw):
        where = f"$.edges[{index}]"
        if not isinstance(item, dict):
            raise _schema("an edge must be an object", where)
        unknown = sorted(set(item) - {"from", "to", "type", "weight", "reason"})
        if unknown:
            raise _schema(f"unknown edge key(s): {', '.join(unknown)}", f"{where}.{unknown[0]}")
        for end in ("from", "to"):
            if item.get(end) not in refs:
                raise _schema(f"edge '{end}' must name the ref of a memory in this file", where)
        weight = item.get("weight", 1.0)
        reason = item.get("reason")
        if not isinstance(weight, int | float) or isinstance(weight, bool):
            raise _schema("edge 'weight' must be a number", f"{where}.weight")
        if reason is not None and not isinstance(reason, str):
            raise _schema("edge 'reason' must be a string", f"{where}.reason")
        edge_type = item.get("type", "RelatedTo")
        if not isinstance(edge_type, str):
            raise _schema("edge 'type' must be a string", f"{where}.type")
        edges.append(EdgeSpec(index, item["from"], item["to"], edge_type, float(weight), reason))
    return tuple(edges)


#: Parser for each supported (lower-case) suffix.
PARSERS: dict[str, Callable[..., ParsedDocument]] = {
    ".txt": parse_text,
    ".md": parse_markdown,
    ".json": parse_json,
}
