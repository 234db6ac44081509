"""The CLI as users and the evaluation run it: real processes, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memvault.cli import app

runner = CliRunner()


def run(home: Path, *args: str, orchestrator: str = "acme") -> subprocess.CompletedProcess[str]:
    """The real console script, in a subprocess."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "memvault",
            "--home",
            str(home),
            "--orchestrator",
            orchestrator,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def cli(home: Path, *args: str, orchestrator: str = "acme") -> tuple[int, str, str]:
    """In-process run (fast) for the many smaller cases."""
    result = runner.invoke(app, ["--home", str(home), "--orchestrator", orchestrator, *args])
    return result.exit_code, result.stdout, result.stderr


ADD = ["--type", "Preference", "--category", "PREFERENCE", "--source-kind", "USER_EXPLICIT"]


def test_evaluation_interface_add_search_get(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "add",
        "Dana prefers tea over coffee",
        *ADD,
        "--importance",
        "70",
        "--user-id",
        "dana",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    added = json.loads(r.stdout)
    assert added["stop_reason"] == "SUCCESS_STORED" and added["memory_id"].startswith("mem_")

    r = run(tmp_path, "search", "what does Dana drink", "--top-k", "5", "--json")
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout)["results"]
    assert [x["memory_id"] for x in results] == [added["memory_id"]]
    first = results[0]
    assert {"memory_id", "content", "type", "score", "source"} <= set(first)
    assert first["source"]["sourceKind"] == "USER_EXPLICIT"

    r = run(tmp_path, "get", added["memory_id"], "--json")
    assert r.returncode == 0
    got = json.loads(r.stdout)
    assert got["status"] == "active" and got["importance"] == 70 and got["edges"] == []


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--type", "preference"], "type"),
        (["--importance", "101"], "importance"),
        (["--source-kind", "MADE_UP"], "source_kind"),
    ],
)
def test_bad_input_is_one_line_nonzero_and_writes_nothing(
    tmp_path: Path, extra: list[str], needle: str
) -> None:
    args = dict(zip(ADD[::2], ADD[1::2], strict=True))
    for flag, value in zip(extra[::2], extra[1::2], strict=True):
        args[flag] = value
    flat = [x for kv in args.items() for x in kv]
    r = run(tmp_path, "add", "anything", *flat, *extra[len(extra) :])
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0]
    r = run(tmp_path, "stats", "--json")
    assert json.loads(r.stdout)["memories"]["total"] == 0


def test_unknown_id_and_usage_errors(tmp_path: Path) -> None:
    code, _out, err = cli(tmp_path, "get", "mem_nope", "--json")
    assert code == 3 and "not found" in err
    code, _out, err = cli(tmp_path, "update", "mem_nope")
    assert code == 2 and "nothing to update" in err
    code, _out, err = cli(tmp_path, "list", "--importance-min", "500")
    assert code == 2 and "Traceback" not in err
    code, _out, err = cli(tmp_path, "search", "x", "--top-k", "0")
    assert code == 2 and "top_k" in err
    bad = run(tmp_path, "stats", orchestrator="../escape")
    assert bad.returncode == 2 and "invalid orchestrator" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "acme" / "memory" / "memory.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"garbage" * 1000)
    r = run(tmp_path, "stats")
    assert r.returncode == 4 and "cannot open memory database" in r.stderr
    assert "Traceback" not in r.stderr


def _json(code_out_err: tuple[int, str, str]) -> Any:
    code, out, err = code_out_err
    assert code == 0, err
    return json.loads(out)


def test_full_command_tour(tmp_path: Path) -> None:
    assert _json(cli(tmp_path, "init", "--json"))["orchestrator"] == "acme"
    a = _json(
        cli(
            tmp_path,
            "add",
            "Use trunk as the main branch",
            "--type",
            "Fact",
            "--category",
            "PROJECT_CONFIG",
            "--source-kind",
            "SYSTEM_KNOWN",
            "--project-id",
            "billing",
            "--json",
        )
    )["memory_id"]
    b = _json(cli(tmp_path, "add", "Never push to trunk without approval", *ADD, "--json"))[
        "memory_id"
    ]
    linked = _json(cli(tmp_path, "link", b, a, "--type", "RelatedTo", "--weight", "0.5", "--json"))
    assert linked["edge_id"].startswith("edge_")
    assert cli(tmp_path, "link", b, a, "--type", "RelatedTo")[0] == 1
    assert _json(cli(tmp_path, "get", a, "--json"))["edges"][0]["from_memory_id"] == b
    upd = _json(cli(tmp_path, "update", a, "--importance", "90", "--json"))
    assert upd["stop_reason"] == "SUCCESS_UPDATED"
    listed = _json(cli(tmp_path, "list", "--project-id", "billing", "--json"))["memories"]
    assert [m["memory_id"] for m in listed] == [a]
    assert _json(cli(tmp_path, "delete", a, "--json"))["stop_reason"] == "SUCCESS_DELETED"
    assert cli(tmp_path, "get", a)[0] == 3
    assert _json(cli(tmp_path, "restore", a, "--json"))["stop_reason"] == "SUCCESS_UPDATED"
    ops = [e["op"] for e in _json(cli(tmp_path, "history", a, "--json"))["events"]]
    assert ops == ["CREATE", "UPDATE", "DELETE", "RESTORE"]
    stats = _json(cli(tmp_path, "stats", "--json"))
    assert stats["memories"]["total"] == 2 and stats["edges"]["total"] == 1
    # human output renders too
    for args in (["list"], ["stats"], ["get", a], ["history", a], ["search", "trunk"]):
        code, out, err = cli(tmp_path, *args)
        assert code == 0 and out.strip(), (args, err)


def test_demo_runs_and_cleans_up(tmp_path: Path) -> None:
    r = run(tmp_path, "demo", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["memories"] == 11 and report["stats"]["edges"]["total"] == 4
    assert all(q["results"] for q in report["queries"])
    assert not Path(report["home"]).exists()
    human = run(tmp_path, "demo")
    assert human.returncode == 0 and "Loaded 11 memories" in human.stdout


def test_a_long_add_is_stored_as_several_memories(tmp_path: Path) -> None:
    """`add` of a message over the category's bound (EVENT: 512) stores it in
    parts instead of refusing BOUNDS_EXCEEDED; both outputs name every part."""
    text = "Ana: " + " ".join(
        f"Chapter {i} of the novel was slow but the ending made up for it." for i in range(20)
    )
    event = ["--type", "Event", "--category", "EVENT", "--source-kind", "USER_EXPLICIT"]
    code, out, err = cli(tmp_path, "add", text, *event, "--json")
    assert code == 0, err
    added = json.loads(out)
    assert added["stop_reason"] == "SUCCESS_STORED" and len(added["parts"]) == 3
    assert added["memory_id"] == added["parts"][0]
    code, out, err = cli(tmp_path, "add", text, *event)
    assert code == 0 and "and 2 more" in out, (out, err)
