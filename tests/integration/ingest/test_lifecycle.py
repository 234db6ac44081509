"""The drop-folder lifecycle on real files and a real SQLite store.

ingest/ → processed/ | rejected/, a manifest beside every moved file, one
transaction per file, idempotent by content hash.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine
from memvault.ingest import IngestDisabledError, IngestReport
from memvault.model import MemoryType, SourceKind, SourceType


def drop(engine: MemoryEngine, name: str, body: str | bytes) -> Path:
    assert engine.layout is not None
    path = engine.layout.ingest_dir / name
    if isinstance(body, str):
        body = body.encode("utf-8")
    path.write_bytes(body)
    return path


def run(engine: MemoryEngine, **options: Any) -> IngestReport:
    options.setdefault("settle_seconds", 0)
    return engine.ingest_pending(**options)


def manifest(engine: MemoryEngine, folder: str, name: str) -> dict[str, Any]:
    assert engine.layout is not None
    path = engine.layout.ingest_dir / folder / f"{name}.manifest.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_txt_paragraphs_become_cited_knowledge(engine: MemoryEngine) -> None:
    drop(engine, "notes.txt", "Deploys run on Fridays.\n\n\nThe staging DB is Postgres 16.\n")
    report = run(engine)
    assert [o.name for o in report.processed] == ["notes.txt"]
    assert engine.layout is not None
    assert (engine.layout.processed_dir / "notes.txt").exists()
    assert not (engine.layout.ingest_dir / "notes.txt").exists()
    data = manifest(engine, "processed", "notes.txt")
    assert data["status"] == "processed" and data["duplicate"] is False
    assert data["counts"] == {"candidates": 2, "stored": 2, "merged": 0, "refused": 0, "edges": 0}
    assert [c["chunk_id"] for c in data["candidates"]] == ["p0001", "p0002"]
    nodes = engine.list_memories()
    assert sorted(n.content for n in nodes) == [
        "Deploys run on Fridays.",
        "The staging DB is Postgres 16.",
    ]
    for node in nodes:
        assert node.category == "KNOWLEDGE"
        assert node.source.source_type is SourceType.INGEST_FILE
        assert node.source.source_kind is SourceKind.CITED_SOURCE
        assert node.source.source_path == str((engine.layout.ingest_dir / "notes.txt").resolve())
        ref = node.source.source_ref or ""
        assert ref.startswith(f"doc:sha256:{data['file']['sha256']}#chunk:p000")
        assert "Fridays" not in ref  # structure ids only, never text
    assert {c["memory_id"] for c in data["candidates"]} == {n.memory_id for n in nodes}


def test_markdown_front_matter_headings_lists_and_comments(engine: MemoryEngine) -> None:
    body = (
        "---\ntitle: Runbook\ntype: Procedure\ncategory: PROCEDURE\nimportance: 70\nowner: x\n---\n"
        "# Deploy\n\nSteps to ship:\n\n- build\n- test\n\n  continued item\n"
        "<!-- reviewers:\n\nkeep this short -->\n\n"
        "## Rollback\n\n```\nrevert\n\n# not a heading\n```\n"
    )
    drop(engine, "runbook.md", body)
    report = run(engine)
    assert len(report.processed) == 1
    nodes = sorted(engine.list_memories(), key=lambda n: n.key)
    # One statement per candidate: the lead-in, the list, the commented block, the code.
    assert [n.value for n in nodes] == ["Deploy"] * 3 + ["Deploy › Rollback"]
    assert all(n.type is MemoryType.PROCEDURE and n.importance == 70 for n in nodes)
    contents = [n.content for n in nodes]
    assert "Steps to ship:" in contents
    assert "- build\n- test" in contents
    assert any("<!-- reviewers:\n\nkeep this short -->" in c for c in contents)  # the gate saw it
    assert "# not a heading" in nodes[-1].content
    data = manifest(engine, "processed", "runbook.md")
    assert data["notes"] == {"ignored_front_matter": ["owner"]}


def test_json_typed_memories_and_edges(engine: MemoryEngine) -> None:
    doc = {
        "memvault": "ingest/1",
        "defaults": {"importance": 60},
        "memories": [
            {"ref": "db", "content": "We chose SQLite", "type": "Decision", "category": "DECISION"},
            {
                "ref": "wal",
                "content": "Enable WAL mode",
                "type": "Procedure",
                "category": "PROCEDURE",
            },
        ],
        "edges": [{"from": "wal", "to": "db", "type": "PartOf", "weight": 0.7}],
        "text": "Free text is chunked by paragraph.",
    }
    drop(engine, "graph.json", json.dumps(doc))
    report = run(engine)
    (outcome,) = report.processed
    assert outcome.memory_count == 3 and len(outcome.edge_ids) == 1
    stats = engine.stats().to_json()
    assert stats["memories"]["total"] == 3 and stats["edges"]["by_type"] == {"PartOf": 1}
    decision = next(n for n in engine.list_memories() if n.type is MemoryType.DECISION)
    assert decision.importance == 60
    assert [e.edge_type.value for e in engine.get(decision.memory_id).edges] == ["PartOf"]


REJECTIONS = [
    ("photo.png", b"\x89PNG", "UNSUPPORTED_TYPE"),
    ("empty.txt", b"", "EMPTY"),
    ("blank.md", b"\n\n   \n", "EMPTY"),
    ("latin1.txt", "caf\xe9 au lait".encode("latin-1"), "ENCODING_ERROR"),
    ("binary.txt", b"abc\x00def", "ENCODING_ERROR"),
    ("broken.json", b'{\n  "memories": [\n    {"content": }\n]}', "PARSE_ERROR"),
    ("unclosed.md", b"---\ntitle: x\n# body", "PARSE_ERROR"),
    ("shape.json", b'{"memorys": []}', "SCHEMA_INVALID"),
    (
        "badedge.json",
        b'{"memories": [{"ref": "a", "content": "x"}], "edges": [{"from": "a", "to": "z"}]}',
        "SCHEMA_INVALID",
    ),
    ("a..b.txt", b"dots", "UNSAFE_PATH"),
]


@pytest.mark.parametrize(
    ("name", "body", "reason"), REJECTIONS, ids=[r[2] + ":" + r[0] for r in REJECTIONS]
)
def test_each_rejection_reason(engine: MemoryEngine, name: str, body: bytes, reason: str) -> None:
    drop(engine, name, body)
    report = run(engine)
    assert [(o.name, [r.code.value for r in o.reasons]) for o in report.rejected] == [
        (name, [reason])
    ]
    assert engine.layout is not None
    assert (engine.layout.rejected_dir / name).exists()
    data = manifest(engine, "rejected", name)
    assert data["status"] == "rejected" and data["reasons"] == [reason]
    assert engine.stats().to_json()["memories"]["total"] == 0


def test_parse_error_carries_line_and_column(engine: MemoryEngine) -> None:
    drop(engine, "broken.json", '{\n  "memories": [\n    {"content": }\n]}')
    run(engine)
    (detail,) = manifest(engine, "rejected", "broken.json")["reason_details"]
    assert (detail["line"], detail["column"]) == (3, 17)


def test_encoding_error_is_reported_not_guessed(engine: MemoryEngine) -> None:
    drop(engine, "latin1.txt", "line one\ncaf\xe9".encode("latin-1"))
    run(engine)
    (detail,) = manifest(engine, "rejected", "latin1.txt")["reason_details"]
    assert (detail["line"], detail["column"], detail["byte_offset"]) == (2, 4, 12)


def test_symlink_directory_fifo_and_hard_link_are_unsafe(
    engine: MemoryEngine, tmp_path: Path
) -> None:
    assert engine.layout is not None
    outside = tmp_path / "secret.txt"
    outside.write_text("outside the root")
    (engine.layout.ingest_dir / "link.txt").symlink_to(outside)
    (engine.layout.ingest_dir / "folder").mkdir()
    os.mkfifo(engine.layout.ingest_dir / "pipe.txt")
    os.link(outside, engine.layout.ingest_dir / "hard.txt")
    report = run(engine)
    kinds = {
        o.name: (o.reasons[0].code.value, o.reasons[0].detail["kind"]) for o in report.rejected
    }
    assert kinds == {
        "link.txt": ("UNSAFE_PATH", "symlink"),
        "folder": ("UNSAFE_PATH", "directory"),
        "pipe.txt": ("UNSAFE_PATH", "special"),
        "hard.txt": ("UNSAFE_PATH", "hardlink"),
    }
    assert outside.read_text() == "outside the root"  # never followed, never moved
    assert (engine.layout.rejected_dir / "link.txt").is_symlink()
    assert engine.stats().to_json()["memories"]["total"] == 0


_OPENED: list[str] | None = None
_HOOKED = False


def _record_opens(event: str, args: tuple[Any, ...]) -> None:
    if _OPENED is not None and event == "open" and args:
        _OPENED.append(str(args[0]))


def test_one_gigabyte_sparse_file_is_refused_without_being_read(engine: MemoryEngine) -> None:
    """Every ``open`` in this process is recorded (audit hook): huge.txt is never opened."""
    global _OPENED, _HOOKED
    assert engine.layout is not None
    path = engine.layout.ingest_dir / "huge.txt"
    with path.open("wb") as fh:
        fh.truncate(1024**3)
    drop(engine, "small.txt", "A small file is opened and read.")
    if not _HOOKED:
        sys.addaudithook(_record_opens)
        _HOOKED = True
    _OPENED = opened = []
    try:
        report = run(engine)
    finally:
        _OPENED = None
    (outcome,) = report.rejected
    assert [r.code.value for r in outcome.reasons] == ["TOO_LARGE"]
    assert outcome.reasons[0].detail["size_bytes"] == 1024**3
    assert any(p.endswith("small.txt") for p in opened)  # the hook sees reads …
    assert not any(p.endswith("huge.txt") for p in opened)  # … and huge.txt had none


@pytest.mark.skipif(os.geteuid() == 0, reason="root can open a file without permissions")
def test_unreadable_file_is_rejected_not_retried(engine: MemoryEngine) -> None:
    path = drop(engine, "locked.txt", "secret")
    path.chmod(0o000)
    report = run(engine)
    assert [r.code.value for r in report.rejected[0].reasons] == ["UNREADABLE"]


def test_max_file_size_is_a_parameter(engine: MemoryEngine) -> None:
    drop(engine, "big.txt", "word " * 300_000)
    report = run(engine, max_file_size_mb=1)
    assert [r.code.value for r in report.rejected[0].reasons] == ["TOO_LARGE"]


def test_same_content_again_under_another_name_is_a_duplicate(engine: MemoryEngine) -> None:
    drop(engine, "a.md", "# Title\n\nSome knowledge.\n")
    first = run(engine)
    drop(engine, "b.md", "# Title\n\nSome knowledge.\n")
    drop(engine, "a.md", "# Title\n\nSome knowledge.\n")
    second = run(engine)
    assert len(first.processed) == 1 and second.processed == []
    assert sorted(o.name for o in second.duplicates) == ["a.md", "b.md"]
    assert engine.stats().to_json()["memories"]["total"] == 1
    assert engine.layout is not None
    assert (engine.layout.processed_dir / "a-1.md").exists()
    dup = manifest(engine, "processed", "b.md")
    assert dup["duplicate"] is True and dup["status"] == "duplicate"
    assert dup["duplicate_of"]["original_name"] == "a.md"
    assert manifest(engine, "processed", "a-1.md")["duplicate"] is True


def test_partly_refused_file_is_processed_with_refusals_listed(engine: MemoryEngine) -> None:
    doc = {
        "memories": [
            {"ref": "ok", "content": "Release notes live in the wiki"},
            {"ref": "bad", "content": "x", "importance": 500},
            {"ref": "odd", "content": "y", "colour": "red"},
        ],
        "edges": [{"from": "ok", "to": "bad"}],
    }
    drop(engine, "mixed.json", json.dumps(doc))
    (outcome,) = run(engine).processed
    assert outcome.memory_count == 1
    assert sorted(r["stop_reason"] for r in outcome.refused) == [
        "BOUNDS_EXCEEDED",
        "SCHEMA_INVALID",
    ]
    data = manifest(engine, "processed", "mixed.json")
    assert data["counts"] == {
        "candidates": 3,
        "stored": 1,
        "merged": 0,
        "refused": 2,
        "edges": 0,
    }
    assert data["skipped_edges"] == [
        {"index": 0, "from": "ok", "to": "bad", "reason": "ENDPOINT_REFUSED"}
    ]
    assert "colour" in json.dumps(data["refused"])  # the field name, …
    assert '"red"' not in json.dumps(data)  # … never the refused content


def test_all_candidates_refused_is_rejected_with_stop_reasons(engine: MemoryEngine) -> None:
    drop(engine, "bad.json", json.dumps([{"content": "x", "type": "fact"}]))
    report = run(engine)
    (outcome,) = report.rejected
    data = outcome.to_json()
    assert data["reasons"] == ["ALL_CANDIDATES_REFUSED"]
    assert data["stop_reasons"] == ["SCHEMA_INVALID"]
    assert manifest(engine, "rejected", "bad.json")["reason_details"][0]["stop_reasons"] == [
        "SCHEMA_INVALID"
    ]
    # the refusal is audited (no content), and replaying the file changes nothing
    refusals = [e for e in engine.store.history("acme") if e.op.value == "REFUSE"]
    assert len(refusals) == 1
    drop(engine, "bad-again.json", json.dumps([{"content": "x", "type": "fact"}]))
    again = run(engine)
    assert [o.name for o in again.duplicates] == ["bad-again.json"]
    assert len([e for e in engine.store.history("acme") if e.op.value == "REFUSE"]) == 1


def test_crash_after_commit_before_move_is_finished_exactly(engine: MemoryEngine) -> None:
    """Simulate the window by putting the file back after a clean run's move."""
    assert engine.layout is not None
    drop(engine, "k.txt", "One.\n\nTwo.\n")
    run(engine)
    processed = engine.layout.processed_dir / "k.txt"
    clean = manifest(engine, "processed", "k.txt")
    os.rename(processed, engine.layout.ingest_dir / "k.txt")
    (engine.layout.processed_dir / "k.txt.manifest.json").unlink()
    report = run(engine)
    (outcome,) = report.processed
    assert outcome.recovered
    again = manifest(engine, "processed", "k.txt")
    assert [c["memory_id"] for c in again["candidates"]] == [
        c["memory_id"] for c in clean["candidates"]
    ]
    assert engine.stats().to_json()["memories"]["total"] == 2


def test_file_still_being_written_is_left_for_the_next_pass(engine: MemoryEngine) -> None:
    import threading
    import time

    path = drop(engine, "growing.txt", "start\n")
    stop = threading.Event()

    def writer() -> None:
        with path.open("a") as fh:
            while not stop.is_set():
                fh.write("more text\n")
                fh.flush()
                time.sleep(0.01)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        report = run(engine, settle_seconds=0.2)
    finally:
        stop.set()
        thread.join()
    assert [o.name for o in report.pending] == ["growing.txt"]
    assert path.exists()
    later = run(engine, settle_seconds=0.05)
    assert [o.name for o in later.processed] == ["growing.txt"]


def test_disabled_ingestion_stops_with_a_clear_message(engine: MemoryEngine) -> None:
    drop(engine, "x.txt", "hello")
    with pytest.raises(IngestDisabledError, match=r"memory\.ingest\.enabled"):
        run(engine, enabled=False)
    assert engine.layout is not None
    assert (engine.layout.ingest_dir / "x.txt").exists()


def test_every_pass_writes_json_lines_to_the_log(engine: MemoryEngine) -> None:
    drop(engine, "x.txt", "hello world")
    run(engine)
    assert engine.log is not None
    events = [r["event"] for r in engine.log.read()]
    assert "ingest_file" in events and "ingest_pass" in events


def test_one_transaction_per_file_passes_integrity_check(engine: MemoryEngine) -> None:
    for i in range(5):
        drop(engine, f"f{i}.txt", f"Fact number {i} about the build.\n\nAnother {i}.")
    report = run(engine)
    assert len(report.processed) == 5
    assert engine.layout is not None
    conn = sqlite3.connect(engine.layout.db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM ingest_files").fetchone()[0] == 5
    finally:
        conn.close()


def test_a_moved_home_still_finishes_an_interrupted_file(tmp_path: Path) -> None:
    first = tmp_path / "first"
    with MemoryEngine.open(first, "acme") as engine:
        drop(engine, "k.txt", "One.\n\nTwo.\n")
        run(engine)
    processed = first / "acme" / "memory" / "ingest" / "processed"
    os.rename(processed / "k.txt", processed.parent / "k.txt")  # as if killed before the move
    (processed / "k.txt.manifest.json").unlink()
    moved = tmp_path / "restored"
    os.rename(first, moved)
    with MemoryEngine.open(moved, "acme") as engine:
        (outcome,) = run(engine).processed
        assert outcome.recovered and outcome.manifest is not None
        assert outcome.manifest.startswith(str(moved.resolve()))
        assert engine.stats().to_json()["memories"]["total"] == 2
