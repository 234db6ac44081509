"""An erasure reaches capture's deferred candidates (review S12-R2).

Capture keeps the statements the per-turn cap deferred in memory until the
conversation's next turn; ``forget_user`` did not reach that list, so the erased
user's next turn ("Hi there.") wrote them back, in this process or in a server while
``memvault forget`` ran in another.
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine

TURN = (
    "My goal is to run a marathon in April. I need to renew my passport by Friday. "
    "I decided to move the launch to May. I work at Globex as a data engineer. "
    "I prefer tea over coffee. My deadline for the report is Monday."
)


def test_an_erased_users_deferred_statements_are_not_written_later(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        turn = {"text": TURN, "user_id": "alice", "conversation_id": "c1"}
        first = engine.capture_message(turn)
        deferred = {c.content for c in first.candidates if c.detector == "cap.per_turn"}
        assert deferred, "precondition: the turn has more candidates than the per-turn cap"
        report = engine.forget_user("alice")
        assert report.remaining == 0
        assert report.cleaned["deferred"] == len(deferred)
        engine.capture_message({"text": "Hi there.", "user_id": "alice", "conversation_id": "c1"})
        stored = {n.content for n in engine.list_memories({"user_id": "alice"}, limit=100)}
        assert not stored & deferred, f"written back after the erasure: {sorted(stored & deferred)}"


def test_an_erasure_by_another_engine_on_the_same_home_is_honoured(tmp_path: Path) -> None:
    """The deployment case: a server holds the list; `memvault forget --user` runs elsewhere
    (here: another engine on the same home, sharing nothing in memory with the server's)."""
    server = MemoryEngine.open(tmp_path, "acme")
    try:
        first = server.capture_message({"text": TURN, "user_id": "alice", "conversation_id": "c1"})
        deferred = {c.content for c in first.candidates if c.detector == "cap.per_turn"}
        assert deferred
        with MemoryEngine.open(tmp_path, "acme") as cli:
            assert cli.forget_user("alice").remaining == 0
        server.capture_message({"text": "Hi there.", "user_id": "alice", "conversation_id": "c1"})
        stored = {n.content for n in server.list_memories({"user_id": "alice"}, limit=100)}
        assert not stored & deferred, f"written back after the erasure: {sorted(stored & deferred)}"
    finally:
        server.close()
