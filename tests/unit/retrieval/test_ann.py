"""The ANN index and the matrix's choice between it and exact search (faiss from the dev extra)."""

from __future__ import annotations

import numpy as np
import pytest

from memvault.embed.base import l2_normalise
from memvault.store.sqlite import ann as ann_mod
from memvault.store.sqlite.ann import AnnIndex, load_faiss
from memvault.store.sqlite.vectors import VectorMatrix

faiss = load_faiss()
needs_faiss = pytest.mark.skipif(faiss is None, reason="the ann extra (faiss-cpu) is not installed")


def _clustered(n: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    """Unit vectors around 40 centres, like embeddings of related texts."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, dim))
    picks = rng.integers(0, 40, size=n)
    return l2_normalise((centres[picks] + 0.6 * rng.standard_normal((n, dim))).astype(np.float32))


def _matrix(vectors: np.ndarray) -> VectorMatrix:
    m = VectorMatrix(vectors.shape[1])
    for i, v in enumerate(vectors):
        m.upsert(f"m{i:05d}", v, active=True)
    return m


def _overlap(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> float:
    return len({x for x, _ in a} & {x for x, _ in b}) / max(1, len(b))


@needs_faiss
def test_ann_recall_against_exact_is_high() -> None:
    vectors = _clustered(4000)
    m = _matrix(vectors)
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
def test_ann_follows_upserts_and_deactivation() -> None:
    vectors = _clustered(2000)
    m = _matrix(vectors)
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
def test_allowed_rows_are_respected_and_small_sets_fall_back_to_exact() -> None:
    vectors = _clustered(3000)
    m = _matrix(vectors)
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
    m = _matrix(vectors)
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
