"""The hashing embedder: deterministic, normalised, test-only."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from memvault.embed.hashing import HashingEmbedder
from memvault.errors import EmbedderError


def test_same_text_same_vector_across_instances() -> None:
    texts = ["Caroline went hiking", "", "ÉTÉ à Paris", "the the the"]
    a = HashingEmbedder(dimension=64).embed_documents(texts)
    b = HashingEmbedder(dimension=64).embed_documents(texts)
    np.testing.assert_array_equal(a, b)


def test_same_vector_in_another_process() -> None:
    """BLAKE2b, not the salted built-in hash(): vectors survive a restart."""
    code = (
        "from memvault.embed.hashing import HashingEmbedder;"
        "print(HashingEmbedder(16).embed_query('stable across runs').tolist())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    here = HashingEmbedder(16).embed_query("stable across runs").tolist()
    assert out.stdout.strip() == str(here)


def test_rows_are_unit_float32_and_query_is_symmetric() -> None:
    embedder = HashingEmbedder()
    matrix = embedder.embed_documents(["one two", "", "!!!", "one"])
    assert matrix.shape == (4, 384)
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(embedder.embed_query("one two"), matrix[0])


def test_shared_words_raise_the_cosine() -> None:
    embedder = HashingEmbedder()
    query = embedder.embed_query("red apple pie")
    near, far = embedder.embed_documents(["an apple pie, red", "quantum chromodynamics"])
    assert float(near @ query) > float(far @ query)


def test_identity_names_it_as_a_test_embedder() -> None:
    embedder = HashingEmbedder(dimension=32)
    assert "hashing-test" in embedder.model_id
    assert embedder.model_id.endswith("-32")
    assert embedder.dimension == 32


def test_bad_dimension() -> None:
    with pytest.raises(EmbedderError, match="dimension"):
        HashingEmbedder(dimension=1)
