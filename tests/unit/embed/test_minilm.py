"""The default embedder: verified weights, sentence-transformers parity, batching."""

from __future__ import annotations

import hashlib
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memvault.embed import minilm as minilm_module
from memvault.embed import network as network_module
from memvault.embed.minilm import (
    INSTALL_COMMAND,
    KNOWN_PACKAGES,
    MINILM_DIMENSION,
    WEIGHTS_SHA256,
    MiniLMEmbedder,
    locate_model_files,
    parse_safetensors,
)
from memvault.errors import EmbedderError, MemvaultError

# Measured: 2.5e-7 at worst over the reference sentences, batched or one by one.
PARITY_TOLERANCE = 1e-6


def test_installed_weights_have_the_official_sha256(minilm: MiniLMEmbedder) -> None:
    files = minilm.files
    assert files.provider in {package for package, _ in KNOWN_PACKAGES}
    assert hashlib.sha256(files.weights.read_bytes()).hexdigest() == WEIGHTS_SHA256


def test_reference_file_was_made_from_the_same_weights(reference: dict[str, Any]) -> None:
    assert reference["weights_sha256"] == WEIGHTS_SHA256
    assert reference["max_seq_length"] == 256


def _copy_model(tmp_path: Path, *, corrupt: bool) -> Path:
    source = locate_model_files()
    target = tmp_path / "model"
    target.mkdir()
    shutil.copyfile(source.tokenizer, target / "tokenizer.json")
    data = bytearray(source.weights.read_bytes())
    if corrupt:
        data[len(data) // 2] ^= 0x01  # one flipped bit inside a weight tensor
    (target / "model.safetensors").write_bytes(bytes(data))
    return target


def test_a_corrupted_copy_is_refused(tmp_path: Path) -> None:
    target = _copy_model(tmp_path, corrupt=True)
    with pytest.raises(EmbedderError, match="refusing to load") as caught:
        MiniLMEmbedder(target).embed_query("hello")
    assert isinstance(caught.value, MemvaultError)
    assert "--force-reinstall" in caught.value.hint


def test_an_intact_copy_loads_and_agrees(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    target = _copy_model(tmp_path, corrupt=False)
    copy = MiniLMEmbedder(target)
    assert copy.files.provider == "path"
    np.testing.assert_array_equal(copy.embed_query("hello"), minilm.embed_query("hello"))


def test_missing_weights_name_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm_module, "KNOWN_PACKAGES", (("memvault_no_such_pkg", "model"),))
    with pytest.raises(EmbedderError, match="not installed") as caught:
        locate_model_files()
    assert INSTALL_COMMAND in caught.value.hint


def test_a_model_dir_without_files_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"model\.safetensors"):
        MiniLMEmbedder(tmp_path).load()


def test_output_matches_sentence_transformers(
    minilm: MiniLMEmbedder, reference: dict[str, Any]
) -> None:
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    batched = minilm.embed_documents(reference["sentences"])
    exact = MiniLMEmbedder(query_backend="numpy")  # the fast query path: test_fast_query.py
    one_by_one = np.stack([exact.embed_query(text) for text in reference["sentences"]])
    assert np.abs(batched - expected).max() < PARITY_TOLERANCE
    assert np.abs(one_by_one - expected).max() < PARITY_TOLERANCE


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_batching_and_order_do_not_change_vectors(backend: str) -> None:
    texts = [f"sentence number {i} " + "word " * (i * 7 % 40) for i in range(40)]
    minilm = MiniLMEmbedder(document_backend=backend)
    # A small token budget forces many forward passes of different shapes.
    small_batches = MiniLMEmbedder(max_batch_tokens=300, max_batch_size=3, document_backend=backend)
    together = minilm.embed_documents(texts)
    alone = np.stack([minilm.embed_documents([text])[0] for text in texts])
    np.testing.assert_allclose(together, alone, atol=PARITY_TOLERANCE)
    np.testing.assert_allclose(small_batches.embed_documents(texts), alone, atol=PARITY_TOLERANCE)
    reversed_rows = minilm.embed_documents(texts[::-1])[::-1]
    np.testing.assert_allclose(reversed_rows, together, atol=PARITY_TOLERANCE)


def test_thread_count_does_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["one thread or three", "the rows are independent", "x"] * 3
    single = MiniLMEmbedder(threads=1, document_backend="numpy").embed_documents(texts)
    three = MiniLMEmbedder(threads=3, document_backend="numpy").embed_documents(texts)
    np.testing.assert_array_equal(three, single)


def test_vectors_are_unit_float32_rows(minilm: MiniLMEmbedder) -> None:
    matrix = minilm.embed_documents(["one", "", "two words", "x" * 5000])
    assert matrix.dtype == np.float32
    assert matrix.shape == (4, MINILM_DIMENSION)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-6)
    query = minilm.embed_query("one")
    assert query.shape == (MINILM_DIMENSION,)
    assert query.dtype == np.float32


def test_query_and_document_are_symmetric(minilm: MiniLMEmbedder) -> None:
    """all-MiniLM-L6-v2 was trained without prefixes: query and document vectors agree."""
    text = "Where did Caroline move from four years ago?"
    exact = MiniLMEmbedder(query_backend="numpy", document_backend="numpy")
    np.testing.assert_array_equal(exact.embed_query(text), exact.embed_documents([text])[0])
    # the default document pass (onnxruntime when installed) agrees to float32 rounding
    np.testing.assert_allclose(
        minilm.embed_documents([text])[0], exact.embed_query(text), atol=1e-6
    )


def test_similar_meaning_scores_higher(minilm: MiniLMEmbedder) -> None:
    query = minilm.embed_query("a cat is sleeping on the sofa")
    near, far = minilm.embed_documents(
        ["the kitten naps on the couch", "stock prices fell sharply"]
    )
    assert float(near @ query) > float(far @ query) + 0.3


def test_empty_input_and_wrong_type(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed_documents([]).shape == (0, MINILM_DIMENSION)
    with pytest.raises(EmbedderError, match="sequence of texts"):
        minilm.embed_documents("not a list")  # a str is a Sequence[str]: caught at run time


def test_construction_is_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm_module, "KNOWN_PACKAGES", (("memvault_no_such_pkg", "model"),))
    embedder = MiniLMEmbedder()  # nothing located or read yet, so no error
    assert embedder.dimension == MINILM_DIMENSION
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2"


def test_parse_safetensors_agrees_with_the_safetensors_library(minilm: MiniLMEmbedder) -> None:
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    data = minilm.files.weights.read_bytes()
    ours = parse_safetensors(data)
    theirs = safetensors_numpy.load(data)
    assert ours.keys() == theirs.keys()
    for name, array in theirs.items():
        np.testing.assert_array_equal(ours[name], array)


@pytest.mark.parametrize(
    "data",
    [
        b"",  # no header length
        b"\xff" * 8 + b"{}",  # header length beyond the data
        b"\x05\x00\x00\x00\x00\x00\x00\x00not j",  # header is not JSON
        b'\x0f\x00\x00\x00\x00\x00\x00\x00{"w": {"x": 1}}',  # no dtype
    ],
)
def test_parse_safetensors_rejects_garbage(data: bytes) -> None:
    with pytest.raises(EmbedderError, match="safetensors"):
        parse_safetensors(data)


def test_parse_safetensors_rejects_offsets_outside_the_data() -> None:
    header = b'{"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}'
    data = len(header).to_bytes(8, "little") + header + b"\x00" * 8
    with pytest.raises(EmbedderError, match="bad offsets"):
        parse_safetensors(data)


def test_gelu_matches_the_exact_erf_form() -> None:
    xs = np.linspace(-12.0, 12.0, 20001, dtype=np.float32).reshape(-1, 1)
    exact = np.array(
        [0.5 * float(x) * (1.0 + math.erf(float(x) / math.sqrt(2.0))) for x in xs[:, 0]]
    )
    ours = network_module.gelu(xs.copy())[:, 0]
    # float32 spacing near |x| = 12 is ~1e-6; the approximation itself is ~4e-7 on erf.
    assert np.abs(ours - exact).max() < 2e-6
    assert np.abs(ours - exact)[np.abs(xs[:, 0]) < 3].max() < 5e-7
