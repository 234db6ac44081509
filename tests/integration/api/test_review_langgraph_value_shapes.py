"""Review S18-R2: a LangGraph value's fields in other shapes are read by no head.

S17-R8's fix (8190441) reads a list of scalars as "name: item, item" and an object key's
words joined by "_" or "-" spaced out. The same words in the next shape are stored and
handed back by ``get`` / ``search``: a flag key in camelCase or joined by dots
(``{"miaHasHiv": true}``), a list in a list (``{"diagnosis": [["bipolar disorder"]]}``), an
object named by its key (``{"diagnosis": {"primary": "bipolar disorder"}}``), a joined key
as a list item (``{"flags": ["mia_has_hiv"]}``), and a field of one word beside its name
(``{"diagnosis": "schizophrenia"}``, ``{"status": "HIV+"}``: under the three-words floor).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore

REFUSED = {
    "camel flag": {"content": "Team notes", "miaHasHiv": True},
    "dotted flag": {"content": "Team notes", "mia.has.hiv": True},
    "list in a list": {"content": "Team notes", "diagnosis": [["bipolar disorder"]]},
    "named object": {"content": "Team notes", "diagnosis": {"primary": "bipolar disorder"}},
    "joined list item": {"content": "Team notes", "flags": ["mia_has_hiv"]},
    "one word": {"content": "Team notes", "diagnosis": "schizophrenia"},
    "one token": {"content": "Team notes", "status": "HIV+"},
}


@pytest.mark.parametrize("value", REFUSED.values(), ids=REFUSED.keys())
def test_sensitive_fields_in_other_shapes_are_judged(tmp_path: Path, value: dict[str, Any]) -> None:
    with MemvaultStore(tmp_path, user="dana") as store, pytest.raises(WriteRefusedError):
        store.put(("notes",), "mia", value)


def test_the_shapes_s17_r8_reads_are_refused(tmp_path: Path) -> None:
    """The same words in the shapes read today: a flag joined by "_", a named object's key."""
    with MemvaultStore(tmp_path, user="dana") as store:
        for value in ({"mia_has_hiv": True}, {"health": {"diagnosis": "bipolar disorder"}}):
            with pytest.raises(WriteRefusedError):
                store.put(("notes",), "mia", {"content": "Team notes", **value})


@pytest.mark.parametrize(
    "value",
    [
        {"content": "Team notes", "isReviewed": True, "status": "done"},
        {"content": "Team notes", "owners": [["Mia", "Dana"]], "meta": {"kind": "weekly"}},
        {"content": "Team notes", "flags": ["needs_review"], "type": "Fact"},
    ],
    ids=["camel flag and status", "nested names", "joined tag"],
)
def test_ordinary_fields_in_the_same_shapes_are_stored(
    tmp_path: Path, value: dict[str, Any]
) -> None:
    """Near misses: the same shapes holding what every agent's notes hold."""
    with MemvaultStore(tmp_path, user="dana") as store:
        store.put(("notes",), "team", value)
        item = store.get(("notes",), "team")
        assert item is not None and item.value == value
