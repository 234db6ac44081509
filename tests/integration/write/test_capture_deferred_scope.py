"""Capture's deferred candidates wait for their own agent, project, user, conversation (S11-R2).

The per-turn cap defers what does not fit to the next turn. The waiting list was keyed by (user,
conversation) only: agent "helper" capturing Alice's next turn in project p2 stored what agent
"planner" had deferred in p1, as its own. It is keyed by all four now, and bounded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.engine._grant import Grant
from memvault.write import capture as capture_module

TURN = (
    "My goal is to run a marathon in April. I need to renew my passport by Friday. "
    "I decided to move the launch to May. I work at Globex as a data engineer. "
    "I prefer tea over coffee. My deadline for the report is Monday."
)


def test_a_deferred_candidate_waits_for_its_own_agent_and_project(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        planner = engine.as_caller(Grant("planner"))
        helper = engine.as_caller(Grant("helper"))
        first = planner.capture_message({"text": TURN, "user_id": "alice"}, project_id="p1")
        deferred = [c for c in first.candidates if c.detector == "cap.per_turn"]
        assert deferred, "precondition: the turn has more candidates than the per-turn cap"
        second = helper.capture_message(
            {"text": "I like jazz.", "user_id": "alice"}, project_id="p2"
        )
        texts = {c.content for c in deferred}
        assert not texts & {c.content for c in second.candidates}, (
            "helper was handed planner's turn"
        )
        for node in engine.list_memories({"user_id": "alice"}, limit=100):
            if node.content in texts:
                assert (node.agent_id, node.project_id) == ("planner", "p1"), (
                    node.content,
                    node.agent_id,
                    node.project_id,
                )


def test_the_waiting_lists_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A conversation that never speaks again does not keep its list forever."""
    monkeypatch.setattr(capture_module, "_DEFER_KEYS", 2)
    with MemoryEngine.open(tmp_path, "acme") as engine:
        for n in range(4):
            engine.capture_message({"text": TURN, "user_id": f"u{n}", "conversation_id": f"c{n}"})
        pipeline = engine.capture
        waiting = list(pipeline._deferred)
        assert len(waiting) == 2
        assert [key[3] for key in waiting] == ["c2", "c3"]  # the oldest went first
