"""Hybrid recall on real stores: both legs, scope and filters inside each leg,
the vector index following writes, and degradation to full text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memvault import MemoryEngine, StopReason
from memvault.embed import HashingEmbedder
from memvault.engine import OpenGate
from memvault.store import NodeFilter, SQLiteStore, Store
from tests.conftest import STORE_FACTORIES, StepClock
from tests.helpers import FlakyEmbedder, add_fields, update_fields

FACT: dict[str, Any] = {"type": "Fact", "category": "PROJECT_CONFIG", "source_kind": "SYSTEM_KNOWN"}


def _engine(store: Store, orch: str, embedder: Any, tmp_path: Path) -> MemoryEngine:
    return MemoryEngine(store, orch, embedder=embedder, clock=StepClock(), gate=OpenGate())


@pytest.fixture(params=sorted(STORE_FACTORIES))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Every store of the conformance suite: in-memory, SQLite, PostgreSQL (issue 11)."""
    store = STORE_FACTORIES[request.param](tmp_path)
    yield store
    store.close()


def test_both_legs_run_and_explain(backend: Store, tmp_path: Path) -> None:
    e = _engine(backend, "acme", HashingEmbedder(dimension=64), tmp_path)
    ids = [
        add_fields(e, t, **FACT).memory_id
        for t in (
            "the deploy pipeline uses GitHub Actions",
            "invoices are rendered as PDF",
            "the staging database is PostgreSQL 16",
        )
    ]
    res = e.search("which database runs in staging", explain=True, top_k=3)
    assert res.legs == ("text", "vector")
    assert res.hits[0].node.memory_id == ids[2]
    explain = res.hits[0].explain
    assert set(explain["ranks"]) == {"text", "vector"} and "modifiers" in explain
    text_only = e.search("which database runs in staging", config="text")
    assert text_only.legs == ("text",)


def test_scope_and_filters_inside_the_vector_leg(backend: Store, tmp_path: Path) -> None:
    emb = HashingEmbedder(dimension=64)
    a = _engine(backend, "tenant-a", emb, tmp_path)
    b = _engine(backend, "tenant-b", emb, tmp_path)
    secret = add_fields(a, "tenant a launch codes are in the vault", user_id="u1", **FACT).memory_id
    add_fields(a, "tenant a launch party is friday", user_id="u2", **FACT)
    add_fields(b, "tenant b has a garden", **FACT)
    q = emb.embed_query("launch codes vault")
    for f in (NodeFilter(), NodeFilter(user_id="u1")):
        assert [
            h.memory_id
            for h in backend.search_vectors("tenant-b", emb.model_id, q, f, limit=10)
            if h.memory_id == secret
        ] == []
    only_u2 = backend.search_vectors(
        "tenant-a", emb.model_id, q, NodeFilter(user_id="u2"), limit=10
    )
    assert secret not in [h.memory_id for h in only_u2] and len(only_u2) == 1
    assert all(h.node.orchestrator_id == "tenant-b" for h in b.search("launch codes vault").hits)


def test_vector_index_follows_add_update_delete(backend: Store, tmp_path: Path) -> None:
    emb = HashingEmbedder(dimension=64)
    e = _engine(backend, "acme", emb, tmp_path)
    mid = add_fields(e, "the mascot is a purple otter", **FACT).memory_id
    assert mid

    def vector_ids(query: str) -> list[str]:
        return [
            h.memory_id
            for h in backend.search_vectors(
                "acme", emb.model_id, emb.embed_query(query), NodeFilter(), limit=5
            )
        ]

    assert vector_ids("purple otter")[0] == mid
    update_fields(e, mid, content="the mascot is a green heron")
    top = backend.search_vectors(
        "acme", emb.model_id, emb.embed_query("green heron"), NodeFilter(), limit=1
    )
    assert top[0].memory_id == mid and top[0].similarity > 0.5
    e.delete(mid)
    assert mid not in vector_ids("green heron")
    e.restore(mid)
    assert vector_ids("green heron")[0] == mid


def test_sqlite_vector_index_sees_writes_of_another_process(tmp_path: Path) -> None:
    emb = HashingEmbedder(dimension=64)
    first = _engine(SQLiteStore(tmp_path / "m.db"), "acme", emb, tmp_path)
    second = _engine(SQLiteStore(tmp_path / "m.db"), "acme", emb, tmp_path)
    add_fields(first, "alpha beta gamma", **FACT)
    first.search("alpha")  # loads first's matrix
    other = add_fields(second, "delta epsilon zeta", **FACT).memory_id
    hits = first.store.search_vectors(
        "acme", emb.model_id, emb.embed_query("delta epsilon zeta"), NodeFilter(), limit=1
    )
    assert hits[0].memory_id == other
    second.delete(other or "")
    hits = first.store.search_vectors(
        "acme", emb.model_id, emb.embed_query("delta epsilon zeta"), NodeFilter(), limit=5
    )
    assert other not in [h.memory_id for h in hits]


def test_embedding_failure_keeps_the_memory_and_backfill_completes(
    backend: Store, tmp_path: Path
) -> None:
    emb = FlakyEmbedder()
    e = _engine(backend, "acme", emb, tmp_path)
    emb.broken = True
    r = add_fields(e, "the on-call rota changes every monday", **FACT)
    assert r.stop_reason is StopReason.SUCCESS_STORED
    assert [n.memory_id for n in backend.missing_embeddings("acme", emb.model_id, limit=5)] == [
        r.memory_id
    ]
    res = e.search("when does the on-call rota change")
    assert res.legs == ("text",) and res.hits[0].node.memory_id == r.memory_id
    assert e.backfill_embeddings() == 0  # still broken: fails quietly, retried later
    emb.broken = False
    assert e.backfill_embeddings() == 1
    assert backend.missing_embeddings("acme", emb.model_id, limit=5) == []
    res = e.search("when does the on-call rota change")
    assert res.legs == ("text", "vector")


def test_embedding_cache_reuses_vectors(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    emb = HashingEmbedder(dimension=64)
    e = _engine(store, "acme", emb, tmp_path)
    add_fields(e, "same words", **FACT)
    from memvault.retrieval.indexing import text_sha256

    cached = store.cached_embeddings(emb.model_id, [text_sha256("same words")])
    assert np.allclose(cached[text_sha256("same words")], emb.embed_documents(["same words"])[0])


def test_default_local_model_recalls_paraphrases(tmp_path: Path) -> None:
    """The real default embedder: a paraphrase with no shared words is found."""
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate()) as e:
        target = add_fields(e, "Dana is allergic to peanuts", **FACT).memory_id
        add_fields(e, "The quarterly report is due in March", **FACT)
        add_fields(e, "Our office moved to the fourth floor", **FACT)
        res = e.search("what food must Dana avoid?", config="vector", top_k=1)
        assert res.legs == ("vector",) and res.hits[0].node.memory_id == target
