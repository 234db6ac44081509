"""REVIEW S13-R1: a user's own LangGraph item shadows the shared one of the same key.

The adapter picked the NEWEST memory of a namespace and key among the user's and
the shared ones, so a shared put made after the user's hid the user's own item,
the user's next put wrote a second memory of theirs beside the first, and once
that was deleted the value the user had replaced came back.
"""

from __future__ import annotations

from pathlib import Path

from memvault import ALL_USERS
from memvault.integrations.langgraph_store import MemvaultStore

NOTE = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}


def test_a_users_own_item_wins_over_a_newer_shared_one(tmp_path: Path) -> None:
    shared = MemvaultStore(tmp_path, orchestrator="acme")
    carol = MemvaultStore(tmp_path, orchestrator="acme", user="carol")
    admin = MemvaultStore(tmp_path, orchestrator="acme", user=ALL_USERS)
    try:
        carol.put(("desk",), "plant", {**NOTE, "content": "Carol waters the fern on Fridays"})
        shared.put(("desk",), "plant", {**NOTE, "content": "The office cactus needs no water"})
        got = carol.get(("desk",), "plant")
        assert got is not None and got.value["content"].startswith("Carol")
        listed = [i.value["content"] for i in carol.search(("desk",))]
        assert listed == ["Carol waters the fern on Fridays"]
        # her next put changes her one item; it does not write a second one
        carol.put(("desk",), "plant", {**NOTE, "content": "Carol waters the fern on Mondays"})
        theirs = [
            n
            for n in admin._caller.list_memories({"key": "plant"}, limit=50)
            if n.user_id == "carol"
        ]
        assert [n.content for n in theirs] == ["Carol waters the fern on Mondays"]
        # once she deletes it and the shared one goes too, nothing of hers comes back
        carol.delete(("desk",), "plant")
        shared.delete(("desk",), "plant")
        assert carol.get(("desk",), "plant") is None
        assert shared.get(("desk",), "plant") is None
    finally:
        for s in (shared, carol, admin):
            s.close()
