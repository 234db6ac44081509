"""Precomputed vectors through the public API: checked against the store's vector space.

A caller that embeds elsewhere hands each memory's vector to ``add`` /
``add_many`` (and the HTTP API) with the id of the model that made it. The
vector is accepted only when that id is the engine's embedder's ``model_id``
and its length is the embedder's dimension; anything else is a clear
``SCHEMA_INVALID`` — a vector of another space would silently poison the
vector leg (cosines between spaces mean nothing).

A vector that crosses the network (HTTP) is also checked against this
engine's own vector of the content (:func:`agreeing_vector`), and that own
vector is what is judged and stored: the gate's learned heads read it, so a
harmless text's vector must not be able to carry a refused text past them
(review S10-R3, R3b). In-process callers (the library,
the LangGraph adapter) are the operator's code and are trusted with theirs;
their vectors never enter the shared embedding cache either way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memvault.embed.base import Embedder, FloatVector
from memvault.errors import ValidationFailed
from memvault.model.enums import StopReason

__all__ = ["AGREEMENT_FLOOR", "agreeing_vector", "checked_vector"]

#: The least cosine between a caller's vector and this engine's vector of the same text:
#: the same model run elsewhere (another runtime, float16) stays above 0.99.
AGREEMENT_FLOOR = 0.95


def _fail(message: str, field: str = "vector") -> ValidationFailed:
    return ValidationFailed(
        message, stop_reason=StopReason.SCHEMA_INVALID, errors=((field, message),)
    )


def checked_vector(
    vector: Sequence[float] | FloatVector,
    vector_model: str | None,
    embedder: Embedder | None,
) -> FloatVector:
    """``vector`` as a unit float32 array of ``embedder``'s space, or ValidationFailed.

    >>> from memvault.embed import HashingEmbedder
    >>> e = HashingEmbedder(dimension=2)
    >>> checked_vector([3.0, 4.0], e.model_id, e).tolist()
    [0.6000000238418579, 0.800000011920929]
    >>> checked_vector([1.0, 0.0, 0.0], e.model_id, e)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: vector has 3 values; this store's model ... makes 2
    """
    if embedder is None:
        raise _fail("this store has no embedder: a precomputed vector has no space to join")
    if vector_model is None:
        raise _fail(
            f"say which model made the vector (vector_model={embedder.model_id!r} here)",
            "vector_model",
        )
    if vector_model != embedder.model_id:
        raise _fail(
            f"vector_model {vector_model!r} is not this store's model {embedder.model_id!r}",
            "vector_model",
        )
    try:
        array = np.asarray(vector, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail("vector must be a list of numbers") from None
    if array.ndim != 1:
        raise _fail(f"vector must be one list of numbers, got shape {array.shape}")
    if array.shape[0] != embedder.dimension:
        raise _fail(
            f"vector has {array.shape[0]} values; this store's model "
            f"{embedder.model_id} makes {embedder.dimension}"
        )
    if not np.all(np.isfinite(array)):
        raise _fail("vector holds NaN or infinite values")
    peak = float(np.max(np.abs(array)))
    if peak > 0.0:
        array = array / peak  # huge finite values (1e308) would overflow the norm
    norm = float(np.linalg.norm(array))
    if norm == 0.0:
        raise _fail("vector is all zeros (it has no direction)")
    out: FloatVector = (array / norm).astype(np.float32)
    return out


def agreeing_vector(
    vector: Sequence[float] | FloatVector,
    vector_model: str | None,
    embedder: Embedder | None,
    content: str,
) -> FloatVector:
    """:func:`checked_vector` that must be ``embedder``'s vector of ``content``; returns that one.

    The server's own vector is what is judged and stored, so no floor decides a
    verdict: the check only refuses a vector of other words or another model
    (a caller's bug), before anything is written.

    >>> from memvault.embed import HashingEmbedder
    >>> e = HashingEmbedder(dimension=64)
    >>> own = e.embed_documents(["The standup is at nine."])[0]
    >>> bool(agreeing_vector(own, e.model_id, e, "The standup is at nine.").any())
    True
    >>> other = e.embed_documents(["something else entirely"])[0]
    >>> agreeing_vector(other, e.model_id, e, "The standup is at nine.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: vector is not this store's vector of the content ...
    """
    checked = checked_vector(vector, vector_model, embedder)
    assert embedder is not None  # checked_vector refused a store without one
    own = np.asarray(embedder.embed_documents([content])[0], dtype=np.float32)
    norm = float(np.linalg.norm(own))
    cosine = float(checked @ own) / norm if norm > 0.0 else 0.0
    if cosine < AGREEMENT_FLOOR:
        raise _fail(
            f"vector is not this store's vector of the content (cosine {cosine:.2f} with "
            f"{embedder.model_id}'s, below {AGREEMENT_FLOOR}): send it without a vector "
            "and the server embeds it"
        )
    out: FloatVector = own / norm
    return out
