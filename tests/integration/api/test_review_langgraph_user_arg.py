"""Review S16-R5: the LangGraph store takes its ``user`` unchecked.

``MemvaultStore(home, user=" alice ")`` wrote Alice's items under "alice" (the write path
trims a user id, ``clean_user_id``) but read with " alice ": ``get`` and ``search`` never
found them, and each later ``put`` of the key wrote another copy. ``user=5`` (an int id)
was taken for "no user": the store wrote shared memories, which every user's store reads.
Every other entry point trims a user id and refuses one that is not text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.errors import ValidationFailed
from memvault.integrations.langgraph_store import MemvaultStore

NOTE = {"content": "Dana prefers tea"}


def test_a_padded_user_reads_what_it_wrote(tmp_path: Path) -> None:
    with MemvaultStore(tmp_path, user=" dana ") as store:
        store.put(("prefs",), "drink", NOTE)
        store.put(("prefs",), "drink", {"content": "Dana prefers green tea"})
        item = store.get(("prefs",), "drink")
        assert item is not None and item.value["content"] == "Dana prefers green tea"
        assert [i.key for i in store.search(("prefs",))] == ["drink"]  # one item, not two
    with MemvaultStore(tmp_path, user="dana") as store:
        assert store.get(("prefs",), "drink") is not None


@pytest.mark.parametrize("user", [5, "   ", ""])
def test_a_user_that_is_no_user_id_is_refused_at_once(tmp_path: Path, user: Any) -> None:
    with pytest.raises(ValidationFailed):
        MemvaultStore(tmp_path, user=user)
    with MemvaultStore(tmp_path, user="sam") as other:
        assert other.search(()) == []  # nothing was written as a shared memory
