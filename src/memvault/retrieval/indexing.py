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
from functools import lru_cache

import numpy as np

from memvault.embed.base import Embedder, FloatVector
from memvault.model.clock import new_id
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.retrieval.hybrid import CONTEXT_SPACE_SUFFIX
from memvault.retrieval.rerank import FOLLOWS
from memvault.store.base import EmbeddingRow, IndexText, NodeFilter, Store
from memvault.store.scope import same_owner

__all__ = [
    "FOLLOWS",
    "conversation_links",
    "derived_index_text",
    "embedding_rows",
    "embedding_texts",
    "index_date",
    "text_sha256",
]

#: How many earlier memories of the same conversation lend their summaries.
CONTEXT_NEIGHBOURS = 2
#: How many of a conversation's latest stored memories are read to find the previous one.
_LATEST = 64


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def index_date(timestamp: str) -> str:
    """The date column's text for a stored timestamp: ISO day, month name, year.

    >>> index_date("2023-05-08T13:56:00.000000Z")
    '2023-05-08 May 2023'
    """
    return _index_day(timestamp[:10])


@lru_cache(maxsize=4096)
def _index_day(day: str) -> str:
    """:func:`index_date` of one ISO day (a bulk write's memories share a few days)."""
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
        same = [n for n in earlier if _thread(n) == _thread(node)]
        context = [n.summary or n.content for n in same[-CONTEXT_NEIGHBOURS:]]
        missing = CONTEXT_NEIGHBOURS - len(context)
        if missing > 0:
            stored = _latest_stored(store, node.orchestrator_id, node, missing, owner_only=True)
            context = [n.summary or n.content for n in stored] + context
    date = index_date(node.created_at)
    if not context and not date:
        return None
    return IndexText(context=" ".join(context)[:2000], date=date)


def conversation_links(
    store: Store,
    orchestrator: str,
    nodes: Sequence[MemoryNode],
    *,
    chain: bool = False,
    earlier: Sequence[MemoryNode] = (),
) -> list[MemoryEdge]:
    """A ``RelatedTo`` edge (reason :data:`FOLLOWS`) from each new memory to the one before it.

    Trigger: new memories that carry the caller's ``conversation_id``.
    Why: an answer is often said a turn before or after the memory that
      matches a question's words; ranking needs to know which memories were
      consecutive (issue 17), and only the write path knows the order: the
      timestamps of a conversation loaded at once tie.
    Outcome: each of ``nodes`` (in write order) links to the previous memory
      of its conversation: the previous one of ``nodes``, else the latest
      stored one (by timestamp, then id) at or before it. Legitimate inputs
      only: the caller's conversation id and timestamps, no text; one read
      per conversation of a write. ``chain``: ``nodes`` are the pieces of one
      text, so those of no conversation link to the piece before them too.
      ``earlier``: nodes of the same write linked in an earlier call (a bulk
      write prepared in chunks), read as if they came first in ``nodes``.

    >>> import tempfile
    >>> from memvault.engine import MemoryEngine, NewMemory, OpenGate
    >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme", gate=OpenGate(), embedder=None)
    >>> turn = {"type": "Event", "category": "EVENT", "source_kind": "USER_EXPLICIT",
    ...         "conversation_id": "c1"}
    >>> a = e.add(NewMemory(content="Ann: I moved to Lyon.", **turn)).memory_id
    >>> b, c = [r.memory_id for r in e.add_many([
    ...     {"content": "Bo: Why Lyon?", **turn}, {"content": "Ann: A new job.", **turn}])]
    >>> [(x.to_memory_id == a, x.reason) for x in e.get(b).edges if x.from_memory_id == b]
    [(True, 'follows in conversation')]
    >>> [x.to_memory_id == b for x in e.get(c).edges if x.from_memory_id == c]
    [True]
    >>> e.close()
    """
    last: dict[str, MemoryNode] = {n.conversation_id: n for n in earlier if n.conversation_id}
    edges: list[MemoryEdge] = []
    before = next((n for n in reversed(earlier) if not n.conversation_id), None)
    for node in nodes:
        conversation = node.conversation_id
        if not conversation:
            previous, before = (before if chain else None), node
        else:
            previous = last.get(conversation) or next(
                iter(_latest_stored(store, orchestrator, node)), None
            )
        if previous is not None:
            edges.append(
                MemoryEdge(
                    edge_id=new_id("edge"),
                    orchestrator_id=orchestrator,
                    from_memory_id=node.memory_id,
                    to_memory_id=previous.memory_id,
                    edge_type=EdgeType.RELATED_TO,
                    weight=1.0,
                    reason=FOLLOWS,
                    created_at=node.created_at,
                )
            )
        if conversation:
            last[conversation] = node
    return edges


def _thread(node: MemoryNode) -> tuple[str | None, str | None, str | None]:
    """``node``'s conversation as its owner sees it, for index text: the context column is
    text baked into the memory's index, so it comes from the same user's and project's
    memories only (review S11-R5: Bob's search for a word only Alice wrote found his
    memory). Links may cross users: a reader never receives an edge to a memory it cannot
    see."""
    return (node.conversation_id, node.user_id, node.project_id)


def _latest_stored(
    store: Store, orchestrator: str, node: MemoryNode, n: int = 1, *, owner_only: bool = False
) -> list[MemoryNode]:
    """The ``n`` stored memories of ``node``'s conversation written last at or before it
    (oldest first); ``owner_only``: of ``node``'s own user and project only (:func:`same_owner`).

    Listing is newest ``updated_at`` first, ties by id: its first ``n`` rows
    are the ones unless one was changed since it was written, was written
    after ``node``, or the ``n``-th ties with the next (a conversation stored
    in one batch); then up to :data:`_LATEST` rows decide.
    """
    where = NodeFilter(conversation_id=node.conversation_id)
    if owner_only:
        where = same_owner(node.user_id, node.project_id).model_copy(
            update={"conversation_id": node.conversation_id}
        )
    rows = store.list_nodes(orchestrator, where, limit=n + 1)
    head = rows[:n]
    if all(r.updated_at == r.created_at <= node.created_at for r in head) and (
        len(rows) <= n or rows[n - 1].updated_at != rows[n].updated_at
    ):
        return sorted(head, key=lambda r: (r.created_at, r.memory_id))
    earlier = sorted(
        (
            r
            for r in store.list_nodes(orchestrator, where, limit=_LATEST)
            if r.memory_id != node.memory_id and r.created_at <= node.created_at
        ),
        key=lambda r: (r.created_at, r.memory_id),
    )
    return earlier[-n:]


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
