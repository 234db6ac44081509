"""Text from real users (issue 17): tabs and line breaks are content, other
control characters are removed at the edge (and the removal recorded), a long
turn becomes several memories instead of being refused or cut."""

from __future__ import annotations

import json
from pathlib import Path

from memvault.engine import MemoryEngine, OpenGate
from memvault.extract.base import MESSAGE_MAX
from memvault.model.enums import StopReason


def _fields() -> dict[str, str]:
    return {"type": "Fact", "category": "FACT", "source_kind": "USER_EXPLICIT"}


def test_add_keeps_tabs_and_line_breaks_and_removes_other_controls(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate()) as e:
        r = e.add("host\tport\nalpha\t5432\x07\x00 done\x1b", **_fields())
        assert r.stop_reason is StopReason.SUCCESS_STORED, r
        node = e.get(r.memory_id).node
        assert node.content == "host\tport\nalpha\t5432 done"
        created = [ev for ev in e.history(r.memory_id) if ev.op.value == "CREATE"]
        assert created[0].detail["control_chars_removed"] == 3
        # nothing removed: nothing recorded
        plain = e.add("plain text", **_fields())
        detail = next(ev for ev in e.history(plain.memory_id) if ev.op.value == "CREATE").detail
        assert "control_chars_removed" not in detail
        # update cleans too
        u = e.update(r.memory_id, content="new\x0bvalue")
        assert u.ok and e.get(r.memory_id).node.content == "newvalue"
        # bulk writes clean the same way
        bulk = e.add_many([{"content": "a\x0cb", **_fields()}])
        assert bulk[0].ok and e.get(bulk[0].memory_id).node.content == "ab"


def test_capture_cleans_and_splits_a_long_turn(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate()) as e:
        r = e.capture_message({"text": "I prefer tabs\x00 over spaces", "user_id": "dana"})
        assert [c.outcome.value for c in r.candidates] == ["stored"]
        assert "\x00" not in r.candidates[0].content
        filler = "The weather report was long and uneventful today. " * (MESSAGE_MAX // 50)
        text = filler + "I prefer green tea over coffee."
        assert len(text) > MESSAGE_MAX
        long = e.capture_message({"text": text, "user_id": "dana"})
        stored = [c.content for c in long.candidates if c.outcome.value == "stored"]
        assert any("green tea" in c for c in stored), stored
    log = (tmp_path / "acme").rglob("memory.log")
    lines = [json.loads(x) for f in log for x in f.read_text().splitlines()]
    assert any(x.get("event") == "control_chars_removed" for x in lines)
