"""Review (session 9): a filter list mixing text with another type is a clear error.

``NodeFilter``'s before-validator sorted a list of values (``as_tuple``) to compare
filters alike; ``["PREFERENCE", 3]`` (or a ``None`` in the list) raised a bare
``TypeError`` from the sort — pydantic passes a TypeError through, unlike a
ValueError — so ``list_memories``, ``search``, ``count_memories`` and memory.query's
``filters`` (MCP ``memory_query`` takes them as a free-form object) crashed instead
of answering SCHEMA_INVALID.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, NewMemory, NodeFilter
from memvault.errors import ValidationFailed
from memvault.model.enums import StopReason


@pytest.mark.parametrize(
    "values", [["PREFERENCE", 3], ["PREFERENCE", None], [{"a": 1}, {"b": 2}], ["Fact", 1.5]]
)
def test_a_mixed_filter_list_is_schema_invalid(tmp_path: Path, values: list[Any]) -> None:
    engine = MemoryEngine.open(tmp_path, "acme", embedder=None)
    try:
        engine.add(
            NewMemory(
                content="Prefers tea",
                type="Preference",
                category="PREFERENCE",
                source_kind="USER_EXPLICIT",
            )
        )
        key = "type" if "Fact" in values else "category"
        for call in (
            lambda: engine.list_memories({key: values}),
            lambda: engine.count_memories({key: values}),
            lambda: engine.search("tea", filters={key: values}),
            lambda: engine.memory_query({"query": "tea", "agent": "a", "filters": {key: values}}),
        ):
            with pytest.raises(ValidationFailed) as caught:
                call()
            assert caught.value.stop_reason is StopReason.SCHEMA_INVALID
    finally:
        engine.close()


def test_filters_listed_in_any_order_are_still_equal() -> None:
    assert NodeFilter(category=["TODO", "GOAL"]) == NodeFilter(category=["GOAL", "TODO"])
    assert hash(NodeFilter(type=["Fact", "Event"])) == hash(NodeFilter(type=("Event", "Fact")))
