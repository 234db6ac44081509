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
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import dcg_ndcg
from memvault.benchmarks.modes import DEFAULT_MODE, BenchTurn, day_after, flat_turns, turns_at
from memvault.benchmarks.runner import Query, Skipped, Unit, run_units, summary
from memvault.benchmarks.runner import report as runner_report
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
        said = [t if isinstance(t, dict) else {} for t in session]  # a malformed turn says nothing
        for i, turn in enumerate(said):
            text = str(turn.get("content") or "")
            if turn.get("role") != "user" or not text.strip():
                continue
            around = [
                str(said[j].get("content") or "")[:300]
                for j in (i - 1, i + 1)
                if 0 <= j < len(said)
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
        kind = q.get("question_type", "") if isinstance(q, dict) else ""
        by_type.setdefault(str(kind), []).append(i)
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


def _unit(q: dict[str, Any]) -> Unit | Skipped:
    """One question as the runner's unit, or what made it unreadable."""
    qid = str(q.get("question_id", "?")) if isinstance(q, dict) else "?"
    try:
        turns = bench_turns(q)
        turn_evidence = {
            f"{sid}\t{i}"
            for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True)
            for i, turn in enumerate(session)
            if isinstance(turn, dict) and turn.get("role") == "user" and turn.get("has_answer")
        }
        session_evidence = {str(s) for s in q["answer_session_ids"]}
        asked = parse_lme_date(str(q.get("question_date", "")))
        raw = json.dumps(q["haystack_sessions"], sort_keys=True).encode()
        question = str(q["question"])
    except Exception as exc:  # one bad question never stops the run
        return Skipped({"question_id": qid, "detail": f"{type(exc).__name__}: {exc}"[:300]})

    def score(ranked: list[list[str]]) -> dict[str, float]:
        sessions = list(dict.fromkeys(t.split("\t")[0] for t in flat_turns(ranked)))
        row = _session_metrics(ranked, session_evidence)
        if turn_evidence:
            row.update(_turn_metrics(ranked, turn_evidence))
        row.update({f"session_ndcg@{k}": dcg_ndcg(sessions, session_evidence, k) for k in (5, 10)})
        return row

    return Unit(
        name=qid,
        label={"question_id": qid},
        turns=turns,
        data_hash=hashlib.sha256(raw).hexdigest(),
        search_at=asked or day_after(t.at for t in turns),
        evidence=sorted(turn_evidence),
        queries=[Query(question, score)],
    )


def load_questions(path: Path, limit: int | None = None) -> list[Any]:
    """The file's questions without abstention ones (``_abs``), ``limit`` of them stratified.

    An item that is not a question object is kept (the run records it as a failure).
    """
    data = json.loads(path.read_text())
    if not isinstance(data, list):
        raise ValueError(f"{path} is not a JSON list of LongMemEval questions")
    questions = [
        q
        for q in data
        if not (isinstance(q, dict) and str(q.get("question_id", "")).endswith("_abs"))
    ]
    return stratified(questions, limit) if limit is not None else questions


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
    questions = load_questions(path, limit)
    got = run_units(
        (_unit(q) for q in questions),
        benchmark="lme",
        total=len(questions),
        methods=methods,
        modes=modes,
        configs=PRESETS,
        cache=cache,
        embedder=embedder,
        top_k=100,
        failures_kept=5,
    )
    out = summary(
        got, benchmark="longmemeval", note=NOTE, methods=methods, modes=modes, embedder=embedder
    )
    for mode in modes:
        for m in methods:
            out["modes"][mode][m]["n_turn_questions"] = sum(
                1 for r in got.rows[mode][m] if "turn_any@5" in r
            )
    return out


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    """Print the table, write JSON and (if matplotlib is present) a PNG plot."""
    runner_report(
        result,
        json_out,
        title="LongMemEval retrieval",
        columns=[
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
        ],
        plot_keys=["turn_any@5", "turn_all@10", "session_any@5", "session_all@10"],
        plot=plot,
    )
