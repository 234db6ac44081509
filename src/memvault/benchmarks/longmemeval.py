"""LongMemEval retrieval benchmark (official retrieval protocol).

A fresh index per question holding the user turns of its haystack (turn
granularity); abstention questions (``_abs``) are excluded. Turn evidence is
the user turns marked ``has_answer``; session evidence is
``answer_session_ids``. Session rankings are the sessions of the ranked turns
in order of first appearance. Like LoCoMo, turns are written straight into
the production store, embedder and retrieval, bypassing extraction and the
governance gate.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import (
    dcg_ndcg,
    mean,
    percentile,
    progress,
    render_table,
    write_json,
    write_plot,
)
from memvault.embed.base import Embedder
from memvault.engine import MemoryEngine, OpenGate
from memvault.retrieval.config import PRESETS
from memvault.store.base import IndexText

__all__ = ["run_longmemeval"]

INDEX_VERSION = "2"
NOTE = (
    "User turns are written straight into the production store, embedder and retrieval, "
    "bypassing extraction and the governance gate."
)


def _index(
    q: dict[str, Any], cache: Path, embedder: Embedder | None
) -> tuple[MemoryEngine, dict[str, str]]:
    model = embedder.model_id if embedder else "none"
    raw = json.dumps(q["haystack_sessions"], sort_keys=True).encode()
    tag = hashlib.sha256(raw + f"|{model}|{INDEX_VERSION}".encode()).hexdigest()[:20]
    home = cache / f"lme-{tag}"
    marker = home / "complete.json"
    if marker.exists():
        engine = MemoryEngine.open(home, "bench", gate=OpenGate(), embedder=embedder)
        return engine, json.loads(marker.read_text())
    shutil.rmtree(home, ignore_errors=True)
    engine = MemoryEngine.open(home, "bench", gate=OpenGate(), embedder=embedder)
    items: list[dict[str, Any]] = []
    extras: list[IndexText] = []
    keys: list[str] = []
    for sid, date, session in zip(
        q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
    ):
        for i, turn in enumerate(session):
            if turn.get("role") != "user" or not str(turn.get("content", "")).strip():
                continue
            around = [
                str(session[j].get("content", ""))[:300]
                for j in (i - 1, i + 1)
                if 0 <= j < len(session)
            ]
            items.append(
                {
                    "content": str(turn["content"])[:3900],
                    "type": "Event",
                    "category": "EVENT",
                    "source_kind": "SYSTEM_KNOWN",
                    "source_type": "channel_transcript",
                    "captured_by": "system",
                    "key": f"{sid}:{i}"[:128],
                }
            )
            extras.append(IndexText(subject="user", context=" ".join(around), date=str(date)))
            keys.append(f"{sid}\t{i}")
    mapping: dict[str, str] = {}
    for start in range(0, len(items), 128):
        results = engine.add_many(
            items[start : start + 128], index_texts=extras[start : start + 128]
        )
        for key, result in zip(keys[start : start + 128], results, strict=True):
            if not result.ok or not result.memory_id:
                raise RuntimeError(f"could not index turn {key}: {result.stop_reason}")
            mapping[result.memory_id] = key
    marker.write_text(json.dumps(mapping))
    return engine, mapping


def _metrics(ranked: list[str], relevant: set[str], prefix: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in (5, 10):
        top = set(ranked[:k])
        out[f"{prefix}_any@{k}"] = 1.0 if top & relevant else 0.0
        out[f"{prefix}_all@{k}"] = 1.0 if relevant <= top else 0.0
        out[f"{prefix}_ndcg@{k}"] = dcg_ndcg(ranked, relevant, k)
    return out


def run_longmemeval(
    path: Path,
    *,
    methods: Sequence[str] = ("default", "text", "vector"),
    cache: Path,
    embedder: Embedder | None,
    limit: int | None = None,
) -> dict[str, Any]:
    questions = [
        q for q in json.loads(path.read_text()) if not str(q["question_id"]).endswith("_abs")
    ]
    if limit is not None:
        questions = questions[:limit]
    rows: dict[str, list[dict[str, float]]] = {m: [] for m in methods}
    lat: dict[str, list[float]] = {m: [] for m in methods}
    with progress() as bar:
        task = bar.add_task("longmemeval", total=len(questions) * len(methods))
        for q in questions:
            bar.update(task, description=f"indexing {q['question_id']}")
            engine, mapping = _index(q, cache, embedder)
            turn_evidence = {
                f"{sid}\t{i}"
                for sid, session in zip(
                    q["haystack_session_ids"], q["haystack_sessions"], strict=True
                )
                for i, turn in enumerate(session)
                if turn.get("role") == "user" and turn.get("has_answer")
            }
            session_evidence = set(q["answer_session_ids"])
            try:
                for method in methods:
                    t0 = time.perf_counter()
                    hits = engine.search(q["question"], top_k=100, config=PRESETS[method]).hits
                    lat[method].append((time.perf_counter() - t0) * 1000)
                    turns = [mapping[h.node.memory_id] for h in hits]
                    sessions: list[str] = []
                    for t in turns:
                        sid = t.split("\t")[0]
                        if sid not in sessions:
                            sessions.append(sid)
                    row = _metrics(sessions, session_evidence, "session")
                    if turn_evidence:
                        row.update(_metrics(turns, turn_evidence, "turn"))
                    rows[method].append(row)
                    bar.advance(task)
            finally:
                engine.close()
    results: dict[str, Any] = {}
    for m in methods:
        keys = sorted({k for r in rows[m] for k in r})
        agg: dict[str, Any] = {k: mean(r[k] for r in rows[m] if k in r) for k in keys}
        agg["n_questions"] = len(rows[m])
        agg["n_turn_questions"] = sum(1 for r in rows[m] if "turn_any@5" in r)
        agg["p50_ms"] = percentile(lat[m], 50)
        agg["p95_ms"] = percentile(lat[m], 95)
        results[m] = agg
    return {
        "benchmark": "longmemeval",
        "default_method": methods[0],
        "note": NOTE,
        "embedder": embedder.model_id if embedder else None,
        "results": results,
    }


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    columns = [
        "turn_any@5",
        "turn_all@5",
        "turn_any@10",
        "turn_all@10",
        "turn_ndcg@10",
        "session_any@5",
        "session_all@5",
        "session_any@10",
        "session_all@10",
        "n_questions",
        "p50_ms",
    ]
    render_table("LongMemEval retrieval", result["results"], columns)
    write_json(json_out, result)
    if plot:
        write_plot(
            json_out.with_suffix(".png"),
            "LongMemEval",
            result["results"],
            ["turn_any@5", "turn_all@10", "session_any@5", "session_all@10"],
        )
