"""REVIEW S14-R10: confirming a proposal while memory is switched off loses the user's consent.

With ``memory.enabled = false`` (ef93b23) ``confirm_proposal`` answers POLICY_DISABLED —
and records the proposal as decided: status ``refused``, outcome POLICY_DISABLED. Once
memory is switched on again, the same confirmation is refused "already decided
(refused)": the consent the user gave is gone, and a capture or consolidation proposal
(the user's own statement awaiting consent) cannot be asked again. POLICY_DISABLED
decides nothing (an ingest pass leaves the drop folder as it is); the proposal should
stay pending.
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine


def pending_proposal(home: Path) -> str:
    """A proposal of Dana's awaiting her consent (shared by the review's consent tests)."""
    with MemoryEngine.open(home, "acme", embedder=None) as engine:
        queued = engine.propose(
            "Dana prefers written agendas before meetings",
            user_id="dana",
            type="Preference",
            category="PREFERENCE",
        )
        assert queued.proposal_id is not None, queued
        return queued.proposal_id


def test_a_confirmation_refused_by_the_switch_leaves_the_proposal_pending(
    tmp_path: Path,
) -> None:
    proposal = pending_proposal(tmp_path)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, memory_enabled=False) as engine:
        answer = engine.confirm_proposal(proposal)
        assert answer.stop_reason.value == "POLICY_DISABLED", answer
        assert [p.status for p in engine.proposals(user_id="dana")] == ["pending"]
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        assert engine.confirm_proposal(proposal).ok


def test_a_confirmation_with_memory_on_stores_the_proposal(tmp_path: Path) -> None:
    proposal = pending_proposal(tmp_path)
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        assert engine.confirm_proposal(proposal).ok
