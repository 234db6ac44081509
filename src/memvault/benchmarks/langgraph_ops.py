"""``memvault bench langgraph``: what one LangGraph store operation costs as the store grows.

For each size N a fresh home is filled with N items the way the adapter writes them
(namespace and value in the memory's ``value``, the item key as the memory's ``key``;
loaded in one ``add_many`` through an :class:`~memvault.engine.OpenGate`, vectors from the
hashing embedder, so the load is fast), then the adapter's ``MemvaultStore`` (its
configured gate, the same hashing embedder) runs ``ops`` of each operation, each as
its own ``batch``: ``get`` of an existing key and of a missing one, ``put`` that updates an
item and ``put`` of a new one, ``search`` with a query (a page of 10), ``search`` without
one (a namespace's first page of 10) and ``list_namespaces``. Each row gives wall and CPU
milliseconds per operation (median); timings on a shared machine are upper bounds, so the
load average is recorded before and after.

>>> row = summarise("get", [0.002, 0.004, 0.003], [0.001, 0.002, 0.002])
>>> row["op"], row["wall_ms_p50"], row["cpu_ms_p50"]
('get', 3.0, 2.0)
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import percentile

__all__ = ["run_langgraph_ops", "summarise"]

ORCHESTRATOR = "langgraph-bench"
#: How the adapter is configured in the bench: a cheap deterministic embedder, the gate
#: in this process (no worker pool to start per size).
CONFIG: dict[str, Any] = {
    "embedder": {"name": "hashing", "dimension": 256},
    "policy": {"parallel_gate": False},
}
_WORDS = "harbour lantern violin orchard glacier pepper saddle meadow copper falcon".split()


def summarise(op: str, wall: Sequence[float], cpu: Sequence[float]) -> dict[str, Any]:
    """One row: the operation's median and p90 wall time and median CPU time, in ms."""
    return {
        "op": op,
        "runs": len(wall),
        "wall_ms_p50": round(percentile(list(wall), 50) * 1000, 2),
        "wall_ms_p90": round(percentile(list(wall), 90) * 1000, 2),
        "cpu_ms_p50": round(percentile(list(cpu), 50) * 1000, 2),
    }


def _item(i: int) -> tuple[tuple[str, ...], str, dict[str, Any]]:
    words = " ".join(_WORDS[(i * k) % len(_WORDS)] for k in (1, 3, 7))
    return ("bench", f"team{i % 20}"), f"k{i}", {"content": f"Note {i}: {words}."}


def _load(home: Path, n: int) -> None:
    """N items as the adapter writes them, in one transaction through an open gate."""
    from memvault.config import load_config
    from memvault.engine import MemoryEngine, OpenGate

    config = load_config(home, overrides=CONFIG, environ={})
    with MemoryEngine.open(home, ORCHESTRATOR, config=config, gate=OpenGate()) as engine:
        rows = []
        for i in range(n):
            namespace, key, value = _item(i)
            envelope = {"namespace": list(namespace), "value": value, "indexed": True}
            rows.append(
                {
                    "content": value["content"],
                    "key": key,
                    "value": json.dumps(envelope),
                    "type": "Fact",
                    "category": "KNOWLEDGE",
                    "source_kind": "SYSTEM_KNOWN",
                }
            )
        for start in range(0, n, 2000):
            for result in engine.add_many(rows[start : start + 2000]):
                result.raise_for_status()


def _time(run: Callable[[int], Any], ops: int) -> tuple[list[float], list[float]]:
    wall: list[float] = []
    cpu: list[float] = []
    for i in range(ops):
        w0, c0 = time.perf_counter(), time.process_time()
        run(i)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def _measure(home: Path, n: int, ops: int) -> list[dict[str, Any]]:
    from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp

    from memvault.config import load_config
    from memvault.integrations.langgraph_store import MemvaultStore

    config = load_config(home, overrides=CONFIG, environ={})
    rows: list[dict[str, Any]] = []
    with MemvaultStore(home, orchestrator=ORCHESTRATOR, config=config) as store:
        store.batch([GetOp(("bench", "team0"), "k0")])  # open the engine, warm up
        step = max(1, n // ops)

        def get(i: int) -> None:
            namespace, key, _ = _item((i * step) % n)
            assert store.batch([GetOp(namespace, key)])[0] is not None

        def miss(i: int) -> None:
            assert store.batch([GetOp(("bench", "team0"), f"absent{i}")])[0] is None

        def update(i: int) -> None:
            namespace, key, value = _item((i * step + 1) % n)
            store.batch([PutOp(namespace, key, {**value, "rev": i})])

        def new(i: int) -> None:
            store.batch([PutOp(("bench", "new"), f"new{i}", {"content": f"Fresh note {i}."})])

        def query(i: int) -> None:
            op = SearchOp(("bench",), query=_WORDS[i % len(_WORDS)], limit=10)
            assert store.batch([op])[0]

        def page(i: int) -> None:
            # the namespaces that hold items (fewer than 20 when n < 20: review S12-R9)
            assert store.batch([SearchOp(("bench", f"team{i % min(20, n)}"), limit=10)])[0]

        def spaces(i: int) -> None:
            assert store.batch([ListNamespacesOp(max_depth=2, limit=100)])[0]

        for name, run in (
            ("get", get),
            ("get (missing key)", miss),
            ("put (update)", update),
            ("put (new item)", new),
            ("search (query, page of 10)", query),
            ("search (no query, page of 10)", page),
            ("list_namespaces", spaces),
        ):
            rows.append({"items": n, **summarise(name, *_time(run, ops))})
    return rows


def run_langgraph_ops(sizes: Sequence[int], ops: int) -> dict[str, Any]:
    """Per-operation cost at each store size (see the module docstring)."""
    load = [round(x, 2) for x in os.getloadavg()]
    runs: list[dict[str, Any]] = []
    loads: dict[int, float] = {}
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="memvault-lgbench-") as tmp:
            home = Path(tmp)
            t0 = time.perf_counter()
            _load(home, n)
            loads[n] = round(time.perf_counter() - t0, 1)
            runs.extend(_measure(home, n, ops))
    return {
        "sizes": list(sizes),
        "ops_per_row": ops,
        "load_seconds": loads,
        "runs": runs,
        "load_1m": [load[0], round(os.getloadavg()[0], 2)],
        "adapter": "memvault.integrations.langgraph_store.MemvaultStore",
        "config": CONFIG,
    }


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m memvault.benchmarks.langgraph_ops [SIZES] [OPS] [OUT]``: the rows as JSON."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    sizes = [int(x) for x in (args[0] if args else "1000,10000").split(",")]
    ops = int(args[1]) if len(args) > 1 else 30
    result = run_langgraph_ops(sizes, ops)
    text = json.dumps(result, indent=2)
    if len(args) > 2:
        Path(args[2]).write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
