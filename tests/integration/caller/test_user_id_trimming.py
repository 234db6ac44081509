"""A user id names its user without surrounding whitespace, at every entry point."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError as PydanticError

from memvault.access import AccessControl, Principal
from memvault.config import load_config
from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import AccessDeniedError, ConfigError, ValidationFailed
from memvault.results import WriteResult

TEA = {
    "content": "Prefers oolong tea",
    "type": "Preference",
    "category": "PREFERENCE",
    "source_kind": "USER_EXPLICIT",
}


def test_library_writes_reads_and_captures_trim_the_user(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        stored = engine.add(NewMemory(**TEA, user_id="  dana\t"))
        assert stored.ok and engine.get(str(stored.memory_id)).node.user_id == "dana"
        captured = engine.capture_message({"text": "I prefer tabs over spaces", "user_id": "dana "})
        assert [c.outcome.value for c in captured.candidates] == ["stored"]
        assert len(engine.list_memories({"user_id": "dana"})) == 2  # one user, not two
        assert engine.bulletin(user=" dana ").to_json() == engine.bulletin(user="dana").to_json()
        cases = {"": "SCHEMA_INVALID", "   ": "SCHEMA_INVALID", " \t\n": "SCHEMA_INVALID"}
        for bad, reason in {**cases, "x" * 129: "BOUNDS_EXCEEDED"}.items():
            with pytest.raises(PydanticError):
                NewMemory(**TEA, user_id=bad)
            refused = engine.new_memory({**TEA, "user_id": bad})
            assert isinstance(refused, WriteResult) and refused.stop_reason.value == reason
        with pytest.raises(ValidationFailed, match=r"message\.user_id is not a user id"):
            engine.capture_message({"text": "I prefer tabs", "user_id": "  "})


def test_a_bound_grant_reads_and_writes_its_padded_user_as_itself(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        dana = engine.as_caller(Grant("app", user="dana"))
        assert dana.add(NewMemory(**TEA, user_id="dana ")).ok  # not "another user"
        assert dana.bulletin(user=" dana").to_json()["revision"] >= 1
        with pytest.raises(AccessDeniedError):
            dana.bulletin(user="eli ")


def test_a_key_minted_for_a_padded_user_is_bound_to_that_user(tmp_path: Path) -> None:
    control = AccessControl(tmp_path, load_config(environ={}))
    try:
        _token, record = control.keys.create("acme", "app", user=" dana ")
        assert record.user == "dana"
        with pytest.raises(ConfigError):
            control.keys.create("acme", "app", user=" \t ")
        assert Principal("acme", "app", record.key_id, user=record.user).user == "dana"
    finally:
        control.close()
