"""Every judgement of content has the inputs ``add`` gives it (one text, one decision).

``WritePipeline.update`` judged the changed node without its content's vector, so
English text got the learned layer's n-gram heads alone while ``add`` hands the gate
the MiniLM vector (the full heads): a text ``add`` refused was stored by adding
something harmless and changing its content (review R7, a governance bypass). A
restore, a consent proposal and its confirmation judged without the vector too.
The sentences are flagged by the full heads and not by the n-gram heads (as in
tests/integration/ingest/test_governance.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import MemoryEngine, MemoryPatch, NewMemory
from memvault.model.enums import StopReason
from memvault.write.spec import OpenGate

SENTENCES = (
    "Julia is at the mosque every Friday afternoon, so she leaves early.",
    "I've been feeling really low since the breakup.",
)

HARMLESS = "The standup is at nine on weekdays."


def _new(text: str) -> NewMemory:
    return NewMemory(content=text, type="Fact", category="KNOWLEDGE", source_kind="USER_EXPLICIT")


@pytest.mark.parametrize("text", SENTENCES)
def test_update_refuses_what_add_refuses(tmp_path: Path, text: str) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        assert engine.embedder is not None
        added = engine.add(_new(text))
        assert not added.ok  # the full heads refuse it
        base = engine.add(_new(HARMLESS))
        assert base.ok and base.memory_id is not None
        updated = engine.update(base.memory_id, MemoryPatch(content=text))
        assert (updated.stop_reason, updated.detector) == (added.stop_reason, added.detector)
        assert engine.get(base.memory_id).node.content == HARMLESS
        # an allowed update still stores the new content's vector (the one judged)
        ok = engine.update(base.memory_id, MemoryPatch(content="The standup is at ten now."))
        assert ok.ok
        assert not engine.store.missing_embeddings("acme", engine.embedder.model_id, limit=5)


def test_restore_judges_the_stored_content_as_add_does(tmp_path: Path) -> None:
    text = SENTENCES[0]
    with MemoryEngine.open(tmp_path, "acme") as engine:
        refused = engine.add(_new(text))
        assert not refused.ok
        gate = engine.gate
        engine.gate = OpenGate()  # stored while content governance was off
        stored = engine.add(_new(text))
        assert stored.ok and stored.memory_id is not None
        assert engine.delete(stored.memory_id).ok
        engine.gate = gate
        restored = engine.restore(stored.memory_id)
        assert (restored.stop_reason, restored.detector) == (refused.stop_reason, refused.detector)
        assert engine.get(stored.memory_id, include_deleted=True).node.status.value == (
            "soft_deleted"
        )


def test_a_proposal_and_its_confirmation_are_judged_as_add_does(tmp_path: Path) -> None:
    text = SENTENCES[1]
    fields = {"type": "Fact", "category": "KNOWLEDGE"}
    with MemoryEngine.open(tmp_path, "acme") as engine:
        refused = engine.add(_new(text))
        assert not refused.ok
        proposed = engine.propose(text, user_id="dana", **fields)
        assert (proposed.stop_reason, proposed.detector) == (refused.stop_reason, refused.detector)
        assert proposed.proposal_id is None and not engine.proposals(user_id="dana")
        gate = engine.gate
        engine.gate = OpenGate()  # queued while content governance was off
        queued = engine.propose(text, user_id="dana", **fields)
        assert queued.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT
        assert queued.proposal_id is not None
        engine.gate = gate
        confirmed = engine.confirm_proposal(queued.proposal_id)
        assert (confirmed.stop_reason, confirmed.detector) == (
            refused.stop_reason,
            refused.detector,
        )
        assert engine.count_memories() == 0
