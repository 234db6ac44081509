"""The data of ingestion: rejection reasons, candidates, parsed documents.

Everything here is plain frozen data; parsers produce it, the pipeline
consumes it, manifests serialise it. Nothing here touches a file or a store.

>>> Rejection(RejectReason.PARSE_ERROR, "unexpected token", line=3, column=7).to_json()
{'code': 'PARSE_ERROR', 'message': 'unexpected token', 'line': 3, 'column': 7}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "MAX_CHUNK_CHARS",
    "Candidate",
    "EdgeSpec",
    "ParseFailure",
    "ParsedDocument",
    "RejectReason",
    "Rejection",
]

#: A chunk never exceeds this many characters (the node's content bound is 4000).
MAX_CHUNK_CHARS = 3500


class RejectReason(StrEnum):
    """Machine-readable reasons a whole file is rejected (manifest ``reasons``)."""

    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"
    TOO_LARGE = "TOO_LARGE"
    PARSE_ERROR = "PARSE_ERROR"
    SCHEMA_INVALID = "SCHEMA_INVALID"
    ENCODING_ERROR = "ENCODING_ERROR"
    EMPTY = "EMPTY"
    UNSAFE_PATH = "UNSAFE_PATH"
    UNREADABLE = "UNREADABLE"
    ALL_CANDIDATES_REFUSED = "ALL_CANDIDATES_REFUSED"
    STORE_FAILED = "STORE_FAILED"


@dataclass(frozen=True, slots=True)
class Rejection:
    """One reason a file was rejected, with where (line/column, 1-based) when known."""

    code: RejectReason
    message: str
    line: int | None = None
    column: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.line is not None:
            data["line"] = self.line
        if self.column is not None:
            data["column"] = self.column
        data.update(self.detail)
        return data


class ParseFailure(Exception):
    """Raised by a parser when the whole document is unusable (carries a :class:`Rejection`)."""

    def __init__(self, rejection: Rejection) -> None:
        super().__init__(rejection.message)
        self.rejection = rejection


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory a parser proposes; ``fields`` are validated when the node is built.

    ``chunk_id`` is a structural id within the document (never text), e.g.
    ``p0003`` (third paragraph), ``s0002.c01`` (section 2, first chunk) or
    ``memories.4`` (fifth memory of a JSON file). ``ref`` is the JSON ``ref``
    edges point to. ``fields`` holds what becomes the node: ``content``,
    ``type``, ``category``, ``key``, ``value``, ``summary``, ``importance`` …
    """

    chunk_id: str
    fields: Mapping[str, Any]
    line: int | None = None
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class EdgeSpec:
    """An edge a JSON document asks for, between two of its memories' ``ref``s."""

    index: int
    from_ref: str
    to_ref: str
    edge_type: str
    weight: float = 1.0
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """What a parser found: candidates, requested edges, and notes for the manifest."""

    format: str
    candidates: tuple[Candidate, ...]
    edges: tuple[EdgeSpec, ...] = ()
    notes: Mapping[str, Any] = field(default_factory=dict)
