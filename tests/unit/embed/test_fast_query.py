"""The single-query fast path: the same MiniLM network in onnxruntime, and the query LRU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memvault.embed.fast_query import load_query_session, onnx_available
from memvault.embed.minilm import WEIGHTS_SHA256, MiniLMEmbedder
from memvault.errors import ConfigError, EmbedderError

QUERIES = [
    "What does Caroline like to paint?",
    "When did Melanie go camping with her kids?",
    "Which city did John move to last year?",
    "x",
    "a much longer question that goes on for a while about the trip to the lake in June",
]

needs_onnx = pytest.mark.skipif(not onnx_available(), reason="extra 'fast' not installed")


@pytest.fixture(scope="module")
def exact() -> MiniLMEmbedder:
    return MiniLMEmbedder(query_backend="numpy", query_cache=0)


@needs_onnx
def test_float32_graph_gives_the_numpy_vectors(exact: MiniLMEmbedder, tmp_path: Path) -> None:
    net = exact.load()._loaded().network
    session = load_query_session(
        net, weights_sha256=WEIGHTS_SHA256, quantize=False, required=True, directory=tmp_path
    )
    assert session is not None and session.name == "onnx"
    tokenizer = exact._loaded().tokenizer
    for text in QUERIES:
        pooled = session.pooled(tokenizer.encode(text).ids)
        vector = pooled / np.linalg.norm(pooled)
        np.testing.assert_allclose(vector, exact.embed_query(text), atol=2e-5)


@needs_onnx
def test_int8_queries_stay_close_and_rank_alike(exact: MiniLMEmbedder) -> None:
    fast = MiniLMEmbedder(query_backend="onnx-int8", query_cache=0)
    assert fast.query_backend == "onnx-int8"
    docs = exact.embed_documents(
        [
            "Caroline paints sunsets over the lake",
            "Melanie took her kids camping in the mountains",
            "John moved to Boston in 2022",
            "The quarterly report is due on Friday",
        ]
    )
    for text in QUERIES:
        q_fast, q_exact = fast.embed_query(text), exact.embed_query(text)
        assert q_fast.dtype == np.float32 and abs(float(np.linalg.norm(q_fast)) - 1) < 1e-5
        assert float(q_fast @ q_exact) > 0.98
    for text in QUERIES[:3]:
        assert int(np.argmax(docs @ fast.embed_query(text))) == int(
            np.argmax(docs @ exact.embed_query(text))
        )


@needs_onnx
def test_a_damaged_cache_file_is_rebuilt(exact: MiniLMEmbedder, tmp_path: Path) -> None:
    net = exact.load()._loaded().network
    first = load_query_session(
        net, weights_sha256=WEIGHTS_SHA256, quantize=False, required=True, directory=tmp_path
    )
    (cached,) = tmp_path.glob("*.onnx")
    cached.write_bytes(b"not a model")
    again = load_query_session(
        net, weights_sha256=WEIGHTS_SHA256, quantize=False, required=True, directory=tmp_path
    )
    assert first is not None and again is not None
    assert cached.read_bytes() == again.payload != b"not a model"


def test_recent_queries_come_from_the_cache() -> None:
    embedder = MiniLMEmbedder(query_backend="numpy", query_cache=2)
    a = embedder.embed_query("first")
    assert embedder.embed_query("first") is a
    assert not a.flags.writeable  # a shared vector cannot be changed by one caller
    embedder.embed_query("second")
    embedder.embed_query("third")  # evicts "first", the least recently used
    assert embedder.embed_query("first") is not a
    np.testing.assert_array_equal(embedder.embed_query("first"), a)


def test_unknown_backend_and_missing_runtime_are_clear_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigError, match="query_backend"):
        MiniLMEmbedder(query_backend="gpu")
    from memvault.embed import fast_query

    monkeypatch.setattr(fast_query, "_modules", lambda: None)
    with pytest.raises(EmbedderError, match="onnxruntime") as caught:
        MiniLMEmbedder(query_backend="onnx-int8").embed_query("hello")
    assert "memvault[fast]" in caught.value.hint
    auto = MiniLMEmbedder(query_backend="auto", query_cache=0)
    assert auto.query_backend == "numpy"  # falls back to the exact pass
    assert auto.embed_query("hello").shape == (384,)
