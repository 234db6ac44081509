"""memvault side by side with the vector stores it competes with (``memvault bench peers``).

Two parts, every system in the same process and run:

* **scale** — ``n`` memories with precomputed vectors, written in batches of
  1,000 through each system's public write path (memvault: ``add_many`` with
  the governance gate on), then ``queries`` searches with precomputed query
  vectors: rows/s and search p50 / p95, **excluding the query embedding**.
* **locomo** — every LoCoMo turn stored as ``"speaker: text"`` through the
  public add (memvault: the gate on, no benchmark-only index text), every
  category 1–4 question searched for its top 10: evidence recall@10 and search
  p50 excluding the query embedding (vectors of questions are computed first,
  and their cost is reported apart as ``query_embedding_p50_ms``).

Every peer gets memvault's embedder injected (through its documented
embedding hook) and keeps its documented defaults otherwise:

=====================  ===============================================================
``memvault``           ``MemoryEngine`` on SQLite, default gate and retrieval
``chroma``             ``chromadb.PersistentClient``, default HNSW collection (l2)
``mem0``               ``mem0.Memory`` (its default local qdrant store), ``infer=False``
``langgraph-sqlite``   ``langgraph.store.sqlite.SqliteStore`` with an ``index`` (sqlite-vec)
``langgraph-inmemory`` ``langgraph.store.memory.InMemoryStore`` with an ``index``
=====================  ===============================================================

The injected embedder answers from a table of precomputed vectors (the same
vectors for every system) and falls back to the real model for other texts,
so embedding costs the same — nothing — everywhere. Vectors in the scale part
are the perf benchmark's: the first ``real_vectors`` texts embedded for real,
the rest SYNTHETIC (see :mod:`memvault.benchmarks.perf`).

Peers are optional (``pip install "memvault[peers]"``); one that cannot be
imported or fails is reported with its error, never left out silently.
mem0's public ``add`` embeds, deduplicates and writes its history per item
(tens of rows/s): it is timed for ``--peer-budget`` seconds and the rest of
its store is filled through its own vector store's batch insert, which the
JSON says (``filled_by``).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memvault.benchmarks.common import percentile, progress, recall_at, stderr, write_json
from memvault.benchmarks.locomo import Conversation, load_conversation
from memvault.benchmarks.peer_systems import (
    PEERS_INSTALL,
    SYSTEMS,
    Mem0Peer,
    PrecomputedEmbedder,
    open_peer,
    peer_versions,
)
from memvault.benchmarks.perf import SYNTHETIC_NOTE, _synthetic
from memvault.benchmarks.perf_corpus import find_data_dir, load_corpus
from memvault.embed.base import Embedder, FloatMatrix, FloatVector
from memvault.policy.parallel import worker_cpu_seconds

__all__ = ["SYSTEMS", "PrecomputedEmbedder", "report", "run_peers"]

BATCH = 1000
TOP_K = 10


# -- measurement ----------------------------------------------------------------------


def _error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    if isinstance(exc, ImportError):
        text += f" (install with `{PEERS_INSTALL}`)"
    return text


@contextlib.contextmanager
def _workdir(root: Path | None) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="memvault-peers-", dir=root))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


#: The machine probe's random reads: 64 MB of int32, far beyond the caches.
_PROBE_WORDS = 1 << 24
_PROBE_READS = 1 << 20
_PROBE: list[Any] = []


def _machine_probe() -> dict[str, float]:
    """A fixed workload timed in CPU ms: how fast this process's CPU was just now.

    Trigger: one ``bench peers`` run in three searched with ~35% more CPU per
      search (sessions 10 and 11), the same rows and, since session 12, the
      same graph work per search (``ann_ndis_per_search``).
    Why: a slower machine (a busy neighbour on the host, another core's cache
      traffic) slows any code; only a fixed workload timed beside the searches
      tells that from a change in memvault's own work.
    Outcome: ``probe_compute_ms`` (a pure-Python loop) and ``probe_memory_ms``
      (1M random reads over 64 MB), each the best of three; the same numbers
      for every system of a run, timed just before its searches.

    >>> sorted(_machine_probe())
    ['probe_compute_ms', 'probe_memory_ms']
    """
    if not _PROBE:  # made once and kept: freeing them would move malloc's thresholds
        rng = np.random.default_rng(0)
        _PROBE.append(rng.integers(0, 1 << 30, size=_PROBE_WORDS, dtype=np.int32))
        _PROBE.append(rng.integers(0, _PROBE_WORDS, size=_PROBE_READS))
        _PROBE.append(np.empty(_PROBE_READS, dtype=np.int32))
    words, picks, out = _PROBE
    compute: list[float] = []
    memory: list[float] = []
    for _ in range(3):
        c0 = time.process_time()
        total = 0
        for i in range(200_000):
            total += i * i % 7
        compute.append((time.process_time() - c0) * 1000)
        c0 = time.process_time()
        int(np.take(words, picks, out=out).sum())
        memory.append((time.process_time() - c0) * 1000)
    return {"probe_compute_ms": round(min(compute), 2), "probe_memory_ms": round(min(memory), 2)}


def _minor_faults() -> int:
    """This process's minor page faults so far (0 where ``resource`` is missing)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)


def _scale(
    system: str,
    home: Path,
    embedder: PrecomputedEmbedder,
    texts: Sequence[str],
    vectors: FloatMatrix,
    queries: Sequence[str],
    qvectors: FloatMatrix,
) -> dict[str, Any]:
    peer = open_peer(system, home, embedder)
    try:
        stored = 0
        cpu0, worker0 = time.process_time(), worker_cpu_seconds()
        t0 = time.perf_counter()
        for start in range(0, len(texts), BATCH):
            ids = [f"r{i}" for i in range(start, min(start + BATCH, len(texts)))]
            stored += peer.add(ids, texts[start : start + BATCH], vectors[start : start + BATCH])
        seconds = time.perf_counter() - t0
        # Trigger: a busy shared box (rows/s is wall time). Why: CPU per row is what
        #   the code costs whatever the neighbours do. Outcome: this process's CPU (all
        #   threads) plus the gate's second process, per row written.
        bulk_cpu = time.process_time() - cpu0 + worker_cpu_seconds() - worker0
        pending = getattr(peer, "pending", None)
        backlog = pending() if pending is not None else None
        t1 = time.perf_counter()
        peer.search(queries[0], qvectors[0], TOP_K)  # loads indexes: timed apart
        first = _ms_since(t1)
        # Trigger: memvault's indexes finish on worker threads (the graph's last
        #   rows, the text index started by the first search).
        # Why: timed searches must all run on the indexes they will use from then on.
        # Outcome: wait for them; the wait is reported apart (settle_ms).
        settle = getattr(peer, "settle", None)
        t_settle = time.perf_counter()
        parts = settle() if settle is not None else None
        settled = _ms_since(t_settle)
        for i in range(1, min(4, len(queries))):
            peer.search(queries[i], qvectors[i], TOP_K)
        probe = _machine_probe()
        walks = getattr(peer, "graph_walks", None)
        if walks is not None:
            walks()  # from zero: the timed searches' graph work only
        times: list[float] = []
        cpu: list[float] = []
        sys0, faults0 = os.times().system, _minor_faults()
        for text, vector in zip(queries, qvectors, strict=True):
            c2, t2 = time.process_time(), time.perf_counter()
            peer.search(text, vector, TOP_K)
            times.append(_ms_since(t2))
            cpu.append((time.process_time() - c2) * 1000)
        searched = max(1, len(queries))
        kernel_ms = (os.times().system - sys0) * 1000 / searched
        faults = (_minor_faults() - faults0) / searched
        row: dict[str, Any] = {
            "rows_per_s": round(len(texts) / seconds, 1) if seconds else None,
            "bulk_cpu_ms_per_row": round(bulk_cpu * 1000 / max(1, len(texts)), 4),
            "search_p50_ms": round(percentile(times, 50), 3),
            "search_p95_ms": round(percentile(times, 95), 3),
            # Trigger: a busy shared box. Why: wall-clock p50 there is a step
            #   function of CPU per search against the scheduler's time slice.
            # Outcome: the process CPU time of each search beside it (all threads).
            "search_cpu_p50_ms": round(percentile(cpu, 50), 3),
            # Trigger: one run in three searched with ~35% more CPU (sessions 10, 11).
            # Why: CPU can go to the graph walk, or to the kernel (page faults of
            #   memory the allocator gave back). Outcome: both, per search.
            "search_kernel_cpu_ms_mean": round(kernel_ms, 3),
            "search_minor_faults_mean": round(faults, 1),
            **probe,
            "n": len(texts),
            "stored": stored,
            "first_search_ms": round(first, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
        if walks is not None:
            row.update(walks())  # the graph's distance computations and hops per search
        if settle is not None:
            row["settle_ms"] = round(settled, 1)  # background index work after the first search
            row.update(parts or {})  # its parts: the graph's worker, then the text index
            row["ann_backlog_after_bulk"] = backlog  # rows not in the graph when the load ended
            # Trigger: the graph (and text index) finish after the last commit.
            # Why: rows_per_s stops the clock at the last commit, as for every system.
            # Outcome: beside it, the rate counting the first search and the settle.
            row["rows_per_s_settled"] = round(len(texts) / (seconds + (first + settled) / 1000), 1)
        if isinstance(peer, Mem0Peer) and peer.filled:
            own = len(texts) - peer.filled
            row["rows_per_s"] = round(own / peer._spent, 1) if peer._spent else None
            row["filled_by"] = (
                f"{own} rows through Memory.add ({row['rows_per_s']} rows/s, the figure "
                f"reported); {peer.filled} more through its vector_store.insert"
            )
        return row
    finally:
        peer.close()


def _locomo(
    system: str,
    root: Path,
    embedder: PrecomputedEmbedder,
    conversations: Sequence[Conversation],
    qvectors: dict[str, FloatVector],
) -> dict[str, Any]:
    recalls: list[float] = []
    times: list[float] = []
    stored_total = 0
    turns_total = 0
    for conv in conversations:
        peer = open_peer(system, root / f"{system}-{conv.name}", embedder)
        try:
            turns = [t for t in conv.turns if t.text.strip()]
            texts = [f"{t.speaker}: {t.text}" for t in turns]
            ids = [t.dia_id for t in turns]
            for start in range(0, len(texts), 128):
                chunk = slice(start, start + 128)
                vectors = embedder.embed_documents(texts[chunk])
                stored_total += peer.add(ids[chunk], texts[chunk], vectors)
            turns_total += len(texts)
            for q in conv.questions:
                t0 = time.perf_counter()
                retrieved = peer.search(q.question, qvectors[q.question], TOP_K)
                times.append(_ms_since(t0))
                recalls.append(recall_at(retrieved, set(q.evidence), TOP_K))
        finally:
            peer.close()
    return {
        "recall@10": round(sum(recalls) / len(recalls), 4) if recalls else None,
        "search_p50_ms": round(percentile(times, 50), 3),
        "search_p95_ms": round(percentile(times, 95), 3),
        "questions": len(recalls),
        "turns": turns_total,
        "stored": stored_total,
    }


def _run_each(
    systems: Sequence[str],
    label: str,
    work: Callable[[str], dict[str, Any]],
    bar: Any,
    task: Any,
    saved: Callable[[dict[str, dict[str, Any]]], None] | None = None,
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        if saved is not None and out:
            saved(out)  # a long run keeps what it measured so far
        bar.update(task, description=f"{label} · {system}")
        try:
            out[system] = work(system)
        except Exception as exc:  # a peer that fails is reported, never hidden
            out[system] = {"error": _error(exc)}
            stderr.print(f"[yellow]{label} {system}: {out[system]['error']}[/]")
        bar.advance(task)
    return out


def run_peers(
    n: int = 100_000,
    *,
    embedder: Embedder,
    systems: Sequence[str] = SYSTEMS,
    queries: int = 200,
    real_vectors: int = 4096,
    data_dir: Path | str | None = "auto",
    locomo: bool = True,
    workdir: Path | None = None,
    mem0_budget_s: float = 60.0,
    partial_json: Path | None = None,
) -> dict[str, Any]:
    """Run both parts for ``systems``; ``data_dir="auto"`` finds ``../shared/data``.

    ``partial_json``: where the figures measured so far are written after each
    system (a run at 100k takes the better part of an hour on a busy box).

    >>> from memvault.embed import HashingEmbedder
    >>> out = run_peers(300, embedder=HashingEmbedder(dimension=16), systems=["memvault"],
    ...                 queries=5, real_vectors=50, data_dir=None, locomo=False)
    >>> scale = out["scale"]["memvault"]
    >>> scale["n"], 290 <= scale["stored"] <= scale["n"]  # the gate may refuse a few
    (300, True)
    """
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system(s) {unknown}; one of {', '.join(SYSTEMS)}")
    load_before = [round(x, 2) for x in os.getloadavg()]
    data = find_data_dir() if data_dir == "auto" else Path(data_dir) if data_dir else None
    rng = random.Random(42)
    corpus = load_corpus(data)
    lookup = PrecomputedEmbedder(embedder)
    Mem0Peer.budget_s = mem0_budget_s
    texts = list(dict.fromkeys(corpus.sentence(rng) for _ in range(n + n // 10)))[:n]
    while len(texts) < n:  # a small corpus repeats sentences: number the rest
        texts.append(f"{corpus.sentence(rng)} ({len(texts)})")
    qs = corpus.queries(queries, rng)
    conversations: list[Conversation] = []
    if locomo and data is not None:
        conversations = [load_conversation(p) for p in sorted((data / "locomo").glob("*.json"))]
    result: dict[str, Any] = {
        "benchmark": "peers",
        "embedder": embedder.model_id,
        "versions": peer_versions(),
        "n": n,
        "queries": len(qs),
        "corpus": corpus.source,
        "vectors": SYNTHETIC_NOTE,
        "load_average": load_before,
    }
    total = len(systems) * (1 + (1 if conversations else 0))
    with progress() as bar, _workdir(workdir) as root:
        task = bar.add_task("peers", total=total)
        bar.update(task, description=f"embedding {min(real_vectors, n)} seed texts and queries")
        base = embedder.embed_documents(texts[:real_vectors])
        vectors = np.concatenate(
            [base, _synthetic(base, n - len(base), np.random.default_rng(7))]
        ).astype(np.float32)
        lookup.learn(texts, vectors)
        qvectors = embedder.embed_documents(qs)
        lookup.learn(qs, qvectors)

        def saved(part: str) -> Callable[[dict[str, dict[str, Any]]], None] | None:
            if partial_json is None:
                return None
            return lambda rows: write_json(partial_json, {**result, part: rows, "partial": True})

        result["scale"] = _run_each(
            systems,
            f"scale n={n}",
            lambda s: _scale(s, root / f"scale-{s}", lookup, texts, vectors, qs, qvectors),
            bar,
            task,
            saved("scale"),
        )
        if conversations:
            questions = sorted({q.question for c in conversations for q in c.questions})
            embed_ms = []
            clear = getattr(embedder, "clear_query_cache", None)
            for question in questions:
                if clear is not None:
                    clear()  # time the forward pass, not the LRU
                t0 = time.perf_counter()
                lookup.known[question] = embedder.embed_query(question)
                embed_ms.append(_ms_since(t0))
            result["locomo"] = _run_each(
                systems,
                "locomo",
                lambda s: _locomo(s, root, lookup, conversations, lookup.known),
                bar,
                task,
                saved("locomo"),
            )
            result["locomo_meta"] = {
                "conversations": [c.name for c in conversations],
                "query_embedding_p50_ms": round(percentile(embed_ms, 50), 3),
                "note": (
                    "each turn stored as 'speaker: text' through the public add (memvault: "
                    "default gate on, so turns it refuses are not stored); search times "
                    "exclude the query embedding (query_embedding_p50_ms, timed apart)"
                ),
            }
        else:
            result["locomo"] = {}
            result["locomo_meta"] = {"note": "skipped: no LoCoMo data found or --no-locomo"}
    result["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    return result


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.3f}" if value < 10 else f"{value:,.1f}"
    return str(value)


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    """Print one table (a row per system), write the JSON and a PNG plot beside it."""
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"memvault bench peers — n={result['n']}, load {result['load_average']}, "
        f"search excludes the query embedding"
    )
    for column in (
        "system",
        "rows/s",
        "bulk CPU ms/row",
        "search p50 ms",
        "search CPU p50 ms",
        "search p95 ms",
        "LoCoMo R@10",
        "LoCoMo p50 ms",
        "note",
    ):
        table.add_column(column, justify="left" if column in ("system", "note") else "right")
    systems = list(dict.fromkeys([*result.get("scale", {}), *result.get("locomo", {})]))
    for system in systems:
        scale = result.get("scale", {}).get(system, {})
        loco = result.get("locomo", {}).get(system, {})
        note = scale.get("error") or loco.get("error") or ("filled" if "filled_by" in scale else "")
        table.add_row(
            system,
            _cell(scale.get("rows_per_s")),
            _cell(scale.get("bulk_cpu_ms_per_row")),
            _cell(scale.get("search_p50_ms")),
            _cell(scale.get("search_cpu_p50_ms")),
            _cell(scale.get("search_p95_ms")),
            _cell(loco.get("recall@10")),
            _cell(loco.get("search_p50_ms")),
            note,
        )
    Console().print(table)
    write_json(json_out, result)
    if plot:
        _plot(result, json_out.with_suffix(".png"))


def _plot(result: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        stderr.print("[dim]matplotlib not installed: no plot written[/]")
        return
    panels = [
        ("scale", "search_p50_ms", f"search p50 ms at n={result['n']}"),
        ("scale", "rows_per_s", "bulk rows/s"),
        ("locomo", "recall@10", "LoCoMo recall@10"),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 4))
    for ax, (part, key, title) in zip(axes, panels, strict=True):
        rows = {s: r[key] for s, r in result.get(part, {}).items() if r.get(key) is not None}
        ax.bar(list(rows), list(rows.values()), color="tab:blue")
        ax.set_title(title)
        ax.tick_params(axis="x", rotation=30)
        if key == "search_p50_ms" and rows:
            ax.set_yscale("log")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
