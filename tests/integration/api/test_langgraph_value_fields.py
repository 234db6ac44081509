"""A value that wraps a memory's text is read by the heads for what it adds (review S15-R2).

A LangGraph item's other fields ({"content": "Team notes", "note": "<a sentence>"}) are
handed back to the agent with the memory. The learned heads skipped any value that
contained the text, so a sentence only the heads refuse was stored in a neighbouring field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore
from memvault.write.spec import NewMemory

NOTE = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
PROFILING = "Erik is probably depressed judging by how he writes."


def test_a_sentence_in_another_field_of_an_item_is_refused(tmp_path: Path) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        with pytest.raises(WriteRefusedError, match="FORBIDDEN_CATEGORY"):
            store.put(("team",), "notes", {**NOTE, "content": "Team notes", "note": PROFILING})
        assert store.get(("team",), "notes") is None


@pytest.mark.parametrize(
    "note", ["Bring the projector and the spare HDMI cable.", "The retro moved to Thursday."]
)
def test_ordinary_fields_beside_the_text_are_stored(tmp_path: Path, note: str) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        store.put(("team",), "notes", {**NOTE, "content": "Team notes", "note": note})
        item = store.get(("team",), "notes")
        assert item is not None and item.value["note"] == note


def test_a_plain_value_that_wraps_the_text_is_judged_for_what_it_adds(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        refused = engine.add(
            NewMemory(content="Team notes", value=f"Team notes. {PROFILING}", **NOTE)
        )
        stored = engine.add(
            NewMemory(
                content="Team notes", value="Team notes. The retro moved to Thursday.", **NOTE
            )
        )
    assert refused.stop_reason.value == "FORBIDDEN_CATEGORY", refused
    assert stored.ok, stored
