"""``memvault capture …`` as the evaluation runs it: real processes, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memvault.cli import app

runner = CliRunner()


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memvault", "--home", str(home), "--orchestrator", "acme", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def cli(home: Path, *args: str) -> Any:
    result = runner.invoke(app, ["--home", str(home), "--orchestrator", "acme", *args])
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_capture_message_update_then_get_shows_status_and_edges(tmp_path: Path) -> None:
    # The first call is the real console script; the rest run in process (faster).
    r = run(tmp_path, "capture", "message", "I work at Acme", "--user", "dana", "--json")
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)["candidates"]
    assert [c["outcome"] for c in first] == ["stored"]
    assert set(first[0]) >= {
        "content",
        "type",
        "category",
        "stop_reason",
        "outcome",
        "memory_ids",
        "edges",
        "detector",
    }
    acme = first[0]["memory_ids"][0]

    moved = cli(
        tmp_path,
        "capture",
        "message",
        "I now work at Globex",
        "--user",
        "dana",
        "--speaker",
        "Dana",
        "--conversation",
        "c1",
        "--channel",
        "slack",
        "--at",
        "2026-01-15T09:00:00Z",
        "--json",
    )
    (cand,) = moved["candidates"]
    assert cand["outcome"] == "updated" and "Globex" in cand["content"]
    globex = cand["memory_ids"][0]
    assert cand["edges"] == [{"type": "Updates", "from": globex, "to": acme}]

    old = cli(tmp_path, "get", acme, "--json")
    assert old["status"] == "superseded"
    assert [(e["edge_type"], e["from_memory_id"]) for e in old["edges"]] == [("Updates", globex)]


def test_consent_gated_statements_become_proposals_add_and_capture_agree(tmp_path: Path) -> None:
    def say(text: str) -> dict[str, Any]:
        (c,) = cli(
            tmp_path, "capture", "message", text, "--user", "dana", "--speaker", "Dana", "--json"
        )["candidates"]
        return dict(c)

    name = say("Please call me Ana.")
    assert name["outcome"] == "proposed" and name["memory_ids"] == []
    assert name["stop_reason"] == "MISSING_EXPLICIT_CONSENT" and name["proposal_id"]
    lisbon = say("I live in Lisbon.")
    assert lisbon["outcome"] == "proposed"
    confirmed = cli(tmp_path, "proposals", "confirm", lisbon["proposal_id"], "--json")
    lisbon_id = confirmed["memory_id"]
    porto = say("I moved from Lisbon to Porto.")
    assert porto["outcome"] == "proposed"  # never silently lost, never silently stored
    porto_id = cli(tmp_path, "proposals", "confirm", porto["proposal_id"], "--json")["memory_id"]
    old = cli(tmp_path, "get", lisbon_id, "--json")
    assert old["status"] == "superseded"  # the confirmed move replaces the old city
    assert [(e["edge_type"], e["from_memory_id"]) for e in old["edges"]] == [("Updates", porto_id)]
    # add agrees with capture: the same consent-gated key is queued, not lost
    added = runner.invoke(
        app,
        [
            "--home",
            str(tmp_path),
            "--orchestrator",
            "acme",
            "add",
            "Dana lives in Faro.",
            "--type",
            "Fact",
            "--category",
            "KNOWLEDGE",
            "--source-kind",
            "USER_EXPLICIT",
            "--key",
            "city",
            "--value",
            "Faro",
            "--user-id",
            "dana",
            "--json",
        ],
    )
    out = json.loads(added.stdout)
    assert out["stop_reason"] == "MISSING_EXPLICIT_CONSENT" and out["proposal_id"]
    pending = cli(tmp_path, "proposals", "list", "--json")
    assert out["proposal_id"] in json.dumps(pending) and name["proposal_id"] in json.dumps(pending)


def test_capture_contradiction_and_merge_in_process(tmp_path: Path) -> None:
    love = cli(tmp_path, "capture", "message", "I love coffee", "--user", "u1", "--json")
    dont = cli(tmp_path, "capture", "message", "I don't drink coffee", "--user", "u1", "--json")
    again = cli(tmp_path, "capture", "message", "I love coffee", "--user", "u1", "--json")
    love_id = love["candidates"][0]["memory_ids"][0]
    (c,) = dont["candidates"]
    assert c["outcome"] == "contradiction"
    assert c["edges"] == [{"type": "Contradicts", "from": c["memory_ids"][0], "to": love_id}]
    assert again["candidates"][0]["outcome"] == "merged"
    assert again["candidates"][0]["memory_ids"] == [love_id]


def test_chit_chat_and_tool_turns_write_nothing(tmp_path: Path) -> None:
    hi = cli(tmp_path, "capture", "message", "thanks, that's great!", "--user", "u1", "--json")
    assert hi["candidates"] == []
    tool = cli(
        tmp_path, "capture", "message", "I love coffee", "--user", "u1", "--role", "tool", "--json"
    )
    assert tool["candidates"] == [] and "never a write trigger" in tool["skipped"]


def test_capture_workflow_and_diagnostics_files(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("Decision: adopt trunk-based development\n- [ ] set up branch protection\n")
    wf = cli(
        tmp_path, "capture", "workflow", str(plan), "--run-id", "r1", "--step-id", "s1", "--json"
    )
    assert [(c["type"], c["outcome"]) for c in wf["candidates"]] == [
        ("Decision", "stored"),
        ("Todo", "stored"),
    ]
    finding = tmp_path / "finding.json"
    finding.write_text(json.dumps({"title": "Disk 91% full on db-2", "severity": "high"}))
    diag = cli(tmp_path, "capture", "diagnostics", str(finding), "--json")
    assert [(c["type"], c["outcome"]) for c in diag["candidates"]] == [("Observation", "stored")]


def test_bad_at_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["--home", str(tmp_path), "capture", "message", "I love tea", "--user", "u", "--at", "x"],
    )
    assert result.exit_code == 2


def test_capture_train_rebuilds_the_reader_from_a_corpus(tmp_path: Path) -> None:
    from memvault.extract.training.train import load_rows

    rows = load_rows()
    small = tmp_path / "corpus.jsonl"
    picked = [r for i, r in enumerate(rows) if i % 40 == 0]
    small.write_text("".join(json.dumps(r) + "\n" for r in picked), encoding="utf-8")
    out = tmp_path / "weights"
    got = cli(tmp_path, "capture", "train", "--out", str(out), "--corpus", str(small), "--json")
    assert got["corpus"]["items"] == len(picked) and (out / "clause_reader.npz").is_file()
    assert got["sha256"] == json.loads((out / "clause_reader.json").read_text())["sha256"]


def test_capture_message_refuses_a_blank_turn_and_stores_nothing(tmp_path: Path) -> None:
    for text in ("", "   "):
        blank = runner.invoke(
            app, ["--home", str(tmp_path), "--orchestrator", "acme", "capture", "message", text,
                  "--user", "dana"],
        )  # fmt: skip
        assert blank.exit_code == 2, blank.output
        assert "message.text is empty or blank" in blank.output
    assert cli(tmp_path, "list", "--user-id", "dana", "--json") == {"memories": []}
