"""SIGKILL a real ``memvault ingest`` at random points, rerun, compare with one clean run.

Each run gets its own home. A ``memvault ingest --watch`` subprocess is
started and waits (polling an empty drop folder) until its imports are done;
then the workload is renamed into the folder, and after a random delay the
process is killed with SIGKILL. A rerun in this process must leave exactly
the state of one clean run of the same workload: the same memory ids, the
same audit events, every file in processed/ or rejected/ with a manifest,
and a database that passes ``PRAGMA integrity_check``.

Runs are started in waves so the subprocesses' start-up overlaps.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from memvault.engine import MemoryEngine

RUNS = int(os.environ.get("MEMVAULT_CRASH_RUNS", "20"))
WAVE = 20
SEED = int(os.environ.get("MEMVAULT_CRASH_SEED", "20261125"))


def _workload() -> list[tuple[str, str]]:
    """(name, body) in drop order: valid files of each format, a duplicate, rejects."""
    files = [
        (f"note-{i}.txt", f"Fact {i} about the build.\n\nAnother fact {i} about deploys.\n")
        for i in range(4)
    ]
    files += [
        (f"guide-{i}.md", f"# Guide {i}\n\nStep one {i}.\n\n## More\n\n- a {i}\n- b {i}\n")
        for i in range(3)
    ]
    files.append(
        (
            "graph.json",
            json.dumps(
                {
                    "memories": [
                        {"ref": "a", "content": "We chose SQLite", "type": "Decision"},
                        {"ref": "b", "content": "WAL is on", "type": "Fact"},
                    ],
                    "edges": [{"from": "b", "to": "a", "type": "RelatedTo"}],
                }
            ),
        )
    )
    files.append(("refused.json", json.dumps([{"content": "x", "type": "nope"}])))
    files.append(("broken.json", '{"memories": ['))
    files.append(("image.gif", "GIF89a"))
    files.append(("note-0-again.txt", files[0][1]))  # a duplicate, dropped last
    return files


def _stage(home: Path) -> tuple[Path, Path]:
    """Write the workload into a hidden staging folder next to the drop folder."""
    ingest = home / "acme" / "memory" / "ingest"
    staging = home / "staging"
    staging.mkdir(parents=True)
    for name, body in _workload():
        (staging / name).write_text(body, encoding="utf-8")
    return ingest, staging


def _drop(ingest: Path, staging: Path) -> None:
    for name, _ in _workload():  # in order: an original always arrives before its duplicate
        os.rename(staging / name, ingest / name)


def _state(home: Path) -> dict[str, Any]:
    memory = home / "acme" / "memory"
    conn = sqlite3.connect(memory / "memory.db")
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        ids = sorted(r[0] for r in conn.execute("SELECT memory_id FROM memories"))
        refs = [r[0] for r in conn.execute("SELECT source_ref FROM memory_sources")]
        ops = Counter(r[0] for r in conn.execute("SELECT op FROM history"))
        records = conn.execute("SELECT count(*) FROM ingest_files").fetchone()[0]
        edges = conn.execute("SELECT count(*) FROM memory_edges").fetchone()[0]
    finally:
        conn.close()
    placed: dict[str, list[str]] = {}
    for folder in ("processed", "rejected"):
        names = sorted(os.listdir(memory / "ingest" / folder))
        files = [n for n in names if not n.endswith(".manifest.json")]
        assert not [n for n in names if n.startswith(".")], f"leftover temporaries: {names}"
        for name in files:
            assert f"{name}.manifest.json" in names, f"{folder}/{name} has no manifest"
        placed[folder] = files
    left = [n for n in os.listdir(memory / "ingest") if not n.startswith(".")]
    return {
        "integrity": integrity,
        "ids": ids,
        "duplicate_refs": len(refs) - len(set(refs)),
        "ops": dict(ops),
        "records": records,
        "edges": edges,
        "placed": placed,
        "left": sorted(set(left) - {"processed", "rejected"}),
    }


def _rerun(home: Path) -> int:
    with MemoryEngine.open(home, "acme") as engine:
        report = engine.ingest_pending(settle_seconds=0)
    return sum(1 for o in report.processed if o.recovered)


def _start(home: Path) -> subprocess.Popen[bytes]:
    command = [
        *(sys.executable, "-m", "memvault"),
        *("--home", str(home), "--orchestrator", "acme"),
        *("ingest", "--watch", "--interval", "0.01", "--settle", "0", "--json"),
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _ready(home: Path, proc: subprocess.Popen[bytes], deadline: float) -> None:
    log = home / "acme" / "memory" / "logs" / "memory.log"
    while time.monotonic() < deadline:
        if log.exists() and "ingest_watch_started" in log.read_text(encoding="utf-8"):
            return
        assert proc.poll() is None, "memvault ingest exited before it was ready"
        time.sleep(0.02)
    raise AssertionError("memvault ingest did not start in time")


def test_sigkill_at_random_points_then_rerun_equals_one_clean_run(tmp_path: Path) -> None:
    reference_home = tmp_path / "reference"
    ingest, staging = _stage(reference_home)
    MemoryEngine.open(reference_home, "acme").close()
    _drop(ingest, staging)
    _rerun(reference_home)
    expected = _state(reference_home)
    assert expected["integrity"] == "ok" and expected["left"] == []
    assert len(expected["ids"]) == 16 and expected["records"] == 9

    rng = random.Random(SEED)
    interrupted = recovered = 0
    for wave_start in range(0, RUNS, WAVE):
        homes = [tmp_path / f"run-{i}" for i in range(wave_start, min(RUNS, wave_start + WAVE))]
        staged = [_stage(home) for home in homes]
        procs = [_start(home) for home in homes]
        try:
            deadline = time.monotonic() + 120
            for home, proc in zip(homes, procs, strict=True):
                _ready(home, proc, deadline)
            for (ingest, staging), proc in zip(staged, procs, strict=True):
                _drop(ingest, staging)
                time.sleep(rng.uniform(0.0, 0.25))
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
                assert proc.returncode == -signal.SIGKILL
                moved = sum(len(os.listdir(ingest / d)) for d in ("processed", "rejected"))
                waiting = [n for n in os.listdir(ingest) if not n.startswith(".")]
                interrupted += bool(moved) and len(waiting) > 2
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        for home in homes:
            recovered += _rerun(home)
            assert _state(home) == expected, home.name
            shutil.rmtree(home)
    print(f"\n{RUNS} SIGKILL runs: {interrupted} killed mid-pass, {recovered} files recovered")
    assert interrupted >= RUNS // 6, "too few kills landed inside a pass to mean anything"
