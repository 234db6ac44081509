"""Ingested memories get their vectors in the file's transaction, and duplicates merge.

Real SQLite files; the ``hashing`` embedder except in the one test that needs
meaning (the real default MiniLM, ~1 s to load).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.embed import HashingEmbedder
from memvault.engine import MemoryEngine
from memvault.ingest import IngestReport
from tests.conftest import StepClock

HASHING = HashingEmbedder().model_id


def drop(engine: MemoryEngine, name: str, body: str) -> None:
    assert engine.layout is not None
    (engine.layout.ingest_dir / name).write_text(body, encoding="utf-8")


def run(engine: MemoryEngine) -> IngestReport:
    return engine.ingest_pending(settle_seconds=0)


def manifest(engine: MemoryEngine, name: str, folder: str = "processed") -> dict[str, Any]:
    assert engine.layout is not None
    path = engine.layout.ingest_dir / folder / f"{name}.manifest.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def vectors(engine: MemoryEngine) -> dict[str, str]:
    """memory_id -> model_id of every stored vector (read from the database file)."""
    assert engine.layout is not None
    conn = sqlite3.connect(engine.layout.db_path)
    try:
        rows = conn.execute("SELECT memory_id, model_id FROM memory_embeddings").fetchall()
    finally:
        conn.close()
    return dict(rows)


class BrokenEmbedder:
    """An embedder whose model cannot run (the store and everything else are real)."""

    model_id = "broken-model"
    dimension = 8

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        raise RuntimeError("model file is corrupt")

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        raise RuntimeError("model file is corrupt")


def test_every_ingested_memory_has_its_vector_in_the_same_write(engine: MemoryEngine) -> None:
    drop(engine, "a.txt", "Deploys run on Fridays.\n\nThe staging DB is Postgres 16.\n")
    drop(engine, "b.md", "# Guide\n\nRoll back with the blue/green switch.\n")
    report = run(engine)
    ids = [m for o in report.processed for m in o.memory_ids]
    assert len(ids) == 3
    assert vectors(engine) == dict.fromkeys(ids, HASHING)
    assert engine.store.missing_embeddings("acme", HASHING, limit=10) == []
    data = manifest(engine, "a.txt")
    assert data["embeddings"] == {"model": HASHING, "vectors": 2}
    assert data["timings_ms"]["embed_batch_ms"] >= 0
    assert report.timings["gate"] > 0 and "embed" in report.timings


def test_a_failing_embedder_stores_without_vectors_and_says_so(
    tmp_path: Path, clock: StepClock
) -> None:
    with MemoryEngine.open(tmp_path, "acme", clock=clock, embedder=BrokenEmbedder()) as engine:
        drop(engine, "a.txt", "Deploys run on Fridays.\n\nBackups run nightly.\n")
        report = run(engine)
        assert report.memories == 2 and vectors(engine) == {}
        data = manifest(engine, "a.txt")
        assert data["embeddings"]["model"] == "broken-model"
        assert data["embeddings"]["vectors"] == 0
        assert data["embeddings"]["queued_for_backfill"] == 2
        assert "model file is corrupt" in data["embeddings"]["error"]
        queued = engine.store.missing_embeddings("acme", "broken-model", limit=10)
        assert sorted(n.memory_id for n in queued) == sorted(report.processed[0].memory_ids)
    # the backfill (a working embedder this time) completes the file's vectors
    with MemoryEngine.open(tmp_path, "acme", embedder=HashingEmbedder()) as engine:
        assert engine.backfill_embeddings() == 2
        assert set(vectors(engine).values()) == {HASHING}


def test_same_statement_in_another_file_merges_into_the_stored_memory(
    engine: MemoryEngine,
) -> None:
    drop(engine, "first.txt", "The billing service publishes to the event bus.\n")
    (first,) = run(engine).processed
    (original,) = first.memory_ids
    drop(
        engine,
        "second.md",
        "# Notes\n\nThe billing service publishes to the event bus.\n\n"
        "## Other\n\nThe search index is rebuilt every night.\n",
    )
    (second,) = run(engine).processed
    assert second.merged_ids == (original,)
    assert second.memory_count == 1  # only the new statement became a node
    view = engine.get(original)
    assert view.node.access_count == 1 and view.node.last_accessed_at is not None
    assert engine.layout is not None
    conn = sqlite3.connect(engine.layout.db_path)
    try:
        refs = conn.execute(
            "SELECT is_primary, source_ref FROM memory_sources WHERE memory_id = ? "
            "ORDER BY source_id",
            (original,),
        ).fetchall()
    finally:
        conn.close()
    assert [p for p, _ in refs] == [1, 0]  # the merge added this chunk as a source
    assert all(r.startswith("doc:sha256:") for _, r in refs) and refs[0][1] != refs[1][1]
    data = manifest(engine, "second.md")
    assert data["counts"]["merged"] == 1 and data["counts"]["stored"] == 1
    merged = [c for c in data["candidates"] if c["outcome"] == "merged"]
    assert merged[0]["memory_id"] == original and merged[0]["detector"] == "resolve"
    ops = [e.op.value for e in engine.history(original)]
    assert ops == ["CREATE", "MERGE"]
    assert engine.stats().to_json()["memories"]["total"] == 2


def test_edited_section_is_not_merged_by_its_structural_key(engine: MemoryEngine) -> None:
    drop(engine, "notes.md", "# Notes\n\nThe build runs on Jenkins.\n")
    run(engine)
    drop(engine, "notes-v2.md", "# Notes\n\nThe build runs on GitHub Actions since May.\n")
    (again,) = run(engine).processed
    assert again.memory_count == 1 and again.merged_ids == ()


def test_json_memory_with_the_same_key_and_value_merges(engine: MemoryEngine) -> None:
    body = {"content": "We chose SQLite for the embedded store", "type": "Decision"}
    drop(engine, "a.json", json.dumps([{**body, "key": "store", "value": "sqlite"}]))
    (a,) = run(engine).processed
    reworded = {**body, "content": "SQLite was picked as the embedded database"}
    drop(engine, "b.json", json.dumps([{**reworded, "key": "store", "value": "sqlite"}]))
    (b,) = run(engine).processed
    assert b.merged_ids == a.memory_ids and b.memory_count == 0
    # another scope never merges: same words, another project
    drop(engine, "c.json", json.dumps([{**body, "key": "store", "project_id": "other"}]))
    (c,) = run(engine).processed
    assert c.memory_count == 1 and c.merged_ids == ()


def test_merge_redirects_the_files_edges_and_skips_a_duplicate(engine: MemoryEngine) -> None:
    doc: dict[str, Any] = {
        "memories": [
            {"ref": "a", "content": "We chose SQLite", "type": "Decision"},
            {"ref": "b", "content": "WAL mode is enabled", "type": "Fact"},
        ],
        "edges": [{"from": "b", "to": "a", "type": "RelatedTo"}],
    }
    drop(engine, "one.json", json.dumps(doc))
    run(engine)
    doc["text"] = ["A different paragraph about backups."]
    drop(engine, "two.json", json.dumps(doc))
    (two,) = run(engine).processed
    assert len(two.merged_ids) == 2 and two.memory_count == 1
    data = manifest(engine, "two.json")
    assert data["edges"] == [] and data["skipped_edges"][-1]["reason"] == "ENDPOINT_MERGED"


def test_recovered_file_reports_its_merges_again(engine: MemoryEngine) -> None:
    """A crash after the commit and before the move: the rerun rebuilds the same manifest."""
    assert engine.layout is not None
    drop(engine, "first.txt", "Backups run nightly.\n")
    run(engine)
    drop(engine, "second.txt", "Backups run nightly.\n\nRestores are tested monthly.\n")
    run(engine)
    clean = manifest(engine, "second.txt")
    processed = engine.layout.processed_dir / "second.txt"
    processed.rename(engine.layout.ingest_dir / "second.txt")
    (engine.layout.processed_dir / "second.txt.manifest.json").unlink()
    (outcome,) = run(engine).processed
    assert outcome.recovered
    again = manifest(engine, "second.txt")
    strip = ("merge_reason",)
    assert [{k: v for k, v in c.items() if k not in strip} for c in again["candidates"]] == [
        {k: v for k, v in c.items() if k not in strip} for c in clean["candidates"]
    ]
    assert engine.stats().to_json()["memories"]["total"] == 2


def test_real_default_embedder_finds_an_ingested_paraphrase(tmp_path: Path) -> None:
    """No shared word between query and text: only the vector leg can find it."""
    with MemoryEngine.open(tmp_path, "acme") as engine:  # the default local MiniLM
        drop(
            engine,
            "pets.md",
            "# Household\n\nOur cat sleeps on the sofa all afternoon.\n\n"
            "## Garden\n\nTomatoes grow along the southern fence.\n",
        )
        report = run(engine)
        assert report.memories == 2
        embedder = engine.embedder
        assert embedder is not None
        assert manifest(engine, "pets.md")["embeddings"] == {
            "model": embedder.model_id,
            "vectors": 2,
        }
        results = engine.search("where does the kitten nap", top_k=1, explain=True)
        (hit,) = results.hits
        assert "cat sleeps" in hit.node.content
        assert "vector" in results.legs
        assert hit.explain["ranks"]["vector"] == 1
        assert hit.explain["ranks"].get("text") is None  # no word in common


def test_recovered_file_lists_its_redirected_edges_again(engine: MemoryEngine) -> None:
    assert engine.layout is not None
    memories = [
        {"ref": "a", "content": "We chose SQLite", "type": "Decision"},
        {"ref": "b", "content": "WAL mode is enabled", "type": "Fact"},
    ]
    drop(engine, "one.json", json.dumps({"memories": memories}))
    (one,) = run(engine).processed
    edges = [{"from": "b", "to": "a", "type": "RelatedTo"}]
    drop(engine, "two.json", json.dumps({"memories": memories, "edges": edges}))
    (two,) = run(engine).processed
    assert sorted(two.merged_ids) == sorted(one.memory_ids) and two.memory_count == 0
    clean = manifest(engine, "two.json")
    (edge,) = clean["edges"]  # redirected onto the stored memories and written
    assert {edge["from_memory_id"], edge["to_memory_id"]} == set(one.memory_ids)
    (engine.layout.processed_dir / "two.json").rename(engine.layout.ingest_dir / "two.json")
    (engine.layout.processed_dir / "two.json.manifest.json").unlink()
    (again,) = run(engine).processed
    assert again.recovered

    def ends(e: dict[str, Any]) -> tuple[str, str, str]:
        return e["edge_id"], e["from_memory_id"], e["to_memory_id"]

    assert [ends(e) for e in manifest(engine, "two.json")["edges"]] == [ends(edge)]
    assert len(engine.get(one.memory_ids[0]).edges) == 1  # written once


def test_a_batch_resolve_answers_each_chunk_as_one_resolve(engine: MemoryEngine) -> None:
    """``Deduper.resolve_many`` (one vector search per scope, one node read) decides
    every chunk of a batch as ``resolve`` decides it alone: merged into the stored
    statement, stored, by vector or by full text, in the chunk's own scope only."""
    from memvault.ingest.dedup import Deduper
    from memvault.ingest.model import Candidate
    from memvault.write import Outcome

    drop(
        engine,
        "stored.md",
        "# Notes\n\nThe billing service publishes to the event bus.\n\n"
        "## Build\n\nThe build runs on Jenkins every weekday.\n\n"
        "## Search\n\nThe search index is rebuilt every night.\n",
    )
    (stored,) = run(engine).processed
    olds = engine.store.get_nodes(engine.orchestrator, list(stored.memory_ids))
    embedder = HashingEmbedder()
    texts = [n.content for n in olds] + ["The mobile client reads from the object store."]
    nodes = [
        olds[0].model_copy(update={"memory_id": f"mem_new{i}", "content": t, "key": f"k#c{i}"})
        for i, t in enumerate(texts)
    ]
    nodes.append(nodes[0].model_copy(update={"memory_id": "mem_scoped", "user_id": "dana"}))
    candidates = [Candidate(f"c{i}", {}) for i in range(len(nodes))]
    matrix = embedder.embed_documents([n.content for n in nodes])
    with_vectors = [(c, n, v) for c, n, v in zip(candidates, nodes, matrix, strict=True)]
    text_only = [(c, n, None) for c, n in zip(candidates, nodes, strict=True)]
    deduper = Deduper(engine.store, engine.orchestrator, model_id=embedder.model_id)
    for items in (with_vectors, text_only, [*with_vectors[:2], *text_only[2:]]):
        many = deduper.resolve_many(items, exclude=frozenset({"mem_new3"}))
        each = [deduper.resolve(c, n, v, exclude=frozenset({"mem_new3"})) for c, n, v in items]
        assert many == each
        outcomes = [r.outcome for r in many]
        assert outcomes[:3] == [Outcome.MERGED] * 3 and Outcome.MERGED not in outcomes[3:]
        assert [r.merge_into for r in many[:3]] == [n.memory_id for n in olds]


def test_a_pass_gated_in_the_second_process_equals_one_gated_here(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """With ``policy.parallel_gate`` each window is handed whole to the gate's second
    process (on a thread of its own) while the previous window commits; a pass gives
    exactly what the same pass gated in this process gives: the same memories,
    merges and refusals per file."""
    from memvault.benchmarks.ingest import generate_folder
    from memvault.policy import parallel

    monkeypatch.setattr(parallel, "MIN_BATCH", 8)
    sent: list[int] = []
    round_trip = parallel._Worker.round_trip

    def counted(self: Any, settings: Any, items: Any) -> None:
        sent.append(len(items))
        round_trip(self, settings, items)

    monkeypatch.setattr(parallel._Worker, "round_trip", counted)
    parallel.shutdown()
    assert parallel.warm(timeout=120), "the gate worker did not start"
    outcomes = []
    try:
        for name, on in (("here", False), ("child", True)):
            with MemoryEngine.open(
                tmp_path / name, "acme", embedder=HashingEmbedder(), parallel_gate=on
            ) as engine:
                assert engine.layout is not None
                generate_folder(engine.layout.ingest_dir, 60, seed=3)
                report = engine.ingest_pending(settle_seconds=0)
                outcomes.append(
                    sorted(
                        (
                            o.name,
                            o.status,
                            o.memory_ids,
                            o.merged_ids,
                            tuple(str(r) for r in o.refused),
                        )
                        for o in report.outcomes
                    )
                )
        worker = parallel._WORKER
        assert worker is not None and worker.ready and not worker.broken
        assert len(sent) >= 3 and min(sent) >= 8  # whole windows went to the child
    finally:
        parallel.shutdown()
    assert outcomes[0] == outcomes[1]
    assert sum(len(o[2]) for o in outcomes[0]) > 50 and any(o[3] for o in outcomes[0])
