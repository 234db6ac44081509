"""REVIEW S14-R7: a LangGraph put under a key with a control character is kept under that key.

8eba27c refused a put under an empty or blank key (memvault's "no key"). A key holding
a control character ("a\\x07b", an ANSI colour code from a log line) is accepted, the
write path strips the control character, and the item lands under another key
("ab", or the text's slug when nothing is left): the put returns as if it had worked,
``get`` under the key that was put finds nothing, a delete under it deletes nothing,
and the item shadows (or is shadowed by) whatever sits at the stripped key. Expected:
kept under the key as put, or refused (SCHEMA_INVALID) like a blank key — never moved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore

NOTE = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}


@pytest.mark.parametrize("key", ["a\x07b", "build\x1b[0m", "\x07"])
def test_an_item_is_found_under_the_key_it_was_put_under_or_refused(
    tmp_path: Path, key: str
) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        try:
            store.put(("logs",), key, {**NOTE, "content": "The nightly job finished green"})
        except WriteRefusedError:
            assert store.search(("logs",)) == []  # refused: nothing kept elsewhere
            return
        got = store.get(("logs",), key)
        assert got is not None and got.key == key, [i.key for i in store.search(("logs",))]


def test_a_tab_or_newline_in_a_key_is_kept(tmp_path: Path) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        for key in ("col\tone", "line\n"):
            store.put(("logs",), key, {**NOTE, "content": "The nightly job finished green"})
            got = store.get(("logs",), key)
            assert got is not None and got.key == key
