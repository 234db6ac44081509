"""LoCoMo retrieval benchmark: turn-level evidence recall through the real engine.

Every turn of every conversation is written as a memory through the
production store, embedder and retrieval — bypassing extraction and the
governance gate, because benchmark conversations deliberately contain
sensitive topics (the output says so). Each category 1–4 question is a
query; metrics follow ``shared/data/README.md``.

Index per conversation: content = the turn's text; index-only enrichment
(never returned as content): subject = the speaker, date = the session date,
context = the two previous and two next turns plus the turn's image caption.
This mirrors what production may index (subjects, dates, related memories);
in the benchmark a turn's neighbours stand in for its related memories.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import (
    mean,
    percentile,
    progress,
    recall_at,
    render_table,
    write_json,
    write_plot,
)
from memvault.embed.base import Embedder
from memvault.engine import MemoryEngine, OpenGate
from memvault.retrieval.config import PRESETS, RetrievalConfig
from memvault.store.base import IndexText

__all__ = ["Conversation", "load_conversation", "normalise_evidence", "run_locomo"]

INDEX_VERSION = "4"
NOTE = (
    "Turns are written straight into the production store, embedder and retrieval, "
    "bypassing extraction and the governance gate (LoCoMo deliberately contains "
    "sensitive topics). End-to-end figures through capture and the gate are separate."
)
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*0*(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    caption: str
    date: str


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    name: str
    sha256: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def normalise_evidence(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """Split ``;``-joined ids, drop stray colons and leading zeros, keep known ids.

    >>> normalise_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D99:1"],
    ...                    {"D8:6", "D9:17", "D11:26", "D30:5"})
    ('D8:6', 'D9:17', 'D11:26', 'D30:5')
    """
    out: list[str] = []
    for item in raw:
        for part in str(item).split(";"):
            m = _EVIDENCE.search(part)
            if m:
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                if dia in known and dia not in out:
                    out.append(dia)
    return tuple(out)


def load_conversation(path: Path) -> Conversation:
    raw_bytes = path.read_bytes()
    data = json.loads(raw_bytes)
    conv = data.get("conversation", data)
    turns: list[Turn] = []
    session_keys = sorted(
        (int(m.group(1)), k)
        for k in conv
        if (m := re.fullmatch(r"session_(\d+)", k)) and isinstance(conv[k], list)
    )
    for number, key in session_keys:
        date = str(conv.get(f"{key}_date_time", ""))
        for t in conv[key]:
            turns.append(
                Turn(
                    dia_id=str(t["dia_id"]),
                    session=number,
                    speaker=str(t.get("speaker", "")),
                    text=str(t.get("text", "")),
                    caption=str(t.get("blip_caption", "") or ""),
                    date=date,
                )
            )
    known = {t.dia_id for t in turns}
    questions = []
    for qa in data.get("qa", []):
        category = int(qa.get("category", 0))
        if category not in (1, 2, 3, 4):
            continue
        evidence = normalise_evidence(qa.get("evidence", []), known)
        if evidence:
            questions.append(Question(str(qa["question"]), category, evidence))
    name = str(data.get("sample_id") or path.stem)
    return Conversation(name, hashlib.sha256(raw_bytes).hexdigest(), tuple(turns), tuple(questions))


def _items(conv: Conversation) -> tuple[list[dict[str, Any]], list[IndexText]]:
    items: list[dict[str, Any]] = []
    extras: list[IndexText] = []
    turns = conv.turns
    for i, t in enumerate(turns):
        neighbours = [
            f"{u.speaker}: {u.text}"
            for u in (*turns[max(0, i - 2) : i], *turns[i + 1 : i + 3])
            if u.session == t.session
        ]
        caption = f"[image: {t.caption}]" if t.caption else ""
        content = (t.text or caption or "(empty turn)")[:3900]
        items.append(
            {
                "content": content,
                "type": "Event",
                "category": "EVENT",
                "source_kind": "SYSTEM_KNOWN",
                "source_type": "channel_transcript",
                "captured_by": "system",
                "key": t.dia_id,
                "conversation_id": re.sub(r"[^A-Za-z0-9_.:\-]", "-", conv.name)[:128] or "conv",
                "actor_id": re.sub(r"[^A-Za-z0-9_.:\-]", "-", t.speaker)[:128] or None,
            }
        )
        extras.append(
            IndexText(subject=t.speaker, context=" ".join([caption, *neighbours]), date=t.date)
        )
    return items, extras


def _open_index(
    conv: Conversation, cache: Path, embedder: Embedder | None, context_vectors: bool
) -> tuple[MemoryEngine, dict[str, str]]:
    """Open (building once, then reusing) the conversation's index."""
    model = embedder.model_id if embedder else "none"
    variant = f"{conv.sha256}|{model}|{INDEX_VERSION}|ctx={context_vectors}"
    tag = hashlib.sha256(variant.encode()).hexdigest()[:20]
    home = cache / f"locomo-{tag}"
    marker = home / "complete.json"
    if marker.exists():
        engine = MemoryEngine.open(home, "bench", gate=OpenGate(), embedder=embedder)
        return engine, json.loads(marker.read_text())
    shutil.rmtree(home, ignore_errors=True)
    engine = MemoryEngine.open(
        home,
        "bench",
        gate=OpenGate(),
        embedder=embedder,
        retrieval=PRESETS["default"].model_copy(update={"use_context_vectors": context_vectors}),
    )
    items, extras = _items(conv)
    mapping: dict[str, str] = {}
    for start in range(0, len(items), 128):
        chunk = items[start : start + 128]
        results = engine.add_many(chunk, index_texts=extras[start : start + 128])
        for item, result in zip(chunk, results, strict=True):
            if not result.ok or not result.memory_id:
                raise RuntimeError(f"could not index {item['key']}: {result.stop_reason}")
            mapping[result.memory_id] = item["key"]
    marker.write_text(json.dumps(mapping))
    return engine, mapping


def _score(retrieved: list[str], q: Question, ks: Sequence[int]) -> dict[str, float]:
    relevant = set(q.evidence)
    sessions = {int(e.split(":")[0][1:]) for e in relevant}
    out: dict[str, float] = {}
    for k in ks:
        out[f"recall@{k}"] = recall_at(retrieved, relevant, k)
    for k in (5, 10):
        out[f"any@{k}"] = 1.0 if set(retrieved[:k]) & relevant else 0.0
        top_sessions = {int(r.split(":")[0][1:]) for r in retrieved[:k]}
        out[f"session_recall@{k}"] = len(sessions & top_sessions) / len(sessions)
    return out


def _aggregate(rows: list[dict[str, float]], latencies: list[float]) -> dict[str, Any]:
    keys = sorted({k for r in rows for k in r})
    agg: dict[str, Any] = {k: mean(r[k] for r in rows) for k in keys}
    agg["n_questions"] = len(rows)
    agg["p50_ms"] = percentile(latencies, 50)
    agg["p95_ms"] = percentile(latencies, 95)
    return agg


def run_locomo(
    data_dir: Path,
    *,
    methods: Sequence[str] = ("default", "text", "vector"),
    ks: Sequence[int] = (1, 5, 10, 20),
    cache: Path,
    embedder: Embedder | None,
    configs: dict[str, RetrievalConfig] | None = None,
    context_vectors: bool = False,
) -> dict[str, Any]:
    """Run the benchmark over every ``*.json`` conversation in ``data_dir``."""
    files = sorted(data_dir.glob("*.json")) if data_dir.is_dir() else [data_dir]
    if not files:
        raise FileNotFoundError(f"no LoCoMo *.json files in {data_dir}")
    all_configs = {**PRESETS, **(configs or {})}
    ks = sorted(set(ks) | {1, 5, 10, 20})
    per_method: dict[str, list[dict[str, float]]] = {m: [] for m in methods}
    per_cat: dict[str, dict[int, list[dict[str, float]]]] = {m: {} for m in methods}
    latency: dict[str, list[float]] = {m: [] for m in methods}
    conversations = [load_conversation(f) for f in files]
    total = sum(len(c.questions) for c in conversations) * len(methods)
    with progress() as bar:
        task = bar.add_task("locomo", total=total)
        for conv in conversations:
            bar.update(task, description=f"indexing {conv.name}")
            engine, mapping = _open_index(conv, cache, embedder, context_vectors)
            try:
                for method in methods:
                    cfg = all_configs[method]
                    bar.update(task, description=f"{conv.name} · {method}")
                    for q in conv.questions:
                        t0 = time.perf_counter()
                        hits = engine.search(q.question, top_k=max(ks), config=cfg).hits
                        latency[method].append((time.perf_counter() - t0) * 1000)
                        retrieved = [mapping.get(h.node.memory_id, "") for h in hits]
                        row = _score(retrieved, q, ks)
                        per_method[method].append(row)
                        per_cat[method].setdefault(q.category, []).append(row)
                        bar.advance(task)
            finally:
                engine.close()
    results = {m: _aggregate(per_method[m], latency[m]) for m in methods}
    by_category = {
        m: {str(c): _aggregate(rows, []) for c, rows in sorted(per_cat[m].items())} for m in methods
    }
    for cats in by_category.values():
        for agg in cats.values():
            agg.pop("p50_ms", None)
            agg.pop("p95_ms", None)
    return {
        "benchmark": "locomo",
        "default_method": methods[0],
        "note": NOTE,
        "embedder": embedder.model_id if embedder else None,
        "conversations": [c.name for c in conversations],
        "results": results,
        "by_category": by_category,
    }


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    """Print the table, write JSON and (if matplotlib is present) a PNG plot."""
    columns = [
        "recall@1",
        "recall@5",
        "recall@10",
        "recall@20",
        "any@10",
        "session_recall@10",
        "n_questions",
        "p50_ms",
        "p95_ms",
    ]
    render_table("LoCoMo turn-level evidence recall (categories 1–4)", result["results"], columns)
    write_json(json_out, result)
    if plot:
        ks = ["recall@1", "recall@5", "recall@10", "recall@20"]
        write_plot(json_out.with_suffix(".png"), "LoCoMo recall@k", result["results"], ks)
