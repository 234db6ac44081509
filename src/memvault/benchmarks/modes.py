"""The three ways a recall benchmark writes its conversations (issue 17).

``turns``
    Every raw turn written straight into the store (gate off) with index text
    only the benchmark can build: the speaker as subject, the session date, and
    the neighbouring raw turns as ``context``. A figure of the retrieval
    machinery, not of the product: production never stores raw transcript.
``add``
    Every turn through the public write path (``add_many`` per session: the
    same pipeline as :meth:`MemoryEngine.add`) with only what a production
    caller has: content "speaker: text", the speaker as actor, the
    session timestamp (the engine's clock when the turn is stored), and a
    conversation id. The governance gate is on; no neighbour text, no ids in
    keys. The default mode.
``capture``
    Every turn through :meth:`MemoryEngine.capture_message` (extraction, the
    gate, resolve), as the product runs. A turn is recalled when a top-k
    memory's provenance (the capture call that wrote, merged into or updated
    it) points at that turn; evidence turns that produced no memory are
    counted by reason (``not_extracted`` or the gate's stop reason).

No benchmark stops on one bad item: a turn that cannot be written is recorded
(with its reason) and the run goes on. Gold ids never reach the store: keys
are derived by the engine from the content, conversation ids are neutral.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

import memvault
from memvault.embed.base import Embedder, FloatMatrix, FloatVector
from memvault.engine import MemoryEngine, OpenGate
from memvault.ingest.parsers import split_long
from memvault.model.node import CONTENT_MAX
from memvault.retrieval.config import PRESETS, RetrievalConfig
from memvault.store.base import IndexText

__all__ = [
    "DEFAULT_MODE",
    "MODES",
    "MODE_NOTES",
    "BenchTurn",
    "BuiltIndex",
    "CachedEmbedder",
    "add_limit",
    "build_index",
    "cached",
    "closing_or_null",
    "evidence_without_memory",
    "merge_index_stats",
    "parse_modes",
    "ranked_turns",
]

MODES: tuple[str, ...] = ("turns", "add", "capture")
DEFAULT_MODE = "add"
MODE_NOTES: dict[str, str] = {
    "turns": (
        "raw turns with benchmark-built index text (speaker, date, neighbouring turns as "
        "context), gate off: a retrieval-machinery figure, not what production stores"
    ),
    "add": (
        "every turn through MemoryEngine.add as a production caller would write it "
        "('speaker: text', speaker as actor, session timestamp, conversation id; gate on)"
    ),
    "capture": (
        "every turn through capture_message (extraction, gate, resolve); evidence is "
        "recalled when a top-k memory's provenance points at the turn"
    ),
}

#: Bumped whenever what an index holds changes (old caches are then rebuilt).
INDEX_VERSION = "7"
_SAFE_ID = re.compile(r"[^A-Za-z0-9_.:\-]")


@dataclass(frozen=True, slots=True)
class BenchTurn:
    """One turn as a benchmark sees it; ``ref`` never reaches the store."""

    ref: str
    speaker: str
    text: str
    at: datetime
    conversation: str
    context: str = ""  # ``turns`` mode only: the benchmark-built neighbour text
    caption: str = ""  # an image's caption (LoCoMo), ``turns`` mode only


@dataclass
class BuiltIndex:
    """An opened index: the engine, which turns each memory came from, what failed."""

    engine: MemoryEngine
    provenance: dict[str, list[str]]
    without_memory: dict[str, str] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)

    def stats(self) -> dict[str, Any]:
        return {
            "memories": len(self.provenance),
            "turns_without_memory": dict(sorted(Counter(self.without_memory.values()).items())),
            "failures": len(self.failures),
        }


class _Clock:
    """The engine's clock during a benchmark: the time of the turn being stored."""

    def __init__(self) -> None:
        self.now = datetime(2023, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def parse_modes(text: str | None) -> tuple[str, ...]:
    """``"add,turns"`` → ``("add", "turns")``; all three (default mode first) when empty.

    >>> parse_modes(None)
    ('add', 'turns', 'capture')
    >>> parse_modes("capture, turns")
    ('capture', 'turns')
    """
    if not text or not text.strip():
        return (DEFAULT_MODE, *(m for m in MODES if m != DEFAULT_MODE))
    chosen = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in MODES]
    if unknown:
        raise ValueError(f"unknown mode(s): {', '.join(unknown)}; one of {', '.join(MODES)}")
    return tuple(dict.fromkeys(chosen))


def _code_hash() -> str:
    """A hash of the write path's code: an add/capture index is rebuilt when it changes.

    The read path (fusion, scoring) is not part of it: a cached index is
    re-searched with whatever ranking the code has now.
    """
    root = Path(memvault.__file__).parent
    paths = [root / "retrieval" / "indexing.py"]
    for sub in ("engine", "extract", "policy", "write", "model", "learn"):
        paths.extend(sorted((root / sub).rglob("*.py")) if (root / sub).is_dir() else [])
    digest = hashlib.sha256()
    for path in paths:
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _safe_id(text: str, fallback: str) -> str:
    return _SAFE_ID.sub("-", text)[:128] or fallback


def _record(index: BuiltIndex, turn: BenchTurn, reason: str, detail: str = "") -> None:
    index.without_memory.setdefault(turn.ref, reason)
    if detail:
        index.failures.append({"turn": turn.ref, "reason": reason, "detail": detail[:300]})


def _write_turns(engine: MemoryEngine, turns: Sequence[BenchTurn], index: BuiltIndex) -> None:
    """``turns`` mode: raw text plus benchmark-built index text, in bulk, gate off."""
    items: list[dict[str, Any]] = []
    extras: list[IndexText] = []
    owners: list[BenchTurn] = []
    for t in turns:
        caption = f"[image: {t.caption}]" if t.caption else ""
        text = t.text or caption
        if not text.strip():
            _record(index, t, "empty")
            continue
        for part in split_long(text, CONTENT_MAX):
            items.append(
                {
                    "content": part,
                    "type": "Event",
                    "category": "EVENT",
                    "source_kind": "SYSTEM_KNOWN",
                    "source_type": "channel_transcript",
                    "captured_by": "system",
                    "conversation_id": _safe_id(t.conversation, "conv"),
                    "actor_id": _safe_id(t.speaker, "speaker"),
                }
            )
            extras.append(
                IndexText(
                    subject=t.speaker,
                    context=" ".join(x for x in (caption, t.context) if x),
                    date=t.at.strftime("%Y-%m-%d %B %Y"),
                )
            )
            owners.append(t)
    for start in range(0, len(items), 128):
        chunk = items[start : start + 128]
        results = engine.add_many(chunk, index_texts=extras[start : start + 128])
        for turn, result in zip(owners[start : start + 128], results, strict=True):
            if result.ok and result.memory_id:
                index.provenance.setdefault(result.memory_id, []).append(turn.ref)
            else:
                _record(index, turn, result.stop_reason.value, result.reason or "")


def _write_add(
    engine: MemoryEngine, clock: _Clock, turns: Sequence[BenchTurn], index: BuiltIndex
) -> None:
    """``add`` mode: each turn as a production caller writes it, gate on.

    Turns said at the same moment (one session) go in one ``add_many`` call:
    the same write pipeline as ``add`` (validation, cleaning, the gate per
    item, relations, vectors), one transaction and batched embedding.
    """
    batches: dict[datetime, list[BenchTurn]] = {}
    for t in turns:
        if not t.text.strip():
            _record(index, t, "empty")
            continue
        batches.setdefault(t.at, []).append(t)
    limit = add_limit(engine)
    for at, batch in batches.items():
        clock.now = at
        items: list[dict[str, Any]] = []
        owners: list[BenchTurn] = []
        for t in batch:
            prefix = f"{t.speaker}: "
            for part in split_long(t.text, max(limit - len(prefix), 64)):
                items.append(
                    {
                        "content": prefix + part,
                        "type": "Event",
                        "category": "EVENT",
                        "source_kind": "USER_EXPLICIT",
                        "source_type": "channel_transcript",
                        "captured_by": "user",
                        "actor_id": _safe_id(t.speaker, "speaker"),
                        "user_id": _safe_id(t.speaker, "speaker"),
                        "conversation_id": _safe_id(t.conversation, "conv"),
                    }
                )
                owners.append(t)
        try:
            results = engine.add_many(items)
        except Exception as exc:  # recorded, never fatal to the run
            for t in batch:
                _record(index, t, "error", f"{type(exc).__name__}: {exc}")
            continue
        for t, result in zip(owners, results, strict=True):
            if result.ok and result.memory_id:
                index.provenance.setdefault(result.memory_id, []).append(t.ref)
            else:
                _record(index, t, result.stop_reason.value, result.reason or "")


def add_limit(engine: MemoryEngine, category: str = "EVENT") -> int:
    """The longest content one memory of ``category`` holds: the engine's own bound.

    ``add`` stores a longer content as several memories itself; ``add_many``
    (one result per item) does not, so the bench splits its turns the same
    way first (LongMemEval: 113 user turns of 12 haystacks are 700+ characters).

    >>> import tempfile
    >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
    >>> add_limit(e)
    512
    >>> e.close()
    """
    return engine.core.content_limit(category)


def _write_capture(
    engine: MemoryEngine, clock: _Clock, turns: Sequence[BenchTurn], index: BuiltIndex
) -> None:
    """``capture`` mode: each turn through ``capture_message`` (extraction, gate, resolve)."""
    from memvault.extract.base import MESSAGE_MAX

    for t in turns:
        if not t.text.strip():
            _record(index, t, "empty")
            continue
        clock.now = t.at
        touched = False
        refused: list[str] = []
        for part in split_long(t.text, MESSAGE_MAX):
            try:
                result = engine.capture_message(
                    {
                        "text": part,
                        "user_id": _safe_id(t.speaker, "user"),
                        "speaker": t.speaker[:64] or None,
                        "conversation_id": _safe_id(t.conversation, "conv"),
                        "at": t.at,
                    }
                )
            except Exception as exc:  # recorded, never fatal to the run
                _record(index, t, "error", f"{type(exc).__name__}: {exc}")
                continue
            for cand in result.candidates:
                if cand.memory_ids and cand.outcome.value != "rejected":
                    touched = True
                    # the candidate's own memory (new or merged-into) carries the turn
                    memory_id = cand.memory_ids[0]
                    refs = index.provenance.setdefault(memory_id, [])
                    if t.ref not in refs:
                        refs.append(t.ref)
                else:
                    refused.append(cand.stop_reason.value)
        if not touched:
            _record(index, t, refused[0] if refused else "not_extracted")


class CachedEmbedder:
    """Benchmark-only: ``inner`` with an on-disk cache of document vectors by text.

    Trigger: the same turns are written in several modes and rebuilt whenever
    the write path's code changes (LongMemEval: ~500 turns a question).
    Why: a vector is a function of the model and the text alone, and embedding
    is most of an index build on a loaded box.
    Outcome: each distinct text is embedded once per model across modes, runs
    and rebuilds; queries are always embedded by ``inner`` (its own query path).
    Everything else (``model_id``, ``dimension``, ``symmetric`` …) is ``inner``'s.

    >>> import tempfile
    >>> from memvault.embed import HashingEmbedder
    >>> e = CachedEmbedder(HashingEmbedder(dimension=8), Path(tempfile.mkdtemp()) / "v.db")
    >>> a = e.embed_documents(["hello", "world"]); b = e.embed_documents(["world"])
    >>> bool((a[1] == b[0]).all()), e.hits
    (True, 1)
    >>> e.close()
    """

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        #: the wrapped embedder's space: the same model, the same vectors
        self.model_id: str = inner.model_id
        self.dimension: int = inner.dimension
        self.hits = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=120, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.inner.model_id}\0{text}".encode()).hexdigest()

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        with self._lock:
            return self._embed_documents(texts)

    def _embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        keys = [self._key(t) for t in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self._db.execute(f"SELECT key, vec FROM v WHERE key IN ({marks})", chunk))
        todo = sorted({(k, t) for k, t in zip(keys, texts, strict=True) if k not in found})
        if todo:
            vectors = self.inner.embed_documents([t for _, t in todo])
            rows = [
                (k, np.asarray(v, dtype=np.float32).tobytes())
                for (k, _), v in zip(todo, vectors, strict=True)
            ]
            self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            self._db.commit()
            found.update(rows)
        self.hits += len(keys) - len(todo)
        return (
            np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys])
            if keys
            else (np.zeros((0, self.inner.dimension), dtype=np.float32))
        )

    def embed_query(self, text: str) -> FloatVector:
        return self.inner.embed_query(text)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def closing_or_null(embedder: CachedEmbedder | None) -> AbstractContextManager[Any]:
    """A context that closes ``embedder``'s cache on exit (nothing for ``None``)."""
    return closing(embedder) if embedder is not None else nullcontext()


def cached(embedder: Embedder | None, cache: Path) -> CachedEmbedder | None:
    """``embedder`` behind the benchmark's vector cache under ``cache`` (``None`` stays)."""
    return None if embedder is None else CachedEmbedder(embedder, cache / "vectors.db")


def _tag(mode: str, data_hash: str, embedder: Embedder | None) -> str:
    model = embedder.model_id if embedder else "none"
    code = _code_hash() if mode != "turns" else ""
    variant = f"{data_hash}|{mode}|{model}|{INDEX_VERSION}|{code}"
    return hashlib.sha256(variant.encode()).hexdigest()[:20]


def build_index(
    mode: str,
    turns: Sequence[BenchTurn],
    *,
    data_hash: str,
    cache: Path,
    embedder: Embedder | None,
    prefix: str,
    search_at: datetime,
) -> BuiltIndex:
    """Open (building once, then reusing from ``cache``) the index of ``turns`` in ``mode``.

    ``search_at`` is the engine's clock for the questions (after the last turn).
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    home = cache / f"{prefix}-{mode}-{_tag(mode, data_hash, embedder)}"
    marker = home / "complete.json"
    clock = _Clock()
    gate = OpenGate() if mode == "turns" else None
    retrieval = PRESETS["default"]
    if marker.exists():
        try:
            saved = json.loads(marker.read_text())
            engine = MemoryEngine.open(
                home, "bench", gate=gate, embedder=embedder, clock=clock, retrieval=retrieval
            )
            clock.now = search_at
            return BuiltIndex(
                engine, saved["provenance"], saved["without_memory"], saved["failures"]
            )
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache entry is rebuilt
    shutil.rmtree(home, ignore_errors=True)
    engine = MemoryEngine.open(
        home, "bench", gate=gate, embedder=embedder, clock=clock, retrieval=retrieval
    )
    index = BuiltIndex(engine, {})
    try:
        if mode == "turns":
            _write_turns(engine, turns, index)
        elif mode == "add":
            _write_add(engine, clock, turns, index)
        else:
            _write_capture(engine, clock, turns, index)
    except BaseException:
        engine.close()
        raise
    clock.now = search_at
    marker.write_text(
        json.dumps(
            {
                "provenance": index.provenance,
                "without_memory": index.without_memory,
                "failures": index.failures,
            }
        )
    )
    return index


def ranked_turns(memory_ids: Iterable[str], provenance: dict[str, list[str]]) -> list[list[str]]:
    """For each ranked memory, the turns it came from (empty for a memory of no turn).

    >>> ranked_turns(["m2", "m9", "m1"], {"m1": ["D1:1"], "m2": ["D1:2", "D1:3"]})
    [['D1:2', 'D1:3'], [], ['D1:1']]
    """
    return [list(provenance.get(m, ())) for m in memory_ids]


def turns_at(ranked: Sequence[Sequence[str]], k: int) -> set[str]:
    """The turns the top ``k`` memories point at.

    >>> sorted(turns_at([["a", "b"], ["c"], ["d"]], 2))
    ['a', 'b', 'c']
    """
    return {t for refs in ranked[:k] for t in refs}


def flat_turns(ranked: Sequence[Sequence[str]]) -> list[str]:
    """Turns in rank order of first appearance.

    >>> flat_turns([["a", "b"], ["a"], ["c"]])
    ['a', 'b', 'c']
    """
    return list(dict.fromkeys(t for refs in ranked for t in refs))


def merge_index_stats(into: dict[str, Any], stats: dict[str, Any]) -> None:
    """Add one built index's counts (memories, failures, turns without memory) to ``into``.

    >>> total: dict[str, Any] = {}
    >>> merge_index_stats(total, {"memories": 2, "failures": 0, "turns_without_memory": {"x": 1}})
    >>> merge_index_stats(total, {"memories": 3, "failures": 1, "turns_without_memory": {"x": 2}})
    >>> total
    {'memories': 5, 'failures': 1, 'turns_without_memory': {'x': 3}}
    """
    into["memories"] = into.get("memories", 0) + stats["memories"]
    into["failures"] = into.get("failures", 0) + stats["failures"]
    counts = into.setdefault("turns_without_memory", {})
    for reason, n in stats["turns_without_memory"].items():
        counts[reason] = counts.get(reason, 0) + n


def evidence_without_memory(
    evidence: Iterable[str], without_memory: dict[str, str]
) -> dict[str, int]:
    """Distinct evidence turns that produced no memory, by reason (plus the total).

    >>> evidence_without_memory(["a", "b", "c", "a"], {"a": "not_extracted", "c": "FORBIDDEN"})
    {'FORBIDDEN': 1, 'not_extracted': 1, 'evidence_turns': 3}
    """
    distinct = set(evidence)
    counts = Counter(without_memory[t] for t in distinct if t in without_memory)
    out: dict[str, int] = dict(sorted(counts.items()))
    out["evidence_turns"] = len(distinct)
    return out


def safe_search(
    engine: MemoryEngine,
    query: str,
    *,
    top_k: int,
    config: RetrievalConfig,
    failures: list[dict[str, str]],
) -> list[str]:
    """The ranked memory ids of one search; a failure is recorded and counts as no result."""
    try:
        return [h.node.memory_id for h in engine.search(query, top_k=top_k, config=config).hits]
    except Exception as exc:
        failures.append({"question": query[:120], "detail": f"{type(exc).__name__}: {exc}"[:300]})
        return []


def day_after(moments: Iterable[datetime]) -> datetime:
    """A day after the latest moment (when the questions are asked)."""
    latest = max(moments, default=datetime(2023, 1, 1, tzinfo=UTC))
    return latest + timedelta(days=1)
