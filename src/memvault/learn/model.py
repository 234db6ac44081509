"""Heads: one sigmoid score per label from a sentence vector and hashed n-grams.

A :class:`Heads` is plain arrays — linear weights on the sentence vector
(``dense_w``), on the n-gram buckets (``sparse_w``), an optional small hidden
layer on the sentence vector (``hidden_w``, ``hidden_b``, ``hidden_out``) and a
bias — plus a calibrated threshold per label. Scoring one text is a few
hundred gathered rows and one small matmul: well under a millisecond.

>>> import numpy as np
>>> from memvault.learn.features import char_ngrams, SparseRows
>>> h = Heads(labels=("a",), bias=np.zeros(1), sparse_w=np.zeros((8, 1)),
...           thresholds=np.full(1, 0.5))
>>> h.scores(None, SparseRows.stack([char_ngrams("x", dim=8)], 8)).tolist()
[[0.5]]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memvault.learn.features import SparseRows
from memvault.learn.weights import WeightsError

__all__ = ["Heads", "sigmoid"]

Array = npt.NDArray[np.floating]


def sigmoid(z: Array) -> npt.NDArray[np.float64]:
    """The logistic function, without overflow warnings for large ``|z|``."""
    z64 = np.clip(np.asarray(z, dtype=np.float64), -60.0, 60.0)
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-z64))
    return out


@dataclass(frozen=True)
class Heads:
    """A trained set of heads. ``dense_w`` is None for an n-gram-only model."""

    labels: tuple[str, ...]
    bias: Array
    sparse_w: Array
    thresholds: Array
    dense_w: Array | None = None
    hidden_w: Array | None = None
    hidden_b: Array | None = None
    hidden_out: Array | None = None
    #: stricter thresholds for short texts (fewer than ``short_words`` words), or None
    short_thresholds: Array | None = None

    @property
    def uses_vector(self) -> bool:
        return self.dense_w is not None

    @property
    def vector_dim(self) -> int:
        return 0 if self.dense_w is None else int(self.dense_w.shape[0])

    def logits(
        self, dense: Array | None, sparse: SparseRows, *, row_exact: bool = False
    ) -> npt.NDArray[np.float64]:
        """Raw scores ``(n, len(labels))`` before the sigmoid.

        ``row_exact``: every row's vector products are computed on their own, so
        row ``i`` is bit for bit what scoring that row alone gives (a BLAS
        product of many rows may sum in another order). The n-gram part is
        per row in any case (:meth:`SparseRows.dot`).

        >>> from memvault.learn.features import ngram_matrix
        >>> h = Heads(labels=("a",), bias=np.zeros(1), sparse_w=np.ones((64, 1)),
        ...           thresholds=np.full(1, 0.5), dense_w=np.arange(3.0)[:, None])
        >>> x, d = ngram_matrix(["a b", "c"], dim=64), np.eye(3)[:2]
        >>> bool((h.logits(d, x, row_exact=True)[1] == h.logits(d[1:], x.take([1]))[0]).all())
        True
        """
        z = sparse.dot(self.sparse_w) + np.asarray(self.bias, dtype=np.float64)
        if self.dense_w is not None:
            if dense is None:
                raise ValueError("these heads read a sentence vector and none was given")
            d = np.asarray(dense, dtype=np.float64)

            def mul(a: Array, w: Array | None) -> npt.NDArray[np.float64]:
                w64 = np.asarray(w, dtype=np.float64)
                if not row_exact or a.shape[0] <= 1:
                    out: npt.NDArray[np.float64] = a @ w64
                    return out
                # A stack of (1, d) rows: matmul runs each row's product on its
                # own, as ``a[i : i + 1] @ w64`` does, without a Python loop.
                rows = np.ascontiguousarray(a).reshape(a.shape[0], 1, a.shape[1])
                stacked: npt.NDArray[np.float64] = np.matmul(rows, w64).reshape(a.shape[0], -1)
                return stacked

            z = z + mul(d, self.dense_w)
            if (
                self.hidden_w is not None
                and self.hidden_b is not None
                and self.hidden_out is not None
            ):
                h = np.maximum(mul(d, self.hidden_w) + self.hidden_b, 0.0)
                z = z + mul(h, self.hidden_out)
        result: npt.NDArray[np.float64] = z
        return result

    def scores(
        self, dense: Array | None, sparse: SparseRows, *, row_exact: bool = False
    ) -> npt.NDArray[np.float64]:
        """Probabilities ``(n, len(labels))`` (``row_exact``: see :meth:`logits`)."""
        return sigmoid(self.logits(dense, sparse, row_exact=row_exact))

    # -- (de)serialisation: flat arrays under a prefix, so one file holds several

    def arrays(self, prefix: str) -> dict[str, npt.NDArray[np.generic]]:
        """The arrays to save, named ``<prefix>.<field>``."""
        out: dict[str, npt.NDArray[np.generic]] = {
            f"{prefix}.labels": np.array(self.labels, dtype=np.str_),
            f"{prefix}.bias": np.asarray(self.bias, dtype=np.float32),
            f"{prefix}.sparse_w": np.asarray(self.sparse_w, dtype=np.float32),
            f"{prefix}.thresholds": np.asarray(self.thresholds, dtype=np.float32),
        }
        for name in ("dense_w", "hidden_w", "hidden_b", "hidden_out", "short_thresholds"):
            value = getattr(self, name)
            if value is not None:
                out[f"{prefix}.{name}"] = np.asarray(value, dtype=np.float32)
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[np.generic]], prefix: str) -> Heads:
        """Rebuild heads saved by :meth:`arrays`; raises WeightsError when incoherent."""

        def get(name: str) -> npt.NDArray[np.generic] | None:
            return arrays.get(f"{prefix}.{name}")

        labels, bias, sparse_w, thresholds = (
            get("labels"),
            get("bias"),
            get("sparse_w"),
            get("thresholds"),
        )
        if labels is None or bias is None or sparse_w is None or thresholds is None:
            raise WeightsError(f"weights hold no complete {prefix!r} heads")
        k = len(labels)
        dense_w = get("dense_w")
        short = get("short_thresholds")
        shapes_ok = (
            bias.shape == (k,)
            and thresholds.shape == (k,)
            and sparse_w.ndim == 2
            and sparse_w.shape[1] == k
            and (dense_w is None or (dense_w.ndim == 2 and dense_w.shape[1] == k))
            and (short is None or short.shape == (k,))
        )
        if not shapes_ok:
            raise WeightsError(f"{prefix!r} heads have inconsistent shapes")

        def f64(a: npt.NDArray[np.generic] | None) -> Array | None:
            return None if a is None else np.asarray(a, dtype=np.float64)

        return cls(
            labels=tuple(str(x) for x in labels.tolist()),
            bias=np.asarray(bias, dtype=np.float64),
            sparse_w=np.asarray(sparse_w, dtype=np.float32),
            thresholds=np.asarray(thresholds, dtype=np.float64),
            dense_w=f64(dense_w),
            hidden_w=f64(get("hidden_w")),
            hidden_b=f64(get("hidden_b")),
            hidden_out=f64(get("hidden_out")),
            short_thresholds=f64(get("short_thresholds")),
        )
