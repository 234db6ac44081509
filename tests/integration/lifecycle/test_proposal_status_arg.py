"""An unknown proposal status is the library's error, not a bare ValueError."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import Grant, MemoryEngine
from memvault.errors import ValidationFailed


def test_an_unknown_proposal_status_is_schema_invalid(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        for who in (engine, engine.as_caller(Grant("svc"))):
            with pytest.raises(ValidationFailed) as refused:
                who.proposals(status="nope")
            assert refused.value.stop_reason.value == "SCHEMA_INVALID"
            assert "pending" in str(refused.value.errors)
        assert engine.proposals(status="pending") == []
