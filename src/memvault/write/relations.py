"""The relations step every written memory gets: automatic ``RelatedTo`` edges.

Capture has always linked a new memory to its closest neighbours (the
resolver's ``related`` band); ``add`` and ingest did not. :func:`related_edges`
is the same idea as a pipeline ``relations`` step (``WritePipeline.relations``),
so every write kind links what it writes: a cheap full-text recall in the new
memory's scope (same user and project), lexical similarity, and an edge to
each of the ``top_k`` active memories at or above the ``related`` band and
below the duplicate band (a duplicate is the resolver's business, not a link).

>>> from datetime import UTC, datetime
>>> from memvault.store import InMemoryStore
>>> from memvault.write.pipeline import WritePipeline
>>> from memvault.write.spec import OpenGate
>>> store = InMemoryStore()  # the reference store: the same edges on every backend
>>> p = WritePipeline(store=store, orchestrator="acme", gate=OpenGate(),
...                   clock=lambda: datetime(2026, 1, 15, tzinfo=UTC),
...                   relations=(related_edges(store, "acme"),))
>>> fact = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}
>>> a = p.add({"content": "The billing service runs on Postgres 16.", **fact}).memory_id
>>> b = p.add({"content": "The billing service is deployed on Fridays.", **fact}).memory_id
>>> [(e.edge_type.value, e.to_memory_id == a) for e in store.edges_of("acme", [b])]
[('RelatedTo', True)]
"""

from __future__ import annotations

from collections.abc import Sequence

from memvault.model.clock import new_id
from memvault.model.enums import EdgeType, MemoryStatus
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.retrieval.text import query_terms
from memvault.store.base import Store
from memvault.store.scope import same_owner
from memvault.write.config import SimilarityBands, bands_for
from memvault.write.drafts import Relations
from memvault.write.pipeline import RELATIONS_BATCH_MAX
from memvault.write.similarity import LexicalSimilarity, Similarity

__all__ = ["RELATIONS_BATCH_MAX", "related_edges"]


def related_edges(
    store: Store,
    orchestrator: str,
    *,
    similarity: Similarity | None = None,
    bands: SimilarityBands | None = None,
    top_k: int = 3,
    recall: int = 8,
) -> Relations:
    """A relations step linking a new memory to its closest active neighbours."""
    sim = similarity or LexicalSimilarity()
    band = bands or bands_for(sim.model_id)

    def relate(node: MemoryNode) -> Sequence[MemoryEdge]:
        terms = query_terms(node.content)
        if not terms:
            return ()
        scope = same_owner(node.user_id, node.project_id)
        hits = store.search_text(orchestrator, terms, scope, limit=recall)
        found = [
            n
            for n in store.get_nodes(orchestrator, [h.memory_id for h in hits])
            if n.status is MemoryStatus.ACTIVE and n.memory_id != node.memory_id
        ]
        if not found:
            return ()
        scores = sim.scores(node.content, [n.content for n in found])
        close = sorted(
            (
                (round(float(s), 4), n.memory_id)
                for n, s in zip(found, scores, strict=True)
                if band.related <= s < band.duplicate
            ),
            reverse=True,
        )[:top_k]
        return tuple(
            MemoryEdge(
                edge_id=new_id("edge"),
                orchestrator_id=orchestrator,
                from_memory_id=node.memory_id,
                to_memory_id=to_id,
                edge_type=EdgeType.RELATED_TO,
                weight=weight,
                created_at=node.created_at,
            )
            for weight, to_id in close
        )

    return relate
