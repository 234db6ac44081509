"""Review of d68832f (user ids trimmed at every entry point): the write trims, the read
filter does not, so the same caller id no longer meets its own memory."""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine, NewMemory


def test_a_memory_written_for_dana_space_is_found_by_the_same_id(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        added = engine.add(
            NewMemory(content="Prefers green tea in the morning", type="Preference",
                      category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana ")
        )  # fmt: skip
        assert added.ok
        # at 29bff62 both found it (stored and filtered as 'dana '); on main only 'dana' does
        assert len(engine.list_memories({"user_id": "dana"})) == 1
        assert len(engine.list_memories({"user_id": "dana "})) == 1


def test_memory_query_filters_trim_the_user_id_and_refuse_a_blank_one(tmp_path: Path) -> None:
    import pytest

    from memvault.errors import ValidationFailed
    from memvault.model.enums import StopReason

    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        engine.add(
            NewMemory(content="Prefers green tea in the morning", type="Preference",
                      category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana")
        )  # fmt: skip
        for user in ("dana", "dana ", "\tdana"):
            found = engine.memory_query(
                {"agent": "planner", "query": "green tea", "filters": {"user_id": user}}
            )
            assert len(found.to_json()["results"]) == 1, user
        assert engine.proposals(user_id="dana ") == []  # trimmed, not refused
        for blank in ("  ", ""):
            with pytest.raises(ValidationFailed) as caught:
                engine.list_memories({"user_id": blank})
            assert caught.value.stop_reason is StopReason.SCHEMA_INVALID
