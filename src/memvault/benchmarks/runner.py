"""The loop both recall benchmarks run: build each index per mode, ask its questions, sum up.

LoCoMo (a conversation per index) and LongMemEval (a question's haystack per
index) differ in how they read their files and score a ranking; everything
between — building or reusing each index in every mode of
:mod:`memvault.benchmarks.modes`, timing every search of every method,
recording what failed and which evidence turns got no memory, and the JSON
and table every mode shares — is here, once.

No unit stops the run: an index that cannot be built, a search that fails and
an item that cannot be read are recorded in ``failures`` and the run goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import (
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
    evidence_without_memory,
    merge_index_stats,
    ranked_turns,
    safe_search,
)
from memvault.embed.base import Embedder
from memvault.retrieval.config import RetrievalConfig

__all__ = ["Query", "Skipped", "Unit", "aggregate", "report", "run_units"]

Ranked = list[list[str]]


@dataclass(frozen=True)
class Query:
    """One question: its text, how a ranking of turns scores, its group (a category)."""

    text: str
    score: Callable[[Ranked], dict[str, float]]
    group: str | None = None


@dataclass(frozen=True)
class Unit:
    """What one index holds and is asked: a conversation, or a question's haystack.

    ``name`` prefixes its evidence refs in the run's counts (refs of two units
    may repeat); ``label`` names it in a failure (``{"conversation": …}``).
    """

    name: str
    label: dict[str, str]
    turns: Sequence[BenchTurn]
    data_hash: str
    search_at: datetime
    evidence: Sequence[str]
    queries: Sequence[Query]


@dataclass(frozen=True)
class Skipped:
    """An item that could not be read (recorded) and how many questions it had."""

    failure: dict[str, str]
    queries: int = 1


@dataclass
class Collected:
    """Every score row, latency, count and failure of a run, by mode and method."""

    rows: dict[str, dict[str, list[dict[str, float]]]]
    groups: dict[str, dict[str, dict[str, list[dict[str, float]]]]]
    latency: dict[str, dict[str, list[float]]]
    index: dict[str, dict[str, Any]]
    missing: dict[str, dict[str, str]]
    evidence: list[str] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)


def run_units(
    units: Iterable[Unit | Skipped],
    *,
    benchmark: str,
    total: int,
    methods: Sequence[str],
    modes: Sequence[str],
    configs: dict[str, RetrievalConfig],
    cache: Path,
    embedder: Embedder | None,
    top_k: int,
    failures_kept: int,
) -> Collected:
    """Build each unit's index in each mode and run every method's search of every question.

    ``total``: how many questions the units hold (the progress bar);
    ``failures_kept``: how many of one index's write failures are reported.
    """
    got = Collected(
        rows={mode: {m: [] for m in methods} for mode in modes},
        groups={mode: {m: {} for m in methods} for mode in modes},
        latency={mode: {m: [] for m in methods} for mode in modes},
        index={mode: {} for mode in modes},
        missing={mode: {} for mode in modes},
    )
    vectors = cached(embedder, cache)
    per_question = len(methods) * len(modes)
    with progress() as bar, closing_or_null(vectors):
        task = bar.add_task(benchmark, total=total * per_question)
        for unit in units:
            if isinstance(unit, Skipped):
                got.failures.append(unit.failure)
                bar.advance(task, unit.queries * per_question)
                continue
            got.evidence.extend(f"{unit.name}/{e}" for e in unit.evidence)
            for mode in modes:
                bar.update(task, description=f"indexing {unit.name} ({mode})")
                try:
                    built = build_index(
                        mode,
                        unit.turns,
                        data_hash=unit.data_hash,
                        cache=cache,
                        embedder=vectors,
                        prefix=benchmark,
                        search_at=unit.search_at,
                    )
                except Exception as exc:  # one unit never stops the run
                    got.failures.append({**unit.label, "mode": mode, "detail": repr(exc)[:300]})
                    bar.advance(task, len(unit.queries) * len(methods))
                    continue
                merge_index_stats(got.index[mode], built.stats())
                got.failures.extend(
                    {**unit.label, "mode": mode, **f} for f in built.failures[:failures_kept]
                )
                got.missing[mode].update(
                    {f"{unit.name}/{ref}": why for ref, why in built.without_memory.items()}
                )
                try:
                    for method in methods:
                        bar.update(task, description=f"{unit.name} · {mode} · {method}")
                        for q in unit.queries:
                            t0 = time.perf_counter()
                            ids = safe_search(
                                built.engine,
                                q.text,
                                top_k=top_k,
                                config=configs[method],
                                failures=got.failures,
                            )
                            got.latency[mode][method].append((time.perf_counter() - t0) * 1000)
                            row = q.score(ranked_turns(ids, built.provenance))
                            got.rows[mode][method].append(row)
                            if q.group is not None:
                                got.groups[mode][method].setdefault(q.group, []).append(row)
                            bar.advance(task)
                finally:
                    built.engine.close()
    return got


def aggregate(rows: Sequence[dict[str, float]], latencies: Sequence[float]) -> dict[str, Any]:
    """Each metric's mean over the rows that have it, the count and the latency percentiles.

    >>> aggregate([{"a": 1.0}, {"a": 0.0, "b": 1.0}], [2.0, 4.0])["a"]
    0.5
    """
    keys = sorted({k for r in rows for k in r})
    out: dict[str, Any] = {k: mean(r[k] for r in rows if k in r) for k in keys}
    out["n_questions"] = len(rows)
    out["p50_ms"] = percentile(latencies, 50)
    out["p95_ms"] = percentile(latencies, 95)
    return out


def summary(
    got: Collected,
    *,
    benchmark: str,
    note: str,
    methods: Sequence[str],
    modes: Sequence[str],
    embedder: Embedder | None,
) -> dict[str, Any]:
    """The JSON every recall benchmark writes (the issue's keys: ``default_method``,
    ``results[method]`` of the default mode, ``modes[mode][method]``, and
    ``evidence_without_memory`` in ``capture`` mode)."""
    results: dict[str, dict[str, Any]] = {}
    gaps = {mode: evidence_without_memory(got.evidence, got.missing[mode]) for mode in modes}
    for mode in modes:
        results[mode] = {}
        for m in methods:
            agg = aggregate(got.rows[mode][m], got.latency[mode][m])
            if mode == "capture":
                agg["evidence_without_memory"] = gaps[mode]
            results[mode][m] = agg
    main_mode = DEFAULT_MODE if DEFAULT_MODE in modes else modes[0]
    return {
        "benchmark": benchmark,
        "default_mode": main_mode,
        "default_method": methods[0],
        "note": note,
        "mode_notes": {mode: MODE_NOTES[mode] for mode in modes},
        "embedder": embedder.model_id if embedder else None,
        "results": results[main_mode],
        "modes": results,
        "index": got.index,
        "evidence_without_memory_by_mode": gaps,
        "failures": got.failures,
    }


def report(
    result: dict[str, Any],
    json_out: Path,
    *,
    title: str,
    columns: Sequence[str],
    plot_keys: Sequence[str],
    plot: bool = True,
) -> None:
    """Print the table (a row per mode · method), the evidence gaps, write JSON and a plot."""
    rows = {
        f"{mode} · {method}": metrics
        for mode, by_method in result["modes"].items()
        for method, metrics in by_method.items()
    }
    render_table(title, rows, list(columns))
    for mode, gaps in result["evidence_without_memory_by_mode"].items():
        stderr.print(f"{mode}: evidence turns without a memory {gaps}")
    write_json(json_out, result)
    if plot:
        write_plot(json_out.with_suffix(".png"), title, rows, list(plot_keys))
