"""One validator and one relations step for every write kind: add now meets the writing
constraints capture always met, and links what it writes (RelatedTo) like capture does."""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.model.enums import EdgeType, StopReason
from tests.helpers import add_fields

FACT = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}


def test_add_refuses_a_blob_and_a_transcript_line_but_keeps_events(
    tmp_path: Path,
) -> None:
    with MemoryEngine.open(tmp_path, "acme") as e:
        blob = add_fields(
            e, "Dana likes tea. Dana lives in Lisbon. Dana works at Acme. Dana has a dog.", **FACT
        )
        assert blob.stop_reason is StopReason.SCHEMA_INVALID
        assert blob.detector == "validator.writing_constraints"
        assert "too_many_sentences" in blob.reason and blob.memory_id is None
        chat = add_fields(e, "User: Dana prefers tea over coffee.", **FACT)
        assert chat.stop_reason is StopReason.SCHEMA_INVALID and "role_marker" in chat.reason
        assert add_fields(
            e,
            "Dana prefers tea over coffee.",
            **{**FACT, "type": "Preference", "category": "PREFERENCE"},
        ).ok
        # episodic records keep their own shape (a transcript line is an event)
        event = add_fields(
            e,
            "Dana: I shipped it. We celebrated. It was late.",
            type="Event",
            category="EVENT",
            source_kind="USER_EXPLICIT",
        )
        assert event.ok, event.reason


def test_add_links_a_new_memory_to_its_closest_neighbours(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as e:
        e.auto_relations = True  # off by default: see write/relations.py
        first = add_fields(e, "The billing service runs on Postgres 16.", user_id="dana", **FACT)
        other = add_fields(e, "Dana's cat is called Pixel.", user_id="dana", **FACT)
        second = add_fields(
            e, "The billing service is deployed on Fridays.", user_id="dana", **FACT
        )
        assert first.memory_id and other.memory_id and second.memory_id
        edges = e.get(second.memory_id).edges
        assert [(x.edge_type, x.to_memory_id) for x in edges] == [
            (EdgeType.RELATED_TO, first.memory_id)
        ]
        assert 0 < edges[0].weight <= 1
        e.auto_relations = False
        third = add_fields(e, "The billing service alerts go to #billing.", user_id="dana", **FACT)
        assert third.memory_id and e.get(third.memory_id).edges == ()
