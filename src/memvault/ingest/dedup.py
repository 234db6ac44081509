"""Ingested candidates against what is already stored — the write path's resolve, reused.

Each accepted chunk of a file is compared with the orchestrator's active
memories of the same scope (same ``user_id`` and ``project_id``): nearest by
vector when the file was embedded, else by full text. The pure
:func:`memvault.write.resolve.resolve` then decides with the similarity bands of
:func:`memvault.write.bands_for` (the capture path's bands, per embedder).
Ingestion acts on one outcome, ``merged``: the same statement is already
stored, so no new node is made; the old one is touched (access count,
confidence nudge) and gains this chunk as a source. Every other outcome
stores a new node. Why not the others: ``updated`` needs a change cue ("moved
to") that only the transcript extractor detects, and the ``contradiction``
band fires on *different numbers* — in documents that is "Step 1" next to
"Step 2", not a conflict; ``related`` would link every chunk of a topic.

Structural keys (``notes#s0002.c01``) are *positions*, not meanings: they are
hidden from the resolver, otherwise an edited file's new text would "merge"
into the old text of the same section. Keys a JSON memory sets itself are
meanings and take part (same key and value → merged).

>>> from memvault.store import InMemoryStore
>>> d = Deduper(InMemoryStore(), "acme", model_id=None)
>>> d.bands.duplicate
0.9
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memvault.extract.base import Candidate as WriteCandidate
from memvault.ingest.model import Candidate
from memvault.ingest.window import PendingView
from memvault.model.enums import MemoryStatus
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.retrieval.text import query_terms
from memvault.store.base import Store
from memvault.store.scope import same_owner
from memvault.write import (
    LexicalSimilarity,
    NeighbourView,
    Outcome,
    Resolution,
    SimilarityBands,
    bands_for,
)
from memvault.write.resolve import resolve

__all__ = ["MERGE_MARGIN", "Deduper", "merged_into", "semantic_key"]

#: Vector neighbours this far below the duplicate band are never loaded (see resolve).
MERGE_MARGIN = 0.1

#: Outcomes that store a new node (see the module docstring).
_CREATES = frozenset({Outcome.STORED, Outcome.RELATED, Outcome.CONTRADICTION, Outcome.UPDATED})


def semantic_key(candidate: Candidate, key: str) -> str:
    """The key the resolver may compare: ``""`` for a structural (positional) key.

    >>> from memvault.ingest.model import Candidate
    >>> c = Candidate("s0001.c01", {})
    >>> semantic_key(c, "guide/rollback#s0001.c01"), semantic_key(c, "store")
    ('', 'store')
    """
    return "" if key.endswith(f"#{candidate.chunk_id}") else key


def merged_into(resolution: Resolution) -> str | None:
    """The memory a candidate merges into, or ``None`` when it becomes a node."""
    if resolution.outcome is Outcome.MERGED:
        return resolution.merge_into
    assert resolution.outcome in _CREATES, resolution.outcome
    return None


@dataclass
class Deduper:
    """Resolves one orchestrator's ingested nodes against its stored memories.

    ``model_id`` names the vector space the vectors passed to :meth:`resolve`
    live in (``None``: full text and lexical similarity only); ``bands``
    overrides come from the engine's capture configuration.
    """

    store: Store
    orchestrator: str
    model_id: str | None
    overrides: Mapping[str, SimilarityBands] | None = None
    neighbours: int = 8
    #: a window's staged files, read on top of the store (``None``: the store alone)
    window: PendingView | None = None

    def nodes(self, memory_ids: Sequence[str]) -> list[MemoryNode]:
        """The nodes with these ids as resolve sees them (the window's version first)."""
        if self.window is not None:
            return self.window.nodes(memory_ids)
        return self.store.get_nodes(self.orchestrator, memory_ids)

    def edges(self, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        """Every edge touching one of ``memory_ids`` (the window's staged ones too)."""
        if self.window is not None:
            return self.window.edges(memory_ids)
        return self.store.edges_of(self.orchestrator, memory_ids)

    @property
    def bands(self) -> SimilarityBands:
        return bands_for(self.model_id or "lexical", self.overrides)

    def resolve(
        self,
        candidate: Candidate,
        node: MemoryNode,
        vector: npt.NDArray[np.float32] | None,
        *,
        exclude: frozenset[str] = frozenset(),
    ) -> Resolution:
        """The write path's resolution for ``node`` (``exclude``: ids never neighbours)."""
        return self.resolve_many([(candidate, node, vector)], exclude=exclude)[0]

    def resolve_many(
        self,
        items: Sequence[tuple[Candidate, MemoryNode, npt.NDArray[np.float32] | None]],
        *,
        exclude: frozenset[str] = frozenset(),
    ) -> list[Resolution]:
        """:meth:`resolve` of each item against the store as it is now, in one batch.

        Trigger: a file's accepted chunks (nothing is written between them).
        Why: one vector search and one node read per chunk were most of resolve.
        Outcome: one :meth:`~memvault.store.base.Store.search_vectors_many` per
          scope, one ``get_nodes`` for every neighbour; each item's neighbours,
          in id order as before, and its resolution are what :meth:`resolve` gives.
        """
        plans = [self._proposal(c, n, v) for c, n, v in items]
        similarity: list[dict[str, float]] = [{} for _ in items]
        texts: list[list[str]] = [[] for _ in items]
        by_scope: dict[tuple[str | None, str | None], list[int]] = {}
        for i, (_, node, vector) in enumerate(items):
            if vector is not None and self.model_id is not None:
                by_scope.setdefault((node.user_id, node.project_id), []).append(i)
            else:
                # Trigger: a scoped chunk (user or project). Why: a memory of another
                # scope is never "the same statement" for this one. Outcome: the scope
                # is a SQL filter (a chunk with no user meets shared memories only:
                # ``same_owner``), and equality is checked again.
                scope = same_owner(node.user_id, node.project_id)
                if self.window is not None:
                    self.window.no_text_search()
                matched = self.store.search_text(
                    self.orchestrator, query_terms(node.content), scope, limit=self.neighbours
                )
                texts[i] = [h.memory_id for h in matched]
        for (user, project), where in by_scope.items():
            assert self.model_id is not None
            queries = np.stack([np.asarray(items[i][2], dtype=np.float32) for i in where])
            scope = same_owner(user, project)
            found = (
                self.window.hits(self.model_id, queries, scope, self.neighbours)
                if self.window is not None
                else self.store.search_vectors_many(
                    self.orchestrator, self.model_id, queries, scope, limit=self.neighbours
                )
            )
            for i, hits in zip(where, found, strict=True):
                floor = plans[i][2]
                similarity[i] = {
                    h.memory_id: max(0.0, min(1.0, h.similarity))
                    for h in hits
                    if h.similarity >= floor
                }
        wanted = [
            sorted({m for m in (*similarity[i], *texts[i]) if m not in exclude})
            for i in range(len(items))
        ]
        union = sorted({m for ids in wanted for m in ids})
        nodes = {n.memory_id: n for n in self.nodes(union)}
        out: list[Resolution] = []
        for i, (_, node, _) in enumerate(items):
            found_nodes = [
                n
                for m in wanted[i]
                if (n := nodes.get(m)) is not None
                and n.status is MemoryStatus.ACTIVE
                and n.user_id == node.user_id
                and n.project_id == node.project_id
            ]
            if not found_nodes:
                out.append(Resolution(Outcome.STORED))
                continue
            scores = similarity[i]
            if texts[i]:
                lexical = LexicalSimilarity().scores(node.content, [n.content for n in found_nodes])
                scores = {n.memory_id: s for n, s in zip(found_nodes, lexical, strict=True)}
            views = [
                NeighbourView(
                    n.memory_id, n.content, n.key, n.value, n.type.value, scores[n.memory_id]
                )
                for n in found_nodes
            ]
            proposal, bands, _ = plans[i]
            out.append(resolve(proposal, views, bands, related_top_k=0))
        return out

    def _proposal(
        self, candidate: Candidate, node: MemoryNode, vector: npt.NDArray[np.float32] | None
    ) -> tuple[WriteCandidate, SimilarityBands, float]:
        """The resolver's view of ``node``, its bands and the similarity floor of its
        vector neighbours."""
        key = semantic_key(candidate, node.key)
        proposal = WriteCandidate(
            content=node.content,
            type=node.type,
            category=node.category,
            key=key,
            value=node.value if key else "",
        )
        bands = self.bands if vector is not None else bands_for("lexical", self.overrides)
        # Trigger: a chunk without a key of its own (almost every document chunk).
        # Why: only "merged" is acted on, and without a key a neighbour can only be
        # the same statement by similarity ≥ the duplicate band (or equal text,
        # whose cosine is ~1). Loading and comparing the rest cost ~5 ms a chunk.
        # Outcome: vector neighbours below the band minus a margin are not loaded.
        floor = 0.0 if key else max(0.0, bands.duplicate - MERGE_MARGIN)
        return proposal, bands, floor
