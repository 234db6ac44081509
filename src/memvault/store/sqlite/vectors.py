"""The vector index of the SQLite backend: a float32 matrix in memory (+ optional ANN).

Vectors are stored canonically in ``memory_embeddings``; this matrix is a
derived, rebuildable structure. Exact search over it is memory-bandwidth
bound (about 7–8 ms for 100k × 384 on 2 cores). From ``ann_min_rows``
candidate rows on, and when the ``ann`` extra (faiss) is installed, a search
goes through an IVF index over the same rows (:mod:`.ann`) instead, with the
allowed rows (filters from SQL, active status) passed into the scan as a
bitmap; when that finds fewer than ``limit`` rows it falls back to exact.

Trigger: another process may write the same database file.
Why: a stale in-process matrix would miss memories or return deleted ones.
Outcome: the matrix remembers the (revision, last embedding rowid) it
reflects; every search compares that marker with the database and reloads
when they differ. Writes made through this store update it incrementally.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from memvault.store.ordering import best_first
from memvault.store.sqlite.ann import AnnIndex, HnswIndex, load_faiss, row_digests

__all__ = ["ANN_KINDS", "VectorMatrix", "decode_vector", "encode_vector"]

#: ANN indexes the matrix can keep: a faiss HNSW graph (default) or IVF-Flat.
ANN_KINDS: tuple[str, ...] = ("hnsw", "ivf")

#: Below this share of allowed rows a filtered search is exact: the allowed rows
#: are few, and a graph walk would pass mostly through masked points.
ANN_MIN_SHARE = 0.05

#: Rows the background worker adds to the graph per hold of the ANN lock: ~10 ms
#: of one core at 100k (a search waits at most that long for the lock). It adds
#: whole chunks only, rows ``k·64 … k·64+63`` (see :meth:`VectorMatrix._work`).
EXTEND_CHUNK = 64
#: Rows outside the graph from which a write starts a worker at normal priority
#: (an exact scan of them costs ~1 ms, and a low-priority worker may starve).
URGENT_BACKLOG = 20_000
#: Rows outside the graph from which a search does (see :meth:`VectorMatrix._search_ann`).
SEARCH_BACKLOG = 1_024
#: How much the nice value of a write's ANN worker is raised (Linux; 19 at most).
WORKER_NICE = 10
#: How long a search waits for the ANN lock while a worker holds it, before
#: answering exactly (seconds).
ANN_LOCK_WAIT_S = 0.02
#: A bulk load starts the graph once the store holds this share of the ANN
#: threshold (see :meth:`VectorMatrix.follow_ann`); other writes at the threshold.
BULK_GRAPH_SHARE = 0.1

F32 = npt.NDArray[np.float32]
Marker = tuple[int, int]


_BLAS: Any = None


def _one_blas_thread() -> AbstractContextManager[Any]:
    """BLAS limited to one thread for the duration (a matrix-vector product).

    Trigger: OpenBLAS splits a product over 10k × 384 across its threads.
    Why: on a busy machine the split waits for a second core: 10k rows took
      14–20 ms with two threads against 0.3–0.7 ms with one (load ~10, 2 cores).
    Outcome: one thread (the controller is built once; the limit costs ~50 µs).
    """
    global _BLAS
    if _BLAS is None:
        try:
            _BLAS = ThreadpoolController()
        except Exception:  # no introspection on this platform: leave BLAS as it is
            _BLAS = False
    if _BLAS is False:
        return nullcontext()
    limited: AbstractContextManager[Any] = _BLAS.limit(limits=1, user_api="blas")
    return limited


def _lower_priority() -> None:
    """Raise the calling thread's nice value by :data:`WORKER_NICE` (Linux only).

    Trigger: the ANN worker of a bulk load runs beside the writer and the gate.
    Why: on a machine with idle CPU it should take that, and when the cores are
      busy it must not take the writer's share (bulk rows/s is the measure).
    Outcome: a higher nice value for this thread alone (on Linux a thread is a
      task of its own); elsewhere, or when refused, nothing changes.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        nice = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, nice + WORKER_NICE))
    except OSError:
        return


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

    def __init__(
        self, dim: int, capacity: int = 1024, *, ann_kind: str = "hnsw", background: bool = False
    ) -> None:
        if ann_kind not in ANN_KINDS:
            raise ValueError(f"unknown ANN index {ann_kind!r}; one of {', '.join(ANN_KINDS)}")
        self.dim = dim
        self.ann_kind = ann_kind
        self.ids: list[str] = []
        self.row: dict[str, int] = {}
        self._matrix: F32 = np.zeros((capacity, dim), dtype=np.float32)
        self._active = np.zeros(capacity, dtype=bool)
        self._active_n = 0  # count of True in _active (read by every search)
        self.marker: Marker | None = None
        #: built on the first search above the ANN threshold; follows upserts after that
        self.ann: AnnIndex | HnswIndex | None = None
        self._ann_lock = threading.RLock()  # faiss indexes are not safe to mutate mid-search
        #: build the ANN index on a worker thread (searches stay exact meanwhile),
        #: and extend it there with the rows written after it (see :meth:`_work`)
        self.background = background
        #: worker threads (build, then extension) → whether each runs at low priority
        self._workers: dict[threading.Thread, bool] = {}
        self._build_count = 0
        self._replaced: set[int] = set()  # rows < _build_count upserted during the build
        self._ann_failed = False
        self._start_lock = threading.Lock()  # starting / ending the worker (never held long)
        self._stop = False  # set by :meth:`close`: the worker ends after its chunk
        #: searches waiting for the ANN lock (the worker gives way); changed under
        #: ``_waiting_lock`` only: ``+= 1`` from several threads is not atomic
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        #: where the HNSW graph is kept between processes (``None``: not kept)
        self.graph_path: Path | None = None
        self._saved_slots = 0  # graph points when it was last loaded or saved

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
            # the vector first: a reader (search, the worker) that sees the row sees its vector
            self._matrix[index] = vector
            self._active_n += int(active)
            self._active[index] = active
            self.ids.append(memory_id)
            self.row[memory_id] = index
            if self.ann is not None or self._building is not None:
                if not self.background:
                    with self._ann_lock:
                        if self.ann is not None:
                            self._extend(self.ann)
                else:
                    self._start_worker()  # the new row waits in the tail (searched exactly)
            return
        self._matrix[index] = vector
        self._active_n += int(active) - int(self._active[index])
        self._active[index] = active
        if self.ann is not None or self._building is not None:
            with self._ann_lock:
                if self.ann is None:
                    if index < self._build_count:
                        self._replaced.add(index)  # replayed when the build is installed
                elif index < self.ann.count:
                    self.ann.replace(index, self._matrix[index])
                # a row of the tail: the worker reads its current vector when it gets there

    def set_active(self, memory_id: str, active: bool) -> None:
        index = self.row.get(memory_id)
        if index is not None:
            self._active_n += int(active) - int(self._active[index])
            self._active[index] = active

    def refresh_active(self, active_ids: set[str]) -> None:
        """Set every row's active flag from the set of active memory ids.

        >>> m = VectorMatrix(2)
        >>> m.upsert("a", np.array([1, 0], dtype=np.float32), active=True)
        >>> m.refresh_active(set()); m.active_count()
        0
        """
        n = len(self.ids)
        self._active[:n] = np.fromiter((i in active_ids for i in self.ids), dtype=bool, count=n)
        self._active_n = int(np.count_nonzero(self._active[:n]))

    def rows_of(self, memory_ids: list[str]) -> npt.NDArray[np.intp]:
        return np.fromiter((self.row[m] for m in memory_ids if m in self.row), dtype=np.intp)

    def active_count(self) -> int:
        return self._active_n

    def search(
        self,
        query: F32,
        limit: int,
        rows: npt.NDArray[np.intp] | None,
        *,
        ann_min_rows: int | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` by dot product among ``rows`` (or all active rows).

        With ``ann_min_rows`` set, faiss installed and at least that many
        candidate rows, the search is approximate (see the module docstring).
        """
        n = len(self.ids)
        if n == 0 or limit <= 0:
            return []
        candidates = self.active_count() if rows is None else int(rows.size)
        # Trigger: a large candidate set and an ANN threshold.
        # Why: exact search is linear in the candidates (~0.6 ms per 10k × 384).
        # Outcome: IVF search over the allowed rows; exact when faiss is
        # missing, the set is small, or the ANN found fewer than asked for.
        if ann_min_rows and candidates >= ann_min_rows and load_faiss() is not None:
            hits = self._search_ann(query, min(limit, candidates), rows)
            if hits is not None:
                return hits
        return self.search_exact(query, limit, rows)

    def search_many(
        self,
        queries: npt.NDArray[np.float32],
        limit: int,
        rows: npt.NDArray[np.intp] | None,
        *,
        ann_min_rows: int | None = None,
    ) -> list[list[tuple[str, float]]]:
        """:meth:`search` of each row of ``queries``.

        Trigger: a batch of queries (ingest resolves a file's chunks at once).
        Why: each exact search reads the whole matrix; one product scores all.
        Outcome: below the ANN threshold one matrix product and a top-``limit``
        per query (the scores of :meth:`search_exact`, up to float rounding);
        with the ANN index, one :meth:`search` per query.

        >>> m = VectorMatrix(2)
        >>> m.upsert("a", np.array([1, 0], dtype=np.float32), active=True)
        >>> m.upsert("b", np.array([0, 1], dtype=np.float32), active=True)
        >>> m.search_many(np.eye(2, dtype=np.float32), 1, None)
        [[('a', 1.0)], [('b', 1.0)]]
        """
        q = np.asarray(queries, dtype=np.float32).reshape(-1, self.dim)
        n = len(self.ids)
        if q.shape[0] == 0:
            return []
        if n == 0 or limit <= 0:
            return [[] for _ in range(q.shape[0])]
        candidates = self.active_count() if rows is None else int(rows.size)
        if len(q) == 1 or (
            ann_min_rows and candidates >= ann_min_rows and load_faiss() is not None
        ):
            return [self.search(v, limit, rows, ann_min_rows=ann_min_rows) for v in q]
        if rows is None:
            rows = np.flatnonzero(self._active[:n])
        if rows.size == 0:
            return [[] for _ in range(q.shape[0])]
        in_place = rows.size * 4 >= n
        with _one_blas_thread():
            scores = (self._matrix[:n] @ q.T)[rows] if in_place else self._matrix[rows] @ q.T
        k = min(limit, rows.size)
        ids = self.ids
        out: list[list[tuple[str, float]]] = []
        for column in scores.T:
            top = np.argpartition(-column, k - 1)[:k] if k < column.size else np.arange(column.size)
            out.append(best_first([ids[r] for r in rows[top].tolist()], column[top]))
        return out

    def search_exact(
        self, query: F32, limit: int, rows: npt.NDArray[np.intp] | None
    ) -> list[tuple[str, float]]:
        """Exact top ``limit`` among ``rows`` (or all active rows); ties by memory id."""
        n = len(self.ids)
        if n == 0 or limit <= 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        if rows is None:
            rows = np.flatnonzero(self._active[:n])
        if rows.size == 0:
            return []
        # Trigger: most rows are candidates (the unfiltered search).
        # Why: ``matrix[rows]`` copies the rows first (150 MB at 100k × 384)
        # and costs more than the product itself.
        # Outcome: score every row in place, then pick the candidates' scores.
        in_place = rows.size * 4 >= n
        with _one_blas_thread():
            scores = (self._matrix[:n] @ q)[rows] if in_place else self._matrix[rows] @ q
        k = min(limit, scores.size)
        top = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
        ids = self.ids
        return best_first([ids[r] for r in rows[top].tolist()], scores[top])

    def ensure_ann(
        self, *, wait: bool = True, threads: int | None = None
    ) -> AnnIndex | HnswIndex | None:
        """The ANN index, built now if needed (``None`` without faiss).

        With ``background`` set and ``wait=False`` a missing index is built on
        a worker thread (``threads``: faiss threads there; ``None``, its
        default) and ``None`` is returned until it is ready.

        Trigger: building HNSW over 100k rows takes tens of seconds on 2 busy cores.
        Why: the first search of a process must not wait for it.
        Outcome: searches stay exact until the graph is installed; rows replaced
          during the build are applied to it before it is used, rows added
          meanwhile wait in the tail (:meth:`_work`).
        """
        faiss = load_faiss()
        if faiss is None:
            return None
        kind = self._index_kind()
        with self._ann_lock:
            if self.ann is not None:
                return self.ann
            if not self.background or wait:
                self.ann = self._load_or_build(faiss, kind, len(self.ids))
                self.save_ann()
                return self.ann
            with self._start_lock:
                if not self._workers and not self._stop:
                    count = len(self.ids)
                    self._build_count = count
                    self._replaced = set()
                    self._spawn(count, threads, low=threads == 1)
            return None

    def _index_kind(self) -> type[AnnIndex] | type[HnswIndex]:
        return HnswIndex if self.ann_kind == "hnsw" else AnnIndex

    @property
    def _building(self) -> threading.Thread | None:
        """A worker building or extending the index (``None``: none runs)."""
        return next(iter(self._workers), None)

    def _spawn(self, count: int, threads: int | None, *, low: bool) -> None:
        """Start a worker (the caller holds ``_start_lock``)."""
        thread = threading.Thread(
            target=self._work,
            args=(count, threads, low),
            name="memvault-ann",
            daemon=True,
        )
        self._workers[thread] = low
        thread.start()

    def follow_ann(self, min_rows: int | None, *, bulk: bool = False) -> None:
        """After a write: start the background graph once ``min_rows`` rows are active
        (``bulk``: the write was a bulk batch; then from :data:`BULK_GRAPH_SHARE` of them).

        Trigger: a bulk load (``add_many`` batch after batch) into a store whose
          graph does not exist yet.
        Why: the first search after it built the whole graph (15.9 s at 100k,
          quiet box), and a graph followed row by row in the writer's thread
          would slow every write down.
        Outcome: with ``background`` set, faiss installed and the threshold
          reached, an empty HNSW graph is installed and a worker thread (one
          faiss thread) fills it chunk by chunk, then extends it as rows
          arrive; the worker runs at a low priority (:func:`_lower_priority`:
          it takes the CPU the writer leaves idle); searches meanwhile read the
          graph plus the rows it does not hold yet, exactly, and a search
          meeting a large tail adds a worker at normal priority
          (:meth:`_search_ann`). IVF, which needs its rows to train, is built
          on the worker in one go.

        Trigger: a bulk load (session 11, 100k rows at ~2,000 rows/s): started at
          the threshold, the worker had half the load's time for all its rows and
          40–45k rows were left when the last batch committed (14–15 s more).
        Why: the graph costs ~0.3 ms of one core a row; the whole load gives it time
          enough if it starts early.
        Outcome: a bulk batch starts it from a tenth of the threshold on, so it
          keeps up with the load; it is searched only from the threshold on
          (:meth:`search`), as before.

        >>> m = VectorMatrix(2, background=True)
        >>> m.follow_ann(None); m.ann is None
        True
        """
        if not self.background or not min_rows or self._ann_failed or self._stop:
            return
        if self.ann is not None and self.ann_pending() >= URGENT_BACKLOG:
            # Trigger: a busy machine starves the low-priority worker during a load.
            # Why: every row it leaves is scanned exactly by each search and waited
            #   for after the load. Outcome: as for a search meeting that tail, a
            #   worker at normal priority (it takes its share of the CPU, no more).
            self._start_worker(low=False)
            return
        start = max(1, int(min_rows * BULK_GRAPH_SHARE)) if bulk else min_rows
        if self.ann is not None or self._workers or self.active_count() < start:
            return
        faiss = load_faiss()
        if faiss is None:
            return
        if self._index_kind() is AnnIndex:
            self.ensure_ann(wait=False, threads=1)
            return
        with self._ann_lock:
            if self.ann is None:
                self.ann = HnswIndex.build(faiss, self._matrix[:0])
        self._start_worker(low=True)

    def _start_worker(self, *, low: bool = True) -> None:
        """Make sure a worker extends the installed index with the tail (background only).

        ``low``: a write's worker, at low priority; any running worker will do.
        Otherwise (a search met a large tail) a worker at normal priority is
        started unless one runs: a low one alone may starve on a busy machine.
        """
        ann = self.ann
        if ann is None or len(self.ids) - ann.count < EXTEND_CHUNK:
            return  # not a whole chunk yet: the worker would have nothing to add
        with self._start_lock:  # serialised with the worker's "caught up, ending" check
            if self._stop or (self._workers if low else not all(self._workers.values())):
                return
            self._spawn(len(self.ids), 1, low=low)

    def _work(self, count: int, threads: int | None, low: bool) -> None:
        """The worker: build (or load) the index over rows 0..count-1 if there is
        none, install it, then extend it with every later row until caught up."""
        me = threading.current_thread()
        faiss = load_faiss()
        kind = self._index_kind()
        if low:
            _lower_priority()
        if threads is not None:
            faiss.omp_set_num_threads(threads)  # OpenMP's setting is per calling thread
        if self.ann is None:
            try:
                # rows 0..count-1 as they are now; a row changed meanwhile is in _replaced
                index = self._load_or_build(faiss, kind, count)
            except Exception:  # no index: searches stay exact (never an error in a search)
                with self._ann_lock, self._start_lock:
                    self._workers.pop(me, None)
                    self._ann_failed = True
                return
            with self._ann_lock:
                if self._stop:  # closed or purged meanwhile: nothing installed, nothing saved
                    with self._start_lock:
                        self._workers.pop(me, None)
                    return
                for row in sorted(self._replaced):
                    index.replace(row, self._matrix[row])
                self.ann = index
                self.save_ann()
        # Extending: the writer keeps the other core. Measured (session 11) and not
        # shipped: a thread per core once the writer is idle — at load 7-14 faiss's
        # OpenMP threads on chunks of 128 added rows 2.4x slower (wall) than one thread.
        # Trigger: a worker that keeps up with the writer met tails of any length.
        # Why: faiss inserts a chunk's points level by level in an order of its own,
        #   so where chunks end shapes the graph; it depended on thread timing, and
        #   the graph (and what a search costs and finds) differed from run to run.
        # Outcome: whole chunks of EXTEND_CHUNK rows only; fewer rows wait in the
        #   tail (scored exactly: microseconds). The graph is a function of the rows.
        faiss.omp_set_num_threads(1)
        ann = self.ann
        while ann is not None:
            if low and not all(self._workers.values()):
                with self._start_lock:  # a normal-priority worker runs: leave the tail to it
                    self._workers.pop(me, None)
                    return
            if self._waiting > 0:
                time.sleep(0.001)  # a search waits for the lock: let it in first
            with self._ann_lock:
                added = self._extend(ann, EXTEND_CHUNK, whole=True) if not self._stop else 0
            if added == 0:
                with self._start_lock:
                    if self._stop or len(self.ids) - ann.count < EXTEND_CHUNK:
                        self._workers.pop(me, None)
                        return

    def _extend(
        self, ann: AnnIndex | HnswIndex, most: int | None = None, *, whole: bool = False
    ) -> int:
        """Add up to ``most`` rows of the tail (rows ``ann.count`` on) to ``ann``; how many
        (``whole``: exactly ``most`` or none).

        The caller holds the ANN lock. A row's vector is written before the row
        is counted (:meth:`upsert`), so every row below ``len(ids)`` is complete.
        """
        start = ann.count
        end = len(self.ids) if most is None else min(len(self.ids), start + most)
        if end <= start or (whole and most is not None and end - start < most):
            return 0
        ann.extend(self._matrix[start:end])
        return end - start

    def close(self, timeout: float | None = 30.0) -> None:
        """Stop the worker after its current chunk (the store is closing or purged).

        A worker still building the first graph is not waited for (a CLI call
        that started it must not wait minutes to exit): it ends without
        extending once the build is done.
        """
        with self._start_lock:
            self._stop = True
            threads = list(self._workers)
        if self.ann is not None:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join(timeout)

    def _load_or_build(
        self, faiss: Any, kind: type[AnnIndex] | type[HnswIndex], count: int
    ) -> AnnIndex | HnswIndex:
        """The graph saved by an earlier process for rows 0..count-1, else a new one.

        Trigger: building HNSW over 100k rows takes tens of seconds on 2 busy
          cores, and every process (each CLI call) built it again.
        Why: the graph is a function of the vectors; the vectors are in the
          database, so only the graph (about a sixth of the vectors' size) is kept.
        Outcome: a saved graph is reused for every slot whose memory still has
          the same vector (a 64-bit digest of its bytes); other slots are masked,
          rows it lacks are added. The caller saves it once installed (:meth:`save_ann`).
        """
        rows = self._matrix[:count]
        path = self.graph_path
        if path is not None and kind is HnswIndex:
            row = self.row

            def key_rows(keys: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
                found = (row.get(k, -1) for k in keys.tolist())
                at = np.fromiter(found, dtype=np.int64, count=len(keys))
                at[at >= count] = -1  # added after ``count``: appended by the caller
                return at

            loaded = HnswIndex.load(faiss, path, rows, key_rows)
            if loaded is not None:
                index, added = loaded
                self._saved_slots = index.slots - added  # saved again if 1% was added
                return index
        self._saved_slots = 0  # a new graph: saved once installed
        return kind.build(faiss, rows)

    def _save(self, index: HnswIndex) -> None:
        """Write ``index`` to :attr:`graph_path` (best effort: a read-only home keeps none)."""
        if self.graph_path is None:
            return
        slot_rows = index.slot_rows()
        # Trigger: rows of memories no longer active (deleted, erased by a purge
        #   another process made, caught up here as inactive).
        # Why: the file must not keep the ids of memories that are gone.
        # Outcome: their slots are saved without a key (masked when loaded; a
        #   row still stored is added again then).
        current = slot_rows >= 0
        current[current] = self._active[slot_rows[current]]
        ids = self.ids
        keys = np.array(
            [
                ids[r] if ok else ""
                for r, ok in zip(slot_rows.tolist(), current.tolist(), strict=True)
            ]
        )
        digests = np.zeros(slot_rows.size, dtype=np.uint64)
        digests[current] = row_digests(self._matrix[slot_rows[current]])
        try:
            index.save(self.graph_path, keys, digests)
        except OSError:
            return
        self._saved_slots = index.slots

    def save_ann(self) -> bool:
        """Save the graph when it grew by 1% or more since it was loaded or saved.

        >>> VectorMatrix(2).save_ann()  # no graph, nowhere to keep it
        False
        """
        with self._ann_lock:
            ann = self.ann
            if self.graph_path is None or not isinstance(ann, HnswIndex):
                return False
            if (ann.slots - self._saved_slots) * 100 < max(ann.slots, 1):
                return False
            self._save(ann)
            return self._saved_slots == ann.slots

    def wait_for_ann(self, timeout: float | None = None) -> AnnIndex | HnswIndex | None:
        """Wait for the background worker (build, then extension) to finish; the index."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (thread := self._building) is not None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            thread.join(left)
        return self.ann

    def ann_backlog(self) -> int:
        """Rows outside the graph while one exists or is being built (else 0)."""
        return self.ann_pending() if self.ann is not None or self._workers else 0

    def ann_pending(self) -> int:
        """Rows not in the ANN index yet (all of them while there is none).

        >>> m = VectorMatrix(2)
        >>> m.upsert("a", np.array([1, 0], dtype=np.float32), active=True)
        >>> m.ann_pending()
        1
        """
        ann = self.ann
        return len(self.ids) - (ann.count if ann is not None else 0)

    def _search_ann(
        self, query: F32, limit: int, rows: npt.NDArray[np.intp] | None
    ) -> list[tuple[str, float]] | None:
        n = len(self.ids)
        allowed: npt.NDArray[np.bool_] | None
        if rows is not None and rows.size < ANN_MIN_SHARE * n:
            return None
        if self._ann_failed:
            return None
        with self._waiting_lock:
            self._waiting += 1
        try:
            # Trigger: a worker holds the lock while it adds a chunk of rows.
            # Why: a low-priority worker on a busy machine gets little CPU and
            #   may hold it for long (the search would wait on the slowest thread).
            # Outcome: wait at most ANN_LOCK_WAIT_S while a worker runs, then
            #   answer exactly.
            if not self._ann_lock.acquire(timeout=ANN_LOCK_WAIT_S if self._workers else -1):
                return None
            try:
                ann = self.ensure_ann(wait=not self.background)
                if ann is None:
                    return None
                if not self.background:
                    self._extend(ann)  # no worker: the index takes every row first
                done = min(ann.count, n)
                if rows is None:
                    # every row allowed (nothing deleted): the graph's own unmasked walk
                    allowed = None if self.active_count() == n else self._active[:n]
                else:
                    allowed = np.zeros(n, dtype=bool)
                    allowed[rows] = True
                labels, scores = ann.search(query, limit, allowed)
            finally:
                self._ann_lock.release()
        finally:
            with self._waiting_lock:
                self._waiting -= 1
        # Trigger: rows written since the index last grew (the worker extends it).
        # Why: they are not in the graph yet, and a search must see every row.
        # Outcome: those rows are scored exactly and merged with the graph's hits.
        tail = np.flatnonzero(self._active[done:n]) + done if rows is None else rows[rows >= done]
        if self.background and n - done >= SEARCH_BACKLOG:
            # Trigger: a search meets rows the low-priority worker has not added.
            # Why: after a load on a busy box that worker crawled (18,052 rows
            #   took 65.7 s at load 13-15: below the 20,000 that called for help).
            # Outcome: a worker at normal priority from 1,024 rows on (during a
            #   load a search is rare; after it the writer needs no CPU).
            self._start_worker(low=False)
        if labels.size < limit:
            # fewer found than the graph holds allowed rows: a starved walk → exact
            if rows is None:
                all_active = self.active_count() == n
                in_graph = done if all_active else int(np.count_nonzero(self._active[:done]))
            else:
                in_graph = int(rows.size - tail.size)
            if labels.size < min(limit, in_graph):
                return None
        ids = self.ids
        if tail.size == 0:
            return best_first(list(map(ids.__getitem__, labels.tolist())), scores)
        with _one_blas_thread():
            tail_scores = self._matrix[tail] @ np.asarray(query, dtype=np.float32)
        if tail.size > limit:
            top = np.argpartition(-tail_scores, limit - 1)[:limit]
            tail, tail_scores = tail[top], tail_scores[top]
        merged = np.concatenate([labels.astype(np.int64), tail.astype(np.int64)])
        merged_scores = np.concatenate([scores.astype(np.float32), tail_scores.astype(np.float32)])
        return best_first(list(map(ids.__getitem__, merged.tolist())), merged_scores)[:limit]
