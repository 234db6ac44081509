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
import hashlib
import importlib
import os
import random
import shutil
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memvault.benchmarks.common import percentile, progress, recall_at, stderr, write_json
from memvault.benchmarks.locomo import Conversation, load_conversation
from memvault.benchmarks.perf import SYNTHETIC_NOTE, _synthetic
from memvault.benchmarks.perf_corpus import find_data_dir, load_corpus
from memvault.embed.base import Embedder, FloatMatrix, FloatVector

__all__ = ["SYSTEMS", "PrecomputedEmbedder", "report", "run_peers"]

SYSTEMS: tuple[str, ...] = ("memvault", "chroma", "mem0", "langgraph-sqlite", "langgraph-inmemory")
BATCH = 1000
TOP_K = 10
PEERS_INSTALL = 'pip install "memvault[peers]"'


class PrecomputedEmbedder:
    """An :class:`Embedder` answering from known vectors, else from ``base``.

    >>> from memvault.embed import HashingEmbedder
    >>> base = HashingEmbedder(dimension=4)
    >>> e = PrecomputedEmbedder(base, {"hi": np.array([1, 0, 0, 0], dtype=np.float32)})
    >>> e.embed_query("hi").tolist(), e.embed_documents(["x"]).shape
    ([1.0, 0.0, 0.0, 0.0], (1, 4))
    """

    symmetric = True

    def __init__(self, base: Embedder, known: dict[str, FloatVector] | None = None) -> None:
        self.base = base
        self.known: dict[str, FloatVector] = dict(known or {})

    @property
    def model_id(self) -> str:
        return self.base.model_id

    @property
    def dimension(self) -> int:
        return self.base.dimension

    def learn(self, texts: Sequence[str], vectors: FloatMatrix) -> None:
        for text, vector in zip(texts, vectors, strict=True):
            self.known[text] = np.asarray(vector, dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        missing = sorted({t for t in texts if t not in self.known})
        if missing:
            self.learn(missing, self.base.embed_documents(missing))
        out: FloatMatrix = np.stack([self.known[t] for t in texts]).astype(np.float32)
        return out.reshape(len(texts), self.dimension)

    def embed_query(self, text: str) -> FloatVector:
        vector: FloatVector = self.embed_documents([text])[0]
        return vector


# -- the systems ----------------------------------------------------------------------


class Peer(Protocol):
    """One system under test: add texts (ids chosen by the bench), search by text + vector."""

    def add(self, ids: Sequence[str], texts: Sequence[str], vectors: FloatMatrix) -> int: ...

    def search(self, text: str, vector: FloatVector, k: int) -> list[str]: ...

    def close(self) -> None: ...


class MemvaultPeer:
    """memvault through its public engine: ``add_many`` (gate on, precomputed vectors
    handed over with their model id) and ``search`` (with the query's vector)."""

    def __init__(self, home: Path, embedder: PrecomputedEmbedder) -> None:
        from memvault.engine import MemoryEngine

        self.engine = MemoryEngine.open(home, "bench", embedder=embedder)
        # Trigger: the SQLite store builds its ANN graph on a worker thread by default.
        # Why: timed searches must all run on the index they will use from then on.
        # Outcome: the first search builds it in place (its time is first_search_ms).
        store: Any = self.engine.store
        if hasattr(store, "ann_background"):  # the SQLite store (only store.factory names it)
            store.ann_background = False
            store.text_leg.background = False  # the text index too
        self.ids: dict[str, str] = {}
        self.model_id = embedder.model_id

    def add(self, ids: Sequence[str], texts: Sequence[str], vectors: FloatMatrix) -> int:
        items = [
            {
                "content": text,
                "type": "Event",
                "category": "EVENT",
                "source_kind": "USER_EXPLICIT",
                "source_type": "channel_transcript",
                "vector": vector,
                "vector_model": self.model_id,
            }
            for text, vector in zip(texts, vectors, strict=True)
        ]
        stored = 0
        for key, result in zip(ids, self.engine.add_many(items), strict=True):
            if result.ok and result.memory_id:
                self.ids[result.memory_id] = key
                stored += 1
        return stored

    def search(self, text: str, vector: FloatVector, k: int) -> list[str]:
        hits = self.engine.search(text, top_k=k, query_vector=vector).hits
        return [self.ids.get(h.node.memory_id, "") for h in hits]

    def close(self) -> None:
        self.engine.close()


class ChromaPeer:
    """chromadb 1.x, persistent client, one collection with its default HNSW (l2) index."""

    def __init__(self, home: Path, embedder: PrecomputedEmbedder) -> None:
        chromadb = importlib.import_module("chromadb")
        settings = importlib.import_module("chromadb.config").Settings
        self.client = chromadb.PersistentClient(
            path=str(home), settings=settings(anonymized_telemetry=False)
        )
        self.embedder = embedder
        self.collection = self.client.get_or_create_collection("bench", embedding_function=None)

    def add(self, ids: Sequence[str], texts: Sequence[str], vectors: FloatMatrix) -> int:
        # memvault's embedder, injected: chroma stores the vectors it hands over.
        self.collection.add(ids=list(ids), documents=list(texts), embeddings=vectors)
        return len(ids)

    def search(self, text: str, vector: FloatVector, k: int) -> list[str]:
        found = self.collection.query(query_embeddings=[vector], n_results=k)
        return list(found["ids"][0])

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.clear_system_cache()


class _Mem0Embedding:
    """mem0's embedder interface (``embed(text, memory_action)``) over memvault's."""

    def __init__(self, embedder: PrecomputedEmbedder, config: Any) -> None:
        self.embedder = embedder
        self.config = config

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        return [float(x) for x in self.embedder.embed_query(text)]


class Mem0Peer:
    """mem0 (open source): ``Memory`` with its default local qdrant store, ``infer=False``."""

    #: seconds of mem0's own per-item ``add`` before the rest is batch-inserted
    budget_s = 60.0

    def __init__(self, home: Path, embedder: PrecomputedEmbedder) -> None:
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        # Trigger: mem0 builds an OpenAI client for its LLM and embedder at start.
        # Why: with infer=False neither is called, but the constructor wants a key.
        # Outcome: a placeholder key; the embedder is replaced by memvault's below.
        os.environ.setdefault("OPENAI_API_KEY", "unused-by-the-benchmark")
        memory_cls = importlib.import_module("mem0").Memory
        dims = embedder.dimension
        self.memory = memory_cls.from_config(
            {
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "bench",
                        "path": str(home / "qdrant"),
                        "embedding_model_dims": dims,
                        "on_disk": True,
                    },
                },
                "embedder": {"provider": "openai", "config": {"embedding_dims": dims}},
                "history_db_path": str(home / "history.db"),
            }
        )
        self.memory.embedding_model = _Mem0Embedding(embedder, self.memory.embedding_model.config)
        self.ids: dict[str, str] = {}
        self.filled = 0
        self._spent = 0.0

    def add(self, ids: Sequence[str], texts: Sequence[str], vectors: FloatMatrix) -> int:
        stored = 0
        for i, (key, text) in enumerate(zip(ids, texts, strict=True)):
            if self._spent >= self.budget_s:
                self._fill(ids[i:], texts[i:], vectors[i:])
                return stored + len(ids) - i
            t0 = time.perf_counter()
            out = self.memory.add(text, user_id="bench", infer=False)
            self._spent += time.perf_counter() - t0
            for item in out.get("results", []):
                self.ids[str(item["id"])] = key
                stored += 1
        return stored

    def _fill(self, ids: Sequence[str], texts: Sequence[str], vectors: FloatMatrix) -> None:
        """The rest of the store through mem0's vector store, as ``_create_memory`` writes it."""
        now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
        memory_ids = [str(uuid.uuid4()) for _ in ids]
        payloads = [
            {
                "data": text,
                "hash": hashlib.md5(text.encode()).hexdigest(),
                "created_at": now,
                "updated_at": now,
                "user_id": "bench",
                "role": "user",
            }
            for text in texts
        ]
        self.memory.vector_store.insert(
            vectors=[[float(x) for x in v] for v in vectors], payloads=payloads, ids=memory_ids
        )
        self.ids.update(zip(memory_ids, ids, strict=True))
        self.filled += len(ids)

    def search(self, text: str, vector: FloatVector, k: int) -> list[str]:
        out = self.memory.search(text, filters={"user_id": "bench"}, top_k=k)
        return [self.ids.get(str(r["id"]), "") for r in out.get("results", [])]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.memory.vector_store.client.close()


def _sqlite_with_extensions() -> Any:
    """A DB-API sqlite module that can load extensions (sqlite-vec needs it).

    Trigger: some Python builds (pyenv's among them) compile ``sqlite3``
      without ``enable_load_extension``.
    Why: LangGraph's SqliteStore loads sqlite-vec for its vector index.
    Outcome: the standard module when it can; else ``pysqlite3`` (the
      ``peers`` extra installs ``pysqlite3-binary``).
    """
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    return importlib.import_module("pysqlite3.dbapi2")


class LangGraphPeer:
    """LangGraph's ``BaseStore``: SqliteStore (sqlite-vec) or InMemoryStore, with ``index``."""

    def __init__(self, home: Path, embedder: PrecomputedEmbedder, *, sqlite: bool) -> None:
        def embed(texts: Sequence[str]) -> list[list[float]]:
            return embedder.embed_documents(list(texts)).tolist()  # type: ignore[no-any-return]

        index = {"dims": embedder.dimension, "embed": embed, "fields": ["text"]}
        self.put_op = importlib.import_module("langgraph.store.base").PutOp
        self.conn: Any = None
        if sqlite:
            module = _sqlite_with_extensions()
            self.conn = module.connect(
                str(home / "store.db"), check_same_thread=False, isolation_level=None
            )
            store_cls = importlib.import_module("langgraph.store.sqlite").SqliteStore
            self.store = store_cls(self.conn, index=index)
            self.store.setup()
        else:
            store_cls = importlib.import_module("langgraph.store.memory").InMemoryStore
            self.store = store_cls(index=index)

    def add(self, ids: Sequence[str], texts: Sequence[str], vectors: FloatMatrix) -> int:
        ops = [self.put_op(("bench",), key, {"text": t}) for key, t in zip(ids, texts, strict=True)]
        self.store.batch(ops)
        return len(ops)

    def search(self, text: str, vector: FloatVector, k: int) -> list[str]:
        return [item.key for item in self.store.search(("bench",), query=text, limit=k)]

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _open_peer(system: str, home: Path, embedder: PrecomputedEmbedder) -> Peer:
    home.mkdir(parents=True, exist_ok=True)
    if system == "memvault":
        return MemvaultPeer(home, embedder)
    if system == "chroma":
        return ChromaPeer(home, embedder)
    if system == "mem0":
        return Mem0Peer(home, embedder)
    if system in ("langgraph-sqlite", "langgraph-inmemory"):
        return LangGraphPeer(home, embedder, sqlite=system == "langgraph-sqlite")
    raise ValueError(f"unknown system {system!r}; one of {', '.join(SYSTEMS)}")


def peer_versions() -> dict[str, str | None]:
    """Installed versions of the peers' packages (``None`` when absent).

    >>> "chromadb" in peer_versions()
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for package in ("memvault", "chromadb", "mem0ai", "qdrant-client", "langgraph", "sqlite-vec"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = None
    return out


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


def _scale(
    system: str,
    home: Path,
    embedder: PrecomputedEmbedder,
    texts: Sequence[str],
    vectors: FloatMatrix,
    queries: Sequence[str],
    qvectors: FloatMatrix,
) -> dict[str, Any]:
    peer = _open_peer(system, home, embedder)
    try:
        stored = 0
        t0 = time.perf_counter()
        for start in range(0, len(texts), BATCH):
            ids = [f"r{i}" for i in range(start, min(start + BATCH, len(texts)))]
            stored += peer.add(ids, texts[start : start + BATCH], vectors[start : start + BATCH])
        seconds = time.perf_counter() - t0
        t1 = time.perf_counter()
        peer.search(queries[0], qvectors[0], TOP_K)  # loads indexes: timed apart
        first = _ms_since(t1)
        for i in range(1, min(4, len(queries))):
            peer.search(queries[i], qvectors[i], TOP_K)
        times: list[float] = []
        cpu: list[float] = []
        for text, vector in zip(queries, qvectors, strict=True):
            c2, t2 = time.process_time(), time.perf_counter()
            peer.search(text, vector, TOP_K)
            times.append(_ms_since(t2))
            cpu.append((time.process_time() - c2) * 1000)
        row: dict[str, Any] = {
            "rows_per_s": round(len(texts) / seconds, 1) if seconds else None,
            "search_p50_ms": round(percentile(times, 50), 3),
            "search_p95_ms": round(percentile(times, 95), 3),
            # Trigger: a busy shared box. Why: wall-clock p50 there is a step
            #   function of CPU per search against the scheduler's time slice.
            # Outcome: the process CPU time of each search beside it (all threads).
            "search_cpu_p50_ms": round(percentile(cpu, 50), 3),
            "n": len(texts),
            "stored": stored,
            "first_search_ms": round(first, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
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
        peer = _open_peer(system, root / f"{system}-{conv.name}", embedder)
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
        "search p50 ms",
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
            _cell(scale.get("search_p50_ms")),
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
