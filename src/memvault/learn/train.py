"""Deterministic training of :class:`~memvault.learn.model.Heads` in numpy.

Mini-batch Adam on a weighted binary cross-entropy, one sigmoid head per
label, L2 on every weight. Everything that could vary is fixed: the seed (the
batch order and the initial hidden layer come from ``numpy.random.default_rng``
with it), the number of epochs (no early stopping on a clock), float64
arithmetic, and summation orders (``np.bincount`` / ``np.add.reduceat`` run in
index order). Same corpus, same config, same machine → same bytes; a test
retrains a small slice twice and compares the files.

:func:`calibrate` then sets each label's threshold on a held-out validation
split so that, over every head together, at most ``max_fp`` of the benign
validation items would be flagged (a floor keeps thresholds meaningful).

>>> import numpy as np
>>> from memvault.learn.features import ngram_matrix
>>> texts = ["my pin is 1234", "pin code 9911", "lunch at noon", "ship on friday"]
>>> y = np.array([[1], [1], [0], [0]], dtype=np.float64)
>>> heads = train_heads(None, ngram_matrix(texts, dim=256), y, ("credentials",),
...                     TrainConfig(epochs=60, batch=2))
>>> s = heads.scores(None, ngram_matrix(["the pin is 5555", "lunch on friday"], dim=256))
>>> bool(s[0, 0] > s[1, 0])
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memvault.learn.features import SparseRows
from memvault.learn.model import Heads, sigmoid

__all__ = ["TrainConfig", "calibrate", "train_heads"]

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """How heads are trained. Changing any field changes the weights."""

    seed: int = 20261126
    epochs: int = 30
    batch: int = 128
    learning_rate: float = 0.01
    l2: float = 1e-5
    hidden: int = 0
    max_pos_weight: float = 4.0


class _Adam:
    def __init__(self, shapes: Sequence[tuple[int, ...]], lr: float) -> None:
        self.m = [np.zeros(s) for s in shapes]
        self.v = [np.zeros(s) for s in shapes]
        # scratch arrays: the update runs in place (no 3 MB temporaries a step)
        self._a = [np.zeros(s) for s in shapes]
        self._b = [np.zeros(s) for s in shapes]
        self.t = 0
        self.lr = lr

    def step(self, params: list[F64], grads: list[F64]) -> None:
        """One Adam step, in place: the same operations in the same order as
        ``m = b1·m + (1-b1)·g; v = b2·v + (1-b2)·g²; p -= lr·(m/c1) / (√(v/c2) + eps)``,
        so the same bits as the textbook expression."""
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        c1 = 1.0 - b1**self.t
        c2 = 1.0 - b2**self.t
        for p, g, m, v, a, b in zip(params, grads, self.m, self.v, self._a, self._b, strict=True):
            m *= b1
            np.multiply(g, 1.0 - b1, out=a)
            m += a
            v *= b2
            np.multiply(g, g, out=a)
            a *= 1.0 - b2
            v += a
            np.divide(v, c2, out=a)
            np.sqrt(a, out=a)
            a += eps
            np.divide(m, c1, out=b)
            b *= self.lr
            b /= a
            p -= b


def train_heads(
    dense: npt.NDArray[np.floating] | None,
    sparse: SparseRows,
    targets: npt.NDArray[np.floating],
    labels: Sequence[str],
    config: TrainConfig | None = None,
) -> Heads:
    """Fit one head per label (column of ``targets``, 0/1); thresholds start at 0.5.

    ``dense``: ``(n, d)`` sentence vectors, or None for an n-gram-only model.
    """
    cfg = config or TrainConfig()
    y = np.asarray(targets, dtype=np.float64)
    n, k = y.shape
    if sparse.n_rows != n or (dense is not None and dense.shape[0] != n):
        raise ValueError("features and targets disagree on the number of rows")
    rng = np.random.default_rng(cfg.seed)
    pos = y.sum(axis=0)
    pos_weight = np.clip((n - pos) / np.maximum(pos, 1.0), 1.0, cfg.max_pos_weight)

    d = 0 if dense is None else int(dense.shape[1])
    x_dense = None if dense is None else np.asarray(dense, dtype=np.float64)
    params: list[F64] = [np.zeros(k), np.zeros((sparse.dim, k))]
    if d:
        params.append(np.zeros((d, k)))
        if cfg.hidden:
            scale = math.sqrt(2.0 / d)
            params.append(rng.normal(0.0, scale, size=(d, cfg.hidden)))
            params.append(np.zeros(cfg.hidden))
            params.append(np.zeros((cfg.hidden, k)))
    adam = _Adam([p.shape for p in params], cfg.learning_rate)

    for _epoch in range(cfg.epochs):
        order = rng.permutation(n)
        for start in range(0, n, cfg.batch):
            idx = order[start : start + cfg.batch]
            xs = sparse.take(idx)
            xd = None if x_dense is None else x_dense[idx]
            yb = y[idx]
            bias, w_sparse = params[0], params[1]
            z = xs.dot(w_sparse) + bias
            h: F64 | None = None
            if xd is not None:
                z = z + xd @ params[2]
                if cfg.hidden:
                    pre = xd @ params[3] + params[4]
                    h = np.maximum(pre, 0.0)
                    z = z + h @ params[5]
            p = sigmoid(z)
            # d(weighted BCE)/dz = w * (p - y), positives weighted by pos_weight
            w = np.where(yb > 0.5, pos_weight, 1.0)
            g = w * (p - yb) / len(idx)
            grads: list[F64] = [g.sum(axis=0), xs.t_dot(g) + cfg.l2 * w_sparse]
            if xd is not None:
                grads.append(xd.T @ g + cfg.l2 * params[2])
                if cfg.hidden and h is not None:
                    gh = (g @ params[5].T) * (h > 0.0)
                    grads.append(xd.T @ gh + cfg.l2 * params[3])
                    grads.append(gh.sum(axis=0))
                    grads.append(h.T @ g + cfg.l2 * params[5])
            adam.step(params, grads)

    heads = Heads(
        labels=tuple(labels),
        bias=params[0].astype(np.float32).astype(np.float64),
        sparse_w=params[1].astype(np.float32),
        thresholds=np.full(k, 0.5),
        dense_w=params[2].astype(np.float32).astype(np.float64) if d else None,
        hidden_w=params[3].astype(np.float32).astype(np.float64) if d and cfg.hidden else None,
        hidden_b=params[4].astype(np.float32).astype(np.float64) if d and cfg.hidden else None,
        hidden_out=params[5].astype(np.float32).astype(np.float64) if d and cfg.hidden else None,
    )
    return heads


def calibrate(
    scores: npt.NDArray[np.floating],
    benign: npt.NDArray[np.bool_],
    *,
    max_fp: float = 0.01,
    floor: float = 0.5,
    ceiling: float = 0.995,
    positives: npt.NDArray[np.bool_] | None = None,
) -> F64:
    """Per-label thresholds so that at most ``max_fp`` of benign rows trip any head.

    ``scores``: ``(n, k)`` validation scores; ``benign``: rows that must not be
    flagged. Starts every threshold at ``floor`` and, while too many benign
    rows trip some head, raises the threshold of the head that trips most of
    them to just above its highest offending score (at most ``ceiling``).

    ``positives`` (``(n, k)``: row ``i`` belongs to head ``j``'s family) makes it
    recall-aware: while too many benign rows are flagged, it clears the benign row
    that is cheapest to clear — raising each head that trips it to just above its
    score loses the fewest positives, as a share of each head's positives — so the
    budget is spent on the benign rows that look most like a family, not on the
    recall of the head that happens to trip most rows.

    >>> import numpy as np
    >>> s = np.array([[0.9, 0.1], [0.7, 0.2], [0.2, 0.8], [0.95, 0.1]])
    >>> calibrate(s, np.array([False, True, False, False]), max_fp=0.0).round(4).tolist()
    [0.7001, 0.5]
    >>> s = np.array([[0.9, 0.1], [0.8, 0.1], [0.1, 0.75], [0.85, 0.1], [0.2, 0.7]])
    >>> ben, pos = np.array([False, False, False, True, True]), s > 0.5
    >>> pos[3:] = False
    >>> calibrate(s, ben, max_fp=0.5, positives=pos).round(4).tolist()  # one may stay
    [0.5, 0.7001]
    """
    s = np.asarray(scores, dtype=np.float64)
    k = s.shape[1]
    thr = np.full(k, floor)
    is_benign = np.asarray(benign, dtype=bool)
    ben = s[is_benign]
    if ben.shape[0] == 0:
        return thr
    allowed = math.floor(max_fp * ben.shape[0])
    if positives is not None:
        return _calibrate_by_recall(
            s, is_benign, np.asarray(positives, dtype=bool), thr, allowed, ceiling
        )
    for _ in range(ben.shape[0] * k + 1):
        trips = ben >= thr
        flagged = trips.any(axis=1)
        if int(flagged.sum()) <= allowed:
            break
        per_head = trips[flagged].sum(axis=0)
        j = int(np.argmax(per_head))
        if thr[j] >= ceiling:
            per_head[j] = -1
            j = int(np.argmax(per_head))
            if per_head[j] <= 0 or thr[j] >= ceiling:
                break
        offending = ben[trips[:, j], j]
        # the lowest offending score of this head: step just above it
        thr[j] = min(ceiling, float(offending.min()) + 1e-4)
    return thr


def _calibrate_by_recall(
    s: F64,
    is_benign: npt.NDArray[np.bool_],
    positives: npt.NDArray[np.bool_],
    thr: F64,
    allowed: int,
    ceiling: float,
) -> F64:
    """:func:`calibrate` with ``positives``: clear the cheapest benign row, one at a time."""
    k = s.shape[1]
    ben = s[is_benign]
    # each head's positive scores, sorted: the positives lost by a raise are a searchsorted
    pos_sorted = [np.sort(s[positives[:, j] & ~is_benign, j]) for j in range(k)]
    weight = np.array([1.0 / max(1, len(p)) for p in pos_sorted])
    for _ in range(ben.shape[0] + 1):
        trips = ben >= thr
        flagged = np.flatnonzero(trips.any(axis=1))
        if len(flagged) <= allowed:
            break
        # a row is cleared by raising every head that trips it above its score
        target = np.where(trips[flagged], np.minimum(ceiling, ben[flagged] + 1e-4), thr)
        clearable = ~(trips[flagged] & (ben[flagged] + 1e-4 > ceiling)).any(axis=1)
        if not clearable.any():
            break
        cost = np.zeros(len(flagged))
        for j in range(k):
            if len(pos_sorted[j]) == 0:
                continue
            lost = np.searchsorted(pos_sorted[j], target[:, j], side="left") - np.searchsorted(
                pos_sorted[j], thr[j], side="left"
            )
            cost += weight[j] * np.maximum(lost, 0)
        cost[~clearable] = np.inf
        r = int(np.argmin(cost))  # ties: the first row, so the result is deterministic
        thr = np.maximum(thr, target[r])
    return thr
