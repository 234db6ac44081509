"""Helpers of ``memvault bench context``: bulk seeding and latency percentiles.

Seeding writes synthetic memories straight through ``Store.apply`` in large
write sets (thousands of nodes per transaction), so 100k memories load in
well under the couple of minutes a per-memory engine write would take; the
engine is then used, unchanged, for the timed calls.

>>> percentiles([5.0, 1.0, 3.0, 2.0, 4.0])
{'p50': 3.0, 'p95': 4.8, 'mean': 3.0}
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memvault.engine import ALL_USERS, MemoryEngine, RuntimeLayout
from memvault.model.enums import (
    CapturedBy,
    EdgeType,
    MemoryType,
    SourceKind,
    SourceType,
)
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.base import Store
from memvault.store.factory import open_store
from memvault.write.commit import seed_corpus

__all__ = ["percentiles", "query_texts", "run", "seed_store", "time_calls"]

#: (type, category, share of the synthetic memories)
MIX: tuple[tuple[MemoryType, str, float], ...] = (
    (MemoryType.FACT, "KNOWLEDGE", 0.35),
    (MemoryType.EVENT, "EVENT", 0.10),
    (MemoryType.OBSERVATION, "KNOWLEDGE", 0.10),
    (MemoryType.PREFERENCE, "PREFERENCE", 0.10),
    (MemoryType.IDENTITY, "KNOWLEDGE", 0.05),
    (MemoryType.DECISION, "DECISION", 0.10),
    (MemoryType.GOAL, "GOAL", 0.05),
    (MemoryType.TODO, "TODO", 0.10),
    (MemoryType.PROCEDURE, "PROCEDURE", 0.05),
)

_WORDS = (
    "deploy release staging cluster billing invoice customer onboarding tea coffee "
    "meeting roadmap budget quarterly review latency database migration schema index "
    "search vector embedding python rust typescript frontend backend pipeline kafka "
    "postgres sqlite backup restore incident oncall pager alert dashboard metric "
    "travel berlin munich paris tokyo design sprint retro hiring interview offer "
    "contract vendor license security audit compliance privacy consent export"
).split()

#: Plus 4,200 generated words, drawn uniformly: a query term then matches a
#: few hundredths of the store (a 70-word vocabulary made every term match a
#: tenth of it, which measured the full-text engine on a degenerate corpus).
_VOCABULARY = (*_WORDS, *(f"{a}{b}{c}" for a in "bdfgklmnprstvz" for b in "aeiou" for c in
               ("lan", "mor", "tis", "vek", "dun", "sar", "pel", "gor", "nix", "ral",
                "bek", "tum", "sil", "far", "hon", "dra", "kel", "mip", "zor", "wen",
                "lox", "quo", "bri", "tav", "rel", "sun", "mak", "vor", "jin", "pra",
                "tek", "lum", "dar", "fen", "gil", "hus", "kor", "lin", "nor", "pax",
                "rux", "sev", "tol", "ulm", "vin", "wex", "yar", "zed", "aul", "bem",
                "cos", "dex", "eft", "fom", "gup", "hex", "ilk", "jot", "kip", "lag")))  # fmt: skip


def _word(rng: random.Random) -> str:
    return rng.choice(_VOCABULARY)


_SOURCE = Source(
    source_type=SourceType.MANUAL,
    captured_by=CapturedBy.SYSTEM,
    source_kind=SourceKind.SYSTEM_KNOWN,
)


def _timestamp(i: int) -> str:
    # one memory per second from 2026-01-01, as sortable text
    day, rest = divmod(i, 86_400)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    month, mday = divmod(day, 28)
    return f"2026-{month % 12 + 1:02d}-{mday + 1:02d}T{hour:02d}:{minute:02d}:{second:02d}.000000Z"


def seed_store(
    store: Store,
    orchestrator: str,
    start: int,
    stop: int,
    *,
    seed: int = 7,
    batch: int = 5000,
) -> None:
    """Write synthetic memories ``start..stop-1`` (ids ``bench_<n>``) in large batches.

    About 1% are pinned, 10% have low confidence, and one in 200 gets an
    unresolved ``Contradicts`` edge to its predecessor.
    """
    rng = random.Random(seed * 1_000_003 + start)
    kinds = [(t, c) for t, c, _ in MIX]
    weights = [w for _, _, w in MIX]
    for lo in range(start, stop, batch):
        nodes: list[MemoryNode] = []
        edges: list[MemoryEdge] = []
        for i in range(lo, min(stop, lo + batch)):
            memory_type, category = rng.choices(kinds, weights)[0]
            words = " ".join(_word(rng) for _ in range(rng.randint(6, 16)))
            at = _timestamp(i)
            nodes.append(
                MemoryNode(
                    memory_id=f"bench_{i:08d}",
                    orchestrator_id=orchestrator,
                    type=memory_type,
                    category=category,
                    key=f"k{i}",
                    content=f"Note {i}: {words}",
                    summary=f"Note {i}: {words}"[:280],
                    importance=rng.randint(0, 100),
                    confidence=0.3 if rng.random() < 0.1 else 1.0,
                    pinned=rng.random() < 0.01,
                    source=_SOURCE,
                    user_id=f"user{i % 20}",
                    created_at=at,
                    updated_at=at,
                )
            )
            if i % 200 == 199 and i > lo:
                edges.append(
                    MemoryEdge(
                        edge_id=f"bench_edge_{i:08d}",
                        orchestrator_id=orchestrator,
                        from_memory_id=f"bench_{i:08d}",
                        to_memory_id=f"bench_{i - 1:08d}",
                        edge_type=EdgeType.CONTRADICTS,
                        weight=0.5,
                        created_at=at,
                    )
                )
        at = nodes[-1].created_at
        seed_corpus(store, orchestrator, at, nodes, edges=edges)


def query_texts(count: int, *, seed: int = 11) -> list[str]:
    """Two- or three-word queries drawn like the seeded text."""
    rng = random.Random(seed)
    return [" ".join(_word(rng) for _ in range(rng.randint(2, 3))) for _ in range(count)]


def time_calls(call: Callable[[int], Any], repeats: int, *, warmup: int = 2) -> dict[str, float]:
    """p50/p95/mean wall milliseconds of ``call(i)`` (after a warm-up), plus CPU p50.

    The CPU figure (this process's CPU time per call) is the one to read on
    a machine shared with other work, where wall time includes waiting.
    """
    for i in range(warmup):
        call(i)
    wall, cpu = [], []
    for i in range(repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        call(i)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
    return {**percentiles(wall), "cpu_p50": round(statistics.median(cpu), 2)}


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    """Median, 95th percentile (inclusive interpolation) and mean, rounded to 0.01."""
    if len(samples) == 1:
        v = round(samples[0], 2)
        return {"p50": v, "p95": v, "mean": v}
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {
        "p50": round(statistics.median(samples), 2),
        "p95": round(cuts[94], 2),
        "mean": round(statistics.fmean(samples), 2),
    }


def run(
    orchestrator: str, sizes: list[int], repeats: int, *, progress: bool = False
) -> dict[str, Any]:
    """Seed one SQLite store up to each size in turn and time the agent-facing calls."""
    home = Path(tempfile.mkdtemp(prefix="memvault-bench-context-"))
    rows: list[dict[str, Any]] = []
    try:
        layout = RuntimeLayout.for_orchestrator(home, orchestrator).ensure()
        store = open_store(layout.db_path)
        # Trigger: engines with hybrid recall embed every query with a local model.
        # Why: the seeded memories carry no vectors, so that leg would only add
        #      the model's cost; this bench measures the context layer itself.
        # Outcome: no embedder (text leg only).
        engine = MemoryEngine(store, orchestrator, layout=layout, embedder=None)
        queries = query_texts(max(repeats, 1) + 8)
        seeded = 0
        with engine:
            for size in sizes:
                started = time.perf_counter()
                seed_store(store, orchestrator, seeded, size)
                seed_seconds = round(time.perf_counter() - started, 2)
                seeded = size
                if progress:
                    sys.stderr.write(f"seeded {size} memories in {seed_seconds}s\n")

                # The orchestrator-wide view, as this bench has always timed it.
                def ask(i: int, mode: str = "bullets") -> None:
                    engine.memory_query(
                        {"agent": "supervisor", "query": queries[i % len(queries)], "return": mode},
                        user=ALL_USERS,
                    )

                rows.append(
                    {
                        "memories": size,
                        "seed_seconds": seed_seconds,
                        "bulletin": time_calls(
                            lambda _i: engine.bulletin(user=ALL_USERS, reuse=False), repeats
                        ),
                        "bulletin_same_revision": time_calls(
                            lambda _i: engine.bulletin(user=ALL_USERS), repeats
                        ),
                        "bulletin_with_query": time_calls(
                            lambda i: engine.bulletin(
                                user=ALL_USERS, query=queries[i % len(queries)]
                            ),
                            repeats,
                        ),
                        "query_bullets": time_calls(ask, repeats),
                        "query_full": time_calls(lambda i: ask(i, "full"), repeats),
                    }
                )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return {
        "benchmark": "context",
        "store": "sqlite",
        "recall_legs": "text only (no embedder)",
        "repeats": repeats,
        "cpus": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "notes": "memories seeded straight through Store.apply; each query call also records "
        "its operational event (one small write transaction)",
        "results": rows,
    }
