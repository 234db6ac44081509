"""``memvault bench embed``: numpy beside onnxruntime, per batch size, capture and ingest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.embed.fast_query import onnx_available

TURNS = [
    {"text": "I live in Porto and work on the billing service.", "at": "2026-01-01T08:00:00Z"},
    {"text": "We switched our CI to GitHub Actions last week.", "at": "2026-01-01T09:00:00Z"},
    {"text": "Ich trinke morgens gern einen starken Kaffee.", "at": "2026-01-01T10:00:00Z"},
]


def _turns(tmp_path: Path) -> Path:
    path = tmp_path / "turns.jsonl"
    rows = [{**turn, "user": "u1", "speaker": "Ana"} for turn in TURNS]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.mark.skipif(not onnx_available(), reason="extra 'fast' not installed")
def test_embed_bench_times_both_backends_and_checks_they_agree(tmp_path: Path) -> None:
    out = tmp_path / "embed.json"
    args = ["bench", "embed", "--turns", str(_turns(tmp_path)), "--batches", "1,2"]
    args += ["--calls", "2", "--capture-turns", "2", "--ingest-files", "2", "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert set(data["embed"]) == {"numpy", "onnx"} and data["skipped"] == {}
    for by_batch in data["embed"].values():
        assert set(by_batch) == {"1", "2"}
        assert all(row["calls"] == 2 and row["ms_per_text_p50"] > 0 for row in by_batch.values())
        assert all(len(row["load"]) == 2 for row in by_batch.values())
    assert {row["turns"] for row in data["capture"].values()} == {2}
    assert all(row["memories"] > 0 for row in data["ingest"].values())
    assert data["agreement"]["texts"] == 3 and data["agreement"]["min_cosine"] > 0.99999
    assert "│ numpy" in result.output and "│ onnx" in result.output
    assert "min cosine" in result.output


@pytest.mark.parametrize(
    "bad", [["--batches", "0"], ["--batches", "x"], ["--backends", "gpu"], ["--turns", "nope"]]
)
def test_embed_bench_refuses_bad_arguments(tmp_path: Path, bad: list[str]) -> None:
    result = CliRunner().invoke(app, ["bench", "embed", *bad, "--json", str(tmp_path / "o.json")])
    assert result.exit_code == 2
    assert not (tmp_path / "o.json").exists()
