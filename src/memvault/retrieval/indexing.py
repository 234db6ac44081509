"""Turning memories into vectors at write time, with a cache and a backfill.

The engine asks :func:`embedding_rows` for the vectors of the nodes it is
about to write and puts them in the same :class:`WriteSet`, so a memory and
its vector land in one transaction. If the embedder fails, the memory is
written without a vector and :func:`backfill` embeds it later (retried on
every call until it succeeds); search answers from full text meanwhile.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np

from memvault.embed.base import Embedder, FloatVector
from memvault.model.node import MemoryNode
from memvault.retrieval.hybrid import CONTEXT_SPACE_SUFFIX
from memvault.store.base import EmbeddingRow, IndexText, NodeFilter, Store

__all__ = [
    "derived_index_text",
    "embedding_rows",
    "embedding_texts",
    "index_date",
    "text_sha256",
]

#: How many earlier memories of the same conversation lend their summaries.
CONTEXT_NEIGHBOURS = 2


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def index_date(timestamp: str) -> str:
    """The date column's text for a stored timestamp: ISO day, month name, year.

    >>> index_date("2023-05-08T13:56:00.000000Z")
    '2023-05-08 May 2023'
    """
    day = timestamp[:10]
    try:
        moment = datetime.strptime(day, "%Y-%m-%d")
    except ValueError:
        return ""
    return f"{day} {moment.strftime('%B %Y')}"


def derived_index_text(
    store: Store, node: MemoryNode, earlier: Sequence[MemoryNode] = ()
) -> IndexText | None:
    """Index-only text the write path builds for a memory from legitimate inputs.

    Trigger: a new memory whose caller gave no index text.
    Why: ranking weighs a date column and a context column; production must
      fill them itself (issue 17), from the caller's timestamp and from the
      memory graph — never from raw transcript.
    Outcome: ``date`` from the memory's timestamp; ``context`` the summaries
      of the memories written just before it in the same conversation (up to
      two, from the store and from ``earlier`` nodes of the same write).
    """
    context: list[str] = []
    if node.conversation_id:
        same = [n for n in earlier if n.conversation_id == node.conversation_id]
        context = [n.summary or n.content for n in same[-CONTEXT_NEIGHBOURS:]]
        missing = CONTEXT_NEIGHBOURS - len(context)
        if missing > 0:
            stored = store.list_nodes(
                node.orchestrator_id,
                NodeFilter(conversation_id=node.conversation_id),
                limit=missing,
            )
            context = [n.summary or n.content for n in reversed(stored)] + context
    date = index_date(node.created_at)
    if not context and not date:
        return None
    return IndexText(context=" ".join(context)[:2000], date=date)


def embedding_texts(
    node: MemoryNode, extra: IndexText | None, *, with_context: bool
) -> list[tuple[str, str]]:
    """``(vector space suffix, text)`` pairs to embed for ``node``.

    The plain space embeds "subject: content" (whom the memory is about
    matters: on LoCoMo, naming the speaker doubled dense recall@10, .24 →
    .47). When the memory has index-only context and context vectors are on,
    a second space embeds "subject: context content".
    """
    prefix = f"{extra.subject}: " if extra is not None and extra.subject else ""
    texts = [("", prefix + node.content)]
    if with_context and extra is not None and extra.context:
        texts.append((CONTEXT_SPACE_SUFFIX, f"{prefix}{extra.context} {node.content}".strip()))
    return texts


def embedding_rows(
    store: Store,
    embedder: Embedder,
    nodes: Sequence[MemoryNode],
    extras: Mapping[str, IndexText] | None = None,
    *,
    with_context: bool = True,
    known: Mapping[str, FloatVector] | None = None,
) -> list[EmbeddingRow]:
    """Vectors for ``nodes``, reusing the store's cache; raises if the embedder fails.

    ``known`` maps texts to vectors the caller already got from
    ``embedder.embed_documents`` for exactly those texts; a text found there
    is not embedded again (a vector is a function of the text alone).
    """
    wanted: list[tuple[str, str, str, str]] = []  # memory_id, model_id, text, sha
    for node in nodes:
        extra = (extras or {}).get(node.memory_id)
        for suffix, text in embedding_texts(node, extra, with_context=with_context):
            wanted.append((node.memory_id, embedder.model_id + suffix, text, text_sha256(text)))
    if not wanted:
        return []
    rows: list[EmbeddingRow] = []
    by_space: dict[str, list[tuple[str, str, str]]] = {}
    for memory_id, model_id, text, sha in wanted:
        by_space.setdefault(model_id, []).append((memory_id, text, sha))
    for model_id, items in by_space.items():
        cached = store.cached_embeddings(model_id, [sha for _, _, sha in items])
        for _, text, sha in items:
            if sha not in cached and known is not None and text in known:
                cached[sha] = np.asarray(known[text], dtype=np.float32)
        todo = sorted({(sha, text) for _, text, sha in items if sha not in cached})
        if todo:
            vectors = embedder.embed_documents([text for _, text in todo])
            for (sha, _), vector in zip(todo, vectors, strict=True):
                cached[sha] = np.asarray(vector, dtype=np.float32)
        rows.extend(EmbeddingRow(m, model_id, cached[sha], sha) for m, _, sha in items)
    return rows
