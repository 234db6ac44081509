"""Shared helpers for benchmarks: metrics, timing summaries, output, plots."""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from memvault.extract.base import Message

__all__ = [
    "dcg_ndcg",
    "percentile",
    "progress",
    "recall_at",
    "render_table",
    "timed_ms",
    "turn_message",
    "write_json",
    "write_plot",
]

stderr = Console(stderr=True)


def turn_message(turn: Mapping[str, Any]) -> Message:
    """A turn of the extraction sets' JSONL (``text``, ``user``, ``speaker``, ``at``) as
    the message capture reads.

    >>> turn_message({"text": "hi", "user": "u1", "speaker": "Ana",
    ...               "at": "2026-01-02T10:00:00Z"}).at.isoformat()
    '2026-01-02T10:00:00+00:00'
    """
    return Message(
        text=turn["text"],
        user_id=turn["user"],
        speaker=turn["speaker"],
        at=datetime.fromisoformat(turn["at"].replace("Z", "+00:00")),
    )


def timed_ms(fn: Callable[[], object], repeats: int) -> list[float]:
    """Wall time of ``repeats`` calls of ``fn``, one figure a call, in milliseconds.

    >>> len(timed_ms(lambda: None, 3))
    3
    """
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; 0.0 for no values.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def recall_at(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """|relevant ∩ top-k| / |relevant|.

    >>> recall_at(["a", "b", "c"], {"a", "c", "d"}, 2)
    0.3333333333333333
    """
    if not relevant:
        return 0.0
    return len(set(retrieved[:k]) & relevant) / len(relevant)


def dcg_ndcg(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """Binary-relevance nDCG@k.

    >>> round(dcg_ndcg(["x", "a"], {"a"}, 5), 4)
    0.6309
    """
    dcg = sum(1 / math.log2(i + 2) for i, r in enumerate(retrieved[:k]) if r in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal else 0.0


def mean(values: Iterable[float]) -> float:
    items = list(values)
    return statistics.fmean(items) if items else 0.0


def progress() -> Progress:
    """A progress bar on stderr (stdout stays clean for tables/JSON)."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=not sys.stderr.isatty(),
    )


def render_table(title: str, rows: dict[str, dict[str, Any]], columns: Sequence[str]) -> None:
    table = Table(title=title)
    table.add_column("method")
    for c in columns:
        table.add_column(c, justify="right")
    for name, metrics in rows.items():
        cells = []
        for c in columns:
            v = metrics.get(c)
            cells.append(f"{v:.3f}" if isinstance(v, float) else str(v))
        table.add_row(name, *cells)
    Console().print(table)


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def write_plot(
    path: Path, title: str, series: dict[str, dict[str, float]], xs: Sequence[str]
) -> bool:
    """A line plot of metric series; returns False when matplotlib is absent."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        stderr.print("[dim]matplotlib not installed: no plot written[/]")
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, values in series.items():
        ax.plot(list(xs), [values.get(x, 0.0) for x in xs], marker="o", label=name)
    ax.set_title(title)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
