"""Builders for test data (no mocks: real nodes, real stores)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx

from memvault.embed import HashingEmbedder
from memvault.embed.base import FloatMatrix, FloatVector
from memvault.engine import WriteResult
from memvault.model import (
    CapturedBy,
    MemoryEdge,
    MemoryNode,
    MemoryType,
    Source,
    SourceKind,
    SourceType,
)

_counter = itertools.count()


def ts(n: int) -> str:
    """A valid timestamp n seconds into 2026."""
    return f"2026-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000000Z"


def make_node(orchestrator: str = "acme", **overrides: Any) -> MemoryNode:
    i = next(_counter)
    data: dict[str, Any] = {
        "memory_id": f"mem_{i:06d}",
        "orchestrator_id": orchestrator,
        "type": MemoryType.FACT,
        "category": "PROJECT_CONFIG",
        "content": f"memory number {i}",
        "source": Source(
            source_type=SourceType.MANUAL,
            captured_by=CapturedBy.USER,
            source_kind=SourceKind.USER_EXPLICIT,
        ),
        "created_at": ts(i % 80000),
        "updated_at": ts(i % 80000),
    }
    data.update(overrides)
    return MemoryNode(**data)


def make_edge(a: MemoryNode, b: MemoryNode, **overrides: Any) -> MemoryEdge:
    data: dict[str, Any] = {
        "edge_id": f"edge_{next(_counter):06d}",
        "orchestrator_id": a.orchestrator_id,
        "from_memory_id": a.memory_id,
        "to_memory_id": b.memory_id,
        "edge_type": "RelatedTo",
        "weight": 0.5,
        "created_at": ts(1),
    }
    data.update(overrides)
    return MemoryEdge(**data)


class FlakyEmbedder:
    """A real (hashing) embedder that can be switched to fail — the network-free fault.

    It notes which thread embedded each query (``query_threads``).
    """

    def __init__(self, dimension: int = 64) -> None:
        self.inner = HashingEmbedder(dimension=dimension)
        self.broken = False
        self.query_threads: list[str] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        if self.broken:
            raise RuntimeError("embedding backend down")
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> FloatVector:
        self.query_threads.append(threading.current_thread().name)
        if self.broken:
            raise RuntimeError("embedding backend down")
        return self.inner.embed_query(text)


def add_fields(target: Any, content: str, /, **fields: Any) -> Any:
    """Store raw fields the way an edge does: ``new_memory`` parses them (a refusal is a
    result, recorded), then the typed ``add`` stores the value.

    ``target`` is a ``MemoryEngine`` or a ``Caller``; ``thread_id``, ``index_text``,
    ``vector`` and ``vector_model`` go to ``add``, the rest are the memory's fields.
    """
    options = {k: fields.pop(k) for k in _ADD_OPTIONS if k in fields}
    parsed = target.new_memory({"content": content, **fields})
    return parsed if isinstance(parsed, WriteResult) else target.add(parsed, **options)


_ADD_OPTIONS = ("thread_id", "index_text", "vector", "vector_model")


def update_fields(target: Any, memory_id: str, /, **changes: Any) -> Any:
    """Change a memory from raw changes the way an edge does: ``memory_patch`` parses
    them (a refusal is a result, recorded), then the typed ``update`` applies the patch.
    ``thread_id`` goes to ``update``."""
    options = {k: changes.pop(k) for k in ("thread_id",) if k in changes}
    parsed = target.memory_patch(memory_id, changes)
    if isinstance(parsed, WriteResult):
        return parsed
    return target.update(memory_id, parsed, **options)


def wait_healthy(url: str, *, timeout: float = 60.0) -> None:
    """Poll ``url``/v1/health until it answers 200; fail the test after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"{url} never became healthy"
        time.sleep(0.1)
