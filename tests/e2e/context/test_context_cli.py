"""``memvault bulletin`` as the evaluation runs it: real processes, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app
from memvault.context.bulletin import SECTIONS
from tests.integration.context.conftest import open_engine, put

runner = CliRunner()


def run(home: Path, *args: str, seed: str = "0") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memvault", "--home", str(home), "--orchestrator", "acme", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", "PYTHONHASHSEED": seed},
    )


def add(home: Path, text: str, memory_type: str) -> str:
    """Seed in-process (the CLI ``add`` path is covered by the core e2e tests)."""
    with open_engine(home) as engine:
        return put(engine, text, memory_type)


def test_bulletin_json_is_byte_identical_across_processes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    goal = add(home, "Ship v1 by September", "Goal")
    add(home, "The repo uses a src layout", "Fact")
    first = run(home, "bulletin", "--json", seed="1")
    second = run(home, "bulletin", "--json", seed="2")
    assert first.returncode == 0 and second.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert list(data) == ["revision", "sections", "truncated", "text"]
    assert list(data["sections"]) == list(SECTIONS)
    assert data["revision"] == 2
    assert data["sections"]["active_goals"] == [
        {"text": '[Goal] "Ship v1 by September" (imp=50)', "memory_ids": [goal]}
    ]
    assert (home / "acme" / "memory" / "bulletins" / "latest.json").exists()


def test_bulletin_with_thread_prints_the_delta_header_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    add(home, "Ship v1 by September", "Goal")
    base = ["--home", str(home), "--orchestrator", "acme", "bulletin", "--thread", "t1"]
    first = runner.invoke(app, base)
    assert first.exit_code == 0, first.output
    assert first.stdout.startswith("Memory updates since rev 0:\n- +created: [KNOWLEDGE] Ship v1")
    again = runner.invoke(app, [*base, "--json"])
    data = json.loads(again.stdout)
    assert data["delta"] is None and data["text"].startswith("<memory-bulletin")


def test_query_and_context_commands(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with open_engine(home) as engine:
        plan = put(engine, "Deploy plan: blue green", "Decision", category="DECISION")
        put(engine, "Alpha deploys on Fridays", "Fact", project_id="alpha")
    base = ["--home", str(home), "--orchestrator", "acme"]
    ok = runner.invoke(app, [*base, "query", "deploy plan", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["status"] == "ok" and data["results"][0]["id"] == plan
    assert set(data["results"][0]) == {"id", "category", "text"}
    allow = tmp_path / "allow.json"
    allow.write_text(json.dumps({"allowlists": {"planner": ["goals"]}}))
    refused = runner.invoke(
        app,
        [*base, "query", "deploy", "--agent", "planner", "--category", "decisions",
         "--allowlist", str(allow), "--json"],
    )  # fmt: skip
    assert refused.exit_code == 1
    assert json.loads(refused.stdout)["stop_reason"] == "FORBIDDEN_CATEGORY"
    bad = runner.invoke(app, [*base, "query", "deploy", "--filter", "colour=red"])
    assert bad.exit_code == 2
    package = runner.invoke(
        app, [*base, "context", "--task", "t1", "--project", "alpha", "--budget", "50", "--json"]
    )
    assert package.exit_code == 0, package.output
    pkg = json.loads(package.stdout)
    assert pkg["token_cost"] <= 50 and [i["tier"] for i in pkg["items"]] == ["project", "global"]


def test_query_says_whose_memories_it_read(tmp_path: Path) -> None:
    """Without --user a read sees shared memories only; the title says so (an empty
    table once looked like "nothing stored" while the match was a user's memory)."""
    with open_engine(tmp_path) as engine:
        put(engine, "Dana drinks oolong tea every afternoon", user_id="dana")
    home = ["--home", str(tmp_path), "--orchestrator", "acme"]
    shared = runner.invoke(app, [*home, "query", "oolong tea"], env={"COLUMNS": "200"})
    assert shared.exit_code == 0, shared.output
    assert "shared memories only (--user U for a user's)" in shared.stdout
    assert "oolong" not in shared.stdout.split("\n", 1)[1]  # no row: Dana's memory is hers
    dana = runner.invoke(
        app, [*home, "query", "oolong tea", "--user", "dana"], env={"COLUMNS": "200"}
    )
    assert dana.exit_code == 0, dana.output
    assert "user dana and shared" in dana.stdout and "oolong" in dana.stdout.split("\n", 1)[1]
    package = runner.invoke(app, [*home, "context", "--task", "t1", "--user", "dana"])
    assert package.exit_code == 0 and "user dana and shared" in package.stdout


def test_context_refuses_a_blank_task(tmp_path: Path) -> None:
    base = ["--home", str(tmp_path / "home"), "--orchestrator", "acme"]
    for task in ("", "  "):
        blank = runner.invoke(app, [*base, "context", "--task", task, "--json"])
        assert blank.exit_code == 2, blank.output
        assert "task is empty or blank" in blank.output
