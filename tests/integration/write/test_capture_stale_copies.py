"""Capture never writes an erased user's deferred words back, nor a merge from a stale copy.

- Review S12-R2: the statements the per-turn cap deferred waited in memory for the
  conversation's next turn; ``forget_user`` (in this process or in another one on the
  same home, the deployment case) purged the store, and the next turn — "Hi there." —
  stored them again. A deferred list now remembers the memories its turn wrote and
  is dropped when none of them is stored any more.
- A merge rewrote the memory from the copy capture had read: an edit committed in
  between was overwritten. The merge now carries ``WriteSet.expected``; the store
  rolls it back and capture resolves the candidate again on a fresh read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memvault.engine import MemoryEngine

TURN = (
    "My goal is to run a marathon in April. I need to renew my passport by Friday. "
    "I decided to move the launch to May. I work at Globex as a data engineer. "
    "I prefer tea over coffee. My deadline for the report is Monday."
)


def _deferred(result: Any) -> set[str]:
    return {c.content for c in result.candidates if c.detector == "cap.per_turn"}


def test_an_erased_users_deferred_statements_are_not_written_later(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        turn = {"text": TURN, "user_id": "alice", "conversation_id": "c1"}
        deferred = _deferred(engine.capture_message(turn))
        assert deferred, "precondition: the turn has more candidates than the per-turn cap"
        report = engine.forget_user("alice")
        assert report.remaining == 0
        assert report.cleaned["deferred"] == len(deferred)  # the engine's erasure counts them
        engine.capture_message({"text": "Hi there.", "user_id": "alice", "conversation_id": "c1"})
        stored = {n.content for n in engine.list_memories({"user_id": "alice"}, limit=100)}
        assert not stored & deferred


def test_an_erasure_by_another_engine_on_the_same_home_is_honoured(tmp_path: Path) -> None:
    server = MemoryEngine.open(tmp_path, "acme")
    try:
        first = server.capture_message({"text": TURN, "user_id": "alice", "conversation_id": "c1"})
        deferred = _deferred(first)
        assert deferred
        with MemoryEngine.open(tmp_path, "acme") as cli:
            assert cli.forget_user("alice").remaining == 0
        server.capture_message({"text": "Hi there.", "user_id": "alice", "conversation_id": "c1"})
        stored = {n.content for n in server.list_memories({"user_id": "alice"}, limit=100)}
        assert not stored & deferred
    finally:
        server.close()


def test_deferred_statements_still_wait_for_a_user_who_was_not_erased(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        deferred = _deferred(
            engine.capture_message({"text": TURN, "user_id": "alice", "conversation_id": "c1"})
        )
        assert engine.forget_user("bob").remaining == 0  # someone else's erasure
        engine.capture_message({"text": "Hi there.", "user_id": "alice", "conversation_id": "c1"})
        stored = {n.content for n in engine.list_memories({"user_id": "alice"}, limit=100)}
        assert stored & deferred


def test_forget_user_drops_the_lists_held_in_this_process(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        deferred = _deferred(
            engine.capture_message({"text": TURN, "user_id": "alice", "conversation_id": "c1"})
        )
        assert engine.capture.forget_user("bob") == 0
        assert engine.capture.forget_user("alice") == len(deferred)
        assert engine.capture.forget_user("alice") == 0


class _EditWhileRead:
    """The engine's real store; after capture's ``n``-th read of ``memory_id`` an edit
    commits through the engine (another writer between capture's read and its commit)."""

    def __init__(self, engine: MemoryEngine, memory_id: str, n: int) -> None:
        self.real = engine.capture.store
        self.engine, self.memory_id, self.n, self.reads = engine, memory_id, n, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def get_nodes(self, orchestrator: str, ids: list[str]) -> Any:
        got = self.real.get_nodes(orchestrator, ids)
        if self.memory_id in ids:
            self.reads += 1
            if self.reads == self.n:
                patch = self.engine.memory_patch(self.memory_id, {"importance": 91})
                assert self.engine.update(self.memory_id, patch).ok  # type: ignore[arg-type]
        return got


def test_a_merge_from_a_stale_copy_never_overwrites_an_edit(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        said = {"text": "I prefer tea over coffee.", "user_id": "alice"}
        first = engine.capture_message(said)
        (memory_id,) = first.candidates[0].memory_ids
        merged_before = engine.capture_message(said)
        assert merged_before.candidates[0].outcome.value == "merged"  # precondition
        # the last read before the merge's commit is the merge target's copy
        reads = _EditWhileRead(engine, memory_id, n=10**6)
        engine.capture.store = reads  # type: ignore[assignment]
        engine.capture_message(said)
        reads.n, reads.reads = reads.reads, 0  # fire on that read next time
        again = engine.capture_message(said)
        engine.capture.store = reads.real
        assert reads.reads >= reads.n, "the edit was made"
        (report,) = again.candidates
        assert report.outcome.value == "merged", (report.stop_reason, report.reason)
        assert report.memory_ids == (memory_id,)
        (node,) = engine.capture.store.get_nodes(engine.capture.orchestrator, [memory_id])
        assert node.importance == 91, "the edit survived the merge"
