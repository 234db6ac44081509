"""The query embedding runs beside the full-text leg, and its failure still degrades."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from memvault.engine import MemoryEngine, OpenGate
from memvault.store import SQLiteStore
from tests.conftest import StepClock
from tests.helpers import FlakyEmbedder, add_fields

FACT: dict[str, Any] = {"type": "Fact", "category": "PROJECT_CONFIG", "source_kind": "SYSTEM_KNOWN"}


def _engine(tmp_path: Path, embedder: FlakyEmbedder) -> MemoryEngine:
    store = SQLiteStore(tmp_path / "m.db")
    return MemoryEngine(store, "acme", embedder=embedder, clock=StepClock(), gate=OpenGate())


def test_hybrid_search_embeds_on_a_worker_thread(tmp_path: Path) -> None:
    emb = FlakyEmbedder()
    engine = _engine(tmp_path, emb)
    mid = add_fields(engine, "the mascot is a purple otter", **FACT).memory_id
    result = engine.search("purple otter", config="default")
    assert result.hits[0].node.memory_id == mid and "vector" in result.legs
    assert emb.query_threads[-1].startswith("memvault-embed")
    engine.search("purple otter", config="vector")  # one leg: nothing to overlap
    assert emb.query_threads[-1] == threading.current_thread().name


def test_a_failing_background_embedding_degrades_to_full_text(tmp_path: Path) -> None:
    emb = FlakyEmbedder()
    engine = _engine(tmp_path, emb)
    mid = add_fields(engine, "the mascot is a purple otter", **FACT).memory_id
    emb.broken = True
    result = engine.search("purple otter", config="default")
    assert result.legs == ("text",) and result.hits[0].node.memory_id == mid
    assert emb.query_threads[-1].startswith("memvault-embed")
