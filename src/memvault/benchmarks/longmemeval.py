"""LongMemEval retrieval benchmark (official retrieval protocol), in three write modes.

A fresh index per question holding the user turns of its haystack (turn
granularity), written in each mode of :mod:`memvault.benchmarks.modes`;
abstention questions (``_abs``) are excluded. Turn evidence is the user turns
marked ``has_answer``; session evidence is ``answer_session_ids``. Session
rankings are the sessions of the ranked turns in order of first appearance.
Session ids stay in the benchmark: the store sees neutral conversation ids
(``s0``, ``s1`` … in haystack order) and engine-derived keys.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import (
    dcg_ndcg,
    mean,
    percentile,
    progress,
    render_table,
    stderr,
    write_json,
    write_plot,
)
from memvault.benchmarks.modes import (
    DEFAULT_MODE,
    MODE_NOTES,
    BenchTurn,
    build_index,
    cached,
    closing_or_null,
    day_after,
    evidence_without_memory,
    flat_turns,
    merge_index_stats,
    ranked_turns,
    safe_search,
    turns_at,
)
from memvault.embed.base import Embedder
from memvault.retrieval.config import PRESETS

__all__ = ["bench_turns", "parse_lme_date", "run_longmemeval"]

NOTE = (
    "Three write modes (see mode_notes): 'results' is the 'add' mode, what a production "
    "caller's store holds; 'turns' is a retrieval-machinery figure over raw user turns with "
    "benchmark-built index text and the gate off."
)


def parse_lme_date(text: str) -> datetime | None:
    """LongMemEval's "2023/05/20 (Sat) 02:21" as an aware UTC datetime.

    >>> parse_lme_date("2023/05/20 (Sat) 02:21").isoformat()
    '2023-05-20T02:21:00+00:00'
    >>> parse_lme_date("") is None
    True
    """
    parts = text.split()
    try:
        day = datetime.strptime(parts[0], "%Y/%m/%d")
        if len(parts) >= 3:
            hour, minute = (int(x) for x in parts[-1].split(":"))
            day = day.replace(hour=hour, minute=minute)
    except (ValueError, IndexError):
        return None
    return day.replace(tzinfo=UTC)


def bench_turns(q: dict[str, Any]) -> list[BenchTurn]:
    """The user turns of a question's haystack; ``ref`` is "session id<TAB>turn index"."""
    out: list[BenchTurn] = []
    fallback = datetime(2023, 1, 1, tzinfo=UTC)
    for n, (sid, date, session) in enumerate(
        zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True)
    ):
        at = parse_lme_date(str(date)) or fallback
        fallback = at
        for i, turn in enumerate(session):
            text = str(turn.get("content", ""))
            if turn.get("role") != "user" or not text.strip():
                continue
            around = [
                str(session[j].get("content", ""))[:300]
                for j in (i - 1, i + 1)
                if 0 <= j < len(session)
            ]
            out.append(
                BenchTurn(
                    ref=f"{sid}\t{i}",
                    speaker="user",
                    text=text,
                    at=at + timedelta(seconds=i),
                    conversation=f"s{n}",
                    context=" ".join(around),
                )
            )
    return out


def stratified(questions: Sequence[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """``limit`` questions spread over the question types, file order kept.

    Round-robin over ``question_type`` (in order of first appearance), taking
    each type's questions in file order, so a small ``--limit`` still covers
    every kind of question; the result keeps the file's order.

    >>> qs = [{"question_type": t, "i": i} for i, t in enumerate("aaabbc")]
    >>> [q["i"] for q in stratified(qs, 4)]
    [0, 1, 3, 5]
    """
    by_type: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        by_type.setdefault(str(q.get("question_type", "")), []).append(i)
    chosen: list[int] = []
    queues = [list(v) for v in by_type.values()]
    while len(chosen) < min(limit, len(questions)):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return [questions[i] for i in sorted(chosen)]


def _turn_metrics(ranked: list[list[str]], relevant: set[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in (5, 10):
        top = turns_at(ranked, k)
        out[f"turn_any@{k}"] = 1.0 if top & relevant else 0.0
        out[f"turn_all@{k}"] = 1.0 if relevant <= top else 0.0
        out[f"turn_ndcg@{k}"] = dcg_ndcg(flat_turns(ranked[:k]), relevant, k)
    return out


def _session_metrics(ranked: list[list[str]], relevant: set[str]) -> dict[str, float]:
    """Sessions of the ranked memories in order of first appearance, cut at k sessions."""
    sessions = list(dict.fromkeys(t.split("\t")[0] for t in flat_turns(ranked)))
    out: dict[str, float] = {}
    for k in (5, 10):
        top = set(sessions[:k])
        out[f"session_any@{k}"] = 1.0 if top & relevant else 0.0
        out[f"session_all@{k}"] = 1.0 if relevant <= top else 0.0
    return out


def run_longmemeval(
    path: Path,
    *,
    methods: Sequence[str] = ("default", "text", "vector"),
    modes: Sequence[str] = (DEFAULT_MODE,),
    cache: Path,
    embedder: Embedder | None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Run every (non-abstention) question in each mode; a bad question is recorded, not fatal."""
    questions = [
        q for q in json.loads(path.read_text()) if not str(q["question_id"]).endswith("_abs")
    ]
    if limit is not None:
        questions = stratified(questions, limit)
    rows: dict[str, dict[str, list[dict[str, float]]]] = {
        mode: {m: [] for m in methods} for mode in modes
    }
    lat: dict[str, dict[str, list[float]]] = {mode: {m: [] for m in methods} for mode in modes}
    failures: list[dict[str, str]] = []
    missing: dict[str, dict[str, str]] = {mode: {} for mode in modes}
    index_stats: dict[str, dict[str, Any]] = {mode: {} for mode in modes}
    evidence: list[str] = []
    vectors = cached(embedder, cache)
    with progress() as bar, closing_or_null(vectors):
        task = bar.add_task("longmemeval", total=len(questions) * len(methods) * len(modes))
        for q in questions:
            qid = str(q.get("question_id", "?"))
            try:
                turns = bench_turns(q)
                turn_evidence = {
                    f"{sid}\t{i}"
                    for sid, session in zip(
                        q["haystack_session_ids"], q["haystack_sessions"], strict=True
                    )
                    for i, turn in enumerate(session)
                    if turn.get("role") == "user" and turn.get("has_answer")
                }
                session_evidence = {str(s) for s in q["answer_session_ids"]}
                question = str(q["question"])
                asked = parse_lme_date(str(q.get("question_date", "")))
                raw = json.dumps(q["haystack_sessions"], sort_keys=True).encode()
            except (KeyError, TypeError, ValueError) as exc:
                failures.append({"question_id": qid, "detail": f"{type(exc).__name__}: {exc}"})
                bar.advance(task, len(methods) * len(modes))
                continue
            evidence.extend(f"{qid}/{t}" for t in turn_evidence)
            for mode in modes:
                bar.update(task, description=f"indexing {qid} ({mode})")
                try:
                    built = build_index(
                        mode,
                        turns,
                        data_hash=hashlib.sha256(raw).hexdigest(),
                        cache=cache,
                        embedder=vectors,
                        prefix="lme",
                        search_at=asked or day_after(t.at for t in turns),
                    )
                except Exception as exc:  # one question never stops the run
                    failures.append({"question_id": qid, "mode": mode, "detail": repr(exc)[:300]})
                    bar.advance(task, len(methods))
                    continue
                merge_index_stats(index_stats[mode], built.stats())
                failures.extend({"question_id": qid, "mode": mode, **f} for f in built.failures[:5])
                missing[mode].update({f"{qid}/{r}": why for r, why in built.without_memory.items()})
                engine = built.engine
                try:
                    for method in methods:
                        t0 = time.perf_counter()
                        ids = safe_search(
                            engine,
                            question,
                            top_k=100,
                            config=PRESETS[method],
                            failures=failures,
                        )
                        lat[mode][method].append((time.perf_counter() - t0) * 1000)
                        ranked = ranked_turns(ids, built.provenance)
                        turns_ranked = flat_turns(ranked)
                        sessions = list(dict.fromkeys(t.split("\t")[0] for t in turns_ranked))
                        row = _session_metrics(ranked, session_evidence)
                        if turn_evidence:
                            row.update(_turn_metrics(ranked, turn_evidence))
                        row.update(
                            {
                                f"session_ndcg@{k}": dcg_ndcg(sessions, session_evidence, k)
                                for k in (5, 10)
                            }
                        )
                        rows[mode][method].append(row)
                        bar.advance(task)
                finally:
                    engine.close()
    results: dict[str, dict[str, Any]] = {}
    for mode in modes:
        results[mode] = {}
        for m in methods:
            keys = sorted({k for r in rows[mode][m] for k in r})
            agg: dict[str, Any] = {k: mean(r[k] for r in rows[mode][m] if k in r) for k in keys}
            agg["n_questions"] = len(rows[mode][m])
            agg["n_turn_questions"] = sum(1 for r in rows[mode][m] if "turn_any@5" in r)
            agg["p50_ms"] = percentile(lat[mode][m], 50)
            agg["p95_ms"] = percentile(lat[mode][m], 95)
            if mode == "capture":
                agg["evidence_without_memory"] = evidence_without_memory(evidence, missing[mode])
            results[mode][m] = agg
    main_mode = DEFAULT_MODE if DEFAULT_MODE in modes else modes[0]
    return {
        "benchmark": "longmemeval",
        "default_mode": main_mode,
        "default_method": methods[0],
        "note": NOTE,
        "mode_notes": {mode: MODE_NOTES[mode] for mode in modes},
        "embedder": embedder.model_id if embedder else None,
        "results": results[main_mode],
        "modes": results,
        "index": index_stats,
        "evidence_without_memory_by_mode": {
            mode: evidence_without_memory(evidence, missing[mode]) for mode in modes
        },
        "failures": failures,
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
    rows = {
        f"{mode} · {method}": metrics
        for mode, by_method in result["modes"].items()
        for method, metrics in by_method.items()
    }
    render_table("LongMemEval retrieval", rows, columns)
    for mode, gaps in result["evidence_without_memory_by_mode"].items():
        stderr.print(f"{mode}: evidence turns without a memory {gaps}")
    write_json(json_out, result)
    if plot:
        write_plot(
            json_out.with_suffix(".png"),
            "LongMemEval",
            rows,
            ["turn_any@5", "turn_all@10", "session_any@5", "session_all@10"],
        )
