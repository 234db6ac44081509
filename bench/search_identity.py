"""Every search result of this tree against another revision's: proof a speed change is one.

Trigger: a change made for speed in the search path (``memvault.retrieval``, the store's
  search legs, ranking fields, hydration).
Why: a faster search that returns other memories, or the same ones with other scores, is a
  behaviour change (issue 22 allows none); the unit tests hold a few dozen memories.
Outcome: two stores are built once (by this tree, in ``--store``, outside the repository):

  * ``peers``: the first ``--n`` texts and vectors of ``memvault bench peers`` (the same
    corpus, seed and synthetic vectors), written through ``add_many`` with the gate on;
    its queries are the bench's ``--queries`` questions with their vectors;
  * ``locomo``: ``--conversations`` LoCoMo conversations, each turn stored as
    ``"speaker: text"`` through the public ``add_many`` (conversation links and time as the
    bench writes them); every question of each is searched.

  Then each tree, in a process of its own with its own sources first on ``sys.path`` and a
  copy of the stores, runs every query through ``MemoryEngine.search`` (top 10, the query's
  vector given, one fixed clock) under the presets ``default``, ``spec``, ``rrf``, ``text``
  and ``vector``, with ``explain`` on; it records each hit's id and score (rounded to 1e-9),
  the explanation and the edges returned. The script prints how many result lists were
  compared and how many differ, the LoCoMo evidence recall@10 of both trees, and exits 1 on
  any difference.

    PYTHONPATH=src python bench/search_identity.py --base main [--n 100000]

LoCoMo questions are evaluation data: they are searched, never printed or stored (the dumps
hold ids and scores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _revision import ROOT, base_sources, start

PRESETS = ("default", "spec", "rrf", "text", "vector")
NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
TOP_K = 10


def _embedder() -> Any:
    from memvault.engine.tools import make_embedder

    return make_embedder()


def build(store: Path, n: int, queries: int, conversations: int) -> None:
    """Write both stores and the queries (with their vectors) into ``store``."""
    import numpy as np

    from memvault.benchmarks.locomo import bench_turns, load_conversation
    from memvault.benchmarks.modes import BuiltIndex, _Clock, _write_add, day_after
    from memvault.benchmarks.peer_systems import MemvaultPeer, PrecomputedEmbedder
    from memvault.benchmarks.perf import _synthetic
    from memvault.benchmarks.perf_corpus import find_data_dir, load_corpus
    from memvault.engine import MemoryEngine

    data = find_data_dir(ROOT / "../shared/data")
    if data is None:
        raise SystemExit("no ../shared/data (LoCoMo) found")
    embedder = _embedder()
    # the peers bench's texts, queries and vectors (peers.run_peers, real_vectors 4096)
    rng = random.Random(42)
    corpus = load_corpus(data)
    texts = list(dict.fromkeys(corpus.sentence(rng) for _ in range(n + n // 10)))[:n]
    while len(texts) < n:
        texts.append(f"{corpus.sentence(rng)} ({len(texts)})")
    qs = corpus.queries(queries, rng)
    base = embedder.embed_documents(texts[:4096])
    vectors = np.concatenate(
        [base, _synthetic(base, n - len(base), np.random.default_rng(7))]
    ).astype(np.float32)
    qvectors = embedder.embed_documents(qs)
    lookup = PrecomputedEmbedder(embedder)
    lookup.learn(texts, vectors)
    lookup.learn(qs, qvectors)
    store.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    peer = MemvaultPeer(store / "peers", lookup)
    try:
        stored = 0
        for start in range(0, n, 1000):
            ids = [f"r{i}" for i in range(start, min(start + 1000, n))]
            stored += peer.add(ids, texts[start : start + 1000], vectors[start : start + 1000])
        peer.search(qs[0], qvectors[0], TOP_K)
        peer.settle()
    finally:
        peer.close()
    print(f"peers store: {stored} of {n} stored in {time.perf_counter() - t0:.0f} s", flush=True)
    searches: dict[str, Any] = {
        "peers": [(q, v.tolist(), (), NOW) for q, v in zip(qs, qvectors, strict=True)]
    }
    names = sorted((data / "locomo").glob("*.json"))[:conversations]
    for path in names:
        conv = load_conversation(path)
        turns = bench_turns(conv)
        clock = _Clock()
        engine = MemoryEngine.open(
            store / f"locomo-{conv.name}", "bench", embedder=lookup, clock=clock
        )
        try:
            index = BuiltIndex(engine, {})
            _write_add(engine, clock, turns, index)  # the LoCoMo bench's ``add`` mode
        finally:
            engine.close()
        (store / f"locomo-{conv.name}" / "keys.json").write_text(json.dumps(index.provenance))
        questions = list(conv.questions)
        qv = embedder.embed_documents([q.question for q in questions])
        at = day_after(t.at for t in turns)
        searches[f"locomo-{conv.name}"] = [
            (q.question, v.tolist(), tuple(q.evidence), at)
            for q, v in zip(questions, qv, strict=True)
        ]
        print(f"locomo {conv.name}: {len(turns)} turns, {len(questions)} questions", flush=True)
    with (store / "searches.pkl").open("wb") as fh:
        pickle.dump(searches, fh)


def dump(store: Path, out: Path) -> None:
    """This process's tree runs every search on a copy of ``store``; results go to ``out``."""
    import numpy as np

    import memvault
    from memvault.benchmarks.peer_systems import PrecomputedEmbedder
    from memvault.engine import MemoryEngine

    print(f"searching with {memvault.__file__}", file=sys.stderr)
    with (store / "searches.pkl").open("rb") as fh:
        searches = pickle.load(fh)
    lookup = PrecomputedEmbedder(_embedder())
    result: dict[str, Any] = {}
    cpu: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="search-identity-copy-") as tmp:
        for name, items in searches.items():
            home = Path(tmp) / name
            shutil.copytree(store / name, home)
            lookup.learn([q for q, *_ in items], np.array([v for _, v, *_ in items]))
            engine = MemoryEngine.open(home, "bench", embedder=lookup)
            now = items[0][3]
            engine.core.clock = lambda now=now: now  # recency, time windows: one instant
            query, vector, *_ = items[0]
            engine.search(query, query_vector=np.asarray(vector, dtype=np.float32))
            # the first search starts the text index's build: every timed search uses it
            getattr(engine.store, "wait_for_indexes", lambda: 0)()
            rows: list[Any] = []
            c0 = time.process_time()
            for preset in PRESETS:
                for query, vector, *_ in items:
                    found = engine.search(
                        query,
                        top_k=TOP_K,
                        config=preset,
                        explain=True,
                        query_vector=np.asarray(vector, dtype=np.float32),
                    )
                    rows.append(
                        (
                            preset,
                            [(h.node.memory_id, round(h.score, 9)) for h in found.hits],
                            _digest([_rounded(h.explain) for h in found.hits]),
                            _digest(sorted(e.edge_id for e in found.edges)),
                            found.legs,
                        )
                    )
            cpu[name] = time.process_time() - c0
            engine.close()
            result[name] = rows
    with out.open("wb") as fh:
        pickle.dump({"results": result, "cpu": cpu}, fh)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def _digest(obj: Any) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()[:20]


def _recall(store: Path, name: str, rows: list[Any], items: list[Any]) -> tuple[float, int]:
    keys = json.loads((store / name / "keys.json").read_text())
    recalls = []
    defaults = [r for r in rows if r[0] == "default"]
    for (_, hits, *_), (_, _, evidence, _) in zip(defaults, items, strict=True):
        if not evidence:
            continue
        got = {ref for m, _ in hits for ref in keys.get(m, ())}
        recalls.append(len(got & set(evidence)) / len(set(evidence)))
    return sum(recalls), len(recalls)


def _start(src: Path, store: Path, out: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump", str(out)]
    return start(src, [*cmd, "--store", str(store)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--base", default="main", help="the revision compared against (git rev)")
    ap.add_argument("--n", type=int, default=100_000, help="peers memories in the scale store")
    ap.add_argument("--queries", type=int, default=200, help="peers queries")
    ap.add_argument("--conversations", type=int, default=10, help="LoCoMo conversations")
    ap.add_argument(
        "--store",
        type=Path,
        default=Path(tempfile.gettempdir()) / "search-identity-store",
        help="where the stores are built once and reused (outside the repository)",
    )
    ap.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump is not None:
        dump(args.store, args.dump)
        return 0
    if not (args.store / "searches.pkl").exists():
        build(args.store, args.n, args.queries, args.conversations)
    with tempfile.TemporaryDirectory(prefix="search-identity-") as tmp:
        base_src, rev = base_sources(args.base, Path(tmp))
        before, after = Path(tmp) / "before.pkl", Path(tmp) / "after.pkl"
        for src, out in ((base_src, before), (ROOT / "src", after)):
            if _start(src, args.store, out).wait():  # one at a time: CPU figures comparable
                raise SystemExit("a tree failed to search")
        with before.open("rb") as fh:
            old = pickle.load(fh)
        with after.open("rb") as fh:
            new = pickle.load(fh)
    with (args.store / "searches.pkl").open("rb") as fh:
        searches = pickle.load(fh)
    print(f"base {args.base} ({rev}) against the working tree {ROOT}; store {args.store}")
    total = differ = 0
    recall = {"base": [0.0, 0], "tree": [0.0, 0]}
    for name in sorted(old["results"]):
        a, b = old["results"][name], new["results"].get(name, [])
        parts = ("ids+scores", "explain", "edges", "legs")
        diffs = {
            part: sum(x[i + 1] != y[i + 1] for x, y in zip(a, b, strict=False))
            + abs(len(a) - len(b))
            for i, part in enumerate(parts)
        }
        total += len(a)
        differ += sum(diffs.values())
        shown = ", ".join(f"{part} {d}" for part, d in diffs.items())
        cpu = f"CPU s {old['cpu'][name]:.2f} → {new['cpu'][name]:.2f}"
        print(f"{name:20s} {len(a):5d} result lists; differences: {shown}; {cpu}")
        if name.startswith("locomo-"):
            for who, rows in (("base", a), ("tree", b)):
                s, k = _recall(args.store, name, rows, searches[name])
                recall[who][0] += s
                recall[who][1] += k
    print(f"total {total} result lists from both trees; {differ} differences")
    for who, (s, k) in recall.items():
        if k:
            print(f"LoCoMo evidence recall@10 ({who}, default preset, {k} questions): {s / k:.4f}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
