"""SIGKILL a real ``memvault ingest`` at random points, rerun, compare with one clean run.

Each run gets its own home and the same small workload. After the kill, a
rerun in this process must leave exactly the state of one clean run: the same
memory ids, the same audit events, every file in processed/ or rejected/ with
a manifest, and a database that passes ``PRAGMA integrity_check``.

Two kinds of runs:

* **exec'd** — ``python -m memvault … ingest --watch`` started from scratch;
  it polls an empty drop folder until its imports are done, then the workload
  is renamed in and the process is killed after a random delay;
* **forked** — a helper process imports ``memvault.cli`` once, then forks one
  child per run that runs ``memvault … ingest --once`` through the same typer
  entry point. No 2–3 s import per run, so 20 kills fit in a few seconds.
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

FORKED_RUNS = int(os.environ.get("MEMVAULT_CRASH_RUNS", "20"))
EXEC_RUNS = 2
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
        # every memory has its vector (written in the same transaction as the memory)
        unembedded = conn.execute(
            "SELECT count(*) FROM memories m WHERE NOT EXISTS "
            "(SELECT 1 FROM memory_embeddings e WHERE e.memory_id = m.memory_id)"
        ).fetchone()[0]
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
        "unembedded": unembedded,
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


_ZYGOTE = r"""
import json, os, sys, tempfile
import typer.main
import memvault.ingest.pipeline
from memvault.cli import app
from memvault.engine import MemoryEngine
# Windows of three files: the 13-file workload commits in several transactions, so
# kills land between one window's commit and the next, not only around one commit.
memvault.ingest.pipeline.WINDOW_FILES = 3
cli = typer.main.get_command(app)  # what `memvault` builds on every start
with MemoryEngine.open(tempfile.mkdtemp(), "warm") as engine:  # warm caches (gate, contract,
    assert engine.layout is not None                             # the verified MiniLM weights)
    (engine.layout.ingest_dir / "warm.md").write_text("# Warm\n\nThe build runs nightly.\n")
    engine.ingest_pending(settle_seconds=0)
print("ready", flush=True)
for line in sys.stdin:
    command, payload = line.split(" ", 1)
    if command == "wait":
        _, status = os.waitpid(int(payload), 0)
        print(json.dumps([os.WIFSIGNALED(status) and os.WTERMSIG(status)]), flush=True)
        continue
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            cli.main(json.loads(payload), prog_name="memvault")
        except SystemExit as exc:
            os._exit(exc.code if isinstance(exc.code, int) else 1)
        os._exit(0)
    print(pid, flush=True)
"""


class Zygote:
    """Forks ``memvault ingest`` runs from one process that imported memvault once."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._read() == "ready"

    def _read(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def _send(self, line: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self._read()

    def run(self, home: Path) -> int:
        args = ["--home", str(home), "--orchestrator", "acme", "ingest", "--once", "--settle", "0"]
        return int(self._send("run " + json.dumps([*args, "--json"])))

    def wait(self, pid: int) -> int | bool:
        value: int | bool = json.loads(self._send(f"wait {pid}"))[0]
        return value

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()


def _interrupted(ingest: Path) -> bool:
    """True when the kill landed inside the pass: files waiting after a commit (some
    files moved, or a window committed whose files were not moved yet)."""
    moved = sum(len(os.listdir(ingest / d)) for d in ("processed", "rejected"))
    waiting = [n for n in os.listdir(ingest) if not n.startswith(".")]
    if len(waiting) <= 2:
        return False
    if moved:
        return True
    conn = sqlite3.connect(ingest.parent / "memory.db")
    try:
        return bool(conn.execute("SELECT count(*) FROM ingest_files").fetchone()[0])
    finally:
        conn.close()


def _first_move(
    ingest: Path, timeout: float = 30.0, folders: tuple[str, ...] = ("processed", "rejected")
) -> float:
    """Wait until the pass has placed its first file (in ``folders``); return when."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(os.listdir(ingest / d) for d in folders):
            return time.monotonic()
        time.sleep(0.001)
    raise AssertionError("the ingest run never placed a file")


def _reference(tmp_path: Path) -> dict[str, Any]:
    home = tmp_path / "reference"
    ingest, staging = _stage(home)
    MemoryEngine.open(home, "acme").close()
    _drop(ingest, staging)
    _rerun(home)
    expected = _state(home)
    assert expected["integrity"] == "ok" and expected["left"] == []
    assert len(expected["ids"]) == 16 and expected["records"] == 9
    return expected


def test_sigkill_forked_runs_at_random_points(tmp_path: Path) -> None:
    expected = _reference(tmp_path)
    rng = random.Random(SEED)
    zygote = Zygote()
    try:
        # How long one whole run takes here, so that kills spread over all of it.
        timing = tmp_path / "timing"
        ingest, staging = _stage(timing)
        MemoryEngine.open(timing, "acme").close()
        _drop(ingest, staging)
        started = time.monotonic()
        pid = zygote.run(timing)
        first = _first_move(ingest)
        committed = _first_move(ingest, folders=("processed",))
        assert zygote.wait(pid) is False  # exited normally
        ended = time.monotonic()
        whole, span, burst = ended - started, ended - first, ended - committed
        assert _state(timing) == expected
        interrupted = recovered = 0
        for i in range(FORKED_RUNS):
            home = tmp_path / f"fork-{i}"
            ingest, staging = _stage(home)
            MemoryEngine.open(home, "acme").close()
            _drop(ingest, staging)
            pid = zygote.run(home)
            # Trigger: most of a run is start-up (engine, store, gate), and a
            # window's commits come in one burst after its vectors. Why: kills must
            # land inside the pass — mid-transaction, after a commit and before a
            # move. Outcome: one kill in five anywhere in the run, two in five after
            # the pass placed its first file, two in five inside the commit burst.
            roll = rng.random()
            if roll < 0.2:
                time.sleep(rng.uniform(0.0, whole))
            elif roll < 0.6:
                _first_move(ingest)
                time.sleep(rng.uniform(0.0, span))
            else:
                _first_move(ingest, folders=("processed",))
                time.sleep(rng.uniform(0.0, burst))
            os.kill(pid, signal.SIGKILL)
            signalled = zygote.wait(pid)
            interrupted += signalled == signal.SIGKILL and _interrupted(ingest)
            recovered += _rerun(home)
            assert _state(home) == expected, home.name
            shutil.rmtree(home)
    finally:
        zygote.close()
    print(f"\n{FORKED_RUNS} forked SIGKILL runs: {interrupted} mid-pass, {recovered} recovered")
    assert interrupted >= FORKED_RUNS // 4, "too few kills landed inside a pass to mean anything"


def test_sigkill_execd_memvault_ingest_then_rerun(tmp_path: Path) -> None:
    expected = _reference(tmp_path)
    rng = random.Random(SEED + 1)
    homes = [tmp_path / f"exec-{i}" for i in range(EXEC_RUNS)]
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
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for home in homes:
        _rerun(home)
        assert _state(home) == expected, home.name
