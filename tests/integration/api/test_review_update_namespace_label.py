"""Review S16-R1: an update of a memory's ``value`` never judges the namespace labels it sets.

A LangGraph item's namespace lives in its value's envelope; since S15-R5 each label is
judged like a provenance id, but only when the memory is stored
(``Building._judged_ids`` runs on STORE). ``update(value=…)`` — ``memvault update
--value``, ``PATCH /v1/memories/{id}`` — writes an envelope whose label is "dana_has_hiv"
or an SSN joined by "_": the pattern detectors read the JSON as one token, the heads skip
a label, and ``list_namespaces``, ``get`` and ``search`` hand the label back. The same
label in a ``put`` is FORBIDDEN_CATEGORY.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault.engine import MemoryEngine, MemoryPatch
from memvault.integrations.langgraph_store import MemvaultStore
from memvault.model.enums import StopReason

TEXT = "Team notes for the weekly sync"


@pytest.mark.parametrize("label", ["dana_has_hiv", "ssn_078_05_1120"])
def test_a_label_set_by_an_update_is_judged_as_a_put_judges_it(tmp_path: Path, label: str) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        store.put(("team",), "notes", {"content": TEXT})
        stored = store._find(("team",), "notes")
        assert stored is not None
        target = stored.node.memory_id
    envelope = {"namespace": [label], "value": {"content": TEXT}, "indexed": True}
    with MemoryEngine.open(tmp_path, "acme") as engine:
        patch = MemoryPatch(value=json.dumps(envelope))
        result = engine.update(target, patch)
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        assert store.list_namespaces() == [("team",)]  # today: [(label,)]
    assert result.stop_reason is StopReason.FORBIDDEN_CATEGORY


def test_an_ordinary_label_set_by_an_update_is_kept(tmp_path: Path) -> None:
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        store.put(("team",), "notes", {"content": TEXT})
        stored = store._find(("team",), "notes")
        assert stored is not None
    envelope = {"namespace": ["team_archive"], "value": {"content": TEXT}, "indexed": True}
    with MemoryEngine.open(tmp_path, "acme") as engine:
        assert engine.update(stored.node.memory_id, MemoryPatch(value=json.dumps(envelope))).ok
    with MemvaultStore(tmp_path, orchestrator="acme") as store:
        assert store.list_namespaces() == [("team_archive",)]
