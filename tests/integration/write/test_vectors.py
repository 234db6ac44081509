"""One vector per candidate: the capture call's batch feeds search, similarity and storage."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from memvault.embed import HashingEmbedder
from memvault.embed.base import FloatMatrix, FloatVector
from memvault.engine import MemoryEngine
from memvault.write import EmbeddingSimilarity
from memvault.write.vectors import TurnVectors
from tests.conftest import StepClock


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, recording every text it is asked to embed."""

    def __init__(self, dimension: int = 128) -> None:
        super().__init__(dimension)
        self.document_calls: list[list[str]] = []
        self.query_calls: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        self.document_calls.append(list(texts))
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> FloatVector:
        self.query_calls.append(text)
        vector: FloatVector = HashingEmbedder.embed_documents(self, [text])[0]  # not counted
        return vector


class AsymmetricEmbedder(CountingEmbedder):
    """Says nothing about symmetry, so its query vectors must never be reused."""

    symmetric = False


class FailingEmbedder(CountingEmbedder):
    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        raise RuntimeError("model file missing")


def _engine(tmp_path: Path, embedder: CountingEmbedder) -> MemoryEngine:
    e = MemoryEngine.open(tmp_path / "home", "acme", clock=StepClock(), embedder=embedder)
    e.capture.use_similarity(EmbeddingSimilarity(embedder))
    return e


def _stored_vectors(engine: MemoryEngine, model_id: str) -> dict[str, np.ndarray]:
    """The vectors as written in the database file (read with plain sqlite3)."""
    assert engine.layout is not None
    with closing(sqlite3.connect(engine.layout.db_path)) as conn:
        rows = conn.execute(
            "SELECT memory_id, vector FROM memory_embeddings WHERE model_id = ?", (model_id,)
        ).fetchall()
    return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in rows}


def test_a_turn_is_embedded_once_and_the_vector_is_reused(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    with _engine(tmp_path, embedder) as e:
        e.capture_message({"text": "I live in Lisbon.", "user_id": "dana", "speaker": "Dana"})
        embedder.document_calls.clear()
        r = e.capture_message(
            {"text": "I love jazz. I drink green tea.", "user_id": "dana", "speaker": "Dana"}
        )
        contents = [c.content for c in r.candidates]
        assert len(contents) == 2 and all(c.memory_ids for c in r.candidates)
        # One batch with both candidates; no query embedding (the model is symmetric);
        # the stored neighbour came from the store's embedding cache, not the model.
        assert embedder.document_calls == [contents]
        assert embedder.query_calls == []
        stored = _stored_vectors(e, embedder.model_id)
        for c in r.candidates:
            expected = HashingEmbedder(128).embed_documents([c.content])[0]
            assert np.array_equal(stored[c.memory_ids[0]], expected)


def test_the_vector_search_still_finds_neighbours_with_the_shared_vector(
    tmp_path: Path,
) -> None:
    embedder = CountingEmbedder()
    with _engine(tmp_path, embedder) as e:
        e.capture_message({"text": "I love coffee.", "user_id": "dana", "speaker": "Dana"})
        r = e.capture_message({"text": "I don't drink coffee.", "user_id": "dana"})
        (c,) = r.candidates
        assert c.outcome.value == "contradiction"
        legs = e.search("Dana drinks coffee", filters={"user_id": "dana"}).legs
        assert "vector" in legs


def test_asymmetric_embedders_embed_the_query_themselves(tmp_path: Path) -> None:
    embedder = AsymmetricEmbedder()
    with _engine(tmp_path, embedder) as e:
        e.capture_message({"text": "I live in Lisbon.", "user_id": "dana", "speaker": "Dana"})
        embedder.document_calls.clear()
        embedder.query_calls.clear()
        r = e.capture_message({"text": "I love jazz.", "user_id": "dana", "speaker": "Dana"})
        (c,) = r.candidates
        assert embedder.query_calls == [c.content]  # search: its own query vector
        assert embedder.document_calls == [[c.content]]  # similarity + storage: shared


def test_an_embedder_failure_still_writes_the_memory(tmp_path: Path) -> None:
    embedder = FailingEmbedder()
    with MemoryEngine.open(tmp_path / "home", "acme", embedder=embedder) as e:
        r = e.capture_message({"text": "I work at Acme.", "user_id": "dana"})
        (c,) = r.candidates
        assert c.outcome.value == "stored"
        assert _stored_vectors(e, embedder.model_id) == {}  # queued for the backfill


def test_turn_vectors_embed_pending_texts_in_one_batch() -> None:
    embedder = CountingEmbedder(dimension=16)
    tv = TurnVectors(embedder, ["a b", "c d", "a b"])
    assert tv.document("c d") is not None
    assert tv.document("a b") is not None
    assert tv.document("e f") is not None  # not a candidate: its own batch
    assert embedder.document_calls == [["a b", "c d"], ["e f"]]
    assert tv.query("a b") is tv.document("a b")


@pytest.mark.parametrize("symmetric", [True, False])
def test_query_vectors_follow_the_symmetry_declaration(symmetric: bool) -> None:
    embedder = CountingEmbedder(16) if symmetric else AsymmetricEmbedder(16)
    assert (TurnVectors(embedder, ["x"]).query("x") is not None) is symmetric
