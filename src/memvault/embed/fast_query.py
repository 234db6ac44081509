"""MiniLM's network in onnxruntime: a batched float32 document pass and a fast single query.

The numpy forward pass (:mod:`memvault.embed.minilm`) is the reference; on a
loaded 2-core box it costs ~450 ms for one captured turn's documents and
12–19 ms (idle) for a single 10-token query. This module builds ONNX graphs of
the very same network **from the verified weights in memory** (nothing is
exported or downloaded: the weights are the ones the package ships and the
sha256 check already passed) and runs them with onnxruntime:

* documents (:func:`document_session`): padded batches with an attention mask,
  float32 — the numpy pass's vectors to ~1e-7 (cosine ≥ 0.99999), so stored
  vectors, the model id and the embedding cache stay valid;
* one query (:func:`load_query_session`): unpadded, float32 or with the weight
  matrices quantised to int8 (dynamic quantisation: activations stay float,
  scaled per row at run time).

Trigger: onnxruntime and onnx are core dependencies only where wheels exist
  (x86-64 / arm64 on Linux, macOS, Windows; also extra ``fast``).
Why: elsewhere (musl, 32-bit, ppc64le …) the install must still work.
Outcome: both builders return ``None`` when either package is missing, and
  :class:`~memvault.embed.minilm.MiniLMEmbedder` keeps the numpy pass.

The int8 graph moves a query vector by a cosine of ~0.99 (docs/retrieval.md,
"Query embedding", gives recall measured with each).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from memvault.embed.network import Network

from memvault.errors import EmbedderError

__all__ = [
    "DOCUMENT_BACKENDS",
    "QUERY_BACKENDS",
    "DocumentSession",
    "QuerySession",
    "build_query_session",
    "document_session",
    "load_query_session",
    "onnx_available",
]

QueryBackend = Literal["auto", "numpy", "onnx", "onnx-int8"]
QUERY_BACKENDS: tuple[str, ...] = ("auto", "numpy", "onnx", "onnx-int8")
DOCUMENT_BACKENDS: tuple[str, ...] = ("auto", "numpy", "onnx")

_HEADS = 12
_HEAD_DIM = 32
_WIDTH = 384


def _modules() -> tuple[Any, Any] | None:
    try:
        onnx = importlib.import_module("onnx")
        ort = importlib.import_module("onnxruntime")
    except ImportError:
        return None
    return onnx, ort


def onnx_available() -> bool:
    """Whether onnx and onnxruntime are installed (extra ``fast``).

    >>> isinstance(onnx_available(), bool)
    True
    """
    return _modules() is not None


def _graph(onnx: Any, net: Network, *, masked: bool = False) -> Any:
    """The BERT encoder + mean pooling as an ONNX model.

    ``masked=False``: one unpadded sequence ``(1, seq, 384)`` in, ``pooled`` out.
    ``masked=True``: a padded batch ``(batch, seq, 384)`` plus its ``mask``
    ``(batch, seq)`` (1 real token, 0 padding) in; padded keys get the numpy
    pass's additive bias of -1e30 (softmax weight exactly 0) and the mean pools
    real tokens only, so padding never changes a row's vector.
    """
    helper, tp = onnx.helper, onnx.TensorProto
    inits: list[Any] = []
    nodes: list[Any] = []
    counter = [0]

    def const(name: str, array: npt.NDArray[Any]) -> str:
        inits.append(onnx.numpy_helper.from_array(np.require(array, requirements="C"), name))
        return name

    def op(kind: str, inputs: list[str], **attrs: Any) -> str:
        counter[0] += 1
        out = f"{kind.lower()}_{counter[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def layer_norm(x: str, w: npt.NDArray[Any], b: npt.NDArray[Any], name: str) -> str:
        return op(
            "LayerNormalization",
            [x, const(name + ".w", w), const(name + ".b", b)],
            axis=-1,
            epsilon=1e-12,
        )

    # Trigger: the word-embedding table is 30522 x 384 float32 (47 MB), 80% of the model.
    # Why: a lookup of ~10 rows is cheaper in numpy than a 47 MB graph to load and cache.
    # Outcome: the graph starts from the summed input embeddings (see QuerySession.pooled).
    x = x_in = "embeddings"  # (1 or batch, seq, 384) float32
    mask_in = "mask"
    x = layer_norm(x, net.ln_w, net.ln_b, "emb_ln")
    split_shape = const("split_shape", np.array([0, -1, 3, _HEADS, _HEAD_DIM], dtype=np.int64))
    merge_shape = const("merge_shape", np.array([0, -1, _WIDTH], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(_HEAD_DIM), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    one = const("one", np.array(1.0, dtype=np.float32))
    inv_sqrt2 = const("inv_sqrt2", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))
    picks = [const(f"pick{i}", np.array(i, dtype=np.int64)) for i in range(3)]
    key_bias = ""
    if masked:
        # (mask - 1) * 1e30 over keys, shaped (batch, 1, 1, seq) to add to every head's scores
        big = const("big", np.array(1e30, dtype=np.float32))
        bias = op("Mul", [op("Sub", [mask_in, one]), big])
        key_bias = op("Unsqueeze", [bias, const("bias_axes", np.array([1, 2], dtype=np.int64))])
    for i, layer in enumerate(net.layers):
        p = f"l{i}."
        qkv = op(
            "Add",
            [op("MatMul", [x, const(p + "qkv_w", layer.qkv_w)]), const(p + "qkv_b", layer.qkv_b)],
        )
        heads = op("Reshape", [qkv, split_shape])  # (1, seq, 3, heads, dim)
        q = op("Transpose", [op("Gather", [heads, picks[0]], axis=2)], perm=[0, 2, 1, 3])
        k = op("Transpose", [op("Gather", [heads, picks[1]], axis=2)], perm=[0, 2, 3, 1])
        v = op("Transpose", [op("Gather", [heads, picks[2]], axis=2)], perm=[0, 2, 1, 3])
        scores = op("Mul", [op("MatMul", [q, k]), scale])
        if masked:
            scores = op("Add", [scores, key_bias])
        weights = op("Softmax", [scores], axis=-1)
        context = op("Transpose", [op("MatMul", [weights, v])], perm=[0, 2, 1, 3])
        context = op("Reshape", [context, merge_shape])
        attended = op("MatMul", [context, const(p + "out_w", np.ascontiguousarray(layer.out_w))])
        attended = op("Add", [op("Add", [attended, const(p + "out_b", layer.out_b)]), x])
        x = layer_norm(attended, layer.ln1_w, layer.ln1_b, p + "ln1")
        hidden = op("MatMul", [x, const(p + "ff1_w", np.ascontiguousarray(layer.ff1_w))])
        hidden = op("Add", [hidden, const(p + "ff1_b", layer.ff1_b)])
        # exact (erf) GELU: x * 0.5 * (1 + erf(x / sqrt 2)); onnxruntime fuses it into one op
        erf = op("Erf", [op("Mul", [hidden, inv_sqrt2])])
        hidden = op("Mul", [op("Mul", [hidden, half]), op("Add", [erf, one])])
        out = op("MatMul", [hidden, const(p + "ff2_w", np.ascontiguousarray(layer.ff2_w))])
        out = op("Add", [op("Add", [out, const(p + "ff2_b", layer.ff2_b)]), x])
        x = layer_norm(out, layer.ln2_w, layer.ln2_b, p + "ln2")
    pool_axes = const("pool_axes", np.array([1], dtype=np.int64))
    if masked:
        # the numpy pass's pooling: sum of real tokens / max(count, 1e-9)
        real = op("Unsqueeze", [mask_in, const("mask_axes", np.array([2], dtype=np.int64))])
        summed = op("ReduceSum", [op("Mul", [x, real]), pool_axes], keepdims=0)
        count = op("ReduceSum", [mask_in, pool_axes], keepdims=1)
        floor = const("count_floor", np.array(1e-9, dtype=np.float32))
        op("Div", [summed, op("Max", [count, floor])])
        inputs = [
            helper.make_tensor_value_info(x_in, tp.FLOAT, ["batch", "seq", _WIDTH]),
            helper.make_tensor_value_info(mask_in, tp.FLOAT, ["batch", "seq"]),
        ]
        output = helper.make_tensor_value_info("pooled", tp.FLOAT, ["batch", _WIDTH])
    else:
        op("ReduceMean", [x, pool_axes], keepdims=0)
        inputs = [helper.make_tensor_value_info(x_in, tp.FLOAT, [1, "seq", _WIDTH])]
        output = helper.make_tensor_value_info("pooled", tp.FLOAT, [1, _WIDTH])
    nodes[-1].output[0] = "pooled"
    graph = helper.make_graph(
        nodes, "minilm_documents" if masked else "minilm_query", inputs, [output], inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


class QuerySession:
    """One onnxruntime session: token ids of one query in, its mean-pooled vector out."""

    def __init__(
        self, session: Any, quantized: bool, payload: bytes = b"", net: Network | None = None
    ) -> None:
        self._session = session
        self._net = net
        self.quantized = quantized
        #: the serialized model the session was made from (what the disk cache keeps)
        self.payload = payload

    @property
    def name(self) -> str:
        return "onnx-int8" if self.quantized else "onnx"

    def pooled(self, token_ids: list[int]) -> npt.NDArray[np.float32]:
        """The mean-pooled (not yet normalised) output for one unpadded sequence."""
        if self._net is None:
            raise ValueError("this session was made without its network's embedding tables")
        net = self._net
        embeddings = net.word[np.asarray(token_ids, dtype=np.int64)]
        embeddings = embeddings + net.position[: len(token_ids)] + net.token_type0
        feed = {"embeddings": embeddings[None, :, :].astype(np.float32, copy=False)}
        (out,) = self._session.run(["pooled"], feed)
        result: npt.NDArray[np.float32] = np.asarray(out[0], dtype=np.float32)
        return result


class DocumentSession:
    """One onnxruntime session of the float32 graph: padded batches in, pooled vectors out.

    Thread-safe (onnxruntime's ``run`` may be called from several threads).
    """

    name = "onnx"

    def __init__(self, session: Any, net: Network, threads: int) -> None:
        self._session = session
        self._net = net
        self.threads = threads

    def pooled(
        self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """Mean-pooled (not yet normalised) vectors of a padded batch ``ids`` ``(batch, seq)``.

        ``mask`` is 1.0 on real tokens and 0.0 on padding, as in the numpy pass.
        """
        net = self._net
        batch, seq = ids.shape
        # the numpy pass's embedding sum, in its order (the lookup table stays out of the graph)
        x = net.word[ids.reshape(-1)].reshape(batch, seq, _WIDTH)
        x += net.position[:seq]
        x += net.token_type0
        feed = {"embeddings": x, "mask": np.ascontiguousarray(mask, dtype=np.float32)}
        (out,) = self._session.run(["pooled"], feed)
        result: npt.NDArray[np.float32] = np.asarray(out, dtype=np.float32)
        return result


_DOCUMENT_SESSIONS: dict[tuple[str, int], DocumentSession | None] = {}
_DOCUMENT_LOCK = threading.Lock()
_log = logging.getLogger(__name__)


def document_session(
    net: Network, *, weights_sha256: str, threads: int, required: bool
) -> DocumentSession | None:
    """The process's float32 batch session of ``net`` (built at first use, then shared).

    Trigger: the numpy pass costs ~85% of a captured turn (~450 ms a call at load 15).
    Why: onnxruntime runs the same float32 network several times faster
      (fused kernels, no Python between operations).
    Outcome: one session per (weights, threads) per process, built from the
      verified weights in memory in about a second, never written to disk, never
      downloaded; ``None`` when onnx/onnxruntime are missing or the build failed
      (the numpy pass answers, and a failed build is not retried in this process).

    ``required``: raise :class:`EmbedderError` instead of returning ``None``.
    """
    key = (weights_sha256, max(1, threads))
    with _DOCUMENT_LOCK:
        if key not in _DOCUMENT_SESSIONS:
            _DOCUMENT_SESSIONS[key] = _build_document_session(net, key[1])
        session = _DOCUMENT_SESSIONS[key]
    if session is None and required:
        raise EmbedderError(
            "the onnxruntime document backend is not available",
            hint='run `pip install "memvault[fast]"`, or use document_backend="numpy"',
        )
    return session


def _build_document_session(net: Network, threads: int) -> DocumentSession | None:
    mods = _modules()
    if mods is None:
        return None
    onnx, ort = mods
    try:
        payload = _graph(onnx, net, masked=True).SerializeToString()
        options = _options(ort, threads)
        session = ort.InferenceSession(payload, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # an onnxruntime that cannot run the graph: numpy answers
        _log.warning("onnxruntime document session failed, using numpy: %s", exc)
        return None
    return DocumentSession(session, net, threads)


def _options(ort: Any, threads: int) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    # Trigger: onnxruntime's worker threads spin between operations by default.
    # Why: on a shared 2-core box a spinning thread takes the core the other needs.
    # Outcome: idle workers sleep (measured: docs/retrieval.md, "Document embedding").
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def build_query_session(net: Network, *, quantize: bool, threads: int = 1) -> QuerySession | None:
    """An onnxruntime session of ``net`` (``None`` when onnx/onnxruntime are missing).

    ``threads``: intra-op threads; one short query gains nothing from a second
    thread on a busy 2-core box (measured: docs/retrieval.md).
    """
    mods = _modules()
    if mods is None:
        return None
    onnx, ort = mods
    model = _graph(onnx, net)
    if quantize:
        quantization = importlib.import_module("onnxruntime.quantization")
        # Trigger: weights are ~90% of the bytes a short query reads.
        # Why: int8 matrices are 4x smaller; dynamic quantisation needs no calibration data.
        # Outcome: MatMul weights per-channel int8, everything else float32.
        with tempfile.TemporaryDirectory(prefix="memvault-onnx-") as tmp:
            src, dst = Path(tmp) / "f32.onnx", Path(tmp) / "int8.onnx"
            onnx.save_model(model, str(src))
            # the quantiser logs a "consider pre-processing" warning on the root logger
            logging.disable(logging.WARNING)
            try:
                quantization.quantize_dynamic(
                    str(src),
                    str(dst),
                    weight_type=quantization.QuantType.QInt8,
                    per_channel=True,
                    op_types_to_quantize=["MatMul"],
                )
            finally:
                logging.disable(logging.NOTSET)
            payload = dst.read_bytes()
    else:
        payload = model.SerializeToString()
    return _session(ort, payload, quantize, threads, net)


def _session(ort: Any, payload: bytes, quantized: bool, threads: int, net: Network) -> QuerySession:
    """An inference session over ``payload`` (a serialized ONNX model)."""
    options = _options(ort, threads)
    session = ort.InferenceSession(payload, options, providers=["CPUExecutionProvider"])
    return QuerySession(session, quantized, payload, net)


def cache_dir() -> Path:
    """Where built query graphs are kept between processes (derived data, safe to delete)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("memvault", appauthor=False)) / "onnx"


_BUILD_LOCK = threading.Lock()


def load_query_session(
    net: Network,
    *,
    weights_sha256: str,
    quantize: bool,
    required: bool,
    threads: int = 1,
    directory: Path | None = None,
) -> QuerySession | None:
    """The query session of ``net``, from the on-disk cache or built (then cached).

    Trigger: building and quantising the graph costs seconds (~6–9 s loaded);
      reading a built one costs a fraction of a second.
    Why: every process would otherwise pay it at its first search.
    Outcome: the built model is kept under :func:`cache_dir`, named by the
      verified weights' sha256, the variant and the onnxruntime version, with
      its own sha256 beside it; a file that does not match is rebuilt.

    ``required``: raise :class:`EmbedderError` when onnxruntime is missing or
    the build fails, instead of returning ``None`` (the numpy pass then answers).
    """
    mods = _modules()
    if mods is None:
        if required:
            raise EmbedderError(
                "the fast query backend needs onnxruntime and onnx",
                hint='run `pip install "memvault[fast]"`, or use query_backend="numpy"',
            )
        return None
    _, ort = mods
    variant = "int8" if quantize else "f32"
    folder = directory or cache_dir()
    path = folder / f"minilm-{weights_sha256[:16]}-{variant}-v2-ort{ort.__version__}.onnx"
    digest = path.with_suffix(".sha256")
    try:
        with _BUILD_LOCK:
            payload = _read_cached(path, digest)
            if payload is None:
                built = build_query_session(net, quantize=quantize, threads=threads)
                assert built is not None  # the modules are there
                payload = built.payload
                _write_cached(folder, path, digest, payload)
                return built
        return _session(ort, payload, quantize, threads, net)
    except Exception as exc:
        if required:
            raise EmbedderError(
                f"could not build the {variant} query graph: {type(exc).__name__}: {exc}",
                hint='use query_backend="numpy"',
            ) from exc
        return None


def _read_cached(path: Path, digest: Path) -> bytes | None:
    try:
        payload = path.read_bytes()
        expected = digest.read_text(encoding="ascii").strip()
    except OSError:
        return None
    return payload if hashlib.sha256(payload).hexdigest() == expected else None


def _write_cached(folder: Path, path: Path, digest: Path, payload: bytes) -> None:
    """Atomic writes (a concurrent reader sees the old file or the new one); best effort."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for target, data in (
            (path, payload),
            (digest, hashlib.sha256(payload).hexdigest().encode()),
        ):
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
    except OSError:
        pass
