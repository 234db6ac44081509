"""The SQLite store's ANN path on real files: same answers as exact search on
clustered vectors, filters from SQL inside the scan, writes followed, another
process's writes seen, and the threshold switchable on a live store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memvault.embed.base import l2_normalise
from memvault.model import MemoryStatus
from memvault.store import NodeFilter, SQLiteStore
from memvault.store.base import EmbeddingRow, WriteSet
from memvault.store.sqlite.ann import DEFAULT_ANN_MIN_ROWS, HnswIndex, load_faiss
from tests.helpers import make_node, ts

pytestmark = pytest.mark.skipif(
    load_faiss() is None, reason="the ann extra (faiss-cpu) is not installed"
)

MODEL = "test-model"
DIM = 24


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(99).standard_normal((30, DIM))
    picks = rng.integers(0, 30, size=n)
    return l2_normalise((centres[picks] + 0.5 * rng.standard_normal((n, DIM))).astype(np.float32))


def _seed(store: SQLiteStore, orch: str, n: int, seed: int) -> list[str]:
    vectors = _vectors(n, seed)
    nodes = [
        make_node(orch, user_id="u1" if i % 2 else "u2", importance=30 + i % 40) for i in range(n)
    ]
    rows = tuple(
        EmbeddingRow(node.memory_id, MODEL, vectors[i], f"sha-{node.memory_id}")
        for i, node in enumerate(nodes)
    )
    store.apply(WriteSet(orch, ts(1), nodes=tuple(nodes), embeddings=rows))
    return [node.memory_id for node in nodes]


def _ids(store: SQLiteStore, q: np.ndarray, f: NodeFilter | None = None, k: int = 10) -> list[str]:
    hits = store.search_vectors("acme", MODEL, q, f or NodeFilter(), limit=k)
    return [h.memory_id for h in hits]


def test_default_threshold_and_switching_on_a_live_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=None)
    assert SQLiteStore(tmp_path / "other.db").ann_min_rows == DEFAULT_ANN_MIN_ROWS
    _seed(store, "acme", 1500, seed=1)
    queries = _vectors(20, seed=2)
    exact = [_ids(store, q) for q in queries]
    store.ann_min_rows = 200
    approx = [_ids(store, q) for q in queries]
    overlap = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact, strict=True)])
    assert overlap >= 0.9
    store.close()


def test_filters_and_scope_hold_on_the_ann_path(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    ids = _seed(store, "acme", 1200, seed=3)
    other = _seed(store, "tenant-b", 600, seed=3)  # same vectors, other scope
    by_id = {m: i for i, m in enumerate(ids)}
    q = _vectors(1, seed=4)[0]
    only_u1 = _ids(store, q, NodeFilter(user_id="u1"), k=20)
    assert len(only_u1) == 20 and all(by_id[m] % 2 == 1 for m in only_u1)
    assert not set(_ids(store, q, k=50)) & set(other)
    # 30 allowed rows (importance 30): below the threshold, exact over all of them
    few = _ids(store, q, NodeFilter(importance_max=30), k=50)
    assert sorted(few) == sorted(m for m in ids if by_id[m] % 40 == 0)
    store.close()


def test_ann_follows_this_and_another_process_writes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    _seed(store, "acme", 800, seed=5)
    q = _vectors(1, seed=6)[0]
    top = _ids(store, q)
    # this process: a new memory equal to the query comes first …
    fresh = make_node("acme")
    row = EmbeddingRow(fresh.memory_id, MODEL, q, "sha-fresh")
    store.apply(WriteSet("acme", ts(2), nodes=(fresh,), embeddings=(row,)))
    assert _ids(store, q)[0] == fresh.memory_id
    # … and a soft-deleted one disappears
    gone = store.get_nodes("acme", [top[0]])[0].model_copy(
        update={"status": MemoryStatus.SOFT_DELETED}
    )
    store.apply(WriteSet("acme", ts(3), nodes=(gone,)))
    assert top[0] not in _ids(store, q, k=50)
    # another process (a second store on the file) writes: seen on the next search
    second = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    theirs = make_node("acme")
    row = EmbeddingRow(theirs.memory_id, MODEL, -q, "sha-theirs")
    second.apply(WriteSet("acme", ts(4), nodes=(theirs,), embeddings=(row,)))
    assert _ids(store, -q)[0] == theirs.memory_id
    second.close()
    store.close()


def test_another_process_writes_are_caught_up_without_a_rebuild(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    store.ann_background = False
    ids = _seed(store, "acme", 800, seed=8)
    q = _vectors(1, seed=9)[0]
    top = _ids(store, q)
    matrix = store._vectors[("acme", MODEL)]
    index = matrix.ann
    assert index is not None
    second = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    # their writes: a new memory equal to the query, a new vector for an old one,
    # the current best soft-deleted
    theirs = make_node("acme")
    moved = EmbeddingRow(ids[400], MODEL, -q, "sha-moved")
    new = EmbeddingRow(theirs.memory_id, MODEL, q, "sha-theirs")
    second.apply(WriteSet("acme", ts(4), nodes=(theirs,), embeddings=(new, moved)))
    gone = second.get_nodes("acme", [top[0]])[0].model_copy(
        update={"status": MemoryStatus.SOFT_DELETED}
    )
    second.apply(WriteSet("acme", ts(5), nodes=(gone,)))
    after = _ids(store, q, k=50)
    assert after[0] == theirs.memory_id
    assert top[0] not in after
    assert _ids(store, -q)[0] == ids[400]
    # the same matrix and the same ANN index, followed rather than rebuilt
    assert store._vectors[("acme", MODEL)] is matrix and matrix.ann is index
    # and what it answers is what a fresh load answers
    fresh = SQLiteStore(tmp_path / "m.db", ann_min_rows=None)
    for probe in (q, -q, _vectors(1, seed=10)[0]):
        assert set(_ids(store, probe)) == set(
            h.memory_id for h in fresh.search_vectors("acme", MODEL, probe, NodeFilter(), limit=10)
        )
    for s in (fresh, second, store):
        s.close()


def test_the_graph_is_kept_for_the_next_process_and_checked_against_the_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    store.ann_background = False
    ids = _seed(store, "acme", 900, seed=11)
    probes = _vectors(8, seed=12)
    first = [_ids(store, p) for p in probes]
    graph = store._graph_path("acme", MODEL)
    assert graph is not None and graph.is_file()  # saved once built
    store.close()
    # another process changes the store meanwhile: one vector moved, one memory gone
    other = SQLiteStore(tmp_path / "m.db", ann_min_rows=None)
    moved = EmbeddingRow(ids[10], MODEL, -probes[0], "sha-moved")
    other.apply(WriteSet("acme", ts(6), embeddings=(moved,)))
    gone = other.get_nodes("acme", [first[1][0]])[0].model_copy(
        update={"status": MemoryStatus.SOFT_DELETED}
    )
    other.apply(WriteSet("acme", ts(7), nodes=(gone,)))
    other.close()

    def no_build(*args: object, **kwargs: object) -> HnswIndex:
        raise AssertionError("the saved graph should have been loaded")

    monkeypatch.setattr(HnswIndex, "build", no_build)
    again = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    again.ann_background = False
    assert _ids(again, -probes[0])[0] == ids[10]  # its new vector, not the saved slot's
    assert first[1][0] not in _ids(again, probes[1], k=50)
    index = again._vectors[("acme", MODEL)].ann
    assert isinstance(index, HnswIndex) and index.stale == 1  # the moved row's old slot
    exact = SQLiteStore(tmp_path / "m.db", ann_min_rows=None)
    for p in probes[2:]:
        assert _ids(again, p) == _ids(exact, p)
    # a torn file is not used: the graph is built again
    monkeypatch.undo()
    graph.write_bytes(graph.read_bytes()[:100])
    third = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    third.ann_background = False
    assert _ids(third, probes[2]) == _ids(exact, probes[2])
    assert graph.is_file()
    # a purge (erasure) drops the saved graphs: they hold the purged memories' ids
    third._after_purge("acme")
    assert not graph.parent.exists()
    for s in (again, exact, third):
        s.close()


def test_the_saved_graph_keeps_no_id_of_an_inactive_memory(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    store.ann_background = False
    ids = _seed(store, "acme", 400, seed=13)
    q = _vectors(1, seed=14)[0]
    _ids(store, q)  # builds and saves the graph
    gone = store.get_nodes("acme", [ids[7]])[0].model_copy(
        update={"status": MemoryStatus.SOFT_DELETED}
    )
    store.apply(WriteSet("acme", ts(8), nodes=(gone,)))
    matrix = store._vectors[("acme", MODEL)]
    assert matrix.graph_path is not None and isinstance(matrix.ann, HnswIndex)
    matrix._save(matrix.ann)
    with open(matrix.graph_path, "rb") as f:
        keys = np.load(f, allow_pickle=False)
    assert ids[7] not in set(keys.tolist()) and ids[8] in set(keys.tolist())
    store.close()
    # the next process masks that slot and adds the (still stored) row again
    again = SQLiteStore(tmp_path / "m.db", ann_min_rows=200)
    again.ann_background = False
    assert ids[7] not in _ids(again, q, k=50)
    index = again._vectors[("acme", MODEL)].ann
    assert isinstance(index, HnswIndex) and index.stale == 1
    again.close()


def _bulk(store: SQLiteStore, orch: str, n: int, seed: int, batch: int = 250) -> list[str]:
    """``n`` memories written in batches (each its own transaction), as add_many does."""
    vectors = _vectors(n, seed)
    ids: list[str] = []
    for start in range(0, n, batch):
        nodes = [make_node(orch) for _ in range(start, min(n, start + batch))]
        rows = tuple(
            EmbeddingRow(node.memory_id, MODEL, vectors[start + i], f"sha-{node.memory_id}")
            for i, node in enumerate(nodes)
        )
        store.apply(WriteSet(orch, ts(1), nodes=tuple(nodes), embeddings=rows))
        ids.extend(node.memory_id for node in nodes)
    return ids


def test_a_bulk_load_builds_the_graph_before_the_first_search(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=500)
    ids = _bulk(store, "acme", 1500, seed=21)
    matrix = store._vectors.get(("acme", MODEL))
    assert matrix is not None and len(matrix) == 1500  # loaded after the first batch, followed
    assert matrix.wait_for_ann(120) is not None  # built and extended on the worker, no search
    assert matrix.ann is not None and matrix.ann.count == 1472  # whole chunks of 64
    # what it answers is what an exact store answers (within the graph's recall)
    exact = SQLiteStore(tmp_path / "m.db", ann_min_rows=None)
    probes = _vectors(20, seed=22)
    overlaps = [len(set(_ids(store, p)) & set(_ids(exact, p))) / 10 for p in probes]
    assert float(np.mean(overlaps)) >= 0.9
    # another process's write is seen, and a memory just written comes first
    second = SQLiteStore(tmp_path / "m.db", ann_min_rows=None)
    theirs = _bulk(second, "acme", 120, seed=23)
    assert _ids(store, _vectors(120, seed=23)[7])[0] == theirs[7]
    mine = _bulk(store, "acme", 200, seed=24)
    assert _ids(store, _vectors(200, seed=24)[150])[0] == mine[150]
    store.close()  # saves the graph the worker built (with what it holds)
    graph = store._graph_path("acme", MODEL)
    assert graph is not None and graph.is_file()
    with open(graph, "rb") as f:
        keys = set(np.load(f, allow_pickle=False).tolist())
    assert set(ids) <= keys
    # the next process reuses it for every row it holds
    again = SQLiteStore(tmp_path / "m.db", ann_min_rows=500)
    again.ann_background = False
    reused = [len(set(_ids(again, p)) & set(_ids(exact, p))) / 10 for p in probes]
    assert float(np.mean(reused)) >= 0.9
    loaded = again._vectors[("acme", MODEL)].ann
    assert isinstance(loaded, HnswIndex) and loaded.count == 1820
    for s in (again, exact, second):
        s.close()


def test_a_large_store_is_not_loaded_by_a_write(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", ann_min_rows=300)
    _bulk(store, "acme", 400, seed=25)
    store.close()
    again = SQLiteStore(tmp_path / "m.db", ann_min_rows=300)
    _bulk(again, "acme", 200, seed=26)  # 400 rows before: above the threshold
    assert ("acme", MODEL) not in again._vectors  # left to the first search
    _bulk(again, "acme", 50, seed=27, batch=50)  # a small write never loads it
    assert ("acme", MODEL) not in again._vectors
    assert len(_ids(again, _vectors(1, seed=26)[0], k=50)) == 50
    again.close()


_WORDS = ("tea", "coffee", "deploy", "berlin", "friday", "invoice", "garden", "python", "paris")


def _load_batches(n: int, seed: int, batch: int = 250) -> list[WriteSet]:
    """The batches of one bulk load (fixed ids, texts and vectors: replayable on any file)."""
    vectors = _vectors(n, seed)
    rng = np.random.default_rng(seed)
    out: list[WriteSet] = []
    for start in range(0, n, batch):
        nodes = [
            make_node(
                "acme",
                memory_id=f"bulk_{i:06d}",
                content=" ".join(rng.choice(_WORDS, size=3).tolist()) + f" note {i}",
            )
            for i in range(start, min(n, start + batch))
        ]
        rows = tuple(
            EmbeddingRow(node.memory_id, MODEL, vectors[start + i], f"sha-{node.memory_id}")
            for i, node in enumerate(nodes)
        )
        out.append(WriteSet("acme", ts(1), nodes=tuple(nodes), embeddings=rows))
    return out


def test_a_bulk_load_builds_both_indexes_while_it_runs_with_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph starts at a tenth of the threshold and the text index at its own,
    both followed batch by batch; a store loaded the old way (graph at the
    threshold, text index on the first search) answers exactly the same."""
    from memvault.store.sqlite import store as store_mod
    from memvault.store.sqlite import vectors as vectors_mod

    batches = _load_batches(3000, seed=31)
    new = SQLiteStore(tmp_path / "new.db", ann_min_rows=2000)
    for i, write in enumerate(batches):
        new.apply(write)
        text = new.text_leg.index
        # the text index exists from its threshold (500 rows) on, current after each batch
        assert (text is not None) == (250 * (i + 1) >= 500)
        if text is not None:
            assert text.rows == 250 * (i + 1) and text.marker == store_mod.fts_marker(new._reader())
        matrix = new._vectors[("acme", MODEL)]
        assert matrix.ann is not None  # from 200 rows (a tenth of the threshold) on
    matrix = new._vectors[("acme", MODEL)]
    assert matrix.wait_for_ann(120) is not None and matrix.ann is not None
    assert matrix.ann.count == 2944 and matrix.ann_pending() == 56  # whole chunks of 64

    monkeypatch.setattr(vectors_mod, "BULK_GRAPH_SHARE", 1.0)
    monkeypatch.setattr(store_mod, "BULK_TEXT_BUILD_ROWS", 0)
    old = SQLiteStore(tmp_path / "old.db", ann_min_rows=2000)
    old.text_leg.background = False
    for i, write in enumerate(batches):
        old.apply(write)
        assert old.text_leg.index is None
        assert (old._vectors[("acme", MODEL)].ann is not None) == (250 * (i + 1) >= 2000)
    before = old._vectors[("acme", MODEL)]
    assert before.wait_for_ann(120) is not None and before.ann is not None
    assert before.ann.count == 2944
    faiss = load_faiss()
    assert isinstance(matrix.ann, HnswIndex) and isinstance(before.ann, HnswIndex)
    # the same graph, byte for byte: it depends on the rows, not on when the worker ran
    assert np.array_equal(
        faiss.serialize_index(matrix.ann._index), faiss.serialize_index(before.ann._index)
    )
    for q in _vectors(25, seed=32):
        assert new.search_vectors("acme", MODEL, q, NodeFilter(), limit=10) == old.search_vectors(
            "acme", MODEL, q, NodeFilter(), limit=10
        )
    for terms in (["tea"], ["berlin", "friday"], ["note", "garden"], ["python", "1234"]):
        got = new.search_text("acme", terms, NodeFilter(), limit=10)
        assert got and got == old.search_text("acme", terms, NodeFilter(), limit=10)
    assert old.text_leg.index is not None  # the old way: built by the first search
    for s in (new, old):
        s.close()
