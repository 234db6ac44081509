"""The benchmark commands on tiny data in the official formats (interfaces the
evaluation uses: keys and shapes must stay stable)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.benchmarks.locomo import load_conversation, normalise_evidence
from memvault.cli import app

runner = CliRunner()

LOCOMO_KEYS = {
    "recall@1",
    "recall@5",
    "recall@10",
    "recall@20",
    "any@5",
    "any@10",
    "session_recall@5",
    "session_recall@10",
    "n_questions",
    "p50_ms",
    "p95_ms",
}


def _conversation() -> dict[str, object]:
    s1 = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey kitten named Pixel."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I am training for a marathon."},
        {
            "speaker": "Ana",
            "dia_id": "D1:3",
            "text": "Good luck with the race in Porto.",
            "blip_caption": "a runner at a finish line",
        },
    ]
    s2 = [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "I finished the marathon in four hours."},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Pixel knocked my coffee over today."},
    ]
    return {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:00 pm on 3 May, 2023",
        "session_1": s1,
        "session_2_date_time": "2:00 pm on 9 June, 2023",
        "session_2": s2,
        "session_3_date_time": "3:00 pm on 1 July, 2023",
        "qa": [
            {
                "question": "What is the name of Ana's kitten?",
                "answer": "Pixel",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "How long did Ben's marathon take?",
                "answer": "four hours",
                "evidence": ["D2:1; D1:2"],
                "category": 1,
            },
            {
                "question": "Where was the race?",
                "answer": "Porto",
                "evidence": ["D:1:03"],
                "category": 2,
            },
            {"question": "Unanswerable?", "answer": "", "evidence": ["D1:1"], "category": 5},
            {"question": "Bad evidence only", "answer": "", "evidence": ["D9:9"], "category": 3},
        ],
    }


def test_evidence_normalisation_and_loading(tmp_path: Path) -> None:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(_conversation()))
    conv = load_conversation(path)
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert [q.evidence for q in conv.questions] == [("D1:1",), ("D2:1", "D1:2"), ("D1:3",)]
    assert normalise_evidence(["D01:02"], {"D1:2"}) == ("D1:2",)


def test_bench_locomo_writes_the_documented_shape(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "c1.json").write_text(json.dumps(_conversation()))
    out = tmp_path / "out" / "locomo.json"
    result = runner.invoke(
        app,
        [
            "bench",
            "locomo",
            str(data),
            "--json",
            str(out),
            "--cache",
            str(tmp_path / "cache"),
            "--embedder",
            "hashing",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["benchmark"] == "locomo" and report["default_method"] == "default"
    assert report["default_mode"] == "add" and set(report["modes"]) == {"turns", "add", "capture"}
    assert report["results"] == report["modes"]["add"]
    assert {"default", "text", "vector", "fts"} <= set(report["results"])
    for method, metrics in report["modes"]["capture"].items():
        gaps = metrics["evidence_without_memory"]
        assert gaps["evidence_turns"] == 4, method
        assert set(report["modes"]["turns"][method]) >= LOCOMO_KEYS
    for metrics in report["results"].values():
        assert set(metrics) >= LOCOMO_KEYS
        assert metrics["n_questions"] == 3
        assert all(
            0.0 <= metrics[k] <= 1.0 for k in LOCOMO_KEYS - {"n_questions", "p50_ms", "p95_ms"}
        )
    assert set(report["by_category"]["default"]) == {"1", "2", "4"}
    assert "production" in report["mode_notes"]["add"]
    # the kitten question is answered by full text at rank 1 over raw turns,
    # and within the top 5 through add; capture's rule extractor writes nothing
    # for "I adopted a grey kitten named Pixel.", and the report says so
    assert report["by_category_modes"]["turns"]["text"]["4"]["recall@1"] == 1.0
    assert report["by_category_modes"]["add"]["text"]["4"]["recall@5"] == 1.0
    gaps = report["evidence_without_memory_by_mode"]["capture"]
    assert gaps["not_extracted"] >= 1 and gaps["evidence_turns"] == 4
    assert report["evidence_without_memory_by_mode"]["turns"] == {"evidence_turns": 4}
    # a second run reuses the cached index
    again = runner.invoke(
        app,
        [
            "bench",
            "locomo",
            str(data),
            "--json",
            str(out),
            "--cache",
            str(tmp_path / "cache"),
            "--embedder",
            "hashing",
            "--preset",
            "spec",
        ],
    )
    assert again.exit_code == 0, again.output
    assert json.loads(out.read_text())["default_method"] == "spec"
    only = runner.invoke(
        app,
        [
            "bench",
            "locomo",
            str(data),
            "--json",
            str(out),
            "--cache",
            str(tmp_path / "cache"),
            "--embedder",
            "hashing",
            "--mode",
            "turns",
        ],
    )
    assert only.exit_code == 0, only.output
    report = json.loads(out.read_text())
    assert set(report["modes"]) == {"turns"} and report["default_mode"] == "turns"
    bad = runner.invoke(app, ["bench", "locomo", str(data), "--json", str(out), "--mode", "raw"])
    assert bad.exit_code == 2 and "unknown mode" in bad.output


def test_bench_longmemeval_writes_the_documented_shape(tmp_path: Path) -> None:
    question = {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "What breed is my dog?",
        "question_date": "2023/05/01 (Mon) 10:00",
        "answer": "beagle",
        "answer_session_ids": ["s2"],
        "haystack_session_ids": ["s1", "s2"],
        "haystack_dates": ["2023/04/01 (Sat) 10:00", "2023/04/02 (Sun) 10:00"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "Help me plan a trip to Rome."},
                {"role": "assistant", "content": "Sure."},
            ],
            [
                # a pasted table: tabs stay content, the bell and NUL are removed
                {"role": "user", "content": "breed\tname\x07\nbeagle\tRex\x00"},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "My dog is a beagle named Rex.", "has_answer": True},
                {"role": "assistant", "content": "Cute!"},
            ],
        ],
    }
    abstain = dict(question, question_id="q2_abs")
    broken = dict(question, question_id="q3", haystack_sessions=None)
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([question, abstain, broken]))
    out = tmp_path / "lme-out.json"
    result = runner.invoke(
        app,
        [
            "bench",
            "longmemeval",
            str(path),
            "--json",
            str(out),
            "--cache",
            str(tmp_path / "c"),
            "--embedder",
            "hashing",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    keys = {
        "turn_any@5",
        "turn_all@5",
        "turn_any@10",
        "turn_all@10",
        "turn_ndcg@10",
        "session_any@5",
        "session_all@5",
        "session_any@10",
        "session_all@10",
        "n_questions",
        "p50_ms",
    }
    assert report["benchmark"] == "longmemeval" and report["default_mode"] == "add"
    for mode, by_method in report["modes"].items():
        for metrics in by_method.values():
            assert keys <= set(metrics) and metrics["n_questions"] == 1, mode
        assert by_method["text"]["turn_any@5"] == 1.0, mode
    assert "evidence_without_memory" in report["modes"]["capture"]["default"]
    assert report["results"] == report["modes"]["add"]
    # the broken question is recorded, the run went on
    assert [f["question_id"] for f in report["failures"]] == ["q3"]
    # nothing failed to be written: the control characters did not refuse the table
    assert report["index"]["add"]["turns_without_memory"] == {}
    assert report["index"]["turns"]["turns_without_memory"] == {}


def test_bench_errors_are_one_line(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["bench", "locomo", str(tmp_path / "nope"), "--json", "x.json"])
    assert missing.exit_code == 2 and "no such file" in missing.output
    bad_k = runner.invoke(app, ["bench", "locomo", str(tmp_path), "--json", "x.json", "--k", "one"])
    assert bad_k.exit_code == 2
    bad_preset = runner.invoke(
        app, ["bench", "locomo", str(tmp_path), "--json", "x.json", "--preset", "zzz"]
    )
    assert bad_preset.exit_code == 2 and "unknown preset" in bad_preset.output
    for data, says in ((tmp_path / "nope.json", "no such file"), (tmp_path, "is a folder")):
        lme = runner.invoke(app, ["bench", "longmemeval", str(data), "--json", "x.json"])
        assert lme.exit_code == 2 and says in lme.output


def test_bench_perf_small(tmp_path: Path) -> None:
    out = tmp_path / "perf.json"
    result = runner.invoke(
        app,
        [
            "bench",
            "perf",
            "--n",
            "200",
            "--queries",
            "5",
            "--json",
            str(out),
            "--embedder",
            "hashing",
        ],
    )
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())["results"]["200"]
    assert row["search_default_p50_ms"] > 0 and row["adds_per_s_no_embedding"] > 0


def test_gold_ids_never_reach_the_store(tmp_path: Path) -> None:
    """Session ids (LongMemEval's answer_… ids) stay in the benchmark."""
    from memvault.benchmarks.longmemeval import run_longmemeval

    question = {
        "question_id": "q1",
        "question": "What is my dog called?",
        "question_date": "2023/05/01 (Mon) 10:00",
        "answer_session_ids": ["answer_a1"],
        "haystack_session_ids": ["noise_n1", "answer_a1"],
        "haystack_dates": ["2023/04/01 (Sat) 10:00", "2023/04/02 (Sun) 10:00"],
        "haystack_sessions": [
            [{"role": "user", "content": "I like hiking."}],
            [{"role": "user", "content": "My dog is called Rex.", "has_answer": True}],
        ],
    }
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([question]))
    cache = tmp_path / "c"
    run_longmemeval(path, methods=("text",), modes=("turns", "add"), cache=cache, embedder=None)
    for db in cache.rglob("*.db*"):
        assert b"answer_a1" not in db.read_bytes() and b"noise_n1" not in db.read_bytes()


def test_no_item_stops_a_recall_bench(tmp_path: Path) -> None:
    """Items a held-out file may hold: a non-object, a question without text, a
    malformed turn, an empty turn, control characters and a 20,000-character turn.
    Each bad one is recorded; the good question is scored; nothing crashes."""
    good = {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "What breed is my dog?",
        "question_date": "2023/05/01 (Mon) 10:00",
        "answer": "beagle",
        "answer_session_ids": ["s1"],
        "haystack_session_ids": ["s1"],
        "haystack_dates": ["2023/04/01 (Sat) 10:00"],
        "haystack_sessions": [
            [
                None,
                "not a turn",
                {"role": "user", "content": ""},
                {"role": "user", "content": "\x1b[31mred\x1b[0m alert\x7f and a\x0bvertical tab"},
                {"role": "user", "content": "The weather was mild and we read. " * 600},
                {"role": "user", "content": "My dog is a beagle named Rex.", "has_answer": True},
            ]
        ],
    }
    textless = {k: v for k, v in good.items() if k != "question"} | {"question_id": "q2"}
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([good, 17, textless, None]))
    out = tmp_path / "out.json"
    args = ["--cache", str(tmp_path / "c"), "--embedder", "hashing", "--mode", "add,capture"]
    result = runner.invoke(app, ["bench", "longmemeval", str(path), "--json", str(out), *args])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["results"]["default"]["n_questions"] == 1
    assert report["results"]["text"]["turn_any@10"] == 1.0
    assert sorted(f["question_id"] for f in report["failures"]) == ["?", "?", "q2"]
    # the huge turn became several memories; the control characters were no refusal
    assert report["index"]["add"]["memories"] >= 40
    assert report["index"]["add"]["turns_without_memory"] == {}
    # a LoCoMo file that is not a conversation is recorded beside a good one
    data = tmp_path / "locomo"
    data.mkdir()
    (data / "bad.json").write_text(json.dumps({"conversation": {"session_1": ["oops"]}}))
    (data / "good.json").write_text(json.dumps(_conversation()))
    result = runner.invoke(
        app, ["bench", "locomo", str(data), "--json", str(out), *args[:4], "--mode", "add"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert [f["file"] for f in report["failures"] if "file" in f] == ["bad.json"]
    assert report["results"]["default"]["n_questions"] == 3
