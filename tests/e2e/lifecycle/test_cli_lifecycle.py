"""The lifecycle CLI as the evaluation runs it: real processes, real files."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from tests.e2e.test_cli import ADD, cli, run

runner = CliRunner()


def _add(home: Path, text: str, *extra: str) -> str:
    code, out, err = cli(home, "add", text, *ADD, *extra, "--json")
    assert code == 0, err
    memory_id = json.loads(out)["memory_id"]
    assert isinstance(memory_id, str)
    return memory_id


def test_lifecycle_run_with_now_prints_what_changed(tmp_path: Path) -> None:
    low = _add(tmp_path, "Likes the blue mug", "--importance", "10", "--user-id", "u1")
    _add(tmp_path, "Never deploy on Fridays", "--importance", "90", "--user-id", "u1")
    r = run(tmp_path, "lifecycle", "run", "--now", "2099-01-01T00:00:00Z", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["now"] == "2099-01-01T00:00:00.000000Z"
    assert report["counts"] == {
        "soft_deleted": 1,
        "purged": 0,
        "proposals_expired": 0,
        "refused": 0,
    }
    assert report["soft_deleted"] == [
        {"memory_id": low, "reason": "idle", "purge_at": "2099-01-31T00:00:00.000000Z"}
    ]
    code, out, _ = cli(tmp_path, "lifecycle", "run", "--now", "2099-03-01T00:00:00+00:00", "--json")
    assert [t["memory_id"] for t in json.loads(out)["purged"]] == [low]
    code, out, _ = cli(tmp_path, "get", low)
    assert code == 3
    code, out, _ = cli(tmp_path, "stats", "--json")
    stats = json.loads(out)
    assert stats["memories"]["total"] == 1 and stats["memories"]["active"] == 1
    assert stats["operations"]["by_node_op"] == {
        "hotpath/create": 2,
        "worker/purge": 1,
        "worker/ttl": 1,
    }
    code, _, err = cli(tmp_path, "lifecycle", "run", "--now", "yesterday")
    assert code == 2 and "ISO-8601" in err


def test_audit_verify_exit_codes(tmp_path: Path) -> None:
    a = _add(tmp_path, "Prefers tea")
    _add(tmp_path, "Prefers short answers")
    assert cli(tmp_path, "delete", a)[0] == 0
    code, out, _ = cli(tmp_path, "audit", "verify")
    assert code == 0 and "holds: 3 events" in out
    db = tmp_path / "acme" / "memory" / "memory.db"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE history SET detail = '{}' WHERE seq = 2")
    conn.commit()
    conn.close()
    r = run(tmp_path, "audit", "verify")
    assert r.returncode != 0
    assert "row 2" in r.stderr and "edited" in r.stderr
    code, out, _ = cli(tmp_path, "audit", "verify", "--json")
    assert code != 0 and json.loads(out)["first_broken"]["position"] == 2


def test_export_and_forget(tmp_path: Path) -> None:
    d = _add(tmp_path, "Dana prefers oolong", "--user-id", "dana")
    e = _add(tmp_path, "Eli prefers espresso", "--user-id", "eli")
    code, out, err = cli(tmp_path, "export", "--user", "dana")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["record"] for x in lines] == ["export", "memory", "history", "summary"]
    assert lines[1]["memory_id"] == d
    r = run(tmp_path, "forget", "--user", "dana", "--json")
    assert r.returncode == 0, r.stderr
    counts = json.loads(r.stdout)
    assert counts["memories_purged"] == 1 and counts["remaining"] == 0
    assert counts["audit"]["ok"] is True
    assert cli(tmp_path, "get", d)[0] == 3
    assert cli(tmp_path, "get", e)[0] == 0


def test_proposals_list_confirm_reject(tmp_path: Path) -> None:
    from memvault.engine import MemoryEngine

    with MemoryEngine.open(tmp_path, "acme") as engine:
        fields = {"type": "Preference", "category": "PREFERENCE", "user_id": "u1"}
        yes = engine.propose("Preferred language is Portuguese", **fields).proposal_id
        no = engine.propose("Preferred name is Sam", **fields).proposal_id
    code, out, _ = cli(tmp_path, "proposals", "list", "--status", "pending", "--json")
    assert code == 0
    assert [p["proposal_id"] for p in json.loads(out)["proposals"]] == [yes, no]
    code, out, err = cli(tmp_path, "proposals", "confirm", str(yes), "--json")
    assert code == 0, err
    stored = json.loads(out)
    assert stored["stop_reason"] == "SUCCESS_STORED"
    code, out, _ = cli(tmp_path, "proposals", "reject", str(no), "--json")
    assert code == 0 and json.loads(out)["status"] == "rejected"
    assert cli(tmp_path, "proposals", "confirm", str(no))[0] == 2
    assert cli(tmp_path, "proposals", "confirm", "prop_missing")[0] == 3
    code, out, _ = cli(tmp_path, "list", "--json")
    assert [m["memory_id"] for m in json.loads(out)["memories"]] == [stored["memory_id"]]
    assert cli(tmp_path, "proposals", "list", "--status", "bogus")[0] == 2


def test_lifecycle_consolidate_json(tmp_path: Path) -> None:
    weak = _add(tmp_path, "Dana prefers oolong tea", "--importance", "40", "--user-id", "dana")
    strong = _add(tmp_path, "Dana prefers oolong tea.", "--importance", "80", "--user-id", "dana")
    soon = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    r = run(tmp_path, "lifecycle", "consolidate", "--now", soon, "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["counts"]["merged"] == 1
    assert report["merged"][0]["kept"] == strong and report["merged"][0]["superseded"] == weak
    code, out, _ = cli(tmp_path, "lifecycle", "consolidate", "--json")
    assert code == 0 and json.loads(out)["counts"]["pairs_checked"] == 0


def test_import_writes_back_what_export_wrote_through_the_gate(tmp_path: Path) -> None:
    from memvault.engine import MemoryEngine, NewMemory

    with MemoryEngine.open(tmp_path / "old", "acme", embedder=None) as old:
        tea = old.add(
            NewMemory(content="Dana prefers oolong tea", type="Preference",
                      category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana")
        )  # fmt: skip
        todo = old.add(
            NewMemory(content="Write the parser tests", type="Todo", category="TODO",
                      ttl_class="MEDIUM", source_kind="USER_EXPLICIT", user_id="dana")
        )  # fmt: skip
        assert old.link(str(tea.memory_id), str(todo.memory_id), "RelatedTo").ok
        gone = old.add(
            NewMemory(content="Dana used to prefer green tea", type="Preference",
                      category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana")
        )  # fmt: skip
        assert old.retract(str(gone.memory_id)).ok
        records = [json.dumps(r) for r in old.export_user("dana")]
    dump = tmp_path / "dana.jsonl"
    dump.write_text("\n".join(records) + "\n", encoding="utf-8")
    base = ["--home", str(tmp_path / "new"), "--orchestrator", "globex"]

    done = runner.invoke(app, [*base, "import", str(dump), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["memories"], report["stored"], report["edges_linked"]) == (2, 2, 1)
    assert report["skipped"]["memory:retracted"] == 1 and report["skipped"]["history"] >= 3
    with MemoryEngine.open(tmp_path / "new", "globex", embedder=None) as new:
        kept = {n.content: n for n in new.list_memories({"user_id": "dana"})}
        assert set(kept) == {"Dana prefers oolong tea", "Write the parser tests"}
        assert kept["Write the parser tests"].ttl_class.value == "MEDIUM"
        new_tea = report["ids"][str(tea.memory_id)]
        assert kept["Dana prefers oolong tea"].memory_id == new_tea
        assert [e.edge_type.value for e in new.get(new_tea).edges] == ["RelatedTo"]
        history = new.history(new_tea)
        assert history[0].op.value == "CREATE"  # written through the pipeline, audited

    as_eli = runner.invoke(app, [*base, "import", str(dump), "--user", "eli", "--json"])
    assert as_eli.exit_code == 0, as_eli.output
    with MemoryEngine.open(tmp_path / "new", "globex", embedder=None) as new:
        assert len(new.list_memories({"user_id": "eli"})) == 2


def test_import_refuses_a_bad_file_naming_the_line_and_stores_nothing(tmp_path: Path) -> None:
    base = ["--home", str(tmp_path), "--orchestrator", "acme"]
    header = json.dumps({"record": "export", "format": "memvault.export/2", "user_id": "dana"})
    secret = {
        "record": "memory", "memory_id": "m9", "status": "active", "type": "Fact",
        "category": "PREFERENCE", "content": "My card is 4111 1111 1111 1111",
        "user_id": "dana", "source": {"sourceKind": "USER_EXPLICIT"}, "edges": [],
    }  # fmt: skip
    good = {**secret, "memory_id": "m1", "content": "Dana prefers oolong tea",
            "type": "Preference"}  # fmt: skip
    cases = {
        "not-json.jsonl": [header, json.dumps(good), "{oops"],
        "no-header.jsonl": [json.dumps(good)],
        "other-user.jsonl": [header, json.dumps({**good, "user_id": "eli"})],
        "unknown.jsonl": [header, json.dumps({"record": "mystery"})],
    }
    for name, lines in cases.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        bad = runner.invoke(app, [*base, "import", str(path)])
        assert bad.exit_code == 2, (name, bad.output)
        assert "line " in bad.output and "nothing was stored" in bad.output, bad.output
    listed = runner.invoke(app, [*base, "list", "--user-id", "dana", "--json"])
    assert json.loads(listed.stdout) == {"memories": []}  # the good line of a bad file is not kept
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join([header, json.dumps(good), json.dumps(secret)]) + "\n")
    refused = runner.invoke(app, [*base, "import", str(mixed), "--json"])
    assert refused.exit_code == 1, refused.output  # the gate judged the card again
    report = json.loads(refused.stdout)
    assert (report["stored"], report["refused"]) == (1, 1)
    assert report["by_stop_reason"].get("FORBIDDEN_CATEGORY") == 1


def test_import_names_a_memory_or_edge_the_write_path_cannot_take_and_stores_nothing(
    tmp_path: Path,
) -> None:
    """A record with a field add/link refuses is a bad line too: exit 2, nothing stored."""
    base = ["--home", str(tmp_path), "--orchestrator", "acme"]
    header = json.dumps({"record": "export", "format": "memvault.export/2", "user_id": "dana"})
    good = {
        "record": "memory", "memory_id": "m1", "status": "active", "type": "Preference",
        "category": "PREFERENCE", "content": "Dana prefers oolong tea",
        "user_id": "dana", "source": {"sourceKind": "USER_EXPLICIT"}, "edges": [],
    }  # fmt: skip
    other = {**good, "memory_id": "m2", "content": "Dana reads the release notes on Fridays"}
    edge = {"edge_id": "e1", "from_memory_id": "m1", "to_memory_id": "m2", "weight": 1.0}
    cases = {
        "bad-type.jsonl": [header, json.dumps(good), json.dumps({**other, "type": "Nonsense"})],
        "bad-importance.jsonl": [
            header,
            json.dumps(good),
            json.dumps({**other, "importance": "x"}),
        ],
        "bad-edge.jsonl": [
            header,
            json.dumps({**good, "edges": [{**edge, "edge_type": "Nonsense"}]}),
            json.dumps(other),
        ],
    }
    for name, lines in cases.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        bad = runner.invoke(app, [*base, "import", str(path)])
        assert bad.exit_code == 2, (name, bad.output)
        assert "line 3" in bad.output or "line 2" in bad.output, (name, bad.output)
        assert "nothing was stored" in bad.output, (name, bad.output)
        listed = runner.invoke(app, [*base, "list", "--user-id", "dana", "--json"])
        assert json.loads(listed.stdout) == {"memories": []}, name


def test_import_as_a_user_checks_that_id_first_and_reports_it_trimmed(tmp_path: Path) -> None:
    """``import_user(user_id=…)`` is the library's entry point: a blank id is refused
    naming user_id (not the first memory's line), a padded one is the user it names."""
    from memvault.engine import MemoryEngine
    from memvault.errors import ValidationFailed

    header = json.dumps({"record": "export", "format": "memvault.export/2", "user_id": "dana"})
    memory = json.dumps(
        {"record": "memory", "memory_id": "m1", "status": "active", "type": "Preference",
         "category": "PREFERENCE", "content": "Dana prefers oolong tea", "user_id": "dana",
         "source": {"sourceKind": "USER_EXPLICIT"}, "edges": []}
    )  # fmt: skip
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        with pytest.raises(ValidationFailed, match="user_id is not a user id"):
            engine.import_user([header, memory], user_id="   ")
        assert engine.list_memories({}) == []
        report = engine.import_user([header, memory], user_id=" eli ")
        assert (report.user_id, report.stored) == ("eli", 1)
        assert [n.user_id for n in engine.list_memories({})] == ["eli"]
