"""Right of access (export) and right to erasure (forget), one user at a time."""

from __future__ import annotations

import json
from typing import Any

from memvault.engine import MemoryEngine
from memvault.model import HistoryOp, MemoryStatus
from memvault.store.scope import reader_key
from tests.helpers import update_fields
from tests.integration.lifecycle.conftest import remember


def _records(engine: MemoryEngine, user: str) -> list[dict[str, Any]]:
    records = list(engine.export_user(user))
    json.dumps(records)  # every record is JSON-ready
    return records


def _setup(engine: MemoryEngine) -> dict[str, str]:
    ids = {
        "a": remember(engine, "Dana prefers oolong tea", user_id="dana"),
        "b": remember(engine, "Dana works in Lisbon", user_id="dana", type="Fact"),
        "c": remember(engine, "Dana dislikes meetings", user_id="dana"),
        "x": remember(engine, "Eli prefers espresso", user_id="eli"),
        "y": remember(engine, "Eli works in Porto", user_id="eli", type="Fact"),
    }
    engine.link(ids["a"], ids["b"], "RelatedTo").raise_for_status()
    engine.link(ids["x"], ids["a"], "RelatedTo").raise_for_status()  # crosses users
    update_fields(engine, ids["a"], importance=80).raise_for_status()
    engine.delete(ids["c"]).raise_for_status()
    engine.propose(
        "Dana likely prefers quiet rooms", user_id="dana", type="Preference", category="PREFERENCE"
    )
    return ids


def test_export_is_one_users_data_as_records(eng: MemoryEngine) -> None:
    ids = _setup(eng)
    records = _records(eng, "dana")
    assert records[0]["record"] == "export" and records[0]["user_id"] == "dana"
    memories = [r for r in records if r["record"] == "memory"]
    assert {m["memory_id"] for m in memories} == {ids["a"], ids["b"]}  # soft-deleted c hidden
    assert all(m["user_id"] == "dana" for m in memories)
    a = next(m for m in memories if m["memory_id"] == ids["a"])
    assert {e["edge_id"] for e in a["edges"]} and a["importance"] == 80
    history = [r for r in records if r["record"] == "history"]
    assert {h["memory_id"] for h in history} == {ids["a"], ids["b"]}
    assert [h["op"] for h in history if h["memory_id"] == ids["a"]] == [
        "CREATE",
        "LINK",
        "UPDATE",
    ]
    proposals = [r for r in records if r["record"] == "proposal"]
    assert len(proposals) == 1 and proposals[0]["status"] == "pending"
    summary = records[-1]
    assert summary == {
        "record": "summary",
        "memories": 2,
        "history_events": len(history),
        "proposals": 1,
        "thread_marks": 0,
        "soft_deleted_pending_purge": 1,
        "ingest_files": 0,  # the copies outside the store (issue 20): none here
        "log_lines": 0,
        "agent_threads": 0,
    }
    assert "Eli" not in json.dumps(records)


def test_export_carries_the_users_seen_marks_and_no_one_elses(eng: MemoryEngine) -> None:
    """Which threads a user read, and up to which revision, is their data too (NOTE6 #6)."""
    _setup(eng)
    eng.delta_header("team-chat", user="dana")
    head = eng.store.revision("acme")
    remember(eng, "Dana likes the standup early", user_id="dana")
    eng.delta_header("standup", user="dana")
    eng.delta_header("team-chat", user="eli")
    records = _records(eng, "dana")
    assert records[0]["format"] == "memvault.export/2"
    marks = [r for r in records if r["record"] == "thread_mark"]
    assert marks == [
        {"record": "thread_mark", "thread_id": "standup", "revision": head + 1},
        {"record": "thread_mark", "thread_id": "team-chat", "revision": head},
    ]
    assert records[-1]["record"] == "summary" and records[-1]["thread_marks"] == 2
    eli = [r for r in _records(eng, "eli") if r["record"] == "thread_mark"]
    assert [(m["thread_id"], m["revision"]) for m in eli] == [("team-chat", head + 1)]
    eng.forget_user("dana")
    assert [r for r in _records(eng, "dana") if r["record"] == "thread_mark"] == []


def test_forget_purges_one_user_and_leaves_the_others(eng: MemoryEngine) -> None:
    ids = _setup(eng)
    for who in ("dana", "eli"):
        eng.delta_header("team-chat", user=who)  # each reader's seen-mark
    before_eli = _records(eng, "eli")
    report = eng.forget_user("dana")
    assert report.to_json() == {
        "user_id": "dana",
        "memories_purged": 3,
        "proposals_erased": 1,
        "remaining": 0,
        "audit": eng.verify_audit().to_json(),
        "cleaned": {
            "memories": 3,
            "proposals": 1,
            "ingest_records": 0,
            "bulletins": 0,
            "source_files": 0,
            "manifests": 0,
            "agent_threads": 0,
            "log_lines": report.cleaned["log_lines"],
            "thread_marks": 1,
            "deferred": 0,
        },
    }
    assert report.audit.ok
    every = (*MemoryStatus,)
    assert eng.list_memories({"user_id": "dana", "status": every}) == []
    assert eng.store.get_nodes("acme", [ids["a"], ids["b"], ids["c"]]) == []
    assert eng.proposals(user_id="dana") == []
    assert eng.store.thread_seen("acme", "team-chat", reader=reader_key("dana")) is None
    assert eng.store.thread_seen("acme", "team-chat", reader=reader_key("eli")) is not None
    assert "oolong" not in json.dumps([p.candidate for p in eng.proposals()])
    # Eli: untouched, except the edge that pointed at Dana's memory
    eli = [n.memory_id for n in eng.list_memories({"user_id": "eli"})]
    assert sorted(eli) == sorted([ids["x"], ids["y"]])
    assert [h.node.memory_id for h in eng.search("espresso").hits][:1] == [ids["x"]]
    after_eli = _records(eng, "eli")
    strip = [
        {k: v for k, v in r.items() if k not in ("exported_at", "edges")}
        for r in after_eli
        if r["record"] != "export"
    ]
    assert strip == [
        {k: v for k, v in r.items() if k not in ("exported_at", "edges")}
        for r in before_eli
        if r["record"] != "export"
    ]
    # the audit trail proves the erasure without repeating what was erased
    purges = [e for e in eng.store.history("acme") if e.op is HistoryOp.PURGE]
    assert {e.memory_id for e in purges} == set((ids["a"], ids["b"], ids["c"]))
    assert all(e.detail == {"reason": "right_to_erasure"} for e in purges)
    assert _records(eng, "dana")[-1]["memories"] == 0
    assert eng.forget_user("dana").memories_purged == 0
