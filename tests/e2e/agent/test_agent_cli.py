"""``memvault agent run``: the trace interface, with memory on, off and broken."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app

SCRIPT = "\n".join(
    [
        '{"channel": "cli", "orchestrator": "acme", "user": "dana", '
        '"text": "I prefer green tea over coffee", "at": "2026-01-15T09:00:00Z"}',
        '{"channel": "http", "orchestrator": "acme", "user": "dana", '
        '"text": "Which tea should I order for Dana?"}',
        '{"workflow_output": {"decisions": ["use PostgreSQL for storage"]}}',
        '{"diagnostics": "why is search slow?"}',
    ]
)


def _run(tmp_path: Path, mode: str) -> dict[str, list[dict[str, object]]]:
    script = tmp_path / "script.jsonl"
    script.write_text(SCRIPT, encoding="utf-8")
    trace = tmp_path / f"trace-{mode}.json"
    result = CliRunner().invoke(
        app,
        [
            "agent",
            "run",
            "--script",
            str(script),
            "--memory",
            mode,
            "--trace",
            str(trace),
            "--home",
            str(tmp_path / f"home-{mode}"),
            "--embedder",
            "hashing",
        ],
    )
    assert result.exit_code == 0, result.output
    data: dict[str, list[dict[str, object]]] = json.loads(trace.read_text(encoding="utf-8"))
    return data


def test_traces_match_on_off_broken(tmp_path: Path) -> None:
    traces = {m: _run(tmp_path, m)["turns"] for m in ("on", "off", "broken")}
    for turns in traces.values():
        assert len(turns) == 4
        for turn in turns:
            assert set(turn) == {"nodes", "routes", "memory_available", "response"}
    flow = {m: [(t["nodes"], t["routes"]) for t in turns] for m, turns in traces.items()}
    assert flow["on"] == flow["off"] == flow["broken"]
    assert "green tea" in str(traces["on"][1]["response"])
    assert "green tea" not in str(traces["off"][1]["response"])
    assert [t["memory_available"] for t in traces["broken"]] == [False] * 4
    assert traces["on"][1]["memory_available"] is True
    assert not (tmp_path / "home-broken" / "acme").exists()  # broken never touches --home memory
    assert (tmp_path / "home-on" / "agent" / "checkpoints.db").is_file()


def test_bad_script_is_a_usage_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.jsonl"
    script.write_text("not json\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["agent", "run", "--script", str(script), "--memory", "off"])
    assert result.exit_code == 2


def test_chat_reads_stdin_lines(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "--home",
            str(tmp_path),
            "agent",
            "chat",
            "--orchestrator",
            "acme",
            "--user",
            "dana",
            "--embedder",
            "hashing",
        ],
        input="I prefer green tea\nwhich tea do I like?\n/quit\n",
    )
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == "No stored context." and "green tea" in lines[1]
