"""The batched document pass in onnxruntime: the numpy pass's vectors, padding and all."""

from __future__ import annotations

import logging
import os
import signal
import time
from typing import Any

import numpy as np
import pytest

from memvault.embed import fast_query
from memvault.embed.fast_query import document_session, onnx_available
from memvault.embed.minilm import (
    MINILM_DIMENSION,
    MINILM_MODEL_ID,
    WEIGHTS_SHA256,
    MiniLMEmbedder,
)
from memvault.errors import ConfigError, EmbedderError

needs_onnx = pytest.mark.skipif(not onnx_available(), reason="extra 'fast' not installed")

# Varied on purpose: scripts, identifiers, emoji, empty, one character, and texts at,
# just under and far over the 256-token limit (so batches mix very different lengths).
TEXTS = [
    "Our servers are in us-west-2; we deploy with Kafka 3.7 and `helm upgrade --atomic`.",
    "Ich wohne seit 2019 in Berlin und arbeite als Ärztin im Krankenhaus.",
    "東京で寿司を食べるのが好きです。来月は大阪に引っ越します。",
    "Привет, меня зовут Анна, и я люблю крепкий кофе по утрам.",
    "مرحبا، أنا أعمل في شركة برمجيات في دبي",
    "I'm allergic to peanuts 🥜 — please never book Thai places 🙏",
    "x",
    "",
    "dentist tomorrow at 9, can't join standup",
    "word " * 250,  # ~252 tokens: just under the limit
    "the trip to the lake in June was long and wonderful " * 60,  # truncated at 256
    "PR #4821 bumps numpy>=1.26 and fixes https://example.com/a?b=c#d in src/x.py",
]


@pytest.fixture(scope="module")
def numpy_pass() -> MiniLMEmbedder:
    return MiniLMEmbedder(document_backend="numpy", query_backend="numpy").load()


@pytest.fixture(scope="module")
def onnx_pass() -> MiniLMEmbedder:
    return MiniLMEmbedder(document_backend="onnx").load()


def _cosines(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.einsum("ij,ij->i", a, b)


@needs_onnx
def test_onnx_documents_are_the_numpy_vectors(
    numpy_pass: MiniLMEmbedder, onnx_pass: MiniLMEmbedder
) -> None:
    assert onnx_pass.document_backend == "onnx" and numpy_pass.document_backend == "numpy"
    expected = numpy_pass.embed_documents(TEXTS)
    got = onnx_pass.embed_documents(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), MINILM_DIMENSION)
    assert float(_cosines(got, expected).min()) > 1 - 1e-5
    np.testing.assert_allclose(got, expected, atol=2e-6)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


@needs_onnx
def test_padding_and_batch_shape_do_not_change_onnx_vectors(onnx_pass: MiniLMEmbedder) -> None:
    together = onnx_pass.embed_documents(TEXTS)
    alone = np.stack([onnx_pass.embed_documents([text])[0] for text in TEXTS])
    # a small token budget: many padded batches of different shapes
    small = MiniLMEmbedder(document_backend="onnx", max_batch_tokens=300, max_batch_size=3)
    np.testing.assert_allclose(together, alone, atol=1e-6)
    np.testing.assert_allclose(small.embed_documents(TEXTS), alone, atol=1e-6)
    np.testing.assert_allclose(onnx_pass.embed_documents(TEXTS[::-1])[::-1], together, atol=1e-6)
    # texts over the limit are truncated like the numpy pass does: same 256 tokens, same vector
    longer = TEXTS[10] + " and then some more words that fall past the limit"
    np.testing.assert_array_equal(*onnx_pass.embed_documents([TEXTS[10], longer]))


@needs_onnx
def test_onnx_matches_sentence_transformers(
    onnx_pass: MiniLMEmbedder, reference: dict[str, Any]
) -> None:
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    np.testing.assert_allclose(
        onnx_pass.embed_documents(reference["sentences"]), expected, atol=1e-6
    )


@needs_onnx
def test_one_session_per_process_and_the_identity_is_unchanged(
    onnx_pass: MiniLMEmbedder,
) -> None:
    other = MiniLMEmbedder(document_backend="auto")
    assert other._document_session() is onnx_pass._document_session()  # built once, shared
    assert (other.model_id, other.dimension) == (MINILM_MODEL_ID, MINILM_DIMENSION)
    assert other.model_id == MiniLMEmbedder(document_backend="numpy").model_id


def test_missing_runtime_falls_back_to_numpy_or_fails_clearly(
    monkeypatch: pytest.MonkeyPatch, numpy_pass: MiniLMEmbedder
) -> None:
    monkeypatch.setattr(fast_query, "_DOCUMENT_SESSIONS", {})
    monkeypatch.setattr(fast_query, "_modules", lambda: None)
    auto = MiniLMEmbedder(document_backend="auto")
    assert auto.document_backend == "numpy"
    np.testing.assert_array_equal(
        auto.embed_documents(TEXTS[:3]), numpy_pass.embed_documents(TEXTS[:3])
    )
    with pytest.raises(EmbedderError, match="onnxruntime") as caught:
        MiniLMEmbedder(document_backend="onnx").embed_documents(["hello"])
    assert "memvault[fast]" in caught.value.hint


@needs_onnx
def test_a_graph_that_fails_to_build_leaves_the_numpy_pass(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(fast_query, "_DOCUMENT_SESSIONS", {})
    calls: list[bool] = []

    def broken(onnx: Any, net: Any, *, masked: bool = False) -> Any:
        calls.append(masked)
        raise RuntimeError("no kernel for this op")

    monkeypatch.setattr(fast_query, "_graph", broken)
    with caplog.at_level(logging.WARNING, logger=fast_query.__name__):
        embedder = MiniLMEmbedder()
        assert embedder.embed_documents(["still embedded"]).shape == (1, MINILM_DIMENSION)
        assert embedder.document_backend == "numpy"
    assert calls == [True]  # tried once in this process, not at every call
    assert "no kernel for this op" in caplog.text


def test_bad_settings_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="document_backend"):
        MiniLMEmbedder(document_backend="gpu")
    with pytest.raises(ConfigError, match="threads"):
        MiniLMEmbedder(threads=0)


@needs_onnx
def test_thread_count_does_not_change_onnx_vectors(onnx_pass: MiniLMEmbedder) -> None:
    net = onnx_pass._loaded().network
    one = document_session(net, weights_sha256=WEIGHTS_SHA256, threads=1, required=True)
    two = document_session(net, weights_sha256=WEIGHTS_SHA256, threads=2, required=True)
    assert one is not None and two is not None and one is not two
    assert (one.threads, two.threads) == (1, 2)
    single = MiniLMEmbedder(document_backend="onnx", threads=1).embed_documents(TEXTS)
    double = MiniLMEmbedder(document_backend="onnx", threads=2).embed_documents(TEXTS)
    np.testing.assert_allclose(single, double, atol=1e-6)


@needs_onnx
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # 3.12+: fork of a threaded process
def test_a_forked_child_still_embeds(onnx_pass: MiniLMEmbedder) -> None:
    """A process that forks after its session exists (multiprocessing's default on Linux):
    the child's calls on the inherited session return the same vectors and do not hang."""
    expected = onnx_pass.embed_documents(TEXTS)  # the parent's session exists now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: embed, send the bytes, leave without running pytest's exit
        try:
            os.close(read)
            os.write(write, onnx_pass.embed_documents(TEXTS).tobytes())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 120
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung in onnxruntime")
        time.sleep(0.05)
    with os.fdopen(read, "rb") as pipe:
        got = np.frombuffer(pipe.read(), dtype=np.float32).reshape(expected.shape)
    np.testing.assert_array_equal(got, expected)
