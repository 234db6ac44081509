"""Drafts, and the steps that prepare them before they are judged and written.

A :class:`Draft` is one candidate write (the node, its precomputed vector, its
extra index text). The functions here are the write pipeline's preparation
steps, each with its inputs named: the content split into parts, the vector
step, the derived index text, and the edges a new memory gets. None of them
fails a write: a step that raises logs a warning and leaves the draft as it was.
The protocols and aliases name the steps a
:class:`~memvault.write.pipeline.WritePipeline` is built with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pydantic import ValidationError

from memvault.embed.base import FloatVector
from memvault.errors import ValidationFailed
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.model.validation import to_validation_failed
from memvault.policy.write_gate import EMBEDDING_FAILED
from memvault.retrieval.indexing import conversation_links, derived_index_text
from memvault.store.base import EmbeddingRow, IndexText, Store
from memvault.write.validators import SEMANTIC_TYPES

__all__ = [
    "Cleaner",
    "Draft",
    "EmbedRows",
    "LogFn",
    "Relations",
    "Splitter",
    "content_parts",
    "new_edges",
    "validation_failed",
    "with_index_text",
    "with_vectors",
]

LogFn = Callable[..., None]
"""``log(level, event, **fields)`` — the runtime's structured log (``logs/memory.log``)."""

Relations = Callable[[MemoryNode], Sequence[MemoryEdge]]
"""A relations step: edges a new node gets in its own transaction."""

Cleaner = Callable[[str], str]


class Splitter(Protocol):
    """Cuts ``text`` into consecutive exact slices of at most ``limit`` characters."""

    def __call__(self, text: str, limit: int, *, sentences: int | None = None) -> list[str]: ...


class EmbedRows(Protocol):
    """Embedding rows for nodes about to be written (the engine's embedder, cache first).

    ``known`` holds document vectors the caller already has, by text.
    """

    def __call__(
        self,
        nodes: tuple[MemoryNode, ...],
        extras: Mapping[str, IndexText] | None = ...,
        /,
        *,
        known: Mapping[str, FloatVector] | None = ...,
    ) -> tuple[EmbeddingRow, ...]: ...


@dataclass(frozen=True, slots=True)
class Draft:
    """One candidate write: the node, its precomputed vector, extra index text."""

    node: MemoryNode
    vector: FloatVector | None = None
    index_text: IndexText | None = None
    #: control characters removed from the caller's text (recorded in the CREATE event)
    cleaned: int = 0
    #: the ``model_id`` of the embedder that made ``vector`` (None: not known yet)
    vector_model: str | None = None
    #: ``vector`` came from the caller (``add(vector=...)``), not from this engine's embedder:
    #: it is stored as the memory's vector but never enters the shared embedding cache
    supplied: bool = False


def validation_failed(exc: ValidationError) -> ValidationFailed:
    """Pydantic's error as ours (SCHEMA_INVALID or BOUNDS_EXCEEDED, one entry a field)."""
    failed = to_validation_failed(exc)
    assert isinstance(failed, ValidationFailed)
    return failed


def content_parts(
    fields: Mapping[str, Any],
    content_limit: Callable[[str], int] | None,
    splitter: Splitter | None,
) -> list[str]:
    """The consecutive pieces a long ``content`` is stored as (``[]``: stored whole).

    Trigger: an ``add`` whose content is longer than its category's bound
    (a user message over 512 characters as an EVENT) and that gives no
    separate ``value``.
    Why: refusing it (BOUNDS_EXCEEDED) lost what the user said, and cutting
      it would lose the rest silently (issue 17).
    Outcome: exact slices of the content at sentence ends, each within the
      bound; a statement type (fact, preference …) takes at most two
      sentences a piece, as the writing constraints ask.
    """
    content = fields.get("content")
    if (
        content_limit is None
        or splitter is None
        or not isinstance(content, str)
        or bool(fields.get("value"))
    ):
        return []
    limit = content_limit(str(fields.get("category") or ""))
    if len(content) <= limit:
        return []
    kind = str(fields.get("type") or "").lower()
    statement = kind in {t.value.lower() for t in SEMANTIC_TYPES}
    return splitter(content, limit, sentences=2 if statement else None)


def with_vectors(drafts: Sequence[Draft], embed: EmbedRows, log: LogFn) -> list[Draft]:
    """The vector step: each draft's content vector, before the gate judges it.

    Trigger: the gate reads vectors (``reads_vectors``: the learned layer's
      heads) and an embedder is configured (the pipeline checks both).
    Why: one vector per candidate, used three times — the gate's heads, the
      stored embedding and (capture) the neighbour search read the same one;
      embedding only the accepted drafts after the gate would embed twice.
    Outcome: drafts without a vector get their content's document vector
      (the store's cache first, then one batch); a precomputed one gets its
      ``model_id``. When embedding fails, drafts without a vector are marked
      :data:`~memvault.policy.write_gate.EMBEDDING_FAILED`: the gate computes the
      vector itself or refuses (fail closed), never judges them as if it had none.
    """
    if not drafts:
        return []
    nodes = tuple(d.node for d in drafts)
    known = {d.node.content: d.vector for d in drafts if d.vector is not None}
    try:
        rows = embed(nodes, known=known) if known else embed(nodes)
    except Exception as exc:
        # the gate computes the vector itself, or refuses (review S12-R7): marked, not lost
        log("warning", "embedding_failed", error=f"{type(exc).__name__}: {exc}")
        return [
            d if d.vector is not None else replace(d, vector_model=EMBEDDING_FAILED) for d in drafts
        ]
    by_id = {r.memory_id: r for r in rows}
    out: list[Draft] = []
    for d in drafts:
        row = by_id.get(d.node.memory_id)
        if row is not None and (d.vector is None or d.vector_model is None):
            d = replace(d, vector=row.vector, vector_model=row.model_id)
        elif row is None and d.vector is None:
            # the embedder gave no vector (an engine's embed step logs and answers none)
            d = replace(d, vector_model=EMBEDDING_FAILED)
        out.append(d)
    return out


def with_index_text(
    store: Store, drafts: Sequence[Draft], log: LogFn, earlier: Sequence[MemoryNode] = ()
) -> list[Draft]:
    """Drafts without caller index text get the one the write path derives.

    The date and context columns the default ranking weighs are built here
    from legitimate inputs only (the timestamp, summaries of the memories
    written just before in the same conversation);
    see :func:`memvault.retrieval.indexing.derived_index_text`. ``earlier``:
    the nodes of the same write that come before ``drafts`` (a write prepared
    in chunks).
    """
    out: list[Draft] = []
    before: list[MemoryNode] = list(earlier)
    for draft in drafts:
        if draft.index_text is None:
            try:
                derived = derived_index_text(store, draft.node, before)
            except Exception as exc:  # index text is an aid: never fail the write
                log("warning", "index_text_failed", error=f"{type(exc).__name__}: {exc}")
                derived = None
            draft = replace(draft, index_text=derived)
        out.append(draft)
        before.append(draft.node)
    return out


def edges_of_new(
    node: MemoryNode, relations: Sequence[Relations], log: LogFn
) -> tuple[MemoryEdge, ...]:
    """Every relations step's edges for a new node (a failing step adds none)."""
    edges: list[MemoryEdge] = []
    for relate in relations:
        try:
            edges.extend(relate(node))
        except Exception as exc:
            log("warning", "relations_failed", error=f"{type(exc).__name__}: {exc}")
    return tuple(edges)


def new_edges(
    store: Store,
    orchestrator: str,
    nodes: Sequence[MemoryNode],
    relations: Sequence[Relations],
    log: LogFn,
    *,
    bulk: bool,
    chain: bool = False,
    earlier: Sequence[MemoryNode] = (),
) -> list[MemoryEdge]:
    """The edges new nodes get: conversation links, then the relations steps' edges.

    Bulk loads skip the relations steps: one recall per memory would
    dominate the load (consolidation links similar memories later). Every
    write links consecutive memories of a conversation (one read per
    conversation), ``chain`` consecutive ``nodes`` of no conversation (the
    pieces of one text); a pair linked twice keeps its first edge. ``earlier``:
    the nodes of the same write linked in an earlier call (a write in chunks).
    """
    try:
        edges = conversation_links(store, orchestrator, nodes, chain=chain, earlier=earlier)
    except Exception as exc:  # a link is an aid to ranking: never fail the write
        log("warning", "conversation_links_failed", error=f"{type(exc).__name__}: {exc}")
        edges = []
    if not bulk:
        edges.extend(e for n in nodes for e in edges_of_new(n, relations, log))
    seen: set[tuple[str, str, EdgeType]] = set()
    out: list[MemoryEdge] = []
    for edge in edges:
        key = (edge.from_memory_id, edge.to_memory_id, edge.edge_type)
        if key not in seen:
            seen.add(key)
            out.append(edge)
    return out
