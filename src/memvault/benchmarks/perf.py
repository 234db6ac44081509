"""Write and search latency at growing store sizes, through the real engine.

For each size N: single ``add`` latency with and without the embedder (a
sample of writes, each its own transaction with fsync), then the store is
bulk-seeded to N memories, then ``search`` latency is measured per preset —
including the query embedding. Seeded vectors are real embeddings of seed
sentences mixed with noise (embedding 1M texts would measure the model, not
the store); their texts come from the same vocabulary so full text has work.
"""

from __future__ import annotations

import random
import resource
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memvault.benchmarks.common import percentile, progress, render_table, write_json
from memvault.embed.base import Embedder, l2_normalise
from memvault.engine import MemoryEngine, OpenGate, format_timestamp, new_id
from memvault.model.enums import CapturedBy, MemoryType, SourceKind, SourceType
from memvault.model.node import MemoryNode, Source
from memvault.store.base import EmbeddingRow, WriteSet

__all__ = ["report", "run_perf"]

WORDS = (
    "deploy pipeline invoice database staging release coffee meeting budget roadmap "
    "customer migration latency report design review holiday travel python postgres "
    "kubernetes backup security password rotation dashboard metrics alert oncall "
    "schedule friday monday weekly quarterly goal todo decision preference team"
).split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


def _seed(engine: MemoryEngine, embedder: Embedder | None, n: int, rng: random.Random) -> None:
    have = engine.stats().to_json()["memories"]["total"]
    base_vectors = None
    if embedder is not None:
        base_vectors = embedder.embed_documents([_sentence(rng) for _ in range(256)])
    src = Source(
        source_type=SourceType.MANUAL,
        captured_by=CapturedBy.SYSTEM,
        source_kind=SourceKind.SYSTEM_KNOWN,
    )
    nprng = np.random.default_rng(7)
    while have < n:
        count = min(5000, n - have)
        at = format_timestamp(engine.clock())
        nodes = [
            MemoryNode(
                memory_id=new_id("mem"),
                orchestrator_id=engine.orchestrator,
                type=MemoryType.FACT,
                category="PROJECT_CONFIG",
                content=_sentence(rng),
                source=src,
                created_at=at,
                updated_at=at,
            )
            for _ in range(count)
        ]
        rows: tuple[EmbeddingRow, ...] = ()
        if base_vectors is not None and embedder is not None:
            picks = nprng.integers(0, len(base_vectors), size=count)
            mixed = base_vectors[picks] + 0.35 * nprng.standard_normal(
                (count, base_vectors.shape[1])
            ).astype(np.float32)
            vectors = l2_normalise(mixed)
            rows = tuple(
                EmbeddingRow(
                    node.memory_id, embedder.model_id, vectors[i], f"seed-{node.memory_id}"
                )
                for i, node in enumerate(nodes)
            )
        engine.store.apply(WriteSet(engine.orchestrator, at, nodes=tuple(nodes), embeddings=rows))
        have += count


def _time(fn: Any, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def run_perf(
    sizes: Sequence[int],
    *,
    embedder: Embedder | None,
    queries: int = 100,
    adds: int = 100,
    presets: Sequence[str] = ("default", "text", "vector"),
) -> dict[str, Any]:
    rng = random.Random(42)
    results: dict[str, Any] = {}
    fact: dict[str, Any] = {
        "type": "Fact",
        "category": "PROJECT_CONFIG",
        "source_kind": "SYSTEM_KNOWN",
    }
    with progress() as bar:
        task = bar.add_task("perf", total=len(sizes))
        for n in sorted(sizes):
            home = Path(tempfile.mkdtemp(prefix="memvault-perf-"))
            try:
                row: dict[str, Any] = {"n": n}
                bar.update(task, description=f"n={n}: writes")
                with MemoryEngine.open(home, "perf", gate=OpenGate(), embedder=None) as plain:
                    lat = _time(lambda: plain.add(_sentence(rng), **fact), adds)
                row["add_p50_ms_no_embedding"] = percentile(lat, 50)
                with MemoryEngine.open(home, "perf", gate=OpenGate(), embedder=embedder) as engine:
                    if embedder is not None:
                        engine.search("warm up the model")
                        lat = _time(lambda: engine.add(_sentence(rng), **fact), adds)
                        row["add_p50_ms_with_embedding"] = percentile(lat, 50)
                        row["adds_per_s_with_embedding"] = 1000 / max(
                            row["add_p50_ms_with_embedding"], 1e-9
                        )
                    row["adds_per_s_no_embedding"] = 1000 / max(
                        row["add_p50_ms_no_embedding"], 1e-9
                    )
                    bar.update(task, description=f"n={n}: seeding")
                    t0 = time.perf_counter()
                    _seed(engine, embedder, n, rng)
                    row["seed_s"] = time.perf_counter() - t0
                    bar.update(task, description=f"n={n}: searching")
                    qs = [_sentence(rng)[:60] for _ in range(queries)]
                    for name in presets:
                        engine.search(qs[0], config=name)  # load the vector matrix
                        lat = []
                        for q in qs:
                            t0 = time.perf_counter()
                            engine.search(q, top_k=10, config=name)
                            lat.append((time.perf_counter() - t0) * 1000)
                        row[f"search_{name}_p50_ms"] = percentile(lat, 50)
                        row[f"search_{name}_p95_ms"] = percentile(lat, 95)
                    row["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                results[str(n)] = row
            finally:
                shutil.rmtree(home, ignore_errors=True)
            bar.advance(task)
    return {
        "benchmark": "perf",
        "embedder": embedder.model_id if embedder else None,
        "note": "search latency includes the query embedding; medians over repeated runs",
        "results": results,
    }


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    rows = result["results"]
    columns = sorted({k for r in rows.values() for k in r if k != "n"})
    render_table("memvault perf (ms unless noted)", rows, columns)
    write_json(json_out, result)
    if plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return
        ns = [int(n) for n in rows]
        fig, ax = plt.subplots(figsize=(7, 4))
        for key in [k for k in columns if k.startswith("search_") and k.endswith("p50_ms")]:
            ax.plot(ns, [rows[str(n)].get(key, 0) for n in ns], marker="o", label=key)
        ax.set_xscale("log")
        ax.set_xlabel("memories")
        ax.set_ylabel("ms")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(json_out.with_suffix(".png"), dpi=110)
        plt.close(fig)
