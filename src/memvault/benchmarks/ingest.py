"""The ingest benchmark's workload: a generated folder of mixed files.

:func:`generate_folder` writes ``files`` files (about 40 % ``.md``, 35 %
``.txt``, 25 % ``.json``; 1 % exact duplicates and 1 % broken JSON) made of
plain project-knowledge sentences, deterministic for a seed.
:func:`bench_result` turns a pass report into the figures the bench prints.

>>> import tempfile, pathlib
>>> counts = generate_folder(pathlib.Path(tempfile.mkdtemp()), 20, seed=1)
>>> sum(counts.values())
20
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from memvault.ingest.pipeline import IngestReport
from memvault.policy.parallel import worker_cpu_seconds

__all__ = ["bench_result", "gate_worker_cpu_seconds", "generate_folder"]

_SUBJECTS = [
    "The build",
    "The staging cluster",
    "Our release train",
    "The billing service",
    "The search index",
    "The mobile client",
    "The data pipeline",
    "The API gateway",
    "The design system",
    "The on-call rotation",
]
_VERBS = [
    "runs",
    "depends on",
    "is documented in",
    "is owned by",
    "was migrated to",
    "is tested with",
    "publishes to",
    "reads from",
]
_OBJECTS = [
    "the shared runbook",
    "a nightly job",
    "the platform team",
    "the blue/green deploy",
    "the event bus",
    "the feature flag service",
    "the integration suite",
    "the metrics dashboard",
    "the object store",
    "the schema registry",
]
_TAILS = ["", " every weekday", " after each merge", " since the last quarter", " by default"]


def _sentence(rng: random.Random) -> str:
    return (
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}{rng.choice(_TAILS)}."
    )


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))


def _markdown(rng: random.Random, n: int) -> str:
    parts = [f"---\ntitle: Notes {n}\n---\n", f"# Notes {n}\n"]
    for s in range(rng.randint(2, 4)):
        parts.append(f"## Topic {s}\n\n{_paragraph(rng)}\n")
        if rng.random() < 0.5:
            parts.append("\n".join(f"- {_sentence(rng)}" for _ in range(3)) + "\n")
    return "\n".join(parts)


def _text(rng: random.Random) -> str:
    return "\n\n".join(_paragraph(rng) for _ in range(rng.randint(2, 5))) + "\n"


def _json(rng: random.Random, n: int) -> str:
    kinds = [("Decision", "DECISION"), ("Procedure", "PROCEDURE"), ("Fact", "KNOWLEDGE")]
    memories = []
    for i in range(rng.randint(2, 4)):
        memory_type, category = rng.choice(kinds)
        memories.append(
            {
                "ref": f"m{i}",
                "content": _sentence(rng),
                "type": memory_type,
                "category": category,
                "key": f"bench-{n}-{i}",
                "importance": rng.randint(30, 80),
            }
        )
    edges = [{"from": "m1", "to": "m0", "type": "RelatedTo", "weight": 0.5}]
    return json.dumps({"memories": memories, "edges": edges, "text": _paragraph(rng)})


def generate_folder(folder: Path, files: int, *, seed: int = 7) -> dict[str, int]:
    """Write the workload into ``folder``; return how many files of each kind."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    counts = {"md": 0, "txt": 0, "json": 0, "duplicate": 0, "broken": 0}
    previous: tuple[str, str] | None = None
    for n in range(files):
        roll = rng.random()
        if previous is not None and roll < 0.01:
            suffix, body = previous
            counts["duplicate"] += 1
        elif roll < 0.02:
            suffix, body = ".json", '{"memories": [ {"content": "unterminated"'
            counts["broken"] += 1
        elif roll < 0.42:
            suffix, body = ".md", _markdown(rng, n)
            counts["md"] += 1
        elif roll < 0.77:
            suffix, body = ".txt", _text(rng)
            counts["txt"] += 1
        else:
            suffix, body = ".json", _json(rng, n)
            counts["json"] += 1
        (folder / f"doc-{n:05d}{suffix}").write_text(body, encoding="utf-8")
        previous = (suffix, body)
    return counts


def gate_worker_cpu_seconds() -> float:
    """CPU seconds of the gate's second process so far (added to a pass's own CPU time).

    >>> gate_worker_cpu_seconds() >= 0.0
    True
    """
    return worker_cpu_seconds()


def bench_result(
    report: IngestReport,
    files: int,
    counts: dict[str, int],
    *,
    embedder: str | None,
    embed_threads: int,
    cpu_seconds: float,
    load: tuple[float, float],
    unembedded: int,
) -> dict[str, Any]:
    """The figures ``memvault bench ingest`` prints and writes.

    ``timings_s`` splits the pass by stage (seconds summed over files; ``embed``
    is worker-thread time and overlaps the others); ``load`` is the 1-minute
    load average before and after the pass (on a shared box, figures taken at a
    high load are pessimistic).

    >>> from memvault.ingest.report import IngestReport
    >>> r = bench_result(IngestReport((), 2.0, {"gate": 1.0}), 10, {}, embedder="m",
    ...                  embed_threads=2, cpu_seconds=3.0, load=(0.5, 0.7), unembedded=0)
    >>> r["embedder"], r["timings_s"], r["files_per_s"]
    ('m', {'gate': 1.0}, 5.0)
    """
    seconds = max(report.seconds, 1e-9)
    return {
        "files": files,
        "processed": len(report.processed),
        "rejected": len(report.rejected),
        "duplicates": len(report.duplicates),
        "memories": report.memories,
        "merged": report.merged,
        "embedder": embedder,
        "embed_threads": embed_threads,
        "memories_without_vector": unembedded,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "files_per_s": round(files / seconds, 1),
        "memories_per_s": round(report.memories / seconds, 1),
        "timings_s": dict(report.timings),
        "load_average_1m": {"before": round(load[0], 2), "after": round(load[1], 2)},
        "cpus": os.cpu_count(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "target_memories_per_s": 100,
        "meets_target": report.memories / seconds >= 100,
        "workload": counts,
    }
