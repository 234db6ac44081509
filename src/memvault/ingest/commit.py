"""From judged files to one WriteSet each: vectors, resolve, the transaction's rows.

Three steps after the gate, all on the engine's shared paths:

1. :func:`embed_nodes` — the accepted nodes of *several* files in one call of
   :func:`memvault.retrieval.indexing.embedding_rows` (the engine's own
   write-time path: ``(model_id, sha256(text))`` cache, then one
   ``embed_documents`` for the rest). Length-sorted batches across files waste
   far less on padding than one small batch per file. A failing embedder
   yields no vectors and its error: the nodes are stored without vectors, the
   backfill queue (``store.missing_embeddings``) picks them up.
2. :func:`plan_file` — every accepted node through :class:`~memvault.ingest.dedup.Deduper`
   (the write path's resolve): a new node, or a merge into a stored one.
3. :func:`write_set` — nodes, touches, edges, vectors, history, change log and
   the ``ingest_files`` record: ONE write set per file (a window's commit together).

>>> from memvault.embed import HashingEmbedder
>>> from memvault.store import InMemoryStore
>>> embed_nodes(InMemoryStore(), HashingEmbedder(dimension=8), []).vectors
{}
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memvault.embed.base import Embedder, FloatVector
from memvault.ingest.dedup import Deduper, merged_into
from memvault.ingest.judge import Judged
from memvault.ingest.model import Candidate
from memvault.model.decision import Decision
from memvault.model.enums import MemoryStatus
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.retrieval.indexing import embedding_rows
from memvault.store.base import EmbeddingRow, IngestRecord, WriteSet
from memvault.write.commit import WriteBuilder, touched

__all__ = [
    "Embedded",
    "FilePlan",
    "embed_nodes",
    "merge_embedded",
    "plan_file",
    "shares",
    "write_set",
]

THREAD = "ingest"

#: Characters of text per ``embed_documents`` call (~1,000 MiniLM tokens).
CALL_CHARS = 4000


@dataclass(frozen=True)
class Embedded:
    """Vectors of a batch of nodes by memory id (plain space), or why there are none."""

    model_id: str | None
    vectors: dict[str, EmbeddingRow]
    error: str | None = None
    seconds: float = 0.0

    def summary(self, memory_ids: Sequence[str]) -> dict[str, Any]:
        """The manifest's ``embeddings`` entry for the nodes a file stored."""
        stored = sum(1 for m in memory_ids if m in self.vectors)
        data: dict[str, Any] = {"model": self.model_id, "vectors": stored}
        if self.error is not None:
            data["error"] = self.error
            data["queued_for_backfill"] = len(memory_ids) - stored
        return data


def embed_nodes(
    store: Any,
    embedder: Embedder | None,
    nodes: Sequence[MemoryNode],
    *,
    why_none: str = "",
    known: Mapping[str, FloatVector] | None = None,
) -> Embedded:
    """``embedding_rows`` for ``nodes`` (identical texts embedded once), length-sorted.

    ``known``: this embedder's vectors by text (another window's), not embedded
    again. Never raises: an embedder failure is returned as ``error``.
    """
    if embedder is None:
        return Embedded(None, {}, why_none or "no embedder configured")
    started = time.perf_counter()
    first: dict[str, MemoryNode] = {}
    for node in sorted(nodes, key=lambda n: len(n.content)):
        first.setdefault(node.content, node)
    # Trigger: a share of many texts. Why: measured on the bench's chunks, calls of
    # ~1,000 tokens cost 18-20 ms CPU a text against 21-24 ms for 4,096-token
    # batches (cache) and 27-30 ms for one small batch per file (padding).
    # Outcome: length-sorted calls of at most CALL_CHARS characters.
    calls: list[list[MemoryNode]] = [[]]
    size = 0
    for node in first.values():
        if calls[-1] and size + len(node.content) > CALL_CHARS:
            calls.append([])
            size = 0
        calls[-1].append(node)
        size += len(node.content)
    try:
        rows = [
            row
            for call in calls
            if call
            for row in embedding_rows(store, embedder, call, with_context=False, known=known)
        ]
    except Exception as exc:
        # Trigger: the embedder (or the cache read) failed for this batch.
        # Why: memory is advisory; a file is never lost to the vector leg.
        # Outcome: no vectors; the nodes are stored and queued for backfill.
        return Embedded(embedder.model_id, {}, f"{type(exc).__name__}: {exc}"[:300])
    by_content = {
        first_node.content: row
        for first_node, row in zip(first.values(), rows, strict=True)
        if row.model_id == embedder.model_id
    }
    vectors = {
        n.memory_id: EmbeddingRow(n.memory_id, row.model_id, row.vector, row.text_sha256)
        for n in nodes
        if (row := by_content.get(n.content)) is not None
    }
    return Embedded(embedder.model_id, vectors, seconds=time.perf_counter() - started)


def shares(nodes: Sequence[MemoryNode], threads: int) -> list[list[MemoryNode]]:
    """Split ``nodes`` into at most ``threads`` non-empty shares of alike lengths.

    Trigger: more than one worker. Why: each worker's batch is padded to its
    longest text; dealing length-sorted texts round-robin keeps every share
    alike. Outcome: identical texts stay in one share (embedded once).

    >>> from memvault.model.node import MemoryNode
    >>> len(shares([], 2))
    0
    """
    groups: dict[str, list[MemoryNode]] = {}
    for node in nodes:
        groups.setdefault(node.content, []).append(node)
    ordered = sorted(groups.values(), key=lambda g: (len(g[0].content), g[0].content))
    out: list[list[MemoryNode]] = [[] for _ in range(max(threads, 1))]
    for i, group in enumerate(ordered):
        out[i % len(out)].extend(group)
    return [share for share in out if share]


def merge_embedded(parts: Sequence[Embedded], why_none: str) -> Embedded:
    """One :class:`Embedded` from the shares' results (``why_none`` when there were none)."""
    if not parts:
        return Embedded(None, {}, why_none)
    vectors: dict[str, EmbeddingRow] = {}
    for part in parts:
        vectors.update(part.vectors)
    error = next((p.error for p in parts if p.error is not None), None)
    return Embedded(parts[0].model_id, vectors, error, sum(p.seconds for p in parts))


@dataclass
class FilePlan:
    """What one file's transaction does with its accepted candidates."""

    #: (candidate, new node, gate decision)
    created: list[tuple[Candidate, MemoryNode, Decision]] = field(default_factory=list)
    #: (candidate, its would-be node, gate decision, merge target id, reason)
    merged: list[tuple[Candidate, MemoryNode, Decision, str | None, str]] = field(
        default_factory=list
    )
    #: the merge targets, touched once per merged candidate
    touched: dict[str, MemoryNode] = field(default_factory=dict)
    edges: list[MemoryEdge] = field(default_factory=list)
    skipped_edges: list[dict[str, Any]] = field(default_factory=list)
    resolve_seconds: float = 0.0


def plan_file(
    judged: Judged,
    embedded: Embedded,
    deduper: Deduper,
    *,
    sha: str,
    at: str,
    nudge: float,
    recovered: bool = False,
) -> FilePlan:
    """Resolve every accepted node of a file against the store (in file order).

    ``recovered``: the file's transaction already committed (a crash before
    the move). Its own nodes are then excluded from the neighbours, and a node
    that exists is reported as created — no write follows.
    """
    started = time.perf_counter()
    plan = FilePlan()
    own = frozenset(node.memory_id for _, node, _ in judged.accepted)
    existing = {n.memory_id for n in deduper.nodes(list(own))} if recovered else set()
    effective: dict[str, str] = {}  # node id -> id the file's edges should use
    # Trigger: the file's chunks (nothing is written until the file's transaction).
    # Why: one vector search and one node read per chunk and per merge target.
    # Outcome: one batch resolve, one read of every merge target.
    resolutions = deduper.resolve_many(
        [
            (c, n, row.vector if (row := embedded.vectors.get(n.memory_id)) is not None else None)
            for c, n, _ in judged.accepted
        ],
        exclude=own,
    )
    targets = sorted({t for r in resolutions if (t := merged_into(r)) is not None})
    stored = {n.memory_id: n for n in deduper.nodes(targets)}
    for (candidate, node, decision), resolution in zip(judged.accepted, resolutions, strict=True):
        target = merged_into(resolution)
        if node.memory_id in existing or (target is None and not recovered):
            plan.created.append((candidate, node, decision))
            effective[node.memory_id] = node.memory_id
            continue
        old = plan.touched.get(target) if target is not None else None
        if target is not None and old is None:
            found = stored.get(target)
            old = found if found is not None and found.status is MemoryStatus.ACTIVE else None
        if old is None and not recovered:  # the target vanished: store it after all
            plan.created.append((candidate, node, decision))
            effective[node.memory_id] = node.memory_id
            continue
        if old is not None:
            plan.touched[old.memory_id] = touched(old, at, nudge)
            effective[node.memory_id] = old.memory_id
        plan.merged.append(
            (candidate, node, decision, old.memory_id if old else None, resolution.reason)
        )
    _redirect_edges(judged, plan, effective, deduper)
    plan.resolve_seconds = time.perf_counter() - started
    return plan


def _redirect_edges(
    judged: Judged, plan: FilePlan, effective: dict[str, str], deduper: Deduper
) -> None:
    """A file's own edges, with merged endpoints replaced by the memory they merged into."""
    plan.skipped_edges = list(judged.skipped_edges)
    ends = {m for e in judged.edges for m in (e.from_memory_id, e.to_memory_id)}
    if all(effective.get(m) == m for m in ends):
        plan.edges = list(judged.edges)
        return
    ids = sorted({effective[m] for m in ends if m in effective})
    own = {e.edge_id for e in judged.edges}  # a recovered file's edges are stored already
    stored = {
        (e.from_memory_id, e.to_memory_id, e.edge_type.value)
        for e in deduper.edges(ids)
        if e.edge_id not in own
    }
    for edge in judged.edges:
        a = effective.get(edge.from_memory_id, "")
        b = effective.get(edge.to_memory_id, "")
        triple = (a, b, edge.edge_type.value)
        if not a or not b or a == b or triple in stored:
            # Trigger: an endpoint merged into a memory that already has this
            # edge (or into the other endpoint). Why: a duplicate edge would fail
            # the whole file's transaction. Outcome: skipped, listed in the manifest.
            plan.skipped_edges.append({"edge_id": edge.edge_id, "reason": "ENDPOINT_MERGED"})
            continue
        stored.add(triple)
        plan.edges.append(edge.model_copy(update={"from_memory_id": a, "to_memory_id": b}))


def write_set(
    builder: WriteBuilder,
    judged: Judged,
    plan: FilePlan,
    embedded: Embedded,
    record: IngestRecord,
    *,
    sha: str,
) -> WriteSet:
    """The file's ONE transaction: everything :func:`plan_file` decided, plus the record.

    Built by the write pipeline's builder (``builder``: this file's moment,
    actor and the ``ingest`` thread).
    """
    document = f"sha256:{sha}"

    def where(candidate: Candidate) -> dict[str, Any]:
        return {"document": document, "chunk": candidate.chunk_id}

    merged = []
    for candidate, node, _decision, into, reason in plan.merged:
        assert into is not None  # only a recovered plan (never written) lacks a target
        merged.append((plan.touched[into], node.source, reason, where(candidate)))
    created = [node for _, node, _ in plan.created]
    return builder.ingested(
        created=[(node, decision, where(c)) for c, node, decision in plan.created],
        merged=merged,
        edges=plan.edges,
        refused=[(decision, fields, where(c)) for c, decision, fields in judged.refused],
        records=(record,),
        embeddings=[row for n in created if (row := embedded.vectors.get(n.memory_id)) is not None],
    )
