"""The store as a window's files will leave it: what resolve reads before ONE commit.

Trigger: a window of ingested files committed in one transaction (one fsync
instead of one a file: the commits were half of a pass's wall time).
Why: a file is resolved against everything committed before it — the memories
an earlier file of the same window creates, the merge targets it touches, the
edges it adds. Committed together, those are not in the store yet.
Outcome: :class:`PendingView` answers resolve's reads (vector neighbours,
nodes, edges) from the store *plus* the files staged so far, so each file gets
the plan the file-by-file commits gave it
(:class:`~memvault.ingest.dedup.Deduper` reads through it when it has one):

* vector neighbours: the store's top ``limit`` and the staged memories' exact
  cosines (the same float32 dot product), merged best first, ties by id;
* nodes: a staged version (a new memory, or a merge target already touched by
  an earlier file) wins over the stored row;
* edges: the stored ones and the staged ones.

The store does not change while a window is staged (it commits at the end), so
its answers are read once per window: the neighbours of every candidate in one
search (:meth:`PendingView.prefetch`), each node once.

>>> from memvault.store import InMemoryStore
>>> view = PendingView(InMemoryStore(), "acme", model_id="m")
>>> view.nodes(["mem_x"]), view.shas
([], set())
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from memvault.model.node import MemoryEdge, MemoryNode
from memvault.store.base import EmbeddingRow, NodeFilter, Store, VectorHit
from memvault.store.filtering import matches

__all__ = ["PendingView"]

F32 = npt.NDArray[np.float32]


class PendingView:
    """One orchestrator's ``store`` with a window's staged (not yet committed) files on top.

    ``model_id``: the vector space of the staged vectors (the deduper's).
    """

    def __init__(self, store: Store, orchestrator: str, *, model_id: str) -> None:
        self.store = store
        self.orchestrator = orchestrator
        self.model_id = model_id
        #: nodes the staged files create or touch, latest version
        self.staged: dict[str, MemoryNode] = {}
        self.staged_edges: list[MemoryEdge] = []
        #: content hashes of the staged files
        self.shas: set[str] = set()
        self._vector_ids: list[str] = []
        self._vectors: list[F32] = []
        self._matrix: F32 | None = None
        self._stored: dict[str, MemoryNode | None] = {}
        self._hits: dict[tuple[NodeFilter, int, bytes], list[VectorHit]] = {}

    def stage(
        self,
        sha: str,
        created: Sequence[MemoryNode],
        touched: Mapping[str, MemoryNode],
        edges: Sequence[MemoryEdge],
        vectors: Mapping[str, EmbeddingRow],
    ) -> None:
        """A file's plan, as if committed: its new nodes (and their vectors), the
        targets it touched, its edges."""
        for node in created:
            self.staged[node.memory_id] = node
            row = vectors.get(node.memory_id)
            if row is not None and row.model_id == self.model_id:
                self._vector_ids.append(node.memory_id)
                self._vectors.append(np.asarray(row.vector, dtype=np.float32))
        self.staged.update(touched)
        self.staged_edges.extend(edges)
        self.shas.add(sha)

    def prefetch(self, queries: Sequence[tuple[NodeFilter, F32]], limit: int) -> None:
        """The store's neighbours of a window's candidates, one search per filter."""
        by_filter: dict[NodeFilter, list[F32]] = {}
        for filters, vector in queries:
            by_filter.setdefault(filters, []).append(np.asarray(vector, dtype=np.float32))
        for filters, vectors in by_filter.items():
            self._store_hits(np.stack(vectors), filters, limit)

    def _store_hits(self, matrix: F32, filters: NodeFilter, limit: int) -> list[list[VectorHit]]:
        keys = [(filters, limit, row.tobytes()) for row in matrix]
        todo = sorted({i for i, key in enumerate(keys) if key not in self._hits})
        if todo:
            found = self.store.search_vectors_many(
                self.orchestrator, self.model_id, matrix[todo], filters, limit=limit
            )
            self._hits.update((keys[i], hits) for i, hits in zip(todo, found, strict=True))
        return [list(self._hits[key]) for key in keys]

    # -- the reads resolve makes ----------------------------------------------------

    def hits(
        self, model_id: str, queries: F32, filters: NodeFilter, limit: int
    ) -> list[list[VectorHit]]:
        """Each query's nearest ``limit`` among stored and staged memories matching
        ``filters``: best first, ties by id (what ``search_vectors_many`` gives after
        the window's commit)."""
        if model_id != self.model_id:
            raise ValueError(f"the window holds {self.model_id} vectors, not {model_id}")
        matrix = np.asarray(queries, dtype=np.float32)
        found = self._store_hits(matrix, filters, limit)
        rows = [i for i, m in enumerate(self._vector_ids) if matches(self.staged[m], filters)]
        if not rows or limit <= 0:
            return found
        if self._matrix is None or len(self._matrix) != len(self._vectors):
            self._matrix = np.stack(self._vectors)
        ids = [self._vector_ids[i] for i in rows]
        scores = matrix @ self._matrix[rows].T
        out: list[list[VectorHit]] = []
        for hits, column in zip(found, scores, strict=True):
            merged = [*hits, *(VectorHit(m, float(s)) for m, s in zip(ids, column, strict=True))]
            merged.sort(key=lambda h: (-h.similarity, h.memory_id))
            out.append(merged[:limit])
        return out

    def no_text_search(self) -> None:
        """Raise once a file is staged: staged files have no full-text scores yet.

        A window commits in one transaction only when every candidate has a vector
        (the pass checks), so resolve never needs one.
        """
        if self.staged:
            raise RuntimeError("a staged window has no full-text index: commit file by file")

    def nodes(self, memory_ids: Sequence[str]) -> list[MemoryNode]:
        """Nodes by id, in id order: the staged version where there is one."""
        wanted = sorted(set(memory_ids))
        unread = [m for m in wanted if m not in self.staged and m not in self._stored]
        if unread:
            self._stored.update(dict.fromkeys(unread))
            self._stored.update(
                (n.memory_id, n) for n in self.store.get_nodes(self.orchestrator, unread)
            )
        found = (self.staged.get(m) or self._stored.get(m) for m in wanted)
        return [n for n in found if n is not None]

    def edges(self, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        """Every stored and staged edge touching one of ``memory_ids``."""
        ids = set(memory_ids)
        edges = self.store.edges_of(self.orchestrator, memory_ids)
        edges.extend(e for e in self.staged_edges if ids & {e.from_memory_id, e.to_memory_id})
        return sorted(edges, key=lambda e: (e.created_at, e.edge_id))
