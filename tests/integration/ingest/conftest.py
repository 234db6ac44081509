"""Ingest tests run on the fast ``hashing`` embedder; one test uses the real default."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from tests.conftest import StepClock


@pytest.fixture
def engine(tmp_path: Path, clock: StepClock) -> Iterator[MemoryEngine]:
    e = MemoryEngine.open(tmp_path / "home", "acme", clock=clock, embedder="hashing")
    yield e
    e.close()
