"""A capture pipeline on a real SQLite file, gated by the real policy gate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault.embed import HashingEmbedder
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp
from memvault.model.node import MemoryNode
from memvault.policy import Candidate, GateContext, evaluate, load_contract
from memvault.store import SQLiteStore
from memvault.write import CaptureConfig, CapturePipeline, EmbeddingSimilarity
from tests.conftest import StepClock

_CONTEXT = GateContext(contract=load_contract("19.1.0"))


def policy_gate(op: MemoryOp, node: MemoryNode) -> Decision:
    """The governance gate over a node (what the engine's default gate will do)."""
    return evaluate(
        Candidate(
            text=node.content,
            key=node.key,
            value=node.value,
            declared_category=node.category,
            type=node.type.value,
            source_kind=node.source.source_kind.value,
            ttl_class=node.ttl_class.value,
            op=op.value,
        ),
        _CONTEXT,
    )


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "memory.db")
    yield store
    store.close()


def make_pipeline(
    store: SQLiteStore, *, config: CaptureConfig | None = None, **options: object
) -> CapturePipeline:
    return CapturePipeline(
        store=store,
        orchestrator="acme",
        gate=policy_gate,
        clock=StepClock(),
        config=config,
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture
def pipeline(sqlite: SQLiteStore) -> CapturePipeline:
    return make_pipeline(sqlite)


@pytest.fixture
def hashed(sqlite: SQLiteStore) -> CapturePipeline:
    """Same, with embedding similarity (hashing embedder: fast, deterministic)."""
    return make_pipeline(sqlite, similarity=EmbeddingSimilarity(HashingEmbedder(dimension=256)))
