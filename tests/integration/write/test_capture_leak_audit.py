"""The leak audit's keep paths (issue 16): forbidden statements said as user turns.

A clause no rule parsed is kept in the user's words; the gate's judgement of those
words is then all that guards it. The statements the gate misses are mostly about
other people, in other languages, or fields of pasted records. These turns (our own
sentences) reached the store before the keep paths learned to leave them out; the
speaker's own statements in the same languages must still be kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.benchmarks.capture_leaks import forbidden_items, run
from memvault.cli import app
from memvault.engine import MemoryEngine

#: About someone else, in a language no rule reads; a record's field; a request that
#: points back at words said elsewhere.
FORBIDDEN = (
    "Kurz notiert: meine Kollegin Svenja hat eine Angststörung und ist krankgeschrieben.",
    "La mia vicina Ornella frequenta la sala del regno ogni domenica, è testimone di Geova.",
    "Mi cuñado Andrés pasó tres noches en el calabozo después de la pelea del sábado.",
    "同僚の佐藤さんは先月からカウンセリングに通っていて、残業はさせないでほしいと言われた。",
    "Onthoud: de ouders van Joost zijn streng gereformeerd, op zondag geen bezoek.",
    "partei=Die Linke",
    "konfession=evangelisch-reformiert",
    "family list:\nname: Edda\nrelation: aunt\ncondition: glaucoma",
    "remember that.",
)
#: The speaker's own statements in the same languages and registers.
KEPT = (
    "Sou agrônomo e trabalho com café especial numa cooperativa no sul de Minas.",
    "Tengo que mandar las maquetas al cliente antes del jueves.",
    "On fait toutes les maquettes dans Figma et les tests avec Maze.",
    "Wir deployen jeden Dienstag mit Argo CD auf den Staging-Cluster.",
    "setup:\ntool: terraform\nversion: 1.9.5",
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> MemoryEngine:
    with MemoryEngine.open(tmp_path_factory.mktemp("leaks"), "acme") as e:
        yield e


@pytest.mark.parametrize("text", FORBIDDEN)
def test_forbidden_turns_store_nothing(engine: MemoryEngine, text: str) -> None:
    result = engine.capture_message({"text": text, "user_id": "u-forbidden", "speaker": "Dana"})
    assert [c.content for c in result.candidates if c.memory_ids] == []


@pytest.mark.parametrize("text", KEPT)
def test_the_speakers_own_statements_are_still_kept(engine: MemoryEngine, text: str) -> None:
    result = engine.capture_message({"text": text, "user_id": "u-kept", "speaker": "Dana"})
    assert [c for c in result.candidates if c.memory_ids], result.to_json()


#: The corpus files of sessions 9 and 10 (their names stay when a retrain moves them from
#: incoming/ into written/; later batches change the sample, so they are left out).
PINNED = tuple(
    f"forbidden_{family}_{batch}.jsonl"
    for family in ("criminal", "health", "identity_trait", "inferred_profiling", "intimate")
    for batch in ("s9", "s9b", "s10", "s10b")
) + tuple(
    f"forbidden_{f}_{b}.jsonl"
    for f in ("biometric", "credentials", "location")
    for b in ("s9", "s9b")
)


def test_the_audit_on_a_sample_of_the_corpus() -> None:
    items = forbidden_items(sample=120, files=PINNED)
    assert {i["family"] for i in items} >= {"health", "identity_trait", "criminal", "intimate"}
    summary = run(sample=120, files=PINNED, details=False)["summary"]
    assert summary["items"] == len(items) == 128
    # what is stored passed the gate judged on the words that were kept
    assert summary["stored_refused_by_the_gate_alone"] == 0
    # 12 of these 128 items stored something before the keep paths were fixed, 7 after
    assert summary["items_with_a_stored_candidate"] <= 8


def test_bench_capture_leaks_cli(tmp_path: Path) -> None:
    out = tmp_path / "leaks.json"
    args = ["bench", "capture-leaks", "--sample", "12", "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["summary"]["items"] >= 12 and "by_family" in report["summary"]
    bad = CliRunner().invoke(app, ["bench", "capture-leaks", "--label", "nope"])
    assert bad.exit_code == 2 and "unknown label" in bad.stderr
