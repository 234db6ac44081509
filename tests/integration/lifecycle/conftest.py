"""Fixtures for lifecycle tests: a real SQLite engine with a settable clock."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine
from tests.conftest import StepClock
from tests.helpers import add_fields

DAY = timedelta(days=1)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def open_engine(home: Path, clock: StepClock, **options: Any) -> MemoryEngine:
    """A SQLite engine on ``home``; with the fast hashing embedder where engines take one.

    Lifecycle tests are about state, not semantic recall: the hashing embedder
    keeps them fast and deterministic without changing what they exercise.
    """
    if "embedder" in inspect.signature(MemoryEngine.__init__).parameters:
        options.setdefault("embedder", "hashing")
    return MemoryEngine.open(home, "acme", clock=clock, **options)


@pytest.fixture
def eng(home: Path, clock: StepClock) -> Iterator[MemoryEngine]:
    e = open_engine(home, clock)
    yield e
    e.close()


def remember(engine: MemoryEngine, content: str, **fields: Any) -> str:
    """Store a memory (USER_EXPLICIT preference unless told otherwise); return its id."""
    data: dict[str, Any] = {
        "type": "Preference",
        "category": "PREFERENCE",
        "source_kind": "USER_EXPLICIT",
        "user_id": "u1",
    }
    data.update(fields)
    result = add_fields(engine, content, **data).raise_for_status()
    assert result.memory_id is not None
    return result.memory_id
