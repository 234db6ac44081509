"""``memvault bench contention``: write latency with N writer processes on one orchestrator.

Each run starts N separate processes (``python -m memvault.benchmarks.contention``)
on one SQLite store. They import and open the store first, then wait for a
common start signal, then each adds ``writes`` small memories through the
engine (the write pipeline, one transaction per write) and reports every
write's latency and how long its writes waited for the database write lock.

What it measures is the storage path under contention: the gate is
:class:`~memvault.engine.OpenGate` and there is no embedder, so CPU-bound
steps that do not hold the lock do not blur the figure (with 16 processes on
2 cores they would dominate it). Timings on a shared machine are upper
bounds: every run records the load average before and after.

>>> row = summarise_run(2, [[0.01, 0.02], [0.03, 0.5]], [_waits(2, 1, 0.2, 0.2)] * 2, 1.0)
>>> row["writers"], row["writes"], row["max_ms"]
(2, 4, 500.0)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import percentile

__all__ = ["run_contention", "summarise_run"]

ORCHESTRATOR = "contention"
START = "start"


def _waits(writes: int, waited: int, total_s: float, max_s: float) -> dict[str, Any]:
    return {"writes": writes, "waited": waited, "total_s": total_s, "max_s": max_s}


def summarise_run(
    writers: int,
    latencies: Sequence[Sequence[float]],
    waits: Sequence[dict[str, Any]],
    seconds: float,
) -> dict[str, Any]:
    """One row of the table: latency percentiles (ms), lock waits, throughput."""
    every = [x for per in latencies for x in per]
    return {
        "writers": writers,
        "writes": len(every),
        "p50_ms": round(percentile(every, 50) * 1000, 1),
        "p99_ms": round(percentile(every, 99) * 1000, 1),
        "max_ms": round(max(every, default=0.0) * 1000, 1),
        "writes_per_s": round(len(every) / seconds, 1) if seconds > 0 else 0.0,
        "lock_waited": sum(int(w["waited"]) for w in waits),
        "lock_wait_total_s": round(sum(float(w["total_s"]) for w in waits), 3),
        "lock_wait_max_ms": round(max((float(w["max_s"]) for w in waits), default=0.0) * 1000, 1),
    }


def _worker(home: str, writes: int, worker: int) -> None:
    """One writer process: open, signal ready, wait for start, write, report (stdout)."""
    from memvault.engine import MemoryEngine, NewMemory, OpenGate
    from memvault.model.enums import MemoryType, SourceKind

    engine = MemoryEngine.open(home, ORCHESTRATOR, gate=OpenGate(), embedder=None, create=False)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != START:
        return
    latencies = []
    failed = 0
    for i in range(writes):
        started = time.perf_counter()
        result = engine.add(
            NewMemory(
                content=f"Writer {worker} note {i}: the deploy of build {worker * 10_000 + i} "
                "went fine",
                type=MemoryType.FACT,
                category="KNOWLEDGE",
                source_kind=SourceKind.SYSTEM_KNOWN,
            )
        )
        latencies.append(time.perf_counter() - started)
        failed += not result.ok
    waits = getattr(engine.store, "lock_waits", None)
    report = {
        "latencies": latencies,
        "failed": failed,
        "waits": _waits(waits.writes, waits.waited, waits.total_s, waits.max_s)
        if waits is not None
        else _waits(0, 0, 0.0, 0.0),
    }
    engine.close()
    print(json.dumps(report), flush=True)


def _one_run(home: Path, writers: int, writes: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memvault.benchmarks.contention",
                str(home),
                str(writes),
                str(i),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(writers)
    ]
    for p in procs:  # every process has imported and opened the store
        assert p.stdout is not None
        if p.stdout.readline().strip() != "ready":
            raise RuntimeError("a writer process did not start")
    load_before = os.getloadavg()
    started = time.perf_counter()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(START + "\n")
        p.stdin.flush()
    reports = []
    for p in procs:
        out, _ = p.communicate(timeout=1800)
        reports.append(json.loads(out.strip().splitlines()[-1]))
    seconds = time.perf_counter() - started
    row = summarise_run(
        writers, [r["latencies"] for r in reports], [r["waits"] for r in reports], seconds
    )
    row["failed"] = sum(int(r["failed"]) for r in reports)
    row["seconds"] = round(seconds, 2)
    row["load_before"] = [round(x, 2) for x in load_before]
    row["load_after"] = [round(x, 2) for x in os.getloadavg()]
    row["load_1m"] = row["load_before"][0]
    return row


def run_contention(writers: Sequence[int], writes: int) -> dict[str, Any]:
    """One store per writer count (same size at the start), N processes each."""
    from memvault.engine import MemoryEngine

    rows = []
    with tempfile.TemporaryDirectory(prefix="memvault-bench-contention-") as tmp:
        for n in writers:
            home = Path(tmp) / f"w{n}"
            MemoryEngine.open(home, ORCHESTRATOR, embedder=None).close()  # create the store
            rows.append(_one_run(home, n, writes))
    return {
        "benchmark": "contention",
        "orchestrator_store": "sqlite",
        "writes_per_process": writes,
        "gate": "OpenGate (storage path only)",
        "embedder": None,
        "cpu_count": os.cpu_count(),
        "runs": rows,
    }


if __name__ == "__main__":  # a writer process of run_contention
    _worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
