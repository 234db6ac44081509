"""The engine's capture façade (sync and async) over a real SQLite home."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import pytest

from memvault.engine import AsyncMemoryEngine, MemoryEngine
from memvault.errors import ValidationFailed
from memvault.write import CaptureConfig, Outcome


def test_capture_message_accepts_a_mapping_and_writes_through_the_store(
    engine: MemoryEngine,
) -> None:
    r = engine.capture_message(
        {
            "text": "I need to renew the domain next Friday",
            "user_id": "dana",
            "speaker": "Dana",
            "conversation_id": "c1",
            "channel": "slack",
            "at": "2026-01-15T09:00:00Z",
        }
    )
    (cand,) = r.candidates
    assert cand.outcome is Outcome.STORED and "2026-01-23" in cand.content
    view = engine.get(cand.memory_ids[0])
    assert view.node.source.conversation_id == "c1"
    assert view.node.source.source_ref == "channel:slack"
    assert view.node.role == "user" and view.node.user_id == "dana"


def test_bad_messages_are_typed_errors(engine: MemoryEngine) -> None:
    with pytest.raises(ValidationFailed):
        engine.capture_message({"text": "hi", "at": datetime(2026, 1, 1)})  # naive time
    with pytest.raises(ValidationFailed):
        engine.capture_message({"text": "hi", "unknown": 1})


def test_capture_config_is_read_at_use(engine: MemoryEngine) -> None:
    engine.capture_config = CaptureConfig(max_writes_per_turn=1)
    r = engine.capture_message({"text": "I love jazz. I love tea.", "user_id": "u"})
    assert [c.outcome for c in r.candidates] == [Outcome.STORED, Outcome.REJECTED]


def test_async_twins(tmp_path: Path) -> None:
    async def main() -> list[str]:
        async with await AsyncMemoryEngine.open(tmp_path, "acme") as e:
            a = await e.capture_message({"text": "I work at Acme", "user_id": "u"})
            b = await e.capture_workflow_output("r1", "s1", "TODO: write the changelog")
            c = await e.capture_diagnostics({"title": "Queue depth above 10k"})
            return [x.candidates[0].outcome.value for x in (a, b, c)]

    assert asyncio.run(main()) == ["stored", "stored", "stored"]
