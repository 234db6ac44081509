"""``memvault ingest`` as users and the evaluation run it: real subprocesses, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def memvault(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "memvault", "--home", str(home), "--orchestrator", "acme"]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT")}
    environ.update(env or {})
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=120, env=environ
    )


def test_ingest_once_json_contract_manifests_and_stats(tmp_path: Path) -> None:
    ingest = tmp_path / "acme" / "memory" / "ingest"
    ingest.mkdir(parents=True)
    (ingest / "notes.md").write_text("# Ops\n\nBackups run nightly.\n\n- check them\n")
    (ingest / "same.md").write_text("# Ops\n\nBackups run nightly.\n\n- check them\n")
    (ingest / "bad.json").write_text('{"memories": [}')
    (ingest / "photo.png").write_bytes(b"\x89PNG")
    os.utime(ingest / "same.md", (2_000_000_000, 2_000_000_000))  # discovered last
    result = memvault(tmp_path, "ingest", "--once", "--json")
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    assert [p["file"] for p in data["processed"]] == ["notes.md"]
    assert sorted((r["file"], r["reasons"]) for r in data["rejected"]) == [
        ("bad.json", ["PARSE_ERROR"]),
        ("photo.png", ["UNSUPPORTED_TYPE"]),
    ]
    assert [d["file"] for d in data["duplicates"]] == ["same.md"]
    for folder, name in [
        ("processed", "notes.md"),
        ("processed", "same.md"),
        ("rejected", "bad.json"),
        ("rejected", "photo.png"),
    ]:
        assert (ingest / folder / name).exists()
        assert (ingest / folder / f"{name}.manifest.json").exists()
    stats = json.loads(memvault(tmp_path, "stats", "--json").stdout)
    # one memory per statement: the sentence and the list
    assert stats["memories"]["total"] == stats["memories"]["active"] == 2


def test_watch_prints_json_lines_and_disabled_stops_clearly(tmp_path: Path) -> None:
    ingest = tmp_path / "acme" / "memory" / "ingest"
    ingest.mkdir(parents=True)
    (ingest / "a.txt").write_text("Alpha fact.")
    result = memvault(
        tmp_path, "ingest", "--watch", "--interval", "0.05", "--max-passes", "3", "--json"
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [p["file"] for line in lines for p in line["processed"]] == ["a.txt"]
    log = (tmp_path / "acme" / "memory" / "logs" / "memory.log").read_text().splitlines()
    assert {"ingest_watch_started", "ingest_file", "ingest_pass"} <= {
        json.loads(line)["event"] for line in log
    }
    (ingest / "b.txt").write_text("Beta fact.")
    off = memvault(
        tmp_path, "ingest", "--watch", env={"MEMVAULT__MEMORY__INGEST__ENABLED": "false"}
    )
    assert off.returncode == 2
    assert "ingestion is disabled" in off.stderr and off.stdout == ""
    assert (ingest / "b.txt").exists()


def test_bench_ingest_reports_embedder_throughput_and_time_split(tmp_path: Path) -> None:
    out = tmp_path / "bench" / "results" / "ingest.json"
    result = memvault(
        tmp_path, "bench", "ingest", "--files", "12", "--embedder", "hashing", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    assert "embedder: memvault/hashing" in result.stdout
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert data["embedder"].startswith("memvault/hashing")
    assert data["memories"] > 0 and data["memories_without_vector"] == 0
    assert data["memories_per_s"] > 0 and data["files_per_s"] > 0
    assert {"read", "parse", "gate", "embed", "resolve", "commit"} <= set(data["timings_s"])
    assert set(data["load_average_1m"]) == {"before", "after"}
    assert data["processed"] + data["rejected"] + data["duplicates"] == 12
