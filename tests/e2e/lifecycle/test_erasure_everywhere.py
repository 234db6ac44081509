"""Erasure reaches every copy (issue 20): canaries, the real CLI, every file under the home.

One user (bob) reaches memvault three ways — a dropped file (ingest), a
captured message, and an agent conversation — each carrying a canary string;
another user (alice) does the same with her own canaries. After
``memvault forget --user bob`` no byte sequence of bob's canaries is left in
any file under the home (databases, WAL files, checkpoints, logs, manifests,
bulletins), alice's are untouched, and the report says where it cleaned.
``export --user bob`` before the erasure lists the same copies.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app

BOB = {
    "file": "canary-file-name-QX7",
    "doc": "ZEBRA-CANARY-4411",
    "message": "CANARY-TEA-9931",
    "agent": "CANARY-AGENT-5150",
}
ALICE = {"file": "alice-notes-KP2", "doc": "OTTER-CANARY-2288", "message": "CANARY-MATE-7070"}

runner = CliRunner()


def cli(home: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--home", str(home), "--orchestrator", "acme", *args])
    return result.exit_code, result.stdout + result.stderr


def drop(home: Path, name: str, user: str, word: str) -> None:
    inbox = home / "acme" / "memory" / "ingest"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / f"{name}.md").write_text(
        f"---\ntitle: Project notes\nuser_id: {user}\n---\n\n"
        f"# Codename\n\nThe project codename is {word} for the whole team.\n",
        encoding="utf-8",
    )


def talk(home: Path, tmp: Path, user: str, text: str) -> None:
    script = tmp / f"{user}.jsonl"
    script.write_text(
        json.dumps({"channel": "cli", "orchestrator": "acme", "user": user, "text": text}) + "\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        app,
        ["agent", "run", "--script", str(script), "--home", str(home), "--embedder", "hashing"],
    )
    assert result.exit_code == 0, result.output


def files_holding(home: Path, needles: list[str]) -> dict[str, list[str]]:
    """Every file under ``home`` (any name, any format) that contains a needle's bytes."""
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        hits = [n for n in needles if n.encode() in data or n.lower().encode() in data]
        if hits:
            found[str(path.relative_to(home))] = hits
    return found


def test_forget_leaves_no_copy_anywhere_under_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "init")[0] == 0
    drop(home, BOB["file"], "bob", BOB["doc"])
    drop(home, ALICE["file"], "alice", ALICE["doc"])
    code, out = cli(home, "ingest", "--once", "--json")
    assert code == 0, out
    for user, word in (("bob", BOB["message"]), ("alice", ALICE["message"])):
        code, out = cli(home, "capture", "message", f"I prefer the {word} blend", "--user", user)
        assert code == 0, out
    talk(home, tmp_path, "bob", f"I prefer {BOB['agent']} notebooks for meetings")
    talk(home, tmp_path, "alice", "What do I like?")
    assert cli(home, "bulletin")[0] == 0

    bob = list(BOB.values())
    before = files_holding(home, bob)
    # the canaries really are in the places the issue names
    assert any(p.endswith("memory.db") or "memory.db-wal" in p for p in before), before
    assert any(p.startswith("acme/memory/ingest/processed/") for p in before), before
    assert any(p.startswith("agent/checkpoints.db") for p in before), before

    code, out = cli(home, "export", "--user", "bob")
    assert code == 0, out
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    kinds = {r["record"] for r in records}
    assert {"memory", "ingest_file", "log", "agent_thread"} <= kinds, kinds
    assert any(BOB["file"] in r.get("name", "") for r in records if r["record"] == "ingest_file")

    code, out = cli(home, "forget", "--user", "bob", "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["remaining"] == 0 and report["audit"]["ok"] is True
    cleaned = report["cleaned"]
    assert cleaned["memories"] >= 3 and cleaned["source_files"] == 1
    assert cleaned["manifests"] == 1 and cleaned["ingest_records"] == 1
    # bob's thread only: reads are user-scoped, so alice's turn was never handed
    # bob's memory and her checkpoints never quoted it (store/scope.py)
    assert cleaned["agent_threads"] == 1 and cleaned["log_lines"] >= 1

    assert files_holding(home, bob) == {}
    # alice keeps everything of hers
    alice = files_holding(home, list(ALICE.values()))
    assert set(alice) and all(set(v) for v in alice.values())
    assert any(ALICE["file"] in p for p in alice)
    code, out = cli(home, "search", ALICE["message"], "--json")
    assert code == 0 and ALICE["message"] in out
    code, out = cli(home, "audit", "verify")
    assert code == 0, out


def test_lifecycle_purge_removes_the_files_whose_memories_are_all_gone(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from memvault.engine import MemoryEngine

    home = tmp_path / "home"
    with MemoryEngine.open(home, "acme", embedder="hashing") as engine:
        assert engine.layout is not None
        drop(home, BOB["file"], "bob", BOB["doc"])
        drop(home, ALICE["file"], "alice", ALICE["doc"])
        report = engine.ingest_pending(settle_seconds=0)
        assert len(report.processed) == 2
        for outcome in report.processed:
            if BOB["file"] in outcome.name:
                for memory_id in outcome.memory_ids:
                    assert engine.delete(memory_id).ok  # soft delete: purge in 30 days
        later = datetime.now(UTC) + timedelta(days=31)
        ran = engine.run_lifecycle(now=later)
        assert ran.purged
    left = files_holding(home, [BOB["file"], BOB["doc"]])
    assert left == {}, left
    assert files_holding(home, [ALICE["file"], ALICE["doc"]])  # alice's file is kept
