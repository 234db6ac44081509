"""Consolidation worker runtime and outcomes on N memories (default 10,000).

Builds a synthetic orchestrator: ``users`` users, each with memories drawn
from templates that produce exact duplicates, near duplicates, numeric
rewrites (a user's fact that changed), related statements and unrelated
noise; writes them straight into the store (bypassing the gate: the data is
synthetic and the bench measures the worker, not capture), optionally embeds
them, then runs ``engine.consolidate()`` once and reports wall time and what
was merged, linked, contradicted and proposed. A second run shows the pair
fingerprints at work.

    python -m memvault.benchmarks.consolidation --memories 10000 --embedder none
    python -m memvault.benchmarks.consolidation --memories 10000 --embedder hashing

Writes ``bench/results/consolidation-<embedder>.json``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from memvault.engine import MemoryEngine, format_timestamp, new_id
from memvault.model import CapturedBy, MemoryNode, MemoryType, Source, SourceKind, SourceType
from memvault.write.commit import seed_corpus

PLACES = ["Lisbon", "Porto", "Oslo", "Kyoto", "Lima", "Quito", "Hanoi", "Tallinn", "Accra"]
DRINKS = ["oolong tea", "espresso", "green tea", "cold brew", "mate", "rooibos"]
HOBBIES = ["hiking", "sailing", "climbing", "chess", "pottery", "cycling", "baking"]
NOISE = [
    "prefers answers as bullet points",
    "reviews pull requests in the morning",
    "uses a standing desk",
    "keeps meeting notes in markdown",
    "wants weekly status summaries on Fridays",
    "works on the billing service",
    "is learning Rust",
    "avoids calls after 6 pm",
]


def _statements(user: str, rng: random.Random, n: int) -> list[str]:
    """``n`` statements for one user with planted duplicates, rewrites and relations."""
    out: list[str] = []
    while len(out) < n:
        kind = rng.random()
        name = user.capitalize()
        if kind < 0.12 and out:  # exact or near duplicate of an earlier statement
            earlier = rng.choice(out)
            out.append(earlier if rng.random() < 0.5 else earlier.rstrip(".") + ".")
            continue
        if kind < 0.22:  # a numeric rewrite: the same fact with a new number
            km = rng.randint(2, 20)
            out.append(f"{name} runs {km} km every morning")
            if len(out) < n:
                out.append(f"{name} runs {km + rng.randint(1, 5)} km every morning")
            continue
        if kind < 0.45:  # related statements (same topic, different object)
            out.append(f"{name} likes {rng.choice(HOBBIES)} in {rng.choice(PLACES)}")
            continue
        if kind < 0.6:
            out.append(f"{name} drinks {rng.choice(DRINKS)} in the afternoon")
            continue
        out.append(f"{name} {rng.choice(NOISE)} ({rng.randint(1, 10**6)})")
    return out[:n]


def build(engine: MemoryEngine, memories: int, users: int, seed: int) -> None:
    rng = random.Random(seed)
    per_user = max(1, memories // users)
    source = Source(
        source_type=SourceType.MANUAL,
        captured_by=CapturedBy.USER,
        source_kind=SourceKind.USER_EXPLICIT,
    )
    nodes: list[MemoryNode] = []
    now = format_timestamp(engine.clock())
    for u in range(users):
        user = f"user{u:04d}"
        for text in _statements(user, rng, per_user):
            nodes.append(
                MemoryNode(
                    memory_id=new_id("mem"),
                    orchestrator_id=engine.orchestrator,
                    type=MemoryType.PREFERENCE,
                    category="PREFERENCE",
                    content=text,
                    summary=text,
                    importance=rng.choice([30, 50, 70, 90]),
                    source=source,
                    user_id=user,
                    created_at=now,
                    updated_at=now,
                )
            )
    for start in range(0, len(nodes), 500):
        seed_corpus(engine.store, engine.orchestrator, now, nodes[start : start + 500])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--embedder", default="none", help="none (lexical), hashing, minilm")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    options: dict[str, Any] = {}
    if "embedder" in inspect.signature(MemoryEngine.__init__).parameters:
        options["embedder"] = None if args.embedder == "none" else args.embedder
    home = Path(tempfile.mkdtemp(prefix="memvault-consolidation-"))
    with MemoryEngine.open(home, "bench", **options) as engine:
        t0 = time.perf_counter()
        build(engine, args.memories, args.users, args.seed)
        load_s = time.perf_counter() - t0
        embed_s = 0.0
        if args.embedder != "none" and hasattr(engine, "backfill_embeddings"):
            t0 = time.perf_counter()
            engine.backfill_embeddings(limit=args.memories * 2)
            embed_s = time.perf_counter() - t0
        first = engine.consolidate().to_json()
        second = engine.consolidate().to_json()
        stats = engine.stats().to_json()
    result = {
        "memories": args.memories,
        "users": args.users,
        "embedder": args.embedder,
        "similarity_model": first["similarity_model"],
        "load_seconds": round(load_s, 2),
        "embed_seconds": round(embed_s, 2),
        "first_run": {
            "seconds": first["seconds"],
            **first["counts"],
            "truncated": first["truncated"],
        },
        "second_run": {
            "seconds": second["seconds"],
            **second["counts"],
            "truncated": second["truncated"],
        },
        "memories_after": stats["memories"],
        "examples": {
            "merged": first["merged"][:3],
            "linked": first["linked"][:3],
            "proposed": first["proposed"][:3],
        },
    }
    out = (
        Path(__file__).resolve().parents[3]
        / "bench"
        / "results"
        / f"consolidation-{args.embedder}.json"
    )
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}, indent=2))


if __name__ == "__main__":
    main()
