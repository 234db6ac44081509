"""Review (session 9): the engine's per-user lifecycle calls check their user id.

``export_user``, ``forget_user`` and ``propose_insights`` are public entry points
(the library's right of access and right to erasure), yet a blank or non-text user
id escaped as pydantic's raw ``ValidationError`` from ``NodeFilter`` (not the
library's ``ValidationFailed``), and a padded id was echoed in the export header and
the erasure report (``' dana '``) while every other entry point trims it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, NewMemory
from memvault.errors import ValidationFailed
from memvault.model.enums import StopReason


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    e = MemoryEngine.open(tmp_path, "acme", embedder=None)
    e.add(
        NewMemory(
            content="Prefers tea",
            type="Preference",
            category="PREFERENCE",
            source_kind="USER_EXPLICIT",
            user_id="dana",
        )
    )
    yield e
    e.close()


@pytest.mark.parametrize("user", ["", "   ", 5, None, "x" * 129])
def test_a_bad_user_id_is_schema_invalid(engine: MemoryEngine, user: Any) -> None:
    for call in (
        lambda: list(engine.export_user(user)),
        lambda: engine.forget_user(user),
        lambda: engine.propose_insights(user),
    ):
        with pytest.raises(ValidationFailed) as caught:
            call()
        assert caught.value.stop_reason is StopReason.SCHEMA_INVALID
    assert len(engine.list_memories({"user_id": "dana"})) == 1  # nothing erased


def test_a_padded_user_id_is_the_user(engine: MemoryEngine) -> None:
    records = list(engine.export_user(" dana "))
    assert records[0]["user_id"] == "dana"
    assert [r["record"] for r in records].count("memory") == 1
    report = engine.forget_user(" dana ")
    assert report.user_id == "dana" and report.memories_purged == 1
