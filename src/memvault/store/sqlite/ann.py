"""An approximate nearest-neighbour index beside the exact vector matrix (optional).

The exact matrix (:mod:`memvault.store.sqlite.vectors`) is memory-bandwidth
bound: a few ms at 100k × 384, ~50 ms and more at 1M. Above a configurable
size the SQLite store also keeps a faiss ``IndexIVFFlat`` (inner product) over
the same rows. Like the matrix it is derived and rebuildable: built from the
matrix on the first search that needs it, followed incrementally by this
process's writes, dropped together with the matrix when another process wrote.

Trigger: faiss is an optional dependency (extra ``ann``).
Why: the default install must stay small and work on every platform.
Outcome: :func:`load_faiss` returns ``None`` when it is missing and the
matrix answers exactly, whatever the configured threshold.

Why IVF-Flat rather than HNSW: building HNSW over 1M × 384 takes many
minutes on 2 cores, while IVF trains k-means on a sample (seconds) and then
only assigns rows to lists; its scores are exact inner products, rows can be
replaced in place (``remove_ids`` + ``add_with_ids``), and a search probing
``nprobe`` of ``sqrt(n)`` lists scans ~12% of the rows (see :func:`_nprobe`).
"""

from __future__ import annotations

import importlib
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_ANN_MIN_ROWS",
    "AnnIndex",
    "HnswIndex",
    "ef_search",
    "load_faiss",
    "row_digests",
]

F32 = npt.NDArray[np.float32]

#: Store size (active vectors of one orchestrator and model) from which the ANN
#: index is used. Below it exact search costs a few ms and is kept for its
#: perfect recall.
DEFAULT_ANN_MIN_ROWS = 50_000

_FAISS: Any = None
_FAISS_TRIED = False


def load_faiss() -> Any:
    """The ``faiss`` module, or ``None`` when the ``ann`` extra is not installed.

    >>> load_faiss() is None or hasattr(load_faiss(), "IndexIVFFlat")
    True
    """
    global _FAISS, _FAISS_TRIED
    if not _FAISS_TRIED:
        _FAISS_TRIED = True
        try:
            _FAISS = importlib.import_module("faiss")
        except ImportError:
            _FAISS = None
    return _FAISS


def _nlist(n: int) -> int:
    """Number of inverted lists: about sqrt(n), at least 1."""
    return max(1, round(math.sqrt(n)))


def _nprobe(nlist: int) -> int:
    """Lists probed per query: 1/8 of them, between 16 and 128.

    Measured on 100k MiniLM-shaped vectors with user questions as queries
    (docs/retrieval.md, "Latency"): questions sit far from the statements
    they ask about, so IVF needs a large share of lists — recall@10 against
    exact .75 / .85 / .94 / .99 at 16 / 32 / 64 / 128 of 316 lists.
    """
    return min(nlist, max(16, min(128, nlist // 8)))


class AnnIndex:
    """IVF-Flat over matrix rows; labels are the matrix row numbers.

    >>> faiss = load_faiss()
    >>> if faiss is not None:
    ...     rng = np.random.default_rng(0)
    ...     rows = rng.standard_normal((500, 8)).astype(np.float32)
    ...     rows /= np.linalg.norm(rows, axis=1, keepdims=True)  # unit vectors, as stored
    ...     index = AnnIndex.build(faiss, rows)
    ...     labels, scores = index.search(rows[3], 5)
    ...     assert labels[0] == 3
    """

    def __init__(self, faiss: Any, index: Any, count: int) -> None:
        self._faiss = faiss
        self._index = index
        #: matrix rows 0..count-1 are in the index (new rows are appended in order)
        self.count = count

    @classmethod
    def build(cls, faiss: Any, rows: F32, *, seed: int = 1234) -> AnnIndex:
        """Train the coarse quantiser on a sample of ``rows`` and add all of them."""
        n, dim = rows.shape
        nlist = _nlist(n)
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        # Trigger: k-means over every row would cost minutes at 1M.
        # Why: faiss itself samples at most 256 points per centroid; 64 are enough
        # for coarse lists whose only job is to narrow the scan.
        # Outcome: train on a fixed-seed sample, then assign every row.
        sample_size = min(n, 64 * nlist)
        picks = np.random.default_rng(seed).choice(n, size=sample_size, replace=False)
        train = np.ascontiguousarray(rows[np.sort(picks)], dtype=np.float32)
        index.cp.min_points_per_centroid = 1  # silence the "too few points" warning
        index.cp.niter = 10  # coarse lists: 10 k-means rounds instead of 25 (1M: ~10 s)
        index.train(train)
        index.nprobe = _nprobe(nlist)
        ids = np.arange(n, dtype=np.int64)
        for start in range(0, n, 100_000):  # bounded temporary copies
            chunk = np.ascontiguousarray(rows[start : start + 100_000], dtype=np.float32)
            index.add_with_ids(chunk, ids[start : start + 100_000])
        return cls(faiss, index, n)

    @property
    def nprobe(self) -> int:
        return int(self._index.nprobe)

    @property
    def nlist(self) -> int:
        return int(self._index.nlist)

    def append(self, row: int, vector: F32) -> None:
        """Add matrix row ``row`` (must be the next one, ``row == count``)."""
        if row != self.count:
            raise ValueError(f"ANN index holds rows 0..{self.count - 1}; cannot append {row}")
        self._index.add_with_ids(
            np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1),
            np.array([row], dtype=np.int64),
        )
        self.count += 1

    def extend(self, vectors: F32) -> None:
        """Add the next matrix rows (``count`` on), one per row of ``vectors``."""
        ids = np.arange(self.count, self.count + len(vectors), dtype=np.int64)
        self._index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), ids)
        self.count += len(vectors)

    def replace(self, row: int, vector: F32) -> None:
        """Row ``row`` got a new vector: drop the old entry and add the new one."""
        ids = np.array([row], dtype=np.int64)
        self._index.remove_ids(ids)
        self._index.add_with_ids(np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1), ids)

    def search(
        self, query: F32, k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> tuple[npt.NDArray[np.int64], F32]:
        """Up to ``k`` (row, inner product) pairs, best first, among ``allowed`` rows.

        ``allowed`` is a boolean mask over matrix rows (filters and active
        status); it is applied inside the scan, so every returned row is allowed.
        The scores are exact; only the set of rows scanned is approximate.
        """
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        share = 1.0 if allowed is None else float(np.count_nonzero(allowed)) / max(1, allowed.size)
        if allowed is None or share >= 1.0:
            scores, labels = self._index.search(q, k)
        else:
            # Trigger: only a share of the rows is allowed (filters, deleted rows).
            # Why: each probed list then holds proportionally fewer candidates.
            # Outcome: probe 1/share times as many lists, so about as many
            # allowed rows are scanned as in an unfiltered search.
            nprobe = min(self.nlist, math.ceil(self.nprobe / max(share, 1e-9)))
            bitmap = np.packbits(allowed, bitorder="little")
            params = self._faiss.SearchParametersIVF(
                sel=self._faiss.IDSelectorBitmap(bitmap), nprobe=nprobe
            )
            scores, labels = self._index.search(q, k, params=params)
        keep = labels[0] >= 0
        return labels[0][keep], scores[0][keep]


#: HNSW graph degree and build / search breadth (faiss IndexHNSWFlat, inner product).
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
#: search breadth up to :data:`HNSW_EF_BASE_ROWS` points; it grows with the graph beyond
HNSW_EF_SEARCH = 128
HNSW_EF_BASE_ROWS = 100_000
HNSW_EF_MAX = 1024
#: A walk that returned too few points walks again from the best of this many
#: evenly spaced points (see :meth:`HnswIndex._walk_again`), this many of them.
WALK_SAMPLE = 1024
WALK_ENTRIES = 16


def ef_search(points: int) -> int:
    """The HNSW search breadth for a graph of ``points``: 128 up to 100k, then ``128·√(n/100k)``.

    Trigger: a fixed breadth finds a shrinking share of the true neighbours as
      the graph grows; a wide one costs CPU on every search.
    Why: measured at 100k on the peers corpus (4,096 real MiniLM vectors and
      synthetic near-copies of them), 200 user questions, the default search
      (both legs 100 deep, issue 22): ANN recall@10 against exact .930 / .951 /
      .977 at breadth 100 / 128 / 200 (faiss 0.21 / 0.23 / 0.35 ms CPU, load
      13), and the search's final top 10 shared .977 / .984 / .993 of its
      memories with the exact vector leg's. 128 keeps the final answer within
      1.6% of exact for a third less graph walk than 200.
    Outcome: the breadth grows with the square root of the size (222 at 300k,
      405 at 1M), capped at 1024; never below the number of hits asked for.

    >>> ef_search(50_000), ef_search(300_000), ef_search(1_000_000), ef_search(10**8)
    (128, 222, 405, 1024)
    """
    if points <= HNSW_EF_BASE_ROWS:
        return HNSW_EF_SEARCH
    return min(HNSW_EF_MAX, math.ceil(HNSW_EF_SEARCH * math.sqrt(points / HNSW_EF_BASE_ROWS)))


class HnswIndex:
    """A faiss HNSW graph over matrix rows that follows writes without rebuilding.

    HNSW cannot delete or move a point, so every vector gets a *slot* (its
    position in the graph, in insertion order): a replaced row is appended
    under a new slot and its old slot is masked out at search time, exactly
    as a row that is not allowed (filters, inactive). Scores are exact inner
    products of the stored vectors; only the set of rows visited is
    approximate.

    Trigger: IVF scans ~12% of the rows per query (a few ms at 100k, tens at 1M).
    Why: a graph walk visits a few thousand points whatever the store size.
    Outcome: HNSW, built once (batch insert is multi-threaded in faiss) and then
      extended point by point by this process's writes.

    >>> faiss = load_faiss()
    >>> if faiss is not None:
    ...     rng = np.random.default_rng(0)
    ...     rows = rng.standard_normal((300, 8)).astype(np.float32)
    ...     rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    ...     index = HnswIndex.build(faiss, rows)
    ...     index.replace(3, -rows[3])          # row 3 now points the other way
    ...     labels, _ = index.search(-rows[3], 1)
    ...     assert labels[0] == 3 and index.stale == 1
    """

    def __init__(self, faiss: Any, index: Any, slot_row: npt.NDArray[np.int64]) -> None:
        self._faiss = faiss
        self._index = index
        self._slot_row = slot_row  # slot -> matrix row (capacity >= slots)
        self._slots = int(index.ntotal)
        #: matrix row -> its current slot
        self._row_slot: npt.NDArray[np.int64] = np.arange(self._slots, dtype=np.int64)
        self.count = self._slots  # matrix rows 0..count-1 are in the graph
        self.stale = 0  # slots whose row has a newer slot

    @classmethod
    def build(cls, faiss: Any, rows: F32) -> HnswIndex:
        n, dim = rows.shape
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
        for start in range(0, n, 50_000):  # bounded temporary copies
            index.add(np.ascontiguousarray(rows[start : start + 50_000], dtype=np.float32))
        return cls(faiss, index, np.arange(max(n, 1024), dtype=np.int64))

    @property
    def slots(self) -> int:
        """Points in the graph (current and masked)."""
        return self._slots

    def slot_rows(self) -> npt.NDArray[np.int64]:
        """Each slot's matrix row; ``-1`` for a slot whose row has a newer slot."""
        slot_row = self._slot_row[: self._slots].copy()
        current = self._row_slot[slot_row] == np.arange(self._slots)
        slot_row[~current] = -1
        return slot_row

    def save(self, path: Path, keys: npt.NDArray[Any], digests: npt.NDArray[np.uint64]) -> None:
        """Write the graph without its vectors, with each slot's key and vector digest.

        ``keys``/``digests``: one per slot (a masked slot's key is ignored on load).
        The vectors stay in the database: :meth:`load` takes them from the matrix.
        Written to a temporary file and renamed, so a reader never sees half a file.
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        graph = self._faiss.serialize_index(self._index, self._faiss.IO_FLAG_SKIP_STORAGE)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as out:
                np.save(out, np.asarray(keys), allow_pickle=False)
                np.save(out, np.asarray(digests, dtype=np.uint64), allow_pickle=False)
                np.save(out, graph, allow_pickle=False)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, faiss: Any, path: Path, rows: F32, key_rows: Any) -> tuple[HnswIndex, int] | None:
        """A saved graph over ``rows`` (the current matrix), or ``None`` if unusable.

        ``key_rows(keys)``: the matrix row of each saved key (``-1``: gone).
        A slot is reused when its key still has a row whose vector digest is
        the saved one; other slots stay in the graph, masked (as replaced
        rows are). Rows without a reused slot are added. Returns the index and
        how many rows were added.
        """
        try:
            with open(path, "rb") as f:
                keys = np.load(f, allow_pickle=False)
                digests = np.load(f, allow_pickle=False)
                index = faiss.deserialize_index(
                    np.load(f, allow_pickle=False), faiss.IO_FLAG_SKIP_STORAGE
                )
        except (OSError, ValueError, RuntimeError, EOFError):
            return None  # missing, torn or from another faiss: build instead
        n, dim = rows.shape
        slots = int(index.ntotal)
        if int(index.d) != dim or keys.shape != (slots,) or digests.shape != (slots,):
            return None
        slot_row = np.asarray(key_rows(keys), dtype=np.int64)
        found = slot_row >= 0
        same = np.zeros(slots, dtype=bool)
        same[found] = row_digests(rows[slot_row[found]]) == digests[found]
        row_slot = np.full(max(n, 1), -1, dtype=np.int64)
        kept = np.flatnonzero(same)
        row_slot[slot_row[kept]] = kept  # a row saved under two slots keeps the last
        valid = np.zeros(slots, dtype=bool)
        valid[row_slot[row_slot >= 0]] = True
        storage = np.zeros((slots, dim), dtype=np.float32)
        storage[valid] = rows[slot_row[valid]]
        flat = faiss.IndexFlatIP(dim)
        flat.add(storage)
        index.storage = flat
        index.own_fields = True
        flat.this.disown()
        slot_row[~valid] = 0  # never current: row 0 has another slot (below)
        capacity = max(slots * 2, 1024)
        slot_map = np.zeros(capacity, dtype=np.int64)
        slot_map[:slots] = slot_row
        out = cls(faiss, index, slot_map)
        out._row_slot = row_slot
        out.count = n
        out.stale = slots - int(np.count_nonzero(valid))
        missing = np.flatnonzero(row_slot[:n] < 0)
        if missing.size:
            out._add_many(missing, rows[missing])
        return out, int(missing.size)

    def _add_many(self, rows: npt.NDArray[np.int64], vectors: F32) -> None:
        """Add matrix rows ``rows`` under new slots in one batch (faiss threads it)."""
        start = self._slots
        need = start + rows.size
        if need > self._slot_row.size:
            grown = np.zeros(max(need, self._slot_row.size * 2), dtype=np.int64)
            grown[:start] = self._slot_row[:start]
            self._slot_row = grown
        self._index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        self._slot_row[start:need] = rows
        top = int(rows.max()) + 1 if rows.size else 0
        if top > self._row_slot.size:
            grown = np.full(max(top, self._row_slot.size * 2), -1, dtype=np.int64)
            grown[: self._row_slot.size] = self._row_slot
            self._row_slot = grown
        self._row_slot[rows] = np.arange(start, need, dtype=np.int64)
        self._slots = need

    def _add(self, row: int, vector: F32) -> None:
        slot = self._slots
        if slot >= self._slot_row.size:
            self._slot_row = np.concatenate([self._slot_row, np.zeros_like(self._slot_row)])
        self._index.add(np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1))
        self._slot_row[slot] = row
        if row >= self._row_slot.size:
            grown = np.full(max(row + 1, self._row_slot.size * 2), -1, dtype=np.int64)
            grown[: self._row_slot.size] = self._row_slot
            self._row_slot = grown
        self._slots += 1
        self._row_slot[row] = slot

    def append(self, row: int, vector: F32) -> None:
        """Add matrix row ``row`` (must be the next one, ``row == count``)."""
        if row != self.count:
            raise ValueError(f"ANN index holds rows 0..{self.count - 1}; cannot append {row}")
        self._add(row, vector)
        self.count += 1

    def extend(self, vectors: F32) -> None:
        """Add the next matrix rows (``count`` on) in one batch, one per row of ``vectors``."""
        self._add_many(np.arange(self.count, self.count + len(vectors), dtype=np.int64), vectors)
        self.count += len(vectors)

    def replace(self, row: int, vector: F32) -> None:
        """Row ``row`` got a new vector: a new slot; the old one is masked from now on."""
        self._add(row, vector)
        self.stale += 1

    def search(
        self, query: F32, k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> tuple[npt.NDArray[np.int64], F32]:
        """Up to ``k`` (row, inner product) pairs, best first, among ``allowed`` rows."""
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        slots = self._slots
        breadth = ef_search(slots)
        params: Any = None
        reachable = slots  # points the walk may return
        if allowed is None and self.stale == 0:
            ef = max(breadth, k)
            if self._index.hnsw.efSearch != ef:
                self._index.hnsw.efSearch = ef
            scores, labels = self._index.search(q, k)
        else:
            slot_row = self._slot_row[:slots]
            valid = self._row_slot[slot_row] == np.arange(slots)
            if allowed is not None:
                valid &= allowed[slot_row]
            reachable = int(np.count_nonzero(valid))
            share = float(reachable) / max(1, slots)
            # Trigger: a share of the graph is masked (filters, inactive, replaced rows).
            # Why: the walk still passes through masked points but returns none of them.
            # Outcome: widen the beam by 1/share (capped), so about as many allowed
            #   points are met; too few results make the caller search exactly.
            ef = min(4096, max(breadth, math.ceil(breadth / max(share, 1e-9))))
            params = self._faiss.SearchParametersHNSW(
                sel=self._faiss.IDSelectorBitmap(np.packbits(valid, bitorder="little")),
                efSearch=max(ef, k),
            )
            scores, labels = self._index.search(q, k, params=params)
            ef = max(ef, k)
        found = labels[0][labels[0] >= 0]
        if found.size < min(k, reachable):
            return self._walk_again(q, k, ef, params, labels[0], scores[0])
        return self._slot_row[found], scores[0][labels[0] >= 0]

    def _walk_again(
        self,
        q: F32,
        k: int,
        ef: int,
        params: Any,
        labels: npt.NDArray[np.int64],
        scores: F32,
    ) -> tuple[npt.NDArray[np.int64], F32]:
        """The first walk's hits plus a second walk's, on level 0 from sampled entry points.

        Trigger: the walk returned fewer than ``k`` points while the graph holds
          more it may return.
        Why: more than ``2·M`` (64) identical vectors (one text stored many
          times, e.g. 849 copies of "Do you have any recommendations?" in the
          1M perf store) fill each other's level-0 lists and form an island: a
          query descending into it meets only its points (4 of 300 questions
          there found 83 of 100), and the caller then scanned all 1M rows
          exactly (~150 ms).
        Outcome: a second beam search on level 0 starts from the best
          :data:`WALK_ENTRIES` of :data:`WALK_SAMPLE` evenly spaced points the
          first walk did not return, scored exactly (the walk's own filter and
          breadth); the two walks' points are merged, best first. Still too
          few: the caller searches exactly.
        """
        faiss = self._faiss
        slots = self._slots
        sample = np.arange(0, slots, max(1, slots // WALK_SAMPLE), dtype=np.int64)
        sample = sample[~np.isin(sample, labels)]  # entries outside what the first walk met
        if sample.size == 0:
            return self._slot_row[labels[labels >= 0]], scores[labels >= 0]
        near = self._index.storage.reconstruct_batch(sample) @ q[0]
        entries = min(WALK_ENTRIES, sample.size)
        best = np.argsort(-near, kind="stable")[:entries]
        nearest = np.ascontiguousarray(sample[best].astype(np.int32).reshape(1, -1))
        # the graph's own convention for inner product: smaller is nearer
        nearest_d = np.ascontiguousarray(-near[best].astype(np.float32).reshape(1, -1))
        out_d = np.full((1, k), -np.inf, dtype=np.float32)
        out_i = np.full((1, k), -1, dtype=np.int64)
        walk = faiss.SearchParametersHNSW(efSearch=ef)
        if params is not None:
            walk.sel = params.sel
        self._index.search_level_0(
            1,
            faiss.swig_ptr(q),
            k,
            faiss.swig_ptr(nearest),
            faiss.swig_ptr(nearest_d),
            faiss.swig_ptr(out_d),
            faiss.swig_ptr(out_i),
            entries,
            2,  # one beam fed by every entry point
            walk,
        )
        both = np.concatenate([labels, out_i[0]])
        both_scores = np.concatenate([scores, out_d[0]])
        ok = both >= 0
        both, both_scores = both[ok], both_scores[ok]
        first = np.unique(both, return_index=True)[1]  # each point once
        both, both_scores = both[first], both_scores[first]
        order = np.argsort(-both_scores, kind="stable")[:k]
        return self._slot_row[both[order]], both_scores[order]


_DIGEST_MIX = np.uint64(0x9E3779B97F4A7C15)


def row_digests(rows: F32) -> npt.NDArray[np.uint64]:
    """A 64-bit digest of each row's exact float32 bytes (equal rows, equal digests).

    Trigger: a saved graph is reused only for slots whose vector is unchanged.
    Why: a row's memory id says nothing about whether its vector was replaced.
    Outcome: the bytes as 64-bit words, each multiplied by an odd constant
      raised to its position and summed (wrapping): vectorised, deterministic.

    >>> a = np.eye(2, 4, dtype=np.float32)
    >>> d = row_digests(a); bool(d[0] != d[1]), bool(row_digests(a[:1])[0] == d[0])
    (True, True)
    """
    words = np.ascontiguousarray(rows, dtype="<f4")
    if words.shape[1] % 2:
        words = np.concatenate([words, np.zeros((words.shape[0], 1), dtype="<f4")], axis=1)
    as_u64 = words.view(np.uint64)
    weights = np.cumprod(np.full(as_u64.shape[1], _DIGEST_MIX, dtype=np.uint64), dtype=np.uint64)
    with np.errstate(over="ignore"):
        out: npt.NDArray[np.uint64] = (as_u64 * weights).sum(axis=1, dtype=np.uint64)
    return out
