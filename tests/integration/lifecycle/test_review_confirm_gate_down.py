"""Review S16-R8: confirming a proposal while the gate cannot judge loses the user's consent.

S14-R10 kept a proposal pending when a confirmation was refused for a reason that says
nothing about it (POLICY_DISABLED, ENTITLEMENT_CAP). A gate that cannot judge — its
weights missing or altered, an exception: fail closed, INTERNAL_INCONSISTENCY — is such
a reason too, but it ends the proposal ``refused``: once the gate is repaired the same
confirmation answers "already decided", and the consent the user gave is gone.
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp
from memvault.model.node import MemoryNode
from tests.integration.lifecycle.test_review_confirm_disabled import pending_proposal


class _Down:
    """A gate that cannot judge (the engine fails closed around it)."""

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None = None) -> Decision:
        raise RuntimeError("the gate's weights could not be read")


def test_a_confirmation_the_gate_could_not_judge_leaves_the_proposal_pending(
    tmp_path: Path,
) -> None:
    proposal = pending_proposal(tmp_path)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, gate=_Down()) as engine:
        answer = engine.confirm_proposal(proposal)
        assert answer.stop_reason.value == "INTERNAL_INCONSISTENCY", answer
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        assert [p.status for p in engine.proposals(user_id="dana")] == ["pending"]
        assert engine.confirm_proposal(proposal).ok  # today: ProposalError, already decided
