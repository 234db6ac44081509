"""The exact vector index of the SQLite backend: a float32 matrix in memory.

Vectors are stored canonically in ``memory_embeddings``; this matrix is a
derived, rebuildable structure. Exact search over it is memory-bandwidth
bound (about 7–8 ms for 100k × 384 on 2 cores), which keeps recall exact up
to a few hundred thousand memories without an ANN index.

Trigger: another process may write the same database file.
Why: a stale in-process matrix would miss memories or return deleted ones.
Outcome: the matrix remembers the (revision, last embedding rowid) it
reflects; every search compares that marker with the database and reloads
when they differ. Writes made through this store update it incrementally.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["VectorMatrix", "decode_vector", "encode_vector"]

F32 = npt.NDArray[np.float32]
Marker = tuple[int, int]


def encode_vector(vector: F32) -> bytes:
    """float32 little-endian bytes (the canonical BLOB form)."""
    return np.asarray(vector, dtype="<f4").tobytes()


def decode_vector(blob: bytes, dim: int) -> F32:
    vector = np.frombuffer(blob, dtype="<f4")
    if vector.shape != (dim,):
        raise ValueError(f"vector blob has {vector.shape[0]} values, expected {dim}")
    return vector.astype(np.float32, copy=False)


class VectorMatrix:
    """Rows of unit vectors with an ``active`` flag, addressed by memory id.

    >>> m = VectorMatrix(2)
    >>> m.upsert("a", np.array([1, 0], dtype=np.float32), active=True)
    >>> m.upsert("b", np.array([0, 1], dtype=np.float32), active=True)
    >>> m.search(np.array([0.6, 0.8], dtype=np.float32), 1, None)
    [('b', 0.800000011920929)]
    """

    def __init__(self, dim: int, capacity: int = 1024) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self.row: dict[str, int] = {}
        self._matrix: F32 = np.zeros((capacity, dim), dtype=np.float32)
        self._active = np.zeros(capacity, dtype=bool)
        self.marker: Marker | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def _grow(self) -> None:
        capacity = max(1024, self._matrix.shape[0] * 2)
        matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        matrix[: len(self.ids)] = self._matrix[: len(self.ids)]
        active = np.zeros(capacity, dtype=bool)
        active[: len(self.ids)] = self._active[: len(self.ids)]
        self._matrix, self._active = matrix, active

    def upsert(self, memory_id: str, vector: F32, *, active: bool) -> None:
        index = self.row.get(memory_id)
        if index is None:
            if len(self.ids) == self._matrix.shape[0]:
                self._grow()
            index = len(self.ids)
            self.ids.append(memory_id)
            self.row[memory_id] = index
        self._matrix[index] = vector
        self._active[index] = active

    def set_active(self, memory_id: str, active: bool) -> None:
        index = self.row.get(memory_id)
        if index is not None:
            self._active[index] = active

    def rows_of(self, memory_ids: list[str]) -> npt.NDArray[np.intp]:
        return np.fromiter((self.row[m] for m in memory_ids if m in self.row), dtype=np.intp)

    def search(
        self, query: F32, limit: int, rows: npt.NDArray[np.intp] | None
    ) -> list[tuple[str, float]]:
        """Top ``limit`` by dot product among ``rows`` (or all active rows)."""
        n = len(self.ids)
        if n == 0 or limit <= 0:
            return []
        if rows is None:
            rows = np.flatnonzero(self._active[:n])
        if rows.size == 0:
            return []
        scores = self._matrix[rows] @ np.asarray(query, dtype=np.float32)
        k = min(limit, scores.size)
        top = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
        chosen = sorted(top.tolist(), key=lambda i: (-float(scores[i]), self.ids[rows[i]]))
        return [(self.ids[rows[i]], float(scores[i])) for i in chosen]
