"""An export names only the user's own memories and the edges between them (REVIEW S11-R5 remark).

Two users who write under one conversation id get a 'follows in conversation' edge from Bob's
memory to Alice's (kept by decision: LoCoMo's speakers are separate users). Bob's export must
not carry that edge, nor the history event that recorded it: both name Alice's memory id. The
same for a link an operator made by hand across users, in either direction. Edges between Bob's
own memories and their events stay, and the store keeps every edge (export is a read). Runs on
every store: memory, SQLite, PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine
from memvault.write.spec import NewMemory
from tests.integration.context.conftest import BACKENDS, engine_on

TURN: dict[str, Any] = {
    "type": "Event",
    "category": "EVENT",
    "source_kind": "USER_EXPLICIT",
    "conversation_id": "default",
}


@pytest.fixture(params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    yield from engine_on(request.param, tmp_path)


def _add(engine: MemoryEngine, content: str, user: str) -> str:
    memory_id = engine.add(NewMemory(content=content, user_id=user, **TURN)).memory_id
    assert memory_id is not None
    return memory_id


def _export(engine: MemoryEngine, user: str) -> list[dict[str, Any]]:
    return list(engine.export_user(user))


def test_bobs_export_names_none_of_alices_memories(engine: MemoryEngine) -> None:
    alice = _add(engine, "Alice's project is codenamed Bluebird.", "alice")
    bob_1 = _add(engine, "Bob booked the team offsite in Lisbon.", "bob")
    bob_2 = _add(engine, "Bob reserved the train for the offsite.", "bob")
    alice_2 = _add(engine, "Alice chose the Porto venue for the retreat.", "alice")
    engine.link(alice, bob_2, "RelatedTo").raise_for_status()  # by hand, Alice -> Bob
    every = engine.store.edges_of("acme", [alice, alice_2, bob_1, bob_2])
    crossing = [e for e in every if {e.from_memory_id, e.to_memory_id} & {alice, alice_2}]
    crossing = [e for e in crossing if {e.from_memory_id, e.to_memory_id} & {bob_1, bob_2}]
    assert crossing, "the setup must join the two users' memories (else the test proves nothing)"

    records = _export(engine, "bob")
    text = json.dumps(records)
    assert alice not in text and alice_2 not in text
    assert not {e.edge_id for e in crossing} & {
        e["edge_id"] for r in records if r["record"] == "memory" for e in r["edges"]
    }
    memories = {r["memory_id"]: r for r in records if r["record"] == "memory"}
    assert set(memories) == {bob_1, bob_2}
    own = [
        e
        for r in memories.values()
        for e in r["edges"]
        if {e["from_memory_id"], e["to_memory_id"]} <= {bob_1, bob_2}
    ]
    mine = [e for r in memories.values() for e in r["edges"]]
    assert own == mine and own, "Bob's own 'follows' edge between his two turns stays"
    links = [r for r in records if r["record"] == "history" and r["op"] == "LINK"]
    assert [(r["memory_id"], r["detail"]["to"]) for r in links] == [(bob_2, bob_1)]
    summary = records[-1]
    assert summary["record"] == "summary"
    assert summary["history_events"] == len([r for r in records if r["record"] == "history"])
    # export is a read: the store still holds every edge
    assert engine.store.edges_of("acme", [alice, alice_2, bob_1, bob_2]) == every


def test_alices_export_leaves_out_bobs_side_too(engine: MemoryEngine) -> None:
    alice = _add(engine, "Alice's project is codenamed Bluebird.", "alice")
    bob = _add(engine, "Bob booked the team offsite in Lisbon.", "bob")
    text = json.dumps(_export(engine, "alice"))
    assert alice in text and bob not in text
