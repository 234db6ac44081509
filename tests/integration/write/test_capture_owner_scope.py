"""A write resolves against its owner's memories only (never another user's).

``NodeFilter(user_id=None)`` carries no user condition: before ``same_owner``,
a statement captured without a user found Bob's identical memory as its
neighbour and was merged into it — a user-less turn changed Bob's memory.
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine


def test_a_statement_without_a_user_never_resolves_against_another_users_memory(
    tmp_path: Path,
) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        bob = engine.capture_message({"text": "I prefer tabs over spaces", "user_id": "bob"})
        [bob_id] = bob.candidates[0].memory_ids
        before = engine.get(bob_id).node

        shared = engine.capture_message({"text": "I prefer tabs over spaces"})

        ids = [i for c in shared.candidates for i in c.memory_ids]
        assert ids and bob_id not in ids
        assert all(engine.get(i).node.user_id is None for i in ids)
        after = engine.get(bob_id).node
        assert (after.status, after.content, after.updated_at) == (
            before.status,
            before.content,
            before.updated_at,
        )


def test_the_same_users_repeat_still_resolves_against_their_memory(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        first = engine.capture_message({"text": "I prefer tabs over spaces", "user_id": "bob"})
        again = engine.capture_message({"text": "I prefer tabs over spaces", "user_id": "bob"})
        assert again.candidates[0].memory_ids == first.candidates[0].memory_ids
