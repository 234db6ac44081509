"""Review S17-R1: ``memvault import`` run twice on the same export duplicated every memory.

An import is idempotent: a memory of the file the user already holds (the same
content, type, category, key, value, project and agent, active) is not written
again — it is counted (``skipped["memory:already_held"]``) and its edges are linked
to the held memory. A second run writes nothing; a restore into the store the export
came from writes nothing; what the file holds that the store does not is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memvault.cli import app
from memvault.engine import MemoryEngine, NewMemory

runner = CliRunner()


def _tea(content: str = "Dana prefers oolong tea", **more: Any) -> NewMemory:
    fields: dict[str, Any] = {
        "content": content,
        "type": "Preference",
        "category": "PREFERENCE",
        "source_kind": "USER_EXPLICIT",
        "user_id": "dana",
        **more,
    }
    return NewMemory(**fields)


def _export(home: Path) -> list[str]:
    with MemoryEngine.open(home, "acme", embedder=None) as old:
        tea = old.add(_tea())
        todo = old.add(
            NewMemory(content="Write the parser tests", type="Todo", category="TODO",
                      ttl_class="MEDIUM", source_kind="USER_EXPLICIT", user_id="dana")
        )  # fmt: skip
        assert old.link(str(tea.memory_id), str(todo.memory_id), "RelatedTo").ok
        return [json.dumps(r) for r in old.export_user("dana")]


def _held(engine: MemoryEngine, user: str = "dana") -> tuple[list[str], int]:
    """The user's active contents (sorted) and the edges between two of them."""
    records = list(engine.export_user(user))
    memories = [r for r in records if r["record"] == "memory" and r["status"] == "active"]
    active = {r["memory_id"] for r in memories}
    edges = {
        e["edge_id"]
        for r in memories
        for e in r["edges"]
        if {e["from_memory_id"], e["to_memory_id"]} <= active
    }
    return sorted(r["content"] for r in memories), len(edges)


def test_a_second_import_of_the_same_export_writes_nothing(tmp_path: Path) -> None:
    lines = _export(tmp_path / "old")
    with MemoryEngine.open(tmp_path / "new", "globex", embedder=None) as new:
        first = new.import_user(lines)
        assert (first.stored, first.edges_linked) == (2, 1)
        second = new.import_user(lines)
        assert (second.memories, second.stored, second.refused) == (0, 0, 0)
        assert second.skipped.get("memory:already_held") == 2
        assert second.ids == first.ids  # the file's ids map to the memories held
        assert _held(new) == (["Dana prefers oolong tea", "Write the parser tests"], 1)


def test_a_restore_into_the_store_it_came_from_writes_nothing(tmp_path: Path) -> None:
    lines = _export(tmp_path / "old")
    with MemoryEngine.open(tmp_path / "old", "acme", embedder=None) as same:
        report = same.import_user(lines)
        assert (report.stored, report.skipped.get("memory:already_held")) == (0, 2)
        assert _held(same) == (["Dana prefers oolong tea", "Write the parser tests"], 1)


def test_what_the_store_does_not_hold_is_still_written(tmp_path: Path) -> None:
    """Near misses: a memory changed since, another user, twins in one file."""
    lines = _export(tmp_path / "old")
    with MemoryEngine.open(tmp_path / "new", "globex", embedder=None) as new:
        new.import_user(lines)
        (tea,) = [n for n in new.list_memories({"user_id": "dana"}) if "oolong" in n.content]
        assert new.retract(tea.memory_id).ok  # no longer held: the import writes it back
        as_eli = new.import_user(lines, user_id="eli")  # another user holds nothing yet
        again = new.import_user(lines)
        assert as_eli.stored == 2
        assert (again.stored, again.skipped.get("memory:already_held")) == (1, 1)
        assert _held(new) == (["Dana prefers oolong tea", "Write the parser tests"], 1)
    with MemoryEngine.open(tmp_path / "twins", "acme", embedder=None) as twins:
        twins.add(_tea())
        twins.add(_tea())  # the user said it twice: two memories, kept as two
        twins.add(_tea(category="KNOWLEDGE", type="Fact"))  # same words, another memory
        twin_lines = [json.dumps(r) for r in twins.export_user("dana")]
    with MemoryEngine.open(tmp_path / "fresh", "acme", embedder=None) as fresh:
        assert fresh.import_user(twin_lines).stored == 3
        assert fresh.import_user(twin_lines).stored == 0
        assert len(fresh.list_memories({"user_id": "dana"})) == 3


def test_cli_import_twice_says_the_memories_were_already_held(tmp_path: Path) -> None:
    dump = tmp_path / "dana.jsonl"
    dump.write_text("\n".join(_export(tmp_path / "old")) + "\n", encoding="utf-8")
    base = ["--home", str(tmp_path / "new"), "--orchestrator", "globex"]
    first = runner.invoke(app, [*base, "import", str(dump), "--json"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, [*base, "import", str(dump)])
    assert second.exit_code == 0, second.output
    assert "memory:already_held" in second.output and "2" in second.output
    listed = runner.invoke(app, [*base, "list", "--user-id", "dana", "--json"])
    assert len(json.loads(listed.stdout)["memories"]) == 2
