"""The LangGraph adapter: a `user=ALL_USERS` store is the orchestrator-wide view."""

from __future__ import annotations

from pathlib import Path

from memvault.engine import ALL_USERS
from memvault.integrations.langgraph_store import MemvaultStore

NOTE = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}


def test_an_all_users_store_reads_every_users_items(tmp_path: Path) -> None:
    alice = MemvaultStore(tmp_path, orchestrator="acme", user="alice")
    shared = MemvaultStore(tmp_path, orchestrator="acme")
    admin = MemvaultStore(tmp_path, orchestrator="acme", user=ALL_USERS)
    try:
        alice.put(("notes",), "desk", {**NOTE, "content": "Alice sits by the north window"})
        shared.put(("team",), "rota", {**NOTE, "content": "The on-call rota changes on Mondays"})
        seen = {i.value["content"] for i in admin.search((), limit=50)}
        assert seen == {"Alice sits by the north window", "The on-call rota changes on Mondays"}
        got = admin.get(("notes",), "desk")
        assert got is not None and got.value["content"].startswith("Alice")
        # the store with no user still sees shared items only
        assert {i.key for i in shared.search((), limit=50)} == {"rota"}
    finally:
        for s in (alice, shared, admin):
            s.close()
