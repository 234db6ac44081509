"""The lifecycle CLI as the evaluation runs it: real processes, real files."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.e2e.test_cli import ADD, cli, run


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
