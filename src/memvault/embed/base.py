"""The one interface every embedding backend implements.

An :class:`Embedder` turns text into L2-normalised float32 vectors. It is
pure: no cache, no store, no I/O beyond loading its own model (the store
caches embeddings by ``(model_id, sha256(text))``). Two methods, because some
models embed a search query differently from a stored document (e5 prefixes
``query:`` / ``passage:``); symmetric models return the same vector from both.

Example::

    >>> from memvault.embed import HashingEmbedder
    >>> e = HashingEmbedder(dimension=64)
    >>> e.embed_documents(["hello world"]).shape
    (1, 64)
    >>> e.embed_query("hello world").shape
    (64,)
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memvault.errors import EmbedderError

__all__ = [
    "Embedder",
    "EmbedderError",
    "FloatMatrix",
    "FloatVector",
    "FoundDimension",
    "document_texts",
    "import_optional",
    "is_symmetric",
    "l2_normalise",
]

FloatMatrix = npt.NDArray[np.float32]
"""Shape ``(n, dimension)``, dtype float32, each row of unit length."""

FloatVector = npt.NDArray[np.float32]
"""Shape ``(dimension,)``, dtype float32, unit length."""


class FoundDimension:
    """For an embedder that names its model up front but may learn its dimension only
    from the model (loaded or asked on first use): ``model_id`` and a lazy ``dimension``.

    >>> class Probe(FoundDimension):
    ...     _model_id, _dimension = "probe", None
    ...     def _find_dimension(self) -> int:
    ...         return 8
    >>> Probe().dimension
    8
    """

    _model_id: str
    _dimension: int | None

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = self._find_dimension()
        return self._dimension

    def _find_dimension(self) -> int:
        """The model's dimension, asked of the model itself (loading it if need be)."""
        raise NotImplementedError


@runtime_checkable
class Embedder(Protocol):
    """Text in, unit-length float32 vectors out.

    ``model_id`` names the model *and* everything that changes its vectors
    (variant, dimension), so a cache keyed by it never mixes vector spaces.
    """

    @property
    def model_id(self) -> str:
        """Stable name of the vector space, e.g. ``sentence-transformers/all-MiniLM-L6-v2``."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed texts to store: ``(len(texts), dimension)`` float32, rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> FloatVector:
        """Embed one search query; returns ``(dimension,)`` float32, L2-normalised."""
        ...


def document_texts(texts: Sequence[str]) -> list[str]:
    """The texts of an ``embed_documents`` call as a list; one bare string is refused.

    A ``str`` is itself a sequence (of characters), so without this check it
    would be embedded letter by letter.

    >>> document_texts(("a", "b"))
    ['a', 'b']
    """
    if isinstance(texts, str):
        raise EmbedderError(
            "embed_documents takes a sequence of texts, not one string",
            hint="wrap it: embed_documents([text]), or call embed_query(text)",
        )
    return list(texts)


def import_optional(module: str, message: str, install: str) -> Any:
    """Import the optional package an embedder runs on, or say how to install it.

    A missing package raises :class:`EmbedderError` with ``message`` and the
    hint ``run `<install>`, or use the default embedder `minilm```.

    >>> import_optional("json", "needs json", "pip install json").dumps([1])
    '[1]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise EmbedderError(
            message, hint=f"run `{install}`, or use the default embedder `minilm`"
        ) from exc


def is_symmetric(embedder: object) -> bool:
    """True when ``embedder`` declares ``symmetric = True``: its query vector of a
    text is its document vector of that text, so one vector can serve both.

    Opt-in: an embedder that says nothing (or an asymmetric one such as e5) is
    never assumed symmetric.

    >>> from memvault.embed import HashingEmbedder
    >>> is_symmetric(HashingEmbedder(dimension=8)), is_symmetric(object())
    (True, False)
    """
    return getattr(embedder, "symmetric", False) is True


def l2_normalise(matrix: npt.NDArray[np.floating]) -> FloatMatrix:
    """Return ``matrix`` as float32 with each row scaled to unit length.

    A zero row stays zero (it has no direction) instead of becoming NaN.

    >>> l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    out = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.maximum(norms, np.float32(1e-12), out=norms)
    result: FloatMatrix = (out / norms).astype(np.float32, copy=False)
    return result
