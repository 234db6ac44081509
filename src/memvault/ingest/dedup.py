"""Ingested candidates against what is already stored — the write path's resolve, reused.

Each accepted chunk of a file is compared with the orchestrator's active
memories of the same scope (same ``user_id`` and ``project_id``): nearest by
vector when the file was embedded, else by full text. The pure
:func:`memvault.write.resolve` then decides with the similarity bands of
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
from memvault.model.enums import MemoryStatus
from memvault.model.node import MemoryNode
from memvault.retrieval.text import query_terms
from memvault.store.base import NodeFilter, Store
from memvault.write import (
    LexicalSimilarity,
    NeighbourView,
    Outcome,
    Resolution,
    SimilarityBands,
    bands_for,
    resolve,
)

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
        views = self._neighbours(node, vector, exclude, floor)
        if not views:
            return Resolution(Outcome.STORED)
        return resolve(proposal, views, bands, related_top_k=0)

    def _neighbours(
        self,
        node: MemoryNode,
        vector: npt.NDArray[np.float32] | None,
        exclude: frozenset[str],
        floor: float,
    ) -> list[NeighbourView]:
        # Trigger: a scoped chunk (user or project). Why: a memory of another
        # scope is never "the same statement" for this one. Outcome: the scope
        # is a SQL filter, and equality is checked again (None matches None only).
        scope = NodeFilter(user_id=node.user_id, project_id=node.project_id)
        similarity: dict[str, float] = {}
        if vector is not None and self.model_id is not None:
            for hit in self.store.search_vectors(
                self.orchestrator, self.model_id, vector, scope, limit=self.neighbours
            ):
                if hit.similarity >= floor:
                    similarity[hit.memory_id] = max(0.0, min(1.0, hit.similarity))
            texts: Sequence[str] = ()
        else:
            hits = self.store.search_text(
                self.orchestrator, query_terms(node.content), scope, limit=self.neighbours
            )
            texts = [h.memory_id for h in hits]
        ids = [m for m in (*similarity, *texts) if m not in exclude]
        if not ids:
            return []
        found = [
            n
            for n in self.store.get_nodes(self.orchestrator, ids)
            if n.status is MemoryStatus.ACTIVE
            and n.user_id == node.user_id
            and n.project_id == node.project_id
        ]
        if texts:
            scores = LexicalSimilarity().scores(node.content, [n.content for n in found])
            similarity = {n.memory_id: s for n, s in zip(found, scores, strict=True)}
        return [
            NeighbourView(
                n.memory_id, n.content, n.key, n.value, n.type.value, similarity[n.memory_id]
            )
            for n in found
        ]
