"""all-MiniLM-L6-v2's network in numpy: the reference forward pass (mean pooled by callers).

6 layers, 12 heads, 384 wide, float32 matmuls, exact (erf) GELU. The weights
are the verified tensors :mod:`memvault.embed.minilm` maps without copying;
:mod:`memvault.embed.fast_query` builds the same network in onnxruntime.

>>> import numpy as np
>>> x = np.array([[-3.0, 0.0, 1.0]], dtype=np.float32)
>>> [round(float(v), 4) for v in gelu(x)[0]]
[-0.004, 0.0, 0.8413]
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.errors import EmbedderError

__all__ = [
    "WIDTH",
    "Layer",
    "Network",
    "Workers",
    "build_network",
    "forward",
    "gelu",
    "layer_norm",
    "workers",
]

WIDTH = 384
_NUM_LAYERS = 6
_NUM_HEADS = 12
_HEAD_DIM = WIDTH // _NUM_HEADS
_LN_EPS = np.float32(1e-12)

_F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Layer:
    qkv_w: _F32  # (384, 1152): query, key, value fused into one matmul
    qkv_b: _F32
    out_w: _F32  # (384, 384), a transposed view of the torch (out, in) weight
    out_b: _F32
    ln1_w: _F32
    ln1_b: _F32
    ff1_w: _F32  # (384, 1536)
    ff1_b: _F32
    ff2_w: _F32  # (1536, 384)
    ff2_b: _F32
    ln2_w: _F32
    ln2_b: _F32


@dataclass(frozen=True)
class Network:
    word: _F32
    position: _F32
    token_type0: _F32
    ln_w: _F32
    ln_b: _F32
    layers: tuple[Layer, ...]


def build_network(tensors: dict[str, npt.NDArray[Any]]) -> Network:
    def t(name: str) -> _F32:
        array = tensors[name]
        if array.dtype != np.float32:
            raise EmbedderError(f"tensor {name} is {array.dtype}, expected float32")
        return array

    layers = []
    for i in range(_NUM_LAYERS):
        p = f"encoder.layer.{i}."
        a = p + "attention."
        qkv_w = np.concatenate(
            [t(a + f"self.{n}.weight") for n in ("query", "key", "value")], axis=0
        ).T.copy()
        qkv_b = np.concatenate([t(a + f"self.{n}.bias") for n in ("query", "key", "value")])
        layers.append(
            Layer(
                qkv_w=qkv_w,
                qkv_b=qkv_b,
                out_w=t(a + "output.dense.weight").T,
                out_b=t(a + "output.dense.bias"),
                ln1_w=t(a + "output.LayerNorm.weight"),
                ln1_b=t(a + "output.LayerNorm.bias"),
                ff1_w=t(p + "intermediate.dense.weight").T,
                ff1_b=t(p + "intermediate.dense.bias"),
                ff2_w=t(p + "output.dense.weight").T,
                ff2_b=t(p + "output.dense.bias"),
                ln2_w=t(p + "output.LayerNorm.weight"),
                ln2_b=t(p + "output.LayerNorm.bias"),
            )
        )
    return Network(
        word=t("embeddings.word_embeddings.weight"),
        position=t("embeddings.position_embeddings.weight"),
        token_type0=t("embeddings.token_type_embeddings.weight")[0],
        ln_w=t("embeddings.LayerNorm.weight"),
        ln_b=t("embeddings.LayerNorm.bias"),
        layers=tuple(layers),
    )


def layer_norm(x: _F32, weight: _F32, bias: _F32) -> _F32:
    """LayerNorm over the last axis, in place on ``x``."""
    mean = x.mean(axis=-1, keepdims=True)
    x -= mean
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var *= np.float32(1.0 / x.shape[-1])
    var += _LN_EPS
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


# GELU(x) = x * (0.5 + 0.5 * erf(x / sqrt 2)), with erf as the float32 rational
# polynomial on [-4, 4] that Eigen and XLA use (max abs error 4e-7 against math.erf).
# The constants 1/sqrt 2 (on the argument) and 0.5 (on erf) are folded into the
# coefficients, so GELU costs 26 in-place array passes instead of 31.
_ERF_ALPHA = (  # odd numerator, highest power of (x/sqrt 2)^2 first
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF_BETA = (  # even denominator, highest power first
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)
_GELU_P = tuple(
    np.float32(c * 0.5 ** (len(_ERF_ALPHA) - 1 - i) * 0.5 / np.sqrt(2.0))
    for i, c in enumerate(_ERF_ALPHA)
)
_GELU_Q = tuple(np.float32(c * 0.5 ** (len(_ERF_BETA) - 1 - i)) for i, c in enumerate(_ERF_BETA))
_GELU_CLIP = np.float32(4.0 * np.sqrt(2.0))
_GELU_HALF = np.float32(0.5)
_GELU_ROWS = 128  # rows per block: 128 x 1536 float32 stays in L2 across the 26 passes


def _gelu_block(x: _F32) -> None:
    xc = np.clip(x, -_GELU_CLIP, _GELU_CLIP)
    s = xc * xc
    p = s * _GELU_P[0]
    p += _GELU_P[1]
    for c in _GELU_P[2:]:
        p *= s
        p += c
    p *= xc
    q = s * _GELU_Q[0]
    q += _GELU_Q[1]
    for c in _GELU_Q[2:]:
        q *= s
        q += c
    p /= q
    p += _GELU_HALF
    x *= p


def gelu(x: _F32) -> _F32:
    """Exact (erf) GELU, as BERT's ``hidden_act="gelu"``, in place on 2-D ``x``.

    Trigger: one whole-array pass per operation made GELU ~35% of the forward time.
    Why: 26 passes over a (tokens x 1536) array are memory-bound.
    Outcome: blocks of ``_GELU_ROWS`` rows, each finished while it sits in cache (~4x).
    """
    for start in range(0, x.shape[0], _GELU_ROWS):
        _gelu_block(x[start : start + _GELU_ROWS])
    return x


@dataclass(frozen=True)
class Workers:
    """A small thread pool for numpy's element-wise work (``pool`` is None for 1 thread)."""

    pool: ThreadPoolExecutor | None
    size: int

    def split(self, n: int, work: Callable[[slice], None]) -> None:
        """Run ``work`` over ``range(n)`` cut into one contiguous slice per thread.

        Trigger: BLAS runs the matmuls on every core, but numpy's element-wise passes
          (GELU, softmax) and the many small per-head matmuls run on one.
        Why: those were ~30% of the forward time, with the other cores idle.
        Outcome: they run on disjoint row slices in this pool (numpy releases the
          GIL); results are identical to one pass because rows are independent.
        """
        parts = min(self.size, n)
        if self.pool is None or parts <= 1:
            work(slice(0, n))
            return
        bounds = [n * i // parts for i in range(parts + 1)]
        futures = [self.pool.submit(work, slice(a, b)) for a, b in itertools.pairwise(bounds)]
        for future in futures:
            future.result()


_WORKERS: dict[int, Workers] = {}
_WORKERS_LOCK = threading.Lock()


def workers(threads: int | None) -> Workers:
    if threads is None:
        # Trigger: the pool's gain was not measurable on the shared 2-core dev box
        #   (1000 LoCoMo turns: 1 thread 104-124 sent/s, 2 threads 104-116).
        # Why: BLAS already uses every core for the ~70% of time spent in matmuls.
        # Outcome: opt-in (threads=N) until a quiet machine shows a gain.
        threads = 1
    threads = max(threads, 1)
    with _WORKERS_LOCK:
        workers = _WORKERS.get(threads)
        if workers is None:
            pool = ThreadPoolExecutor(threads, "minilm") if threads > 1 else None
            workers = _WORKERS[threads] = Workers(pool, threads)
        return workers


def forward(net: Network, ids: npt.NDArray[np.int64], mask: _F32, workers: Workers) -> _F32:
    """Token embeddings ``(batch, seq, 384)`` for a padded batch; mean-pooled by the caller."""
    batch, seq = ids.shape
    x = net.word[ids.reshape(-1)]
    x = x.reshape(batch, seq, WIDTH)
    x += net.position[:seq]
    x += net.token_type0
    x = layer_norm(x.reshape(batch * seq, WIDTH), net.ln_w, net.ln_b)
    # Additive mask over keys: padded positions get a huge negative score, so their
    # softmax weight is exactly 0 and padding never changes a real token's output.
    key_bias = ((mask - np.float32(1.0)) * np.float32(1e30))[:, None, None, :]
    scale = np.float32(1.0 / np.sqrt(_HEAD_DIM))
    context = np.empty((batch, seq, _NUM_HEADS, _HEAD_DIM), dtype=np.float32)
    for layer in net.layers:
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        heads = qkv.reshape(batch, seq, 3, _NUM_HEADS, _HEAD_DIM)

        def attend(rows: slice, heads: _F32 = heads) -> None:
            q = heads[rows, :, 0].transpose(0, 2, 1, 3)  # (batch, heads, seq, head_dim)
            k = heads[rows, :, 1].transpose(0, 2, 3, 1)  # (batch, heads, head_dim, seq)
            v = heads[rows, :, 2].transpose(0, 2, 1, 3)
            scores = (q * scale) @ k
            scores += key_bias[rows]
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context[rows] = (scores @ v).transpose(0, 2, 1, 3)

        workers.split(batch, attend)
        attended = context.reshape(batch * seq, WIDTH) @ layer.out_w
        attended += layer.out_b
        attended += x
        x = layer_norm(attended, layer.ln1_w, layer.ln1_b)
        hidden: _F32 = x @ layer.ff1_w
        hidden += layer.ff1_b

        def activate(rows: slice, hidden: _F32 = hidden) -> None:
            gelu(hidden[rows])

        workers.split(hidden.shape[0], activate)
        out: _F32 = hidden @ layer.ff2_w
        out += layer.ff2_b
        out += x
        x = layer_norm(out, layer.ln2_w, layer.ln2_b)
    result: _F32 = x.reshape(batch, seq, WIDTH)
    return result
