"""Write and search latency at growing store sizes, through the real engine.

For each size N: single ``add`` latency with and without the embedder (a
sample of writes, each its own transaction with fsync), then the store is
bulk-seeded to N memories, then ``search`` latency is measured per preset —
including the query embedding — with the vector leg exact and through the
ANN index, and split into its parts (query embedding, text leg, vector leg,
fusion + hydration), each timed alone on the same queries.

The corpus (:mod:`.perf_corpus`) is memory-like sentences with a realistic
vocabulary and user-like questions. Vectors: the first ``real_vectors``
seeded texts are embedded for real; every further row gets a SYNTHETIC
vector — a random convex mix of three real ones plus Gaussian noise, so the
store has the shape of real embeddings without running the model on a
million texts (:func:`_synthetic` says why three). The JSON says how many of
each a run used.
"""

from __future__ import annotations

import functools
import os
import random
import resource
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memvault.benchmarks.common import (
    percentile,
    progress,
    render_table,
    timed_ms,
    write_json,
)
from memvault.benchmarks.perf_corpus import PerfCorpus, find_data_dir, load_corpus
from memvault.embed.base import Embedder, FloatMatrix, l2_normalise
from memvault.engine import MemoryEngine, NewMemory, OpenGate
from memvault.layout import RuntimeLayout
from memvault.retrieval.config import preset
from memvault.retrieval.fusion import minmax_fuse
from memvault.retrieval.text import query_terms
from memvault.store.base import NodeFilter, VectorHit
from memvault.store.sqlite import SQLiteStore
from memvault.store.sqlite.ann import DEFAULT_ANN_MIN_ROWS, load_faiss

__all__ = ["report", "run_perf"]

BATCH = 5000
SYNTHETIC_NOTE = (
    "rows beyond vectors_real carry SYNTHETIC vectors: normalise(a*real_i + b*real_j + c*real_k "
    "+ noise), (a, b, c) uniform on the simplex, noise norm 0.4, three random real rows each "
    "(one distinct point per row; before issue 22's fix, real_i + 0.3*real_j made ~n/4096 "
    "near-copies of each real row); their texts are generated sentences"
)
#: Tag of the synthetic generator in seeded stores' cache names (a new generator, a new store).
SYNTHETIC_VERSION = "mix3"


def _load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _rss_mb() -> float:
    """Current resident set size (MB) from /proc; the peak where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _synthetic(base: FloatMatrix, count: int, rng: np.random.Generator) -> FloatMatrix:
    """``count`` vectors shaped like the real ones in ``base``, each a distinct point.

    Trigger: the bench needs up to 1M vectors and embeds only a few thousand texts.
    Why: the first generator (``real_i + 0.3·real_j + noise``) drew ``real_i``
      from 4,096 rows, so a 1M store held ~244 near-copies (cosine ~.90) of each
      real row and a question's true top 10 were copies of one row within .01
      of each other. ANN recall@10 against exact then measures noise (1M: .494,
      similarity ratio .987); at a fixed 100k it fell from .971 to .553 as the
      copies per real row grew from 23 to 389 (efSearch 200, 200 questions),
      while nine in ten ANN hits still scored within .01 of the exact 10th.
    Outcome: a random convex mix of three real rows plus the same noise: no two
      rows share a source, nearest-neighbour cosine .84 (real MiniLM rows of
      the perf corpus: .53 among 4,096), HNSW recall@10 at 100k .991 at
      efSearch 128. Still anchored on a few thousand real rows, so clusters
      return with size: 1M .543 at efSearch 405 (docs/retrieval.md).

    >>> rng = np.random.default_rng(0)
    >>> base = l2_normalise(rng.standard_normal((50, 8)).astype(np.float32))
    >>> out = _synthetic(base, 20, rng)
    >>> out.shape, bool(np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5))
    ((20, 8), True)
    """
    dim = base.shape[1]
    picks = rng.integers(0, len(base), size=(count, 3))
    weights = rng.dirichlet((1.0, 1.0, 1.0), size=count).astype(np.float32)
    out = np.empty((count, dim), dtype=np.float32)
    for start in range(0, count, 50_000):  # bounded temporaries (3 rows per row mixed)
        part = slice(start, start + 50_000)
        mixed = l2_normalise(np.einsum("nk,nkd->nd", weights[part], base[picks[part]]))
        noise = rng.standard_normal(mixed.shape).astype(np.float32) * np.float32(0.4 / np.sqrt(dim))
        out[part] = l2_normalise(mixed + noise)
    return out


def _seed(
    engine: MemoryEngine,
    embedder: Embedder | None,
    n: int,
    texts: Callable[[int], list[str]],
    base: FloatMatrix | None,
    base_texts: list[str],
) -> int:
    """Bulk-write memories up to ``n`` through the public ``add_many`` (precomputed vectors).

    The first ``len(base_texts)`` rows carry their real vectors, the rest
    synthetic ones (the module docstring); the engine's own gate judges every
    item. Returns how many were stored.
    """
    have = int(engine.stats().to_json()["memories"]["total"])
    stored = 0
    nprng = np.random.default_rng(7)
    while have < n:
        count = min(BATCH, n - have)
        real = max(0, min(count, len(base_texts) - have))
        batch_texts = base_texts[have : have + real] + texts(count - real)
        items: list[dict[str, Any]] = [
            {
                "content": text,
                "type": "Fact",
                "category": "PROJECT_CONFIG",
                "source_kind": "SYSTEM_KNOWN",
            }
            for text in batch_texts
        ]
        if base is not None and embedder is not None:
            vectors = np.concatenate(
                [base[have : have + real], _synthetic(base, count - real, nprng)]
            )
            for item, vector in zip(items, vectors, strict=True):
                item["vector"], item["vector_model"] = vector, embedder.model_id
        stored += sum(1 for r in engine.add_many(items) if r.ok)
        have += count
    return stored


def _each(
    fn: Callable[[Any], object], items: Sequence[Any], cpu: list[float] | None = None
) -> list[float]:
    """Wall ms of ``fn(item)`` per item; with ``cpu``, the process CPU ms appended there.

    Trigger: figures taken on a shared, busy 2-core box.
    Why: wall time there is mostly the wait for a core (at load 17 a 1M search
      waited ~16 ms in the run queue for ~4 ms of CPU on its main thread).
    Outcome: the CPU of every thread of the process beside the wall time.
    """
    out = []
    for item in items:
        c0, t0 = time.process_time(), time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
        if cpu is not None:
            cpu.append((time.process_time() - c0) * 1000)
    return out


def _measure_size(
    n: int,
    embedder: Embedder | None,
    corpus: PerfCorpus,
    rng: random.Random,
    base: FloatMatrix | None,
    base_texts: list[str],
    qs: list[str],
    presets: Sequence[str],
    adds: int,
    store_cache: Path | None = None,
) -> dict[str, Any]:
    """Writes, seeding and search figures of one store size, in a fresh directory
    (the seeded store in ``store_cache``, kept and reused, when given)."""
    fact: dict[str, Any] = {
        "type": "Fact",
        "category": "PROJECT_CONFIG",
        "source_kind": "SYSTEM_KNOWN",
    }
    home = Path(tempfile.mkdtemp(prefix="memvault-perf-"))
    row: dict[str, Any] = {"n": n}
    try:
        layout = RuntimeLayout.for_orchestrator(home, "perf").ensure()
        store = SQLiteStore(layout.db_path)
        plain = MemoryEngine(store, "perf", layout=layout, gate=OpenGate(), embedder=None)
        lat = timed_ms(lambda: plain.add(NewMemory(content=corpus.sentence(rng), **fact)), adds)
        row["add_p50_ms_no_embedding"] = percentile(lat, 50)
        row["adds_per_s_no_embedding"] = 1000 / max(row["add_p50_ms_no_embedding"], 1e-9)
        engine = MemoryEngine(store, "perf", layout=layout, gate=OpenGate(), embedder=embedder)
        if store_cache is not None:
            # Trigger: a cache directory for seeded stores (``--store-cache``).
            # Why: seeding 1M rows through add_many takes longer than the
            #   searches measured on them; the store does not change by searching.
            # Outcome: the single adds above ran in a fresh store; the seeded
            #   store is this size's cached one, topped up to n if it holds fewer.
            if embedder is not None:
                engine.search("warm up the model")
                lat = timed_ms(
                    lambda: engine.add(NewMemory(content=corpus.sentence(rng), **fact)), adds
                )
                row["add_p50_ms_with_embedding"] = percentile(lat, 50)
            engine.close()
            cached = store_cache / _cache_name(n, corpus, len(base_texts), embedder)
            layout = RuntimeLayout.for_orchestrator(cached, "perf").ensure()
            store = SQLiteStore(layout.db_path)
            engine = MemoryEngine(store, "perf", layout=layout, gate=OpenGate(), embedder=embedder)
            row["store_cache"] = str(cached)
        # The store's defaults: the ANN graph follows the seeding on a worker
        # thread, the text index is built on one after the first search; the
        # waits for them are timed apart (settle_s, first_search_ms, text_settle_s).
        try:
            if embedder is not None and store_cache is None:
                engine.search("warm up the model")
                lat = timed_ms(
                    lambda: engine.add(NewMemory(content=corpus.sentence(rng), **fact)), adds
                )
                row["add_p50_ms_with_embedding"] = percentile(lat, 50)
            if "add_p50_ms_with_embedding" in row:
                row["adds_per_s_with_embedding"] = 1000 / max(
                    row["add_p50_ms_with_embedding"], 1e-9
                )
            t0 = time.perf_counter()
            texts = lambda k: [corpus.sentence(rng) for _ in range(k)]  # noqa: E731
            if store_cache is not None:
                row["reused_rows"] = int(engine.stats().to_json()["memories"]["total"])
            row["seeded"] = _seed(engine, embedder, n, texts, base, base_texts)
            row["seed_s"] = time.perf_counter() - t0
            if row["seeded"]:
                row["seed_rows_per_s"] = row["seeded"] / max(row["seed_s"], 1e-9)
            t0 = time.perf_counter()
            row["ann_backlog_after_seed"] = store.ann_backlog()
            store.wait_for_indexes()
            row["settle_s"] = time.perf_counter() - t0
            row["vectors_real"] = min(n, len(base_texts)) if base is not None else 0
            row["vectors_synthetic"] = (n - row["vectors_real"]) if base is not None else 0
            _search_figures(engine, store, embedder, qs, presets, row)
            row["rss_mb"] = _rss_mb()
            row["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            row["load_average"] = _load_average()
        finally:
            engine.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return row


def _cache_name(n: int, corpus: PerfCorpus, real: int, embedder: Embedder | None) -> str:
    """A seeded store's directory name: what its rows depend on.

    >>> from memvault.benchmarks.perf_corpus import load_corpus
    >>> _cache_name(1000, load_corpus(None), 4096, None).split("-")[:3]
    ['perf', '1000', 'generated']
    """
    model = embedder.model_id if embedder is not None else "none"
    name = (
        f"perf-{n}-{corpus.source.split()[0]}-{corpus.vocabulary_size}-{real}-{model}"
        f"-{SYNTHETIC_VERSION}"
    )
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _p(row: dict[str, Any], key: str, values: list[float]) -> None:
    row[f"{key}_p50_ms"] = percentile(values, 50)
    row[f"{key}_p95_ms"] = percentile(values, 95)


def _search_figures(
    engine: MemoryEngine,
    store: SQLiteStore,
    embedder: Embedder | None,
    qs: list[str],
    presets: Sequence[str],
    row: dict[str, Any],
) -> None:
    """Search latency per preset (as shipped), exact vs ANN, and the split of ``default``."""
    shipped = store.ann_min_rows
    t0 = time.perf_counter()
    engine.search(qs[0], config=presets[0])  # loads what the seeding did not
    row["first_search_ms"] = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    store.wait_for_indexes()  # the text index the first search started
    row["text_settle_s"] = time.perf_counter() - t0
    for name in presets:
        engine.search(qs[0], config=name)  # load the vector matrix (and ANN if due)
        cpu: list[float] = []
        search = functools.partial(engine.search, top_k=10, config=name)
        _p(row, f"search_{name}", _each(search, qs, cpu))
        row[f"search_{name}_cpu_p50_ms"] = percentile(cpu, 50)
    if embedder is None:
        return
    orch = engine.orchestrator
    cfg = preset("default")
    vectors = [embedder.embed_query(q) for q in qs]
    modes: dict[str, int | None] = {"exact": None}
    if load_faiss() is not None:
        modes["ann"] = 1  # any size: the ANN path whenever faiss is installed
    tops: dict[str, list[list[VectorHit]]] = {}
    for mode, threshold in modes.items():
        store.ann_min_rows = threshold
        graph = store._graph_path(orch, embedder.model_id) if mode == "ann" else None
        reused = graph is not None and graph.is_file()
        t0 = time.perf_counter()
        store.search_vectors(orch, embedder.model_id, vectors[0], NodeFilter(), limit=10)
        store.wait_for_indexes()  # a graph this first search started (below the threshold)
        if mode == "ann":
            # a seeded store reused from --store-cache may hold the graph a
            # previous run saved: then this is its load time, not a build
            row["ann_build_s" if not reused else "ann_load_s"] = time.perf_counter() - t0
        cpu = []
        _p(row, f"search_default_{mode}", _each(lambda q: engine.search(q, top_k=10), qs, cpu))
        row[f"search_default_{mode}_cpu_p50_ms"] = percentile(cpu, 50)
        _p(
            row,
            f"vector_leg_{mode}",
            _each(
                lambda v: store.search_vectors(
                    orch, embedder.model_id, v, NodeFilter(), limit=cfg.top_k_vector
                ),
                vectors,
            ),
        )
        tops[mode] = [
            store.search_vectors(orch, embedder.model_id, v, NodeFilter(), limit=10)
            for v in vectors
        ]
    store.ann_min_rows = shipped
    if "ann" in tops:
        pairs = list(zip(tops["ann"], tops["exact"], strict=True))
        row["ann_recall@10"] = float(
            np.mean(
                [len({h.memory_id for h in a} & {h.memory_id for h in e}) / 10 for a, e in pairs]
            )
        )
        # how close the ANN's 10 are to the best 10 even when they are other
        # memories (near-duplicates score alike): mean similarity, ANN / exact
        row["ann_similarity_ratio@10"] = float(
            np.mean(
                [
                    np.mean([h.similarity for h in a]) / np.mean([h.similarity for h in e])
                    for a, e in pairs
                    if a and e
                ]
            )
        )
    # the split: each part of the default search, timed alone on the same queries
    clear = getattr(embedder, "clear_query_cache", None)

    def cold_embed(q: str) -> object:
        if clear is not None:
            clear()  # the forward pass, not the LRU of recent queries
        return embedder.embed_query(q)

    # Trigger: the query embedding's target (≤ 3 ms) read on a busy shared box.
    # Why: its wall p50 there is mostly the wait for a core (27.6 ms wall for
    #   3.54 ms of CPU at load 16, session 17). Outcome: its CPU p50 beside it.
    cpu = []
    _p(row, "embed_query", _each(cold_embed, qs, cpu))
    row["embed_query_cpu_p50_ms"] = percentile(cpu, 50)
    text_hits = [
        store.search_text(
            orch,
            query_terms(q),
            NodeFilter(),
            limit=cfg.top_k_text,
            column_weights=cfg.column_weights,
        )
        for q in qs
    ]
    _p(
        row,
        "text_leg",
        _each(
            lambda q: store.search_text(
                orch,
                query_terms(q),
                NodeFilter(),
                limit=cfg.top_k_text,
                column_weights=cfg.column_weights,
            ),
            qs,
        ),
    )
    vector_hits = [
        store.search_vectors(orch, embedder.model_id, v, NodeFilter(), limit=cfg.top_k_vector)
        for v in vectors
    ]

    def fuse_hydrate(i: int) -> None:
        fused = minmax_fuse(
            [
                [(h.memory_id, h.score) for h in text_hits[i]],
                [(h.memory_id, h.similarity) for h in vector_hits[i]],
            ],
            weights=[cfg.text_weight, cfg.vector_weight],
        )
        ids = [m for m, _ in fused[:30]]
        store.get_nodes(orch, ids)
        store.edges_of(orch, ids)

    _p(row, "fuse_hydrate", _each(fuse_hydrate, range(len(qs))))


def run_perf(
    sizes: Sequence[int],
    *,
    embedder: Embedder | None,
    queries: int = 100,
    adds: int = 100,
    presets: Sequence[str] = ("default", "text", "vector"),
    real_vectors: int = 16_384,
    data_dir: Path | str | None = "auto",
    store_cache: Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark; ``data_dir="auto"`` looks for the LoCoMo/LongMemEval files.

    ``real_vectors``: texts embedded for real, the anchors of the synthetic rest.
    16,384 (was 4,096): at 300k rows the same generator over 4,096 anchors gave
    HNSW recall@10 .921 at the shipped efSearch, over 15,637 real ones .996 —
    few anchors make clusters the graph walk gets lost between.

    ``store_cache``: keep each size's seeded store there and reuse it in later
    runs (topped up to the size when it holds fewer rows); its rows are
    statistically, not textually, those of a fresh run.

    >>> from memvault.embed import HashingEmbedder
    >>> out = run_perf([300], embedder=HashingEmbedder(dimension=32), queries=3, adds=3,
    ...                real_vectors=100, data_dir=None)
    >>> out["results"]["300"]["search_default_p50_ms"] > 0
    True
    """
    rng = random.Random(42)
    corpus = load_corpus(
        find_data_dir() if data_dir == "auto" else Path(data_dir) if data_dir else None
    )
    base_texts = [corpus.sentence(rng) for _ in range(min(real_vectors, max(sizes, default=0)))]
    qs = corpus.queries(queries, rng)
    results: dict[str, Any] = {}
    load_before = _load_average()
    base: FloatMatrix | None = None
    with progress() as bar:
        task = bar.add_task("perf", total=len(sizes))
        if embedder is not None and base_texts:
            bar.update(task, description=f"embedding {len(base_texts)} seed texts")
            base = embedder.embed_documents(base_texts)
        for n in sorted(sizes):
            bar.update(task, description=f"n={n}")
            results[str(n)] = _measure_size(
                n, embedder, corpus, rng, base, base_texts, qs, presets, adds, store_cache
            )
            bar.advance(task)
    faiss = load_faiss()
    return {
        "benchmark": "perf",
        "embedder": embedder.model_id if embedder else None,
        "corpus": corpus.source,
        "vocabulary_size": corpus.vocabulary_size,
        "queries": len(qs),
        "vectors": SYNTHETIC_NOTE,
        "ann": {
            "library": f"faiss {faiss.__version__}" if faiss is not None else None,
            "index": "HNSW (faiss IndexHNSWFlat, M=32, efSearch 128 up to 100k points and "
            "128*sqrt(n/100k) beyond, see ann.ef_search), inner product; "
            "SQLiteStore(ann_kind='ivf') for IVF-Flat",
            "shipped_min_rows": DEFAULT_ANN_MIN_ROWS,
        },
        "threads": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
        "load_average_before": load_before,
        "note": (
            "search_<preset> = engine.search as shipped (ANN from shipped_min_rows on when "
            "faiss is installed), including the query embedding; search_default is the first "
            "pass over the questions (each embedded for the first time, its memories read "
            "from the file for the first time), search_default_ann a later pass (query "
            "vectors from the embedder's cache); _cpu_p50_ms = the process CPU (all "
            "threads) of a search; search_default_exact / _ann "
            "force each vector path; embed_query, text_leg, vector_leg_*, fuse_hydrate are the "
            "parts of the default search timed alone (embed_query_cpu_p50_ms: its process "
            "CPU); ann_recall@10 = overlap of the ANN and "
            "exact vector top 10, ann_similarity_ratio@10 = their mean similarity, ANN / exact; "
            "max_rss_mb is the process peak so far (sizes run ascending); the store runs with "
            "its defaults: ann_backlog_after_seed = rows its ANN worker had not added when the "
            "seeding ended, settle_s = the wait for that worker, first_search_ms = the first "
            "search after it, text_settle_s = the wait for the text index that search started"
        ),
        "results": results,
    }


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    rows = result["results"]
    columns = sorted({k for r in rows.values() for k in r if k not in ("n", "load_average")})
    # one line per figure, one column per size: the split reads top to bottom
    by_metric = {c: {n: r.get(c, "") for n, r in rows.items()} for c in columns}
    render_table(f"memvault perf (ms unless noted) — {result['corpus']}", by_metric, list(rows))
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
