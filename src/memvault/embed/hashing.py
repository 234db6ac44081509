"""A deterministic feature-hashing embedder **for tests** — not a semantic model.

It maps lower-cased word unigrams and bigrams to signed buckets with BLAKE2b
(stable across processes and platforms, unlike ``hash()``), then L2-normalises.
Texts that share words get a positive cosine; synonyms do not. Use it where a
test needs real vectors fast and without a model; never as a default.

>>> from memvault.embed.hashing import HashingEmbedder
>>> e = HashingEmbedder(dimension=32)
>>> bool((e.embed_query("red apple") == e.embed_documents(["Red apple!"])[0]).all())
True
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from memvault.embed.base import FloatMatrix, FloatVector
from memvault.errors import EmbedderError

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)
_EMPTY_FEATURE = "\x00empty"


@lru_cache(maxsize=65536)
def _bucket(feature: str, dimension: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    sign = 1.0 if value >> 63 == 0 else -1.0
    return value % dimension, sign


def _features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    feats = list(words)
    feats.extend(f"{a} {b}" for a, b in itertools.pairwise(words))
    return feats or [_EMPTY_FEATURE]


class HashingEmbedder:
    """Feature-hashing embedder for fast, model-free tests (symmetric; not semantic).

    Args:
        dimension: vector length (default 384, the same as MiniLM, so it can
            stand in for it in store tests).
    """

    #: Queries and documents are embedded alike (``embed.base.is_symmetric``).
    symmetric = True

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 2:
            raise EmbedderError(
                f"hashing embedder dimension must be >= 2, got {dimension}",
                hint="pass dimension=384 (or any size >= 2)",
            )
        self._dimension = dimension

    @property
    def model_id(self) -> str:
        return f"memvault/hashing-test-embedder-v1-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in _features(text):
                index, sign = _bucket(feature, self._dimension)
                out[row, index] += sign
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        # Trigger: every feature cancelled out (rare collisions of opposite sign).
        # Why: a zero vector has no direction and cannot be unit length.
        # Outcome: fall back to the fixed "empty" bucket so every row is a unit vector.
        for row in np.flatnonzero(norms[:, 0] == 0.0).tolist():
            index, sign = _bucket(_EMPTY_FEATURE, self._dimension)
            out[row, index] = sign
            norms[row, 0] = 1.0
        result: FloatMatrix = out / norms
        return result

    def embed_query(self, text: str) -> FloatVector:
        vector: FloatVector = self.embed_documents([text])[0]
        return vector

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimension={self._dimension})"
