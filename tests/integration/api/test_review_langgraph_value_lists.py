"""Review S17-R8: a LangGraph value's short list items and joined object keys are read by no head.

S16-R2's fix (ee76a19) reads a scalar field of one or two words as "key: value":
``{"diagnosis": "bipolar disorder"}`` and ``{"status": "HIV positive"}`` are refused. The
same words as a one-item list — ``{"diagnosis": ["bipolar disorder"]}``, ``{"status": ["HIV
positive"]}`` — are stored, and ``get`` / ``search`` hand them back. An object key of words
joined by ``_`` is read as one token: ``{"mia_has_hiv": true}`` is stored, where the same
string as a memory's key is refused (S15-R3b).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore

REFUSED = {
    "list of one": {"content": "Team notes", "diagnosis": ["bipolar disorder"]},
    "list of two": {"content": "Team notes", "diagnoses": ["bipolar disorder", "HIV positive"]},
    "status list": {"content": "Team notes", "status": ["HIV positive"]},
    "joined key": {"content": "Team notes", "mia_has_hiv": True},
}


@pytest.mark.parametrize("value", REFUSED.values(), ids=REFUSED.keys())
def test_short_fields_in_a_list_and_joined_keys_are_judged(
    tmp_path: Path, value: dict[str, Any]
) -> None:
    with MemvaultStore(tmp_path, user="dana") as store, pytest.raises(WriteRefusedError):
        store.put(("notes",), "mia", value)


@pytest.mark.parametrize(
    "value",
    [
        {"content": "Team notes", "tags": ["backend", "on call"]},
        {"content": "Team notes", "owners": ["Mia", "Dana"], "reviewed": True},
    ],
    ids=["tags", "owners"],
)
def test_ordinary_lists_and_flags_are_stored(tmp_path: Path, value: dict[str, Any]) -> None:
    """The near misses: enums and names in a list, a flag of one word."""
    with MemvaultStore(tmp_path, user="dana") as store:
        store.put(("notes",), "team", value)
        assert store.get(("notes",), "team") is not None


def test_the_scalar_field_is_refused(tmp_path: Path) -> None:
    """What S16-R2's fix refuses today."""
    with MemvaultStore(tmp_path, user="dana") as store, pytest.raises(WriteRefusedError):
        store.put(("notes",), "mia", {"content": "Team notes", "diagnosis": "bipolar disorder"})
