"""Per-category context modes (spec §5): ``all`` always handed over, ``rag`` capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.config import load_config
from memvault.engine import MemoryEngine
from memvault.errors import ConfigError
from tests.helpers import add_fields

FACT = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT", "user_id": "dana"}
PREF = {"type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"}


def _engine(tmp_path: Path, categories: dict[str, object]) -> MemoryEngine:
    config = load_config(
        tmp_path,
        overrides={"embedder": {"name": "hashing"}, "policy": {"categories": categories}},
        environ={},
    )
    engine = MemoryEngine.open(tmp_path, "acme", config=config)
    assert add_fields(engine, "Dana prefers short answers", **{**PREF, "user_id": "dana"}).ok
    for city in ("Lisbon", "Porto", "Faro"):
        assert add_fields(engine, f"The Kubernetes cluster runs in {city}", **FACT).ok
    return engine


def _ids_by_category(engine: MemoryEngine) -> dict[str, int]:
    result = engine.memory_query(
        agent="supervisor", query="Kubernetes cluster", top_k=10, user="dana"
    )
    counts: dict[str, int] = {}
    for item in result.items:
        counts[item.node.category] = counts.get(item.node.category, 0) + 1
    return counts


def test_without_modes_recall_decides(tmp_path: Path) -> None:
    with _engine(tmp_path, {}) as engine:
        assert _ids_by_category(engine) == {"KNOWLEDGE": 3}


def test_all_is_always_there_and_rag_length_caps(tmp_path: Path) -> None:
    modes = {"preference": {"context": "all"}, "KNOWLEDGE": {"context": "rag", "rag_length": 2}}
    with _engine(tmp_path, modes) as engine:
        result = engine.memory_query(
            agent="supervisor", query="Kubernetes cluster", top_k=10, user="dana"
        )
        assert result.items[0].node.category == "PREFERENCE"
        assert result.omitted["rag_length"] >= 1
        # The "all" category is there though recall does not find it; KNOWLEDGE stops at 2.
        assert _ids_by_category(engine) == {"PREFERENCE": 1, "KNOWLEDGE": 2}
        # An "all" category the caller did not ask for stays out.
        asked = engine.memory_query(
            agent="supervisor", query="Kubernetes", categories=["KNOWLEDGE"], top_k=10, user="dana"
        )
        assert {i.node.category for i in asked.items} == {"KNOWLEDGE"}


def test_bad_modes_fail_at_load(tmp_path: Path) -> None:
    for bad in (
        {"PREFERENCE": {"context": "everything"}},
        {"PREFERENCE": {"context": "all", "rag_length": 3}},
        {"PREFERENCE": {"context": "rag", "rag_length": 0}},
        {"PREFERENCE": {"mode": "rag"}},
    ):
        with pytest.raises(ConfigError, match=r"policy\.categories"):
            load_config(tmp_path, overrides={"policy": {"categories": bad}}, environ={})
