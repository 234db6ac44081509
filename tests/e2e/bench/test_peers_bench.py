"""``memvault bench peers``: the fixed JSON shape, recall through each system, failures shown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.benchmarks.peers import SYSTEMS, report, run_peers
from memvault.cli import app
from memvault.embed import HashingEmbedder


def _locomo(tmp_path: Path) -> Path:
    """A tiny LoCoMo-shaped conversation whose answers sit in distinct turns."""
    data = tmp_path / "data"
    (data / "locomo").mkdir(parents=True)
    facts = [
        ("Ann", "I adopted a grey cat named Pixel last spring."),
        ("Ben", "My sister plays the cello in an orchestra."),
        ("Ann", "We hiked up the volcano on our trip to Iceland."),
        ("Ben", "I repaired the old bicycle with new brakes."),
    ] + [("Ann", f"Small talk number {i} about the weather.") for i in range(8)]
    turns = [{"speaker": s, "dia_id": f"D1:{i + 1}", "text": t} for i, (s, t) in enumerate(facts)]
    qa = [
        {"question": "What is the name of Ann's cat?", "category": 4, "evidence": ["D1:1"]},
        {
            "question": "Which instrument does Ben's sister play?",
            "category": 4,
            "evidence": ["D1:2"],
        },
        {"question": "unanswerable", "category": 5, "evidence": ["D1:3"]},
    ]
    conv = {"sample_id": "t1", "session_1": turns, "session_1_date_time": "1 May 2023", "qa": qa}
    (data / "locomo" / "t1.json").write_text(json.dumps(conv))
    return data


def test_both_parts_fill_the_fixed_shape(tmp_path: Path) -> None:
    out = run_peers(
        400,
        embedder=HashingEmbedder(dimension=64),
        systems=["memvault", "langgraph-inmemory"],
        queries=6,
        real_vectors=100,
        data_dir=_locomo(tmp_path),
        workdir=tmp_path,
    )
    assert len(out["load_average"]) == 3
    for system in ("memvault", "langgraph-inmemory"):
        scale = out["scale"][system]
        assert scale["n"] == 400
        # memvault's gate may refuse a generated sentence; a peer stores everything
        assert scale["stored"] == 400 if system != "memvault" else scale["stored"] >= 380
        assert scale["rows_per_s"] > 0
        # the bulk load's CPU per row (memvault: with the gate's second process)
        assert scale["bulk_cpu_ms_per_row"] > 0
        assert 0 < scale["search_p50_ms"] <= scale["search_p95_ms"]
        assert scale["search_cpu_p50_ms"] >= 0  # the process CPU time of a search
        # where a slow run's CPU went: the kernel (page faults) beside the search itself
        assert scale["search_kernel_cpu_ms_mean"] >= 0 and scale["search_minor_faults_mean"] >= 0
        # and how fast the machine was just before (a fixed workload)
        assert scale["probe_compute_ms"] > 0 and scale["probe_memory_ms"] > 0
        if system == "memvault":  # its background index work, reported apart
            assert scale["settle_ms"] >= 0 and scale["ann_backlog_after_bulk"] == 0
        locomo = out["locomo"][system]
        assert locomo["questions"] == 2  # category 5 is not a recall question
        assert 0.0 <= locomo["recall@10"] <= 1.0
    # twelve turns and a top 10: memvault's hybrid search finds both exact-word answers
    assert out["locomo"]["memvault"]["recall@10"] == 1.0
    report(out, tmp_path / "peers.json", plot=False)
    assert json.loads((tmp_path / "peers.json").read_text())["scale"].keys() == {
        "memvault",
        "langgraph-inmemory",
    }


def test_a_peer_that_cannot_import_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "chromadb", None)  # import chromadb -> ImportError
    out = run_peers(
        50,
        embedder=HashingEmbedder(dimension=16),
        systems=["chroma", "memvault"],
        queries=5,
        real_vectors=10,
        data_dir=None,
        locomo=False,
        workdir=tmp_path,
    )
    assert "import of chromadb" in out["scale"]["chroma"]["error"]
    assert "memvault[peers]" in out["scale"]["chroma"]["error"]
    assert out["scale"]["memvault"]["stored"] == 50


def test_cli_rejects_unknown_systems(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["bench", "peers", "--systems", "memvault,pinecone", "--json", str(tmp_path / "x")]
    )
    assert result.exit_code == 2
    assert "pinecone" in result.output
    assert set(SYSTEMS) == {"memvault", "chroma", "mem0", "langgraph-sqlite", "langgraph-inmemory"}


def test_the_graph_work_per_search_is_counted_and_restarts_from_zero(tmp_path: Path) -> None:
    """``graph_walks``: faiss's distance computations and hops per graph search since
    the last call (what a slow run's search spent in the graph, beside its CPU)."""
    from memvault.benchmarks.peer_systems import MemvaultPeer, PrecomputedEmbedder
    from memvault.store.sqlite.ann import load_faiss

    if load_faiss() is None:
        pytest.skip("the ann extra (faiss-cpu) is not installed")
    embedder = PrecomputedEmbedder(HashingEmbedder(dimension=64))
    peer = MemvaultPeer(tmp_path / "home", embedder)
    try:
        peer.engine.store.ann_min_rows = 100  # type: ignore[attr-defined]
        texts = [
            f"Note {i}: the {('red', 'blue', 'green')[i % 3]} shelf holds box {i}."
            for i in range(300)
        ]
        vectors = embedder.embed_documents(texts)
        assert peer.add([f"r{i}" for i in range(300)], texts, vectors) >= 290
        peer.settle()
        peer.graph_walks()  # whatever came before
        for i in (3, 30, 300):
            peer.search(texts[i % 300], vectors[i % 300], 5)
        walks = peer.graph_walks()
        assert walks["ann_searches"] == 3
        assert walks["ann_ndis_per_search"] > 0 and walks["ann_hops_per_search"] > 0
        assert peer.graph_walks() == {}  # counted from zero again: no search since
    finally:
        peer.close()
