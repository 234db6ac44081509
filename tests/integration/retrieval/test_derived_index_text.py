"""Production builds what ranking needs (issue 17): without caller index text
the write path fills the date column from the memory's timestamp and the
context column from summaries of the memories written just before it in the
same conversation — never from anything the caller did not store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memvault.engine import MemoryEngine, OpenGate
from tests.helpers import add_fields


def _add(e: MemoryEngine, text: str, conversation: str | None) -> str:
    r = add_fields(
        e,
        text,
        type="Event",
        category="EVENT",
        source_kind="USER_EXPLICIT",
        conversation_id=conversation,
    )
    assert r.ok and r.memory_id, r
    return r.memory_id


def test_context_and_date_come_from_the_write_path(tmp_path: Path) -> None:
    moment = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    with MemoryEngine.open(
        tmp_path, "acme", gate=OpenGate(), embedder=None, clock=lambda: moment
    ) as e:
        first = _add(e, "Ana: we finally visited the old lighthouse in Maine", "c1")
        second = _add(e, "Ben: it looked beautiful in the fog", "c1")
        other = _add(e, "Cy: the fog was thick downtown", "c2")
        hits = [h.node.memory_id for h in e.search("lighthouse", config="text").hits]
        # the second memory is found through its neighbour's summary, after it
        assert hits[:2] == [first, second]
        assert other not in hits
        # nothing of another conversation leaks into the context column
        fog = [h.node.memory_id for h in e.search("Maine", config="text").hits]
        assert other not in fog
        # the date column holds the caller's timestamp as words
        may = [h.node.memory_id for h in e.search("May 2023", config="text").hits]
        assert set(may) == {first, second, other}
        # bulk writes chain within the batch the same way
        rows = e.add_many(
            [
                {"content": "Dee: the harbour seals were back", **_fields("c3")},
                {"content": "Eli: we counted eleven of them", **_fields("c3")},
            ]
        )
        seals = [h.node.memory_id for h in e.search("seals", config="text").hits]
        assert seals == [rows[0].memory_id, rows[1].memory_id]


def _fields(conversation: str) -> dict[str, str]:
    return {
        "type": "Event",
        "category": "EVENT",
        "source_kind": "USER_EXPLICIT",
        "conversation_id": conversation,
    }
