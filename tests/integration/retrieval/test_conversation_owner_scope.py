"""A conversation id shared by two users puts no user's words in another's index (review S11-R5).

A conversation id is the caller's free text ("default", "thread-1", a channel name). The
write path filled a memory's index context with "the memories written just before in the
same conversation" by that id alone: Alice's summary went into the context of Bob's memory,
and Bob's own search for a word only Alice wrote found his memory (an oracle on her words).
The context now comes from the same user's and project's memories only. The 'follows in
conversation' link may still join two people's turns (test_rerank.py): a reader never
receives an edge to a memory it cannot see.
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.engine._grant import Grant
from memvault.write.spec import NewMemory

TURN = {
    "type": "Event",
    "category": "EVENT",
    "source_kind": "USER_EXPLICIT",
    "conversation_id": "default",
}


def test_no_context_and_no_visible_edge_across_users_of_one_conversation_id(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        alice = engine.add(
            NewMemory(content="Alice's project is codenamed Bluebird.", user_id="alice", **TURN)
        ).memory_id
        bob = engine.add(
            NewMemory(content="Bob booked the team offsite in Lisbon.", user_id="bob", **TURN)
        ).memory_id
        assert alice is not None and bob is not None
        as_bob = engine.as_caller(Grant("bobs-agent", user="bob"))
        seen = [e for e in as_bob.get(bob).edges if alice in (e.to_memory_id, e.from_memory_id)]
        assert seen == [], "Bob's reader received an edge naming Alice's memory"
        hits = as_bob.search("Bluebird", top_k=5).hits
        assert hits == (), f"Bob's search for Alice's word found {[h.node.content for h in hits]}"


def test_the_same_user_still_gets_the_conversation_context(tmp_path: Path) -> None:
    """Control: within one user the context column still works (what issue 17 built)."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        engine.add(
            NewMemory(content="Alice's project is codenamed Bluebird.", user_id="alice", **TURN)
        )
        second = engine.add(
            NewMemory(content="Alice booked the team offsite in Lisbon.", user_id="alice", **TURN)
        ).memory_id
        as_alice = engine.as_caller(Grant("alices-agent", user="alice"))
        found = [h.node.memory_id for h in as_alice.search("Bluebird", top_k=5).hits]
        assert second in found
