"""The perf benchmark: a realistic corpus, the latency split, exact vs ANN, labels."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from memvault.benchmarks.perf import SYNTHETIC_NOTE, report, run_perf
from memvault.benchmarks.perf_corpus import find_data_dir, load_corpus
from memvault.embed import HashingEmbedder
from memvault.retrieval.text import query_terms
from memvault.store.filtering import tokenize
from memvault.store.sqlite.ann import load_faiss

OLD_VOCABULARY_SHARE = 0.25  # the old 40-word corpus: every term in ~1/4 of the rows


def _selectivity(sentences: list[str], queries: list[str]) -> float:
    """Mean share of rows that contain a given query term (what FTS5 must rank)."""
    rows = [set(tokenize(s)) for s in sentences]
    shares = [sum(term in r for r in rows) / len(rows) for q in queries for term in query_terms(q)]
    return sum(shares) / len(shares)


@pytest.mark.parametrize("source", ["generated", "dialogue"])
def test_corpus_is_selective_and_deterministic(source: str, tmp_path: Path) -> None:
    if source == "dialogue":
        data = tmp_path / "data"
        (data / "locomo").mkdir(parents=True)
        turns = [
            {
                "speaker": "A",
                "dia_id": f"D1:{i}",
                "text": f"I went hiking near lake {w} with "
                f"my sister last {d}. It was a {a} day and we saw {w} birds.",
            }
            for i, (w, d, a) in enumerate(
                (w, d, a)
                for w in ("Tahoe", "Como", "Bled", "Louise", "Geneva", "Ohrid", "Baikal")
                for d in ("Monday", "weekend", "summer", "spring")
                for a in ("sunny", "cold", "windy", "quiet", "long")
            )
        ]
        qa = [{"question": "Where did A go hiking?", "category": 1, "evidence": ["D1:1"]}]
        (data / "locomo" / "1.json").write_text(json.dumps({"session_1": turns, "qa": qa}))
        corpus = load_corpus(data)
        assert corpus.source.startswith("dialogue")
        assert corpus.queries(2, random.Random(0)) == ["Where did A go hiking?"] * 2
    else:
        corpus = load_corpus(None)
        assert corpus.source.startswith("generated") and corpus.vocabulary_size > 3000
        sentences = [corpus.sentence(random.Random(1)) for _ in range(3)]
        assert len(set(sentences)) == 1  # same seed, same text
        rng = random.Random(2)
        rows = [corpus.sentence(rng) for _ in range(2000)]
        queries = corpus.queries(30, rng)
        assert all(q.endswith("?") for q in queries)
        assert _selectivity(rows, queries) < OLD_VOCABULARY_SHARE / 5


def test_data_dir_given_by_the_entry_point(tmp_path: Path) -> None:
    """``$MEMVAULT_BENCH_DATA`` is read by the CLI (``--data-dir``) and handed down."""
    (tmp_path / "longmemeval").mkdir()
    (tmp_path / "longmemeval" / "x.json").write_text("[]")
    assert find_data_dir(tmp_path) == tmp_path
    assert find_data_dir(tmp_path / "empty") != tmp_path / "empty"
    # a data dir without usable sentences falls back to the generated corpus
    assert load_corpus(tmp_path).source.startswith("generated")


def test_run_reports_the_split_exact_and_ann_and_labels(tmp_path: Path) -> None:
    result = run_perf(
        [600],
        embedder=HashingEmbedder(dimension=32),
        queries=8,
        adds=3,
        real_vectors=200,
        data_dir=None,
    )
    row = result["results"]["600"]
    for key in (
        "search_default",
        "search_text",
        "search_vector",
        "search_default_exact",
        "embed_query",
        "text_leg",
        "vector_leg_exact",
        "fuse_hydrate",
    ):
        assert row[f"{key}_p50_ms"] > 0 and row[f"{key}_p95_ms"] >= row[f"{key}_p50_ms"]
    assert row["embed_query_cpu_p50_ms"] > 0  # the CPU beside the wall time
    assert row["vectors_real"] == 200 and row["vectors_synthetic"] == 400
    assert result["vectors"] == SYNTHETIC_NOTE and "SYNTHETIC" in SYNTHETIC_NOTE
    assert row["max_rss_mb"] > 0 and len(row["load_average"]) == 3
    if load_faiss() is not None:
        assert 0.0 <= row["ann_recall@10"] <= 1.0 and row["ann_build_s"] >= 0
        assert 0.0 < row["ann_similarity_ratio@10"] <= 1.0 + 1e-6
        assert row["vector_leg_ann_p50_ms"] > 0 and row["search_default_ann_p50_ms"] > 0
    out = tmp_path / "perf.json"
    report(result, out, plot=False)
    assert json.loads(out.read_text())["results"]["600"]["n"] == 600


def test_text_only_run_has_no_vector_figures() -> None:
    result = run_perf([100], embedder=None, queries=3, adds=2, data_dir=None)
    row = result["results"]["100"]
    assert row["search_text_p50_ms"] > 0 and row["vectors_real"] == 0
    assert "vector_leg_exact_p50_ms" not in row and result["embedder"] is None


def test_a_seeded_store_is_kept_and_reused(tmp_path: Path) -> None:
    """``--store-cache``: the second run searches the first run's store, seeding nothing."""
    cache = tmp_path / "stores"
    kwargs: dict[str, Any] = {
        "embedder": HashingEmbedder(dimension=16),
        "queries": 3,
        "adds": 2,
        "real_vectors": 50,
        "data_dir": None,
        "store_cache": cache,
    }
    first = run_perf([300], **kwargs)["results"]["300"]
    assert first["reused_rows"] == 0 and first["seeded"] == 300
    second = run_perf([300], **kwargs)["results"]["300"]
    assert second["reused_rows"] == 300 and second["seeded"] == 0
    assert "seed_rows_per_s" not in second and second["search_default_p50_ms"] > 0
    assert second["store_cache"] == first["store_cache"]
    assert [p.name for p in cache.iterdir()] == [Path(first["store_cache"]).name]
