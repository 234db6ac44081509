"""Review S16-R2: a LangGraph value's object keys, and its short named fields, are never
read as words by the heads.

Since S15-R2 the heads read what a value adds beside its text
(``policy.checks_content.value_adds``): each string *value* of the JSON of three plain
words or more. A JSON object's *keys* are never read, and a field of one or two words
is skipped even when its name says what it is: ``{"Mia takes lithium for her bipolar
disorder": true}`` and ``{"diagnosis": "bipolar disorder"}`` are stored and handed back
by ``get`` / ``search``, while the text "diagnosis: bipolar disorder" is
FORBIDDEN_CATEGORY (classifier.health) and the sentence as a string field is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine, NewMemory
from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore
from memvault.model.enums import StopReason

SENTENCE = "Mia takes lithium for her bipolar disorder"


@pytest.mark.parametrize(
    "extra",
    [{SENTENCE: True}, {"diagnosis": "bipolar disorder"}, {"status": "HIV positive"}],
    ids=["object key", "named field", "named status"],
)
def test_a_value_field_the_text_would_refuse_is_refused(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        with pytest.raises(WriteRefusedError) as refused:
            store.put(("team",), "notes", {"content": "Team notes", **extra})
        assert refused.value.stop_reason is StopReason.FORBIDDEN_CATEGORY
        assert store.get(("team",), "notes") is None


def test_the_sentence_as_a_string_field_is_refused(tmp_path: Path) -> None:
    """The near miss: the same words as a field's value are read (S15-R2)."""
    value = {"content": "Team notes", "note": SENTENCE + "."}
    with MemvaultStore(tmp_path, orchestrator="acme") as store, pytest.raises(WriteRefusedError):
        store.put(("team",), "notes", value)


def test_ordinary_short_fields_are_kept(tmp_path: Path) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        value = {"content": "Team notes", "status": "done", "owner": "Mia", "Sprint 12": True}
        store.put(("team",), "notes", value)
        item = store.get(("team",), "notes")
        assert item is not None and item.value == value


@pytest.mark.parametrize(
    ("content", "value"),
    [("Dana", "Dana: HIV positive"), ("Team notes", "Team notes, HIV positive")],
)
def test_a_wrapping_value_the_text_would_refuse_is_refused(
    tmp_path: Path, content: str, value: str
) -> None:
    """``add`` with a value that wraps the text: the heads read only the remainder, and a
    remainder of fewer than three plain words not at all — "Dana: HIV positive" as a text
    is FORBIDDEN_CATEGORY (classifier.health 0.993)."""
    fields = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}
    with MemoryEngine.open(tmp_path, "acme") as engine:
        result = engine.add(NewMemory(content=content, value=value, **fields))
        assert result.stop_reason is StopReason.FORBIDDEN_CATEGORY
        as_text = engine.add(NewMemory(content=value, **fields))
        assert as_text.stop_reason is StopReason.FORBIDDEN_CATEGORY  # the near miss


def test_an_ordinary_wrapping_value_is_kept(tmp_path: Path) -> None:
    fields = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}
    with MemoryEngine.open(tmp_path, "acme") as engine:
        assert engine.add(NewMemory(content="Dana", value="Dana: team lead", **fields)).ok
