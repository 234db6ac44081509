"""A failing embedder never weakens the gate (review S12-R7).

The write path embeds each candidate once and the gate's full heads read that
vector. When the embedder raised (a corrupt model file, out of memory, a remote
outage), English text was judged by the n-gram heads alone and what the full heads
refuse was stored. Now the gate computes the vector itself (as ``policy check``
does), and refuses the write when it cannot (fail closed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, NewMemory
from memvault.policy.learned import LearnedLayer
from memvault.write.spec import MemoryPatch

FIELDS = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT", "user_id": "u"}
TEXTS = [
    "I've been feeling really low since the breakup.",
    "My therapist says the new medication is helping with the panic attacks.",
    "Priya goes to the mosque every Friday at one.",
    "The staging cluster is called kestrel and runs on Kubernetes 1.29.",
    "I prefer short answers with code first.",
    "Our team decided to move the launch to May.",
]


def _broken(engine: MemoryEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the embedding model failed")

    assert engine.embedder is not None
    monkeypatch.setattr(engine.embedder, "embed_documents", boom)


def test_every_verdict_is_the_same_with_a_failing_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryEngine.open(tmp_path / "ok", "acme") as working:
        expected = [working.add(NewMemory(content=t, **FIELDS)).stop_reason for t in TEXTS]
    assert {r.value for r in expected} >= {"SUCCESS_STORED", "FORBIDDEN_CATEGORY"}
    with MemoryEngine.open(tmp_path / "broken", "acme") as engine:
        _broken(engine, monkeypatch)
        got = [engine.add(NewMemory(content=t, **FIELDS)).stop_reason for t in TEXTS]
        bulk = [r.stop_reason for r in engine.add_many([{"content": t, **FIELDS} for t in TEXTS])]
    assert got == expected
    assert bulk == expected  # the batched path (one gate call for the batch) too


def test_an_update_while_the_embedder_fails_is_judged_as_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryEngine.open(tmp_path, "acme") as working:
        verdict = working.add(NewMemory(content=TEXTS[0], **FIELDS)).stop_reason
        mid = working.add(NewMemory(content="The standup is at nine.", **FIELDS)).memory_id
        assert mid is not None
        _broken(working, monkeypatch)
        got = working.update(mid, MemoryPatch(content=TEXTS[0]))
    assert verdict.value == "FORBIDDEN_CATEGORY"
    assert got.stop_reason is verdict


def test_no_vector_anywhere_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        _broken(engine, monkeypatch)
        monkeypatch.setattr(LearnedLayer, "vector", lambda self, text: None)
        refused = engine.add(NewMemory(content=TEXTS[4], **FIELDS))
        assert refused.stop_reason.value == "INTERNAL_INCONSISTENCY", refused
        assert engine.list_memories() == []
        monkeypatch.undo()
        assert engine.add(NewMemory(content=TEXTS[4], **FIELDS)).ok  # once it works again


def test_an_engine_without_an_embedder_never_has_the_gate_embed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review S12-R12: no embedder is not a failing one — the n-gram heads judge, as documented."""
    calls: list[str] = []
    original = LearnedLayer.vector

    def counting(self: LearnedLayer, text: str) -> Any:
        calls.append(text)
        return original(self, text)

    monkeypatch.setattr(LearnedLayer, "vector", counting)
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        assert engine.add(NewMemory(content="The deploy moved to Friday.", **FIELDS)).ok
        items = [{"content": f"Unit {i} ships build {i * 7919}.", **FIELDS} for i in range(10)]
        assert all(r.ok for r in engine.add_many(items))
        engine.capture_message({"text": "I prefer tea over coffee.", "user_id": "u"})
    assert calls == [], f"the gate embedded {len(calls)} texts for an engine with no embedder"
