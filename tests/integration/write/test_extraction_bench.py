"""``memvault bench extraction --data FILE`` on a labelled file of one's own."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app

HELDOUT = Path(__file__).resolve().parents[3] / "bench" / "data" / "extraction_heldout.jsonl"


def test_bench_extraction_runs_on_a_given_file(tmp_path: Path) -> None:
    lines = HELDOUT.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 60
    data = tmp_path / "turns.jsonl"
    data.write_text("\n".join(lines[:6]) + "\n", encoding="utf-8")  # Aiko's six turns
    out = tmp_path / "result.json"
    args = ["bench", "extraction", "--data", str(data), "--similarity", "lexical"]
    args += ["--repeat", "1", "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["turns"] == 6 and len(report["turns_detail"]) == 6
    summary = report["summary"]
    assert summary["sensitive_refusal"] == 1.0  # "My blood type is AB negative."
    assert summary["chitchat_silence"] == 1.0
    assert summary["cpu_p50_ms"] > 0 and len(summary["load_average_1m"]) == 2


def test_bad_data_files_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x1", "text": "hi"}\n', encoding="utf-8")
    for path, message in ((tmp_path / "nope.jsonl", "cannot read"), (bad, "bad.jsonl:1: missing")):
        result = CliRunner().invoke(app, ["bench", "extraction", "--data", str(path)])
        assert result.exit_code == 2
        assert message in result.stderr and "Traceback" not in result.stderr + result.stdout


def test_sensitive_words_identifiers_and_silence_are_scored(tmp_path: Path) -> None:
    turns = [
        {
            "id": "x1",
            "user": "u1",
            "speaker": "Lee",
            "text": "Our servers are in us-west-2 and we pin ruff==0.6.9.",
            "at": "2026-11-20T09:00:00Z",
            "expect": [{"type": "Fact", "keywords": ["us-west-2"]}],
            "outcome": "stored",
            "verbatim": ["us-west-2", "ruff==0.6.9", "never-said-token"],
            "kind": "stack",
        },
        {
            "id": "x2",
            "user": "u1",
            "speaker": "Lee",
            "text": "I love green tea.",
            "at": "2026-11-20T10:00:00Z",
            "expect": [{"type": "Preference", "keywords": ["tea"]}],
            "outcome": "stored",
            "sensitive": ["green tea", "espresso"],  # a word that *is* stored: one leak
            "kind": "preference",
        },
        {
            "id": "x3",
            "user": "u1",
            "speaker": "Lee",
            "text": "what's the capital of Peru?",
            "at": "2026-11-20T11:00:00Z",
            "expect": [],
            "outcome": "none",
            "kind": "question",
        },
    ]
    data = tmp_path / "turns.jsonl"
    data.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    out = tmp_path / "result.json"
    args = ["bench", "extraction", "--data", str(data), "--similarity", "lexical"]
    result = CliRunner().invoke(app, [*args, "--repeat", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.stdout + result.stderr
    summary = json.loads(out.read_text(encoding="utf-8"))["summary"]
    assert summary["identifier_tokens"] == 3 and summary["identifier_fidelity"] == 0.667
    assert summary["sensitive_words"] == 2 and summary["sensitive_leaks"] == 1
    assert summary["sensitive_leak_turns"] == 1
    assert summary["silence_by_kind"] == {"question": 1.0}
    assert summary["question_chitchat_silence"] == 1.0
