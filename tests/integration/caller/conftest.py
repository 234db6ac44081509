"""The caller façade's tests: an engine without an embedder, and two categories' fields."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine

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


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[MemoryEngine]:
    e = MemoryEngine.open(tmp_path, "acme", embedder=None)
    yield e
    e.close()
