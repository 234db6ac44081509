"""The systems ``memvault bench peers`` runs side by side (:mod:`.peers` measures them).

Each is driven through its public API with memvault's embedder injected
(:class:`PrecomputedEmbedder`) and its documented defaults otherwise; a peer
package that is missing raises ``ImportError`` when its system is opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import sqlite3
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memvault.embed.base import Embedder, FloatMatrix, FloatVector

__all__ = [
    "PEERS_INSTALL",
    "SYSTEMS",
    "ChromaPeer",
    "LangGraphPeer",
    "Mem0Peer",
    "MemvaultPeer",
    "Peer",
    "PrecomputedEmbedder",
    "open_peer",
    "peer_versions",
]

SYSTEMS: tuple[str, ...] = ("memvault", "chroma", "mem0", "langgraph-sqlite", "langgraph-inmemory")
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

        # The store's defaults, as a user gets them: the ANN graph follows the bulk
        # load on a worker thread, the text index is built on one after the first
        # search (which FTS5 answers meanwhile); :meth:`settle` waits for both.
        self.engine = MemoryEngine.open(home, "bench", embedder=embedder)
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

    def graph_walks(self) -> dict[str, float]:
        """The HNSW graph's work per search since the last call (faiss's own counters:
        distance computations and hops, ``ann_ndis_per_search`` / ``ann_hops_per_search``),
        then the counters restart from zero. Empty without faiss or a search."""
        from memvault.store.sqlite.ann import load_faiss

        faiss = load_faiss()
        if faiss is None:
            return {}
        stats = faiss.cvar.hnsw_stats
        searches = int(stats.n1)  # one per graph search
        out: dict[str, float] = {}
        if searches:
            out = {
                "ann_ndis_per_search": round(int(stats.ndis) / searches, 1),
                "ann_hops_per_search": round(int(stats.nhops) / searches, 1),
                "ann_searches": searches,
            }
        stats.reset()
        return out

    def pending(self) -> int:
        """Vectors written but not in an ANN graph yet (the worker's backlog)."""
        backlog = getattr(self.engine.store, "ann_backlog", None)
        return int(backlog()) if backlog is not None else 0

    def settle(self) -> dict[str, float]:
        """Wait for the store's background index work: the graph's worker, then the text
        index (the waits in ms, each from the start: ``ann_settle_ms``, ``text_settle_ms``)."""
        wait = getattr(self.engine.store, "wait_for_indexes", None)
        t0 = time.perf_counter()
        if wait is not None:
            wait(text=False)
        ann_ms = (time.perf_counter() - t0) * 1000
        if wait is not None:
            wait()
        return {
            "ann_settle_ms": round(ann_ms, 1),
            "text_settle_ms": round((time.perf_counter() - t0) * 1000, 1),
        }

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


def open_peer(system: str, home: Path, embedder: PrecomputedEmbedder) -> Peer:
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
