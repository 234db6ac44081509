"""The caller façade's tests: an engine without an embedder, and two categories' fields."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, NewMemory

TODO: dict[str, Any] = {
    "type": "Todo",
    "category": "TODO",
    "source_kind": "USER_EXPLICIT",
    "ttl_class": "MEDIUM",
}
PREF: dict[str, Any] = {
    "type": "Preference",
    "category": "PREFERENCE",
    "source_kind": "USER_EXPLICIT",
}


def add_preference(engine: MemoryEngine, content: str, user: str | None) -> str:
    """Store ``content`` as ``user``'s preference (shared when ``None``); its memory id."""
    memory_id = engine.add(NewMemory(content=content, user_id=user, **PREF)).memory_id
    assert memory_id is not None
    return memory_id


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[MemoryEngine]:
    e = MemoryEngine.open(tmp_path, "acme", embedder=None)
    yield e
    e.close()
