"""Engines on real stores (SQLite file and the in-memory reference), fixed clock.

Bulk test data is written with :func:`put` straight through ``Store.apply``
(the same write set ``engine.add`` builds, without the embedding step), so
the tests stay fast; engine writes are used where the engine path matters.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, format_timestamp
from memvault.layout import RuntimeLayout
from memvault.model import CapturedBy, ChangeKind, MemoryNode, Source, SourceKind, SourceType
from memvault.store import ChangeEntry, InMemoryStore, SQLiteStore, Store, WriteSet
from tests.conftest import StepClock
from tests.helpers import add_fields
from tests.integration.store.postgres import server as pg_server

# Trigger: engines with hybrid recall load a local embedding model by default.
# Why: these tests are about what the agent sees, not about vectors; embedding
#      every write makes them slow and adds nothing.
# Outcome: no embedder where the engine accepts the option (text recall only).
NO_EMBEDDER: dict[str, Any] = (
    {"embedder": None} if "embedder" in inspect.signature(MemoryEngine).parameters else {}
)

_ids = itertools.count()


def open_engine(home: Path, **options: Any) -> MemoryEngine:
    """An engine on a real SQLite file under ``home``."""
    return MemoryEngine.open(home, "acme", clock=StepClock(), **NO_EMBEDDER, **options)


def make_engine(store: Store, layout: RuntimeLayout | None) -> MemoryEngine:
    return MemoryEngine(store, "acme", layout=layout, clock=StepClock(), **NO_EMBEDDER)


@pytest.fixture(params=["sqlite", "memory"])
def ctx_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    """An engine on each backend (the context code must not care which)."""
    layout = RuntimeLayout.for_orchestrator(tmp_path / "home", "acme").ensure()
    store = SQLiteStore(layout.db_path) if request.param == "sqlite" else InMemoryStore()
    engine = make_engine(store, layout)
    yield engine
    engine.close()


def add(engine: MemoryEngine, content: str, type: str = "Fact", **fields: Any) -> str:
    """Store through the engine (gate, audit, change log, revision)."""
    fields.setdefault("category", "KNOWLEDGE")
    fields.setdefault("source_kind", "USER_EXPLICIT")
    result = add_fields(engine, content, type=type, **fields).raise_for_status()
    assert result.memory_id is not None
    return result.memory_id


def put(engine: MemoryEngine, content: str, type: str = "Fact", **fields: Any) -> str:
    """Store straight through ``Store.apply``: one node, one change-log row, one revision."""
    at = format_timestamp(engine.clock())
    data: dict[str, Any] = {
        "memory_id": f"mem_{next(_ids):08x}",
        "orchestrator_id": engine.orchestrator,
        "type": type,
        "category": "KNOWLEDGE",
        "content": content,
        "summary": content[:280],
        "source": Source(
            source_type=SourceType.MANUAL,
            captured_by=CapturedBy.USER,
            source_kind=SourceKind.USER_EXPLICIT,
        ),
        "created_at": at,
        "updated_at": at,
    }
    data.update(fields)
    node = MemoryNode.model_validate(data)
    change = ChangeEntry(node.memory_id, ChangeKind.CREATED, node.summary)
    engine.store.apply(WriteSet(engine.orchestrator, at, nodes=(node,), changes=(change,)))
    return node.memory_id


#: The stores a scope test runs on: the in-memory reference, SQLite, PostgreSQL.
BACKENDS = ("memory", "sqlite", "postgres")


def backend_store(kind: str, layout: RuntimeLayout) -> Store:
    """A fresh store of ``kind`` (one of :data:`BACKENDS`) for ``layout``."""
    if kind == "memory":
        return InMemoryStore()
    if kind == "sqlite":
        return SQLiteStore(layout.db_path)
    return pg_server.emptied_store()


def engine_on(kind: str, tmp_path: Path) -> Iterator[MemoryEngine]:
    """An engine on a fresh ``kind`` store, closed afterwards (a fixture's body)."""
    layout = RuntimeLayout.for_orchestrator(tmp_path / "home", "acme").ensure()
    engine = make_engine(backend_store(kind, layout), layout)
    yield engine
    engine.close()
