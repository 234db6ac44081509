"""Text from real users (issue 17): tabs and line breaks are content, other
control characters are removed at the edge (and the removal recorded), a long
turn becomes several memories instead of being refused or cut."""

from __future__ import annotations

import json
from pathlib import Path

from memvault.engine import MemoryEngine, OpenGate
from memvault.extract.base import MESSAGE_MAX
from memvault.model.enums import StopReason
from tests.helpers import add_fields, update_fields


def _fields() -> dict[str, str]:
    return {"type": "Fact", "category": "FACT", "source_kind": "USER_EXPLICIT"}


def test_add_keeps_tabs_and_line_breaks_and_removes_other_controls(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate()) as e:
        r = add_fields(e, "host\tport\nalpha\t5432\x07\x00 done\x1b", **_fields())
        assert r.stop_reason is StopReason.SUCCESS_STORED, r
        node = e.get(r.memory_id).node
        assert node.content == "host\tport\nalpha\t5432 done"
        created = [ev for ev in e.history(r.memory_id) if ev.op.value == "CREATE"]
        assert created[0].detail["control_chars_removed"] == 3
        # nothing removed: nothing recorded
        plain = add_fields(e, "plain text", **_fields())
        detail = next(ev for ev in e.history(plain.memory_id) if ev.op.value == "CREATE").detail
        assert "control_chars_removed" not in detail
        # update cleans too
        u = update_fields(e, r.memory_id, content="new\x0bvalue")
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


_EVENT = {"type": "Event", "category": "EVENT", "source_kind": "USER_EXPLICIT"}


def _message(days: int) -> str:
    said = " ".join(
        f"On day {i} we walked\tto the harbour and watched the boats." for i in range(days)
    )
    return f"Ana: {said}\nThen we went home."


def test_a_long_add_is_stored_as_consecutive_parts_never_cut(tmp_path: Path) -> None:
    """A user message over the EVENT bound (512) was refused BOUNDS_EXCEEDED;
    now it is stored as several memories whose texts are exact, consecutive
    slices of the message (only whitespace at a cut is left out)."""
    text = _message(20)
    assert len(text) > 1000
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate(), embedder=None) as e:
        r = add_fields(e, text, conversation_id="c1", **_EVENT)
        assert r.stop_reason is StopReason.SUCCESS_STORED, r
        assert len(r.parts) >= 3 and r.memory_id == r.parts[0]
        assert r.to_json()["parts"] == list(r.parts)
        contents = [e.get(m).node.content for m in r.parts]
        assert all(len(c) <= 512 for c in contents)
        position = 0
        for c in contents:  # in order, each an exact slice
            found = text.index(c, position)
            assert not text[position:found].strip()
            position = found + len(c)
        assert position == len(text)
        assert "\t" in contents[0] and contents[-1].endswith("\nThen we went home.")
        # consecutive parts are linked, later pieces to earlier ones
        for before, after in zip(r.parts, r.parts[1:], strict=False):
            links = [x.to_memory_id for x in e.get(after).edges if x.from_memory_id == after]
            assert before in links


def test_a_long_add_without_a_conversation_is_chained_and_huge_text_is_kept(
    tmp_path: Path,
) -> None:
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate(), embedder=None) as e:
        r = add_fields(e, "word " * 2000, **_EVENT)  # 10,000 characters: over the node's 4,000 too
        assert r.ok and len(r.parts) >= 20
        assert sum(len(e.get(m).node.content.split()) for m in r.parts) == 2000
        second = e.get(r.parts[1]).edges
        assert [x.to_memory_id for x in second if x.from_memory_id == r.parts[1]] == [r.parts[0]]
        # a short add is one memory, as before
        short = add_fields(e, "Ana: hello there", **_EVENT)
        assert short.ok and short.parts == () and "parts" not in short.to_json()


def test_a_long_statement_is_split_into_one_or_two_sentences_a_memory(tmp_path: Path) -> None:
    text = " ".join(f"The build server number {i} runs on Debian." for i in range(30))
    with MemoryEngine.open(tmp_path, "acme", gate=OpenGate(), embedder=None) as e:
        assert len(text) > 1024  # the KNOWLEDGE bound
        r = add_fields(e, text, type="Fact", category="KNOWLEDGE", source_kind="USER_EXPLICIT")
        assert r.ok, r
        contents = [e.get(m).node.content for m in r.parts]
        assert len(contents) == 15 and all(c.count(".") == 2 for c in contents)


def test_a_long_add_with_one_forbidden_sentence_is_refused_whole(tmp_path: Path) -> None:
    """The pieces of one message are judged together: one refusal refuses the
    message (as the same text would be refused whole), nothing is stored."""
    text = _message(20) + " My social security number is 123-45-6789."
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as e:
        r = add_fields(e, text, **_EVENT)
        assert r.stop_reason is StopReason.FORBIDDEN_CATEGORY, r
        assert r.memory_id is None and r.parts == ()
        assert e.list(limit=10) == []
        refusals = [ev for ev in e.audit_events() if ev.op.value == "REFUSE"]
        assert len(refusals) == 1
