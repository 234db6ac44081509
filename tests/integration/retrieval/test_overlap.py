"""The query embedding runs beside the full-text leg, and its failure still degrades."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from memvault.embed import HashingEmbedder
from memvault.embed.base import FloatMatrix, FloatVector
from memvault.engine import MemoryEngine, OpenGate
from memvault.store import SQLiteStore
from tests.conftest import StepClock

FACT = {"type": "Fact", "category": "PROJECT_CONFIG", "source_kind": "SYSTEM_KNOWN"}


class RecordingEmbedder:
    """A real (hashing) embedder that notes which thread embedded each query."""

    def __init__(self, fail: bool = False) -> None:
        self.inner = HashingEmbedder(dimension=32)
        self.fail = fail
        self.query_threads: list[str] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> FloatVector:
        self.query_threads.append(threading.current_thread().name)
        if self.fail:
            raise RuntimeError("embedding backend down")
        return self.inner.embed_query(text)


def _engine(tmp_path: Path, embedder: RecordingEmbedder) -> MemoryEngine:
    store = SQLiteStore(tmp_path / "m.db")
    return MemoryEngine(store, "acme", embedder=embedder, clock=StepClock(), gate=OpenGate())


def test_hybrid_search_embeds_on_a_worker_thread(tmp_path: Path) -> None:
    emb = RecordingEmbedder()
    engine = _engine(tmp_path, emb)
    mid = engine.add("the mascot is a purple otter", **FACT).memory_id
    result = engine.search("purple otter", config="default")
    assert result.hits[0].node.memory_id == mid and "vector" in result.legs
    assert emb.query_threads[-1].startswith("memvault-embed")
    engine.search("purple otter", config="vector")  # one leg: nothing to overlap
    assert emb.query_threads[-1] == threading.current_thread().name


def test_a_failing_background_embedding_degrades_to_full_text(tmp_path: Path) -> None:
    emb = RecordingEmbedder()
    engine = _engine(tmp_path, emb)
    mid = engine.add("the mascot is a purple otter", **FACT).memory_id
    emb.fail = True
    result = engine.search("purple otter", config="default")
    assert result.legs == ("text",) and result.hits[0].node.memory_id == mid
    assert emb.query_threads[-1].startswith("memvault-embed")
