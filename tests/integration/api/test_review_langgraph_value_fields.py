"""Review S15-R2: a LangGraph item's other value fields are judged by neither the heads
nor (quoted as JSON) the sentence detectors.

An item is one memory: its text is ``value["content"]`` (or the indexed fields), its
``value`` the JSON envelope of the whole value, which ``get`` and ``search`` hand back to
the LangGraph application verbatim. The gate's learned heads skip a value that contains
the text ("a value that wraps the text"), and the health detector does not read a
sentence inside JSON quotes, so a sentence the gate refuses as a memory's text is
stored as a second field of the same item and read back by the agent. Fixed: the heads
read what a value adds to the text it wraps (``policy.checks_content.value_adds``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore

NOTE = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
#: refused as a memory's text (the first by the health detector, the second by the
#: inferred-profiling head); written for this test
REFUSED = [
    "Mia takes lithium for her bipolar disorder.",
    "Erik is probably depressed judging by how he writes.",
]


@pytest.mark.parametrize("sentence", REFUSED)
def test_an_item_holding_it_in_another_field_is_refused(tmp_path: Path, sentence: str) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        try:
            store.put(("team",), "said", {**NOTE, "content": sentence})
        except WriteRefusedError:
            pass  # refused as the item's text, as the test needs
        else:  # a retrain stopped refusing it: the test has nothing to show
            pytest.skip(f"no longer refused as a text: {sentence!r}")
        with pytest.raises(WriteRefusedError):
            store.put(("team",), "notes", {**NOTE, "content": "Team notes", "note": sentence})
        assert store.get(("team",), "notes") is None
