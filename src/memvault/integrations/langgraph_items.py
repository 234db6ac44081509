"""How the LangGraph adapter holds an item: a memory whose ``value`` is an envelope.

An item is one memory: the LangGraph namespace, the caller's value (verbatim JSON)
and whether it is indexed sit in the memory's ``value`` as one JSON object
(:class:`StoredItem` reads it back). A value's ``type``, ``category``,
``source_kind``, ``importance``, ``pinned`` and ``ttl_class`` set those memvault
fields when they hold valid values (:data:`SETTABLE`, :func:`valid_value`). The
caller's LangChain embeddings become a memvault embedder (:class:`LangChainEmbedder`).
A put's memory text is :func:`item_content`, its key checked by :func:`check_key`; a
memory read back is :func:`decode`'d into its item.
Used by :mod:`memvault.integrations.langgraph_store`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

import numpy as np
from langgraph.store.base import (
    Item,
    PutOp,
    SearchItem,
    ensure_embeddings,
    get_text_at_path,
    tokenize_path,
)
from pydantic import TypeAdapter

from memvault.errors import WriteRefusedError
from memvault.model.enums import StopReason
from memvault.model.node import MemoryNode, Source

__all__ = [
    "DEFAULTS",
    "SETTABLE",
    "LangChainEmbedder",
    "StoredItem",
    "check_json",
    "check_key",
    "decode",
    "item_content",
    "valid_value",
]

#: The value's keys whose text is the memory's text when no ``index`` names fields.
_TEXT_KEYS = ("content", "text", "memory")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: The memvault fields of an item whose value does not set them.
DEFAULTS: dict[str, Any] = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}


def _when(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _stored_type(name: str) -> TypeAdapter[Any]:
    """How a stored memory types its field ``name`` (the node's, or its source's)."""
    field = (Source if name in Source.model_fields else MemoryNode).model_fields[name]
    # Any: pydantic's own stubs type ``annotation`` differently from one release to the next
    hint: Any = (
        Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    )
    return TypeAdapter(hint)


#: The memvault fields a value may set, each as the stored memory types it.
SETTABLE = {name: _stored_type(name) for name in (*DEFAULTS, "importance", "pinned", "ttl_class")}


def valid_value(name: str, value: Any) -> bool:
    """Whether ``value``, as JSON, is a value memvault stores for the field ``name``
    as it is (strictly: ``"50"`` is not the importance 50, nor ``1`` true)."""
    try:
        SETTABLE[name].validate_json(json.dumps(value), strict=True)
    except (TypeError, ValueError):  # not JSON, or not valid (a ValidationError)
        return False
    return True


class LangChainEmbedder:
    """The caller's LangChain ``Embeddings`` as a memvault embedder (unit float32 rows)."""

    def __init__(self, embed: Any, dims: int) -> None:
        self.embeddings = ensure_embeddings(embed)
        self.dims = int(dims)
        name = getattr(self.embeddings, "model", None) or type(self.embeddings).__qualname__
        self.model_id = f"langgraph:{name}:{self.dims}"
        #: Texts embedded during one ``batch`` (:meth:`remembering`), else ``None``.
        self._memo: dict[str, np.ndarray[Any, np.dtype[np.float32]]] | None = None

    @property
    def dimension(self) -> int:
        return self.dims

    @contextmanager
    def remembering(self) -> Iterator[None]:
        """Within the block each text is sent to the caller's embeddings once.

        Trigger: a ``batch`` judges an update before it writes it (review S15-R6).
        Why: the judgement and the write each embedded the item's text: two calls of
          the caller's (often paid, remote) embeddings for one put.
        Outcome: the second asks nothing of them; the memo ends with the batch.
        """
        self._memo = {}
        try:
            yield
        finally:
            self._memo = None

    @staticmethod
    def _unit(rows: Sequence[Sequence[float]]) -> np.ndarray[Any, np.dtype[np.float32]]:
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return np.asarray(matrix / np.where(norms == 0, 1.0, norms), dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        memo = self._memo
        if memo is None or not texts:
            return self._unit(self.embeddings.embed_documents(list(texts)))
        missing = [t for t in dict.fromkeys(texts) if t not in memo]
        if missing:
            rows = self._unit(self.embeddings.embed_documents(missing))
            memo.update(zip(missing, rows, strict=True))
        return np.stack([memo[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        vector: np.ndarray[Any, np.dtype[np.float32]] = self._unit(
            [self.embeddings.embed_query(text)]
        )[0]
        return vector


@dataclass(frozen=True, slots=True)
class StoredItem:
    """One item as memvault holds it."""

    node: MemoryNode
    namespace: tuple[str, ...]
    value: dict[str, Any]
    indexed: bool

    def item(self, score: float | None = None, *, search: bool = False) -> Item:
        fields: dict[str, Any] = {
            "namespace": self.namespace,
            "key": self.node.key,
            "value": self.value,
            "created_at": _when(self.node.created_at),
            "updated_at": _when(self.node.updated_at),
        }
        return SearchItem(**fields, score=score) if search else Item(**fields)


def check_json(key: str, value: Mapping[str, Any]) -> None:
    """Raise ``TypeError`` when ``value`` holds what JSON cannot (a datetime, a set …).

    Trigger: a put's value is kept as JSON, verbatim.
    Why: ``default=str`` stored such an object as its text, so ``get`` gave back
      another value than the one put — a silent coercion.
    Outcome: the batch is refused before anything is written, naming the item's key
      (LangGraph's own SQLite and PostgreSQL stores cannot keep them either).

    >>> check_json("k", {"n": 1})
    >>> check_json("k", {"s": {1}})
    Traceback (most recent call last):
    TypeError: the value of 'k' is not JSON (Object of type set is not JSON serializable)
    """
    try:
        json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"the value of {key!r} is not JSON ({exc})") from None


def decode(node: MemoryNode) -> StoredItem:
    """The item a memory holds: its envelope read back, or — a memory this adapter did not
    write — the memory under its memvault scope."""
    try:
        raw = json.loads(node.value) if node.value else None
    except ValueError:
        raw = None
    if isinstance(raw, dict) and isinstance(raw.get("namespace"), list) and "value" in raw:
        value = raw["value"] if isinstance(raw["value"], dict) else {}
        return StoredItem(node, tuple(raw["namespace"]), value, bool(raw.get("indexed", True)))
    # A memory this adapter did not write (or wrote before namespaces were kept):
    # shown under its memvault scope, as the adapter's first version named it.
    scope = (node.orchestrator_id, node.project_id or "global")
    namespace = (*scope, node.user_id) if node.user_id else scope
    if not isinstance(raw, dict):
        raw = {"content": node.content, "type": node.type.value, "category": node.category}
    return StoredItem(node, namespace, raw, True)


def _texts(value: Mapping[str, Any], index: Any, indexed: Sequence[str] | None) -> list[str]:
    """The texts of ``value`` to embed; empty when the item is not to be indexed."""
    if index is False:
        return []
    if indexed is None:
        text = next((str(value[k]) for k in _TEXT_KEYS if value.get(k)), None)
        return [text or json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)]
    paths = tuple(index) if index is not None else tuple(indexed)
    texts: list[str] = []
    for path in paths:
        if path == "$":
            texts.append(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str))
        else:
            texts.extend(t for t in get_text_at_path(value, tokenize_path(path)) if t)
    return texts


def item_content(
    value: Mapping[str, Any], index: Any, indexed: Sequence[str] | None
) -> tuple[str, list[str]]:
    """The memory text of a put's value, and the indexed texts it was made of.

    ``index``: the put's own (``False``: not indexed); ``indexed``: the store's fields
    (``None``: no ``index`` config — the value's ``content``, ``text`` or ``memory``).

    >>> item_content({"content": "Dana prefers tea"}, None, None)
    ('Dana prefers tea', ['Dana prefers tea'])
    >>> item_content({"a": {"b": "x"}}, None, ("a.b",))
    ('x', ['x'])
    """
    texts = _texts(value, index, indexed)
    whole = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return _CONTROL.sub(" ", "\n".join(texts) if texts else whole).strip() or whole, texts


def check_key(op: PutOp) -> None:
    """Raise :class:`WriteRefusedError` for a put's key memvault cannot keep as given."""
    if op.value is not None and not op.key.strip():
        # memvault's "no key": a put under "" was stored without one and never found
        raise WriteRefusedError(StopReason.SCHEMA_INVALID, "key is required and empty")
    if op.value is not None and _CONTROL.search(op.key):
        # the write path strips control characters from a key: the item landed under
        # another key ("a\x07b" -> "ab"), where a get under the put key never found
        # it and it replaced what was there (review S14-R7)
        raise WriteRefusedError(StopReason.SCHEMA_INVALID, "key must not hold control characters")
