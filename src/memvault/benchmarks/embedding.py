"""``memvault bench embed``: the default embedder's document pass, numpy beside onnxruntime.

Three figures per document backend, each with the 1-minute load average:

* ``embed``: ``embed_documents`` time per text at batch sizes 1, 8, 32 over
  the user turns of ``bench/data/extraction.jsonl`` (consecutive turns, cycled);
* ``capture``: ``capture_message`` latency p50 / p95 (and process CPU p50)
  over those turns, each turn once, on a fresh SQLite home (the engine's gate
  and write path as shipped, the embedder injected);
* ``ingest``: memories/s (and per CPU second: on a shared box wall time is
  mostly waiting for a core) of one ingest pass over a generated folder
  (:func:`memvault.benchmarks.ingest.generate_folder`).

Plus ``agreement``: the smallest cosine between the two backends' vectors of
the same texts (the onnxruntime pass must give the numpy pass's vectors).
The model is loaded and each backend warmed up before anything is timed.

>>> summarise([3.0, 1.0, 2.0], texts=2)
{'ms_per_text_p50': 1.0, 'ms_per_call_p50': 2.0, 'calls': 3}
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memvault.benchmarks.common import percentile, turn_message

__all__ = ["DEFAULT_TURNS", "load_turns", "run_embed_bench", "summarise"]

DEFAULT_TURNS = Path("bench/data/extraction.jsonl")


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def load_turns(path: Path) -> list[dict[str, Any]]:
    """The JSONL turns (``text``, ``user``, ``speaker``, ``at``) of an extraction set."""
    turns = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                turns.append(json.loads(line))
    if not turns:
        raise ValueError(f"{path} holds no turns")
    return turns


def summarise(call_ms: Sequence[float], *, texts: int) -> dict[str, Any]:
    """p50 of per-call times, and of the per-text share at ``texts`` texts a call."""
    return {
        "ms_per_text_p50": round(percentile([ms / texts for ms in call_ms], 50), 3),
        "ms_per_call_p50": round(percentile(call_ms, 50), 3),
        "calls": len(call_ms),
    }


def _embedder(backend: str) -> Any:
    from memvault.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(document_backend=backend, query_cache=0)
    embedder.embed_documents(["warm up: load the model and build the session"])
    return embedder


def _time_embedding(
    embed: Callable[[list[str]], Any], texts: list[str], batch: int, calls: int
) -> dict[str, Any]:
    timings, cpu = [], []
    load_before = _load()
    for call in range(calls):
        start = call * batch
        chunk = [texts[(start + i) % len(texts)] for i in range(batch)]
        began, began_cpu = time.perf_counter(), time.process_time()
        embed(chunk)
        timings.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000 / batch)
    return {
        **summarise(timings, texts=batch),
        "cpu_ms_per_text_p50": round(percentile(cpu, 50), 3),
        "load": [load_before, _load()],
    }


def _time_capture(embedder: Any, turns: list[dict[str, Any]]) -> dict[str, Any]:
    from memvault.engine import MemoryEngine

    latencies, cpu = [], []
    load_before = _load()
    with (
        tempfile.TemporaryDirectory(prefix="memvault-bench-embed-") as home,
        MemoryEngine.open(home, "bench", embedder=embedder) as engine,
    ):
        for turn in turns:
            message = turn_message(turn)
            began, began_cpu = time.perf_counter(), time.process_time()
            engine.capture_message(message)
            latencies.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
    return {
        "turns": len(latencies),
        "p50_ms": round(percentile(latencies, 50), 2),
        "p95_ms": round(percentile(latencies, 95), 2),
        "cpu_p50_ms": round(percentile(cpu, 50), 2),
        "load": [load_before, _load()],
    }


def _time_ingest(embedder: Any, files: int, threads: int) -> dict[str, Any]:
    from memvault.benchmarks.ingest import generate_folder
    from memvault.engine import MemoryEngine

    home = Path(tempfile.mkdtemp(prefix="memvault-bench-embed-ingest-"))
    try:
        with MemoryEngine.open(home, "bench", embedder=embedder) as engine:
            assert engine.layout is not None
            generate_folder(engine.layout.ingest_dir, files, seed=7)
            load_before, cpu = _load(), time.process_time()
            report = engine.ingest_pending(settle_seconds=0, embed_threads=threads)
            cpu = time.process_time() - cpu
            seconds = max(report.seconds, 1e-9)
            return {
                "files": files,
                "memories": report.memories,
                "seconds": round(seconds, 2),
                "memories_per_s": round(report.memories / seconds, 1),
                "cpu_seconds": round(cpu, 2),
                "memories_per_cpu_s": round(report.memories / max(cpu, 1e-9), 1),
                "embed_s": round(report.timings.get("embed", 0.0), 2),
                "load": [load_before, _load()],
            }
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_embed_bench(
    *,
    turns_path: Path = DEFAULT_TURNS,
    backends: Sequence[str] = ("numpy", "onnx"),
    batches: Sequence[int] = (1, 8, 32),
    calls: int = 20,
    capture_turns: int = 60,
    ingest_files: int = 200,
    ingest_threads: int = 2,
) -> dict[str, Any]:
    """Every figure of the bench for each backend (``onnx`` is skipped, and said so, when
    onnxruntime is not installed); ``capture_turns`` / ``ingest_files`` 0 skip those legs."""
    from memvault.embed.fast_query import onnx_available

    turns = load_turns(turns_path)
    texts = [str(turn["text"]) for turn in turns]
    result: dict[str, Any] = {
        "turns_file": str(turns_path),
        "cpu_count": os.cpu_count(),
        "embed": {},
        "capture": {},
        "ingest": {},
        "skipped": {},
        "load_average": _load(),
    }
    vectors: dict[str, Any] = {}
    for name in backends:
        if name == "onnx" and not onnx_available():
            result["skipped"][name] = "onnxruntime/onnx not installed"
            continue
        embedder = _embedder(name)
        result["embed"][name] = {
            str(batch): _time_embedding(embedder.embed_documents, texts, batch, calls)
            for batch in batches
        }
        vectors[name] = embedder.embed_documents(texts)
        if capture_turns:
            result["capture"][name] = _time_capture(embedder, turns[:capture_turns])
        if ingest_files:
            result["ingest"][name] = _time_ingest(embedder, ingest_files, ingest_threads)
    if len(vectors) == 2:
        a, b = vectors.values()
        result["agreement"] = {
            "texts": len(texts),
            "min_cosine": round(float(np.einsum("ij,ij->i", a, b).min()), 8),
            "max_abs_diff": float(np.abs(a - b).max()),
        }
    result["load_average_after"] = _load()
    return result
