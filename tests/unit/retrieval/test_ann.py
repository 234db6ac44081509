"""The ANN index and the matrix's choice between it and exact search (faiss from the dev extra)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memvault.embed.base import l2_normalise
from memvault.store.sqlite import ann as ann_mod
from memvault.store.sqlite import vectors as vectors_mod
from memvault.store.sqlite.ann import AnnIndex, HnswIndex, load_faiss
from memvault.store.sqlite.vectors import VectorMatrix

faiss = load_faiss()
needs_faiss = pytest.mark.skipif(faiss is None, reason="the ann extra (faiss-cpu) is not installed")


def _clustered(n: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    """Unit vectors around 40 centres, like embeddings of related texts."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, dim))
    picks = rng.integers(0, 40, size=n)
    return l2_normalise((centres[picks] + 0.6 * rng.standard_normal((n, dim))).astype(np.float32))


def _matrix(vectors: np.ndarray, kind: str = "hnsw") -> VectorMatrix:
    m = VectorMatrix(vectors.shape[1], ann_kind=kind)
    for i, v in enumerate(vectors):
        m.upsert(f"m{i:05d}", v, active=True)
    return m


def _overlap(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> float:
    return len({x for x, _ in a} & {x for x, _ in b}) / max(1, len(b))


@needs_faiss
@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_ann_recall_against_exact_is_high(kind: str) -> None:
    vectors = _clustered(4000)
    m = _matrix(vectors, kind)
    queries = _clustered(30, seed=9)
    overlaps = []
    for q in queries:
        exact = m.search(q, 10, None)
        approx = m.search(q, 10, None, ann_min_rows=1000)
        overlaps.append(_overlap(approx, exact))
        # the scores the ANN reports are exact inner products
        for memory_id, score in approx:
            assert score == pytest.approx(float(vectors[int(memory_id[1:])] @ q), abs=1e-5)
    assert m.ann is not None and m.ann.count == 4000
    assert float(np.mean(overlaps)) >= 0.9


@needs_faiss
def test_below_threshold_or_disabled_stays_exact() -> None:
    m = _matrix(_clustered(500))
    q = _clustered(1, seed=3)[0]
    m.search(q, 5, None, ann_min_rows=1000)
    m.search(q, 5, None, ann_min_rows=None)
    m.search(q, 5, None, ann_min_rows=0)
    assert m.ann is None  # never built


@needs_faiss
@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_ann_follows_upserts_and_deactivation(kind: str) -> None:
    vectors = _clustered(2000)
    m = _matrix(vectors, kind)
    q = _clustered(1, seed=5)[0]
    m.search(q, 10, None, ann_min_rows=100)  # builds the index
    assert m.ann is not None
    # a new row equal to the query must come first; then it is replaced by its opposite
    m.upsert("new", q, active=True)
    assert m.ann.count == 2001
    assert m.search(q, 3, None, ann_min_rows=100)[0][0] == "new"
    m.upsert("new", -q, active=True)
    assert "new" not in {x for x, _ in m.search(q, 10, None, ann_min_rows=100)}
    # deactivated rows never come back from the ANN path
    top = m.search(q, 10, None, ann_min_rows=100)
    for memory_id, _ in top[:5]:
        m.set_active(memory_id, False)
    again = m.search(q, 10, None, ann_min_rows=100)
    assert not {x for x, _ in top[:5]} & {x for x, _ in again}
    assert len(again) == 10


@needs_faiss
@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_allowed_rows_are_respected_and_small_sets_fall_back_to_exact(kind: str) -> None:
    vectors = _clustered(3000)
    m = _matrix(vectors, kind)
    q = _clustered(1, seed=7)[0]
    allowed = np.arange(0, 3000, 3, dtype=np.intp)  # 1000 rows
    approx = m.search(q, 20, allowed, ann_min_rows=500)
    names = {f"m{i:05d}" for i in allowed}
    assert len(approx) == 20 and all(x in names for x, _ in approx)
    assert _overlap(approx, m.search_exact(q, 20, allowed)) >= 0.8
    # a handful of allowed rows: below the threshold, exact over them
    few = np.array([5, 17, 2999], dtype=np.intp)
    assert m.search(q, 20, few, ann_min_rows=500) == m.search_exact(q, 20, few)


@needs_faiss
def test_too_few_survivors_fall_back_to_exact() -> None:
    vectors = _clustered(20000, dim=8)
    m = _matrix(vectors, "ivf")  # IVF probes a share of the lists: a short answer
    q = _clustered(1, dim=8, seed=8)[0]
    # 4000 allowed rows scattered everywhere, and all of them asked for: the
    # probed lists hold only part of them, so the ANN answer is short → exact
    allowed = np.arange(0, 20000, 5, dtype=np.intp)
    assert m.ensure_ann() is not None and m.ann is not None
    labels, _ = m.ann.search(q, 4000, np.isin(np.arange(20000), allowed))
    assert 0 < labels.size < 4000
    got = m.search(q, 4000, allowed, ann_min_rows=100)
    assert got == m.search_exact(q, 4000, allowed)


def test_without_faiss_the_matrix_answers_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann_mod, "_FAISS", None)
    monkeypatch.setattr(ann_mod, "_FAISS_TRIED", True)
    # vectors.py imported load_faiss by name; it reads the module globals above
    m = _matrix(_clustered(300))
    q = _clustered(1, seed=4)[0]
    assert m.search(q, 10, None, ann_min_rows=10) == m.search_exact(q, 10, None)
    assert m.ann is None and m.ensure_ann() is None


@needs_faiss
def test_append_out_of_order_is_refused() -> None:
    index = AnnIndex.build(faiss, _clustered(200))
    with pytest.raises(ValueError, match="cannot append"):
        index.append(500, _clustered(1)[0])
    assert index.nlist >= 1 and 1 <= index.nprobe <= index.nlist


@needs_faiss
def test_hnsw_follows_many_replacements_like_exact_search() -> None:
    """The incremental graph returns the exact neighbours (within recall) after churn."""
    vectors = _clustered(3000)
    m = _matrix(vectors, "hnsw")
    queries = _clustered(20, seed=11)
    m.search(queries[0], 10, None, ann_min_rows=100)  # builds the graph
    rng = np.random.default_rng(3)
    moved = rng.choice(3000, size=600, replace=False)
    fresh = _clustered(600, seed=12)
    for row, vector in zip(moved, fresh, strict=True):
        m.upsert(f"m{row:05d}", vector, active=True)  # old slot masked, new slot added
    for i in range(3000, 3300):
        m.upsert(f"m{i:05d}", _clustered(1, seed=i)[0], active=True)  # appended rows
    for row in rng.choice(3000, size=300, replace=False):
        m.set_active(f"m{row:05d}", False)
    assert m.ann is not None and m.ann.count == 3300
    overlaps = []
    for q in queries:
        exact = m.search_exact(q, 10, None)
        approx = m.search(q, 10, None, ann_min_rows=100)
        overlaps.append(_overlap(approx, exact))
        assert len({x for x, _ in approx}) == len(approx)  # a replaced row appears once
        for memory_id, score in approx:  # scores are those of the current vectors
            current = m._matrix[m.row[memory_id]]
            assert score == pytest.approx(float(current @ q), abs=1e-5)
    assert float(np.mean(overlaps)) >= 0.9


@needs_faiss
def test_a_background_build_keeps_searches_exact_and_catches_up() -> None:
    vectors = _clustered(3000)
    m = VectorMatrix(32, ann_kind="hnsw", background=True)
    for i, v in enumerate(vectors):
        m.upsert(f"m{i:05d}", v, active=True)
    q = _clustered(1, seed=21)[0]
    first = m.search(q, 10, None, ann_min_rows=100)  # starts the build, answers exactly
    assert first == m.search_exact(q, 10, None)
    m.upsert("m00007", q, active=True)  # changed during (or after) the build
    m.upsert("late", -q, active=True)  # appended during (or after) the build
    assert m.wait_for_ann(120) is not None
    # the build's rows, then whole chunks only: fewer than a chunk stay in the exact tail
    assert m.ann is not None and 3001 - vectors_mod.EXTEND_CHUNK < m.ann.count <= 3001
    top = m.search(q, 10, None, ann_min_rows=100)
    assert top[0] == ("m00007", pytest.approx(1.0, abs=1e-5))
    assert m.search(-q, 1, None, ann_min_rows=100)[0][0] == "late"


@needs_faiss
def test_rows_not_in_the_graph_yet_are_searched_exactly() -> None:
    """The tail (rows written after the graph last grew) is scored exactly and merged."""
    vectors = _clustered(2000)
    m = VectorMatrix(32, ann_kind="hnsw", background=True)
    for i, v in enumerate(vectors):
        m.upsert(f"m{i:05d}", v, active=True)
    assert m.ensure_ann(wait=True) is not None and m.ann is not None
    m.close()  # no worker from now on: every later row stays in the tail
    q = _clustered(1, seed=31)[0]
    tail = _clustered(400, seed=32)
    for i, v in enumerate(tail):
        m.upsert(f"t{i:05d}", v, active=True)
    m.upsert("twin", q, active=True)
    m.upsert("t00003", -q, active=False)  # an inactive tail row never comes back
    assert m.ann.count == 2000 and m.ann_pending() == 401
    got = m.search(q, 20, None, ann_min_rows=100)
    assert got[0] == ("twin", pytest.approx(1.0, abs=1e-5))
    exact = m.search_exact(q, 20, None)
    assert _overlap(got, exact) >= 0.9
    # every tail row that belongs in the exact top 20 is there (the tail is exact)
    tail_exact = {x for x, _ in exact if x.startswith("t") or x == "twin"}
    assert tail_exact <= {x for x, _ in got}
    assert "t00003" not in {x for x, _ in m.search(-q, 50, None, ann_min_rows=100)}
    # a filtered search sees allowed tail rows only
    allowed = np.array([5, 17, *range(2000, 2401)], dtype=np.intp)
    filtered = m.search(q, 10, allowed, ann_min_rows=100)
    assert filtered[0][0] == "twin"
    assert all(m.row[x] in set(allowed.tolist()) for x, _ in filtered)


@needs_faiss
@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_the_graph_follows_a_bulk_load_on_a_worker(kind: str) -> None:
    """From the threshold on, the worker builds the graph and then extends it as
    rows arrive; the writer never waits for it, searches see every row meanwhile."""
    vectors = _clustered(3000)
    m = VectorMatrix(32, ann_kind=kind, background=True)
    queries = _clustered(10, seed=41)
    for start in range(0, 3000, 250):  # batches, as add_many writes them
        for i in range(start, start + 250):
            m.upsert(f"m{i:05d}", vectors[i], active=True)
        m.follow_ann(1000)
        if start >= 1000:
            assert m.ann is not None or m._building is not None  # started by the writes
        for q in queries[:2]:  # mid-load searches: the graph so far + the tail, exactly
            got = m.search(q, 10, None, ann_min_rows=1000)
            assert _overlap(got, m.search_exact(q, 10, None)) >= 0.7
    m.upsert("twin", queries[5], active=True)
    assert m.search(queries[5], 1, None, ann_min_rows=1000)[0][0] == "twin"  # maybe in the tail
    assert m.wait_for_ann(120) is not None and m.ann is not None
    assert m.ann.count + m.ann_pending() == 3001 and m._building is None
    assert m.ann_pending() < vectors_mod.EXTEND_CHUNK  # whole chunks; the rest stays exact
    overlaps = [
        _overlap(m.search(q, 10, None, ann_min_rows=1000), m.search_exact(q, 10, None))
        for q in queries
    ]
    assert float(np.mean(overlaps)) >= 0.9
    # a later row starts the worker again; close stops it
    m.upsert("late", -queries[0], active=True)
    assert m.search(-queries[0], 1, None, ann_min_rows=1000)[0][0] == "late"
    m.close()
    assert m._building is None or not m._building.is_alive()


@needs_faiss
def test_below_the_threshold_or_in_the_foreground_writes_start_no_graph() -> None:
    m = VectorMatrix(32, background=True)
    for i, v in enumerate(_clustered(300)):
        m.upsert(f"m{i:05d}", v, active=True)
    m.follow_ann(1000)
    m.follow_ann(None)
    assert m.ann is None and m._building is None
    fg = _matrix(_clustered(300))  # background off: the first search builds it
    fg.follow_ann(100)
    assert fg.ann is None and fg._building is None


@needs_faiss
def test_a_build_ending_after_close_installs_and_saves_nothing(tmp_path: Path) -> None:
    """A purge closes the matrix: a graph finished later must not be written back."""
    m = VectorMatrix(32, ann_kind="hnsw", background=True)
    m.graph_path = tmp_path / "g.hnsw"
    for i, v in enumerate(_clustered(3000)):
        m.upsert(f"m{i:05d}", v, active=True)
    release = threading.Event()
    build = m._load_or_build

    def slow_build(*args: Any) -> Any:
        release.wait(60)  # still building when the matrix is closed
        return build(*args)

    m._load_or_build = slow_build  # type: ignore[method-assign]
    assert m.ensure_ann(wait=False) is None  # the build starts on the worker
    thread = m._building
    m.close()  # returns at once: a build in progress is not waited for
    release.set()
    assert thread is not None
    thread.join(120)
    assert m.ann is None and m._building is None and not m.graph_path.exists()


@needs_faiss
def test_a_search_meeting_a_large_tail_starts_a_worker_at_normal_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A write's worker runs at low priority (it may starve on a busy machine);
    a search that meets a large tail starts one at normal priority, once."""
    m = _matrix(_clustered(1000))
    m.background = True
    assert m.ensure_ann(wait=True) is not None
    started: list[bool] = []
    release = threading.Event()

    def recorder(self: VectorMatrix, *args: Any) -> None:
        started.append(args[-1])  # ``low``
        release.wait(60)
        with self._start_lock:
            self._workers.pop(threading.current_thread(), None)

    monkeypatch.setattr(VectorMatrix, "_work", recorder)
    for i, v in enumerate(_clustered(100, seed=51)):
        m.upsert(f"t{i:05d}", v, active=True)  # the first starts a low worker, the rest see it
    q = _clustered(1, seed=52)[0]
    m.search(q, 10, None, ann_min_rows=100)  # 100 rows: below SEARCH_BACKLOG, no help
    assert started == [True]
    monkeypatch.setattr(vectors_mod, "SEARCH_BACKLOG", 50)
    first = m.search(q, 10, None, ann_min_rows=100)
    m.search(q, 10, None, ann_min_rows=100)  # a normal worker runs: no second one
    assert started == [True, False]
    assert _overlap(first, m.search_exact(q, 10, None)) >= 0.9
    release.set()
    assert m.wait_for_ann(60) is not None and m._building is None


@needs_faiss
def test_a_load_leaving_a_large_tail_starts_a_worker_at_normal_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A starved low-priority worker: the next write past the urgent backlog adds a
    normal one (as a search would), once; below it the writes leave the low one alone."""
    m = _matrix(_clustered(1000))
    m.background = True
    assert m.ensure_ann(wait=True) is not None
    started: list[bool] = []
    release = threading.Event()

    def recorder(self: VectorMatrix, *args: Any) -> None:
        started.append(args[-1])  # ``low``
        release.wait(60)
        with self._start_lock:
            self._workers.pop(threading.current_thread(), None)

    monkeypatch.setattr(VectorMatrix, "_work", recorder)
    monkeypatch.setattr(vectors_mod, "URGENT_BACKLOG", 200)
    vectors = _clustered(300, seed=53)
    for i, v in enumerate(vectors[:150]):
        m.upsert(f"t{i:05d}", v, active=True)
    m.follow_ann(100, bulk=True)
    assert started == [True]  # the tail's first whole chunk started a low worker
    for i, v in enumerate(vectors[150:], start=150):
        m.upsert(f"t{i:05d}", v, active=True)
    m.follow_ann(100, bulk=True)
    m.follow_ann(100, bulk=True)  # a normal worker runs: no second one
    assert started == [True, False]
    release.set()
    assert m.wait_for_ann(60) is not None and m._building is None


@needs_faiss
def test_a_search_does_not_wait_long_for_a_busy_worker() -> None:
    """A worker holding the ANN lock (a chunk on a starved thread) makes a search
    answer exactly instead of waiting for it."""
    m = _matrix(_clustered(1500))
    m.background = True
    assert m.ensure_ann(wait=True) is not None
    q = _clustered(1, seed=61)[0]
    holding, done = threading.Event(), threading.Event()

    def busy_worker() -> None:
        with m._ann_lock:
            holding.set()
            done.wait(30)

    worker = threading.Thread(target=busy_worker)
    m._workers[worker] = True  # as a running worker is registered
    worker.start()
    assert holding.wait(30)
    t0 = time.perf_counter()
    got = m.search(q, 10, None, ann_min_rows=100)
    waited = time.perf_counter() - t0
    done.set()
    worker.join(30)
    m._workers.pop(worker)
    assert got == m.search_exact(q, 10, None)
    assert waited < 5  # not the worker's 30 s (the wait is 20 ms; slack for a busy box)


@needs_faiss
def test_the_write_graph_starts_empty_and_a_search_on_a_large_tail_helps_fill_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The graph a write starts is installed empty and filled chunk by chunk by the
    low-priority worker; a search meanwhile reads it plus the tail, and, meeting a
    large tail, adds a normal-priority worker (the low one then steps aside)."""
    monkeypatch.setattr(vectors_mod, "SEARCH_BACKLOG", 100)
    m = VectorMatrix(32, ann_kind="hnsw", background=True)
    for i, v in enumerate(_clustered(2500)):
        m.upsert(f"m{i:05d}", v, active=True)
    m.follow_ann(1000)
    assert isinstance(m.ann, HnswIndex)  # installed at once, before the worker filled it
    q = _clustered(1, seed=71)[0]
    got = m.search(q, 10, None, ann_min_rows=1000)  # graph so far + the tail, exactly
    assert _overlap(got, m.search_exact(q, 10, None)) >= 0.9
    assert m.wait_for_ann(120) is not None and m.ann_pending() == m.ann_backlog() == 2500 % 64
    assert m.ann.count == m.ann.slots == 2496  # 39 whole chunks, every row added once
    overlaps = [
        _overlap(m.search(p, 10, None, ann_min_rows=1000), m.search_exact(p, 10, None))
        for p in _clustered(10, seed=72)
    ]
    assert float(np.mean(overlaps)) >= 0.9


class _SlowCount:
    """An int attribute whose read gives the GIL away before it returns.

    A ``+=`` on it (read, add, write) is then interrupted between the read and
    the write as a free-threaded build or any thread switch may interrupt it.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name]
        time.sleep(0)  # another thread runs here
        return value

    def __set__(self, obj: Any, value: int) -> None:
        obj.__dict__[self.name] = value


@needs_faiss
def test_the_count_of_waiting_searches_stays_exact_under_concurrent_searches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Searches from several threads raise and lower the count the worker reads to
    give way (review R2): it must come back to 0, or the worker sleeps 1 ms per chunk
    for ever (a count too high) or stops giving way (too low)."""
    slow = _SlowCount()
    slow.__set_name__(VectorMatrix, "_waiting")
    monkeypatch.setattr(VectorMatrix, "_waiting", slow, raising=False)
    m = _matrix(_clustered(600))
    m.background = True
    assert m.ensure_ann(wait=True) is not None
    queries = _clustered(8, seed=81)
    seen: list[int] = []
    errors: list[BaseException] = []

    def searches(q: np.ndarray) -> None:
        try:
            for _ in range(150):
                m.search(q, 5, None, ann_min_rows=100)
                seen.append(m._waiting)
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=searches, args=(q,)) for q in queries]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert len(seen) == 8 * 150
    assert min(seen) >= 0 and m._waiting == 0


def _with_island(n: int = 3000, copies: int = 90, dim: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Random unit rows with ``copies`` identical rows spread among them, and that row."""
    rng = np.random.default_rng(0)
    rows = l2_normalise(rng.standard_normal((n, dim)).astype(np.float32))
    at = rng.choice(n, copies, replace=False)
    return np.insert(rows, at, rows[0], axis=0).astype(np.float32), rows[0]


@needs_faiss
def test_a_walk_trapped_among_identical_vectors_walks_again_instead_of_scanning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More than 64 identical vectors (one text stored many times) fill each other's
    level-0 lists: a query landing among them met only them (83 of 100 at 1M), and the
    matrix then scanned every row exactly. A second walk from sampled entry points
    fills the answer from the graph."""
    rows, twin = _with_island()
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # a deterministic graph
    try:
        index = HnswIndex.build(faiss, rows[:0])  # filled in chunks, as a bulk load's worker does
        for start in range(0, len(rows), vectors_mod.EXTEND_CHUNK):
            index.extend(rows[start : start + vectors_mod.EXTEND_CHUNK])
    finally:
        faiss.omp_set_num_threads(threads)
    _, first = index._index.search(twin.reshape(1, -1), 100)
    assert 0 < int(np.count_nonzero(first >= 0)) < 100  # the island this test is about
    got, scores = index.search(twin, 100)
    assert got.size == 100 and np.unique(got).size == 100
    assert np.allclose(scores, rows[got] @ twin, atol=1e-5)
    assert bool(np.all(np.diff(scores) <= 1e-6))  # best first
    exact = np.argsort(-(rows @ twin), kind="stable")[:100]
    assert len(set(got.tolist()) & set(exact.tolist())) >= 95
    masked = np.ones(len(rows), dtype=bool)
    masked[::7] = False  # the filtered walk walks again too, and returns allowed rows only
    got, _ = index.search(twin, 100, masked)
    assert got.size == 100 and bool(masked[got].all())

    m = VectorMatrix(rows.shape[1])
    for i, v in enumerate(rows):
        m.upsert(f"m{i:05d}", v, active=True)
    m.ann = index
    monkeypatch.setattr(VectorMatrix, "search_exact", lambda *a, **k: pytest.fail("scanned"))
    assert len(m.search(twin, 100, None, ann_min_rows=100)) == 100
