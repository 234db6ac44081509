"""The shipped gate weights were trained on the corpus as it is now, and on no evaluation item.

Cheap (no training): digests and the decontamination pass, a few seconds. A corpus
change without retraining fails here with the command to run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault.policy.learned import GATE_MANIFEST
from memvault.policy.training import decontaminate
from memvault.policy.training.decontaminate import contaminated, evaluation_texts, tokens
from memvault.policy.training.train import (
    TRAIN_COMMAND,
    corpus_digest,
    decontaminated,
    load_rows,
    load_written,
)

RETRAIN = (
    f"run `{TRAIN_COMMAND}` (it regenerates corpus.jsonl, retrains and rewrites "
    "src/memvault/policy/weights/), then commit the weights and record them in "
    "docs/RELEASE_LOG.md"
)


def manifest() -> dict[str, object]:
    data: dict[str, object] = json.loads(GATE_MANIFEST.read_text(encoding="utf-8"))
    return data


def test_the_shipped_weights_were_trained_on_the_current_corpus() -> None:
    recorded = manifest()["training_corpus"]
    assert isinstance(recorded, dict)
    assert recorded["sha256"] == corpus_digest(), (
        "the training corpus (corpus.jsonl + training/written/*.jsonl) changed since the "
        f"shipped gate weights were trained: {RETRAIN}"
    )


def test_the_recorded_decontamination_is_current() -> None:
    recorded = manifest()["decontamination"]
    assert isinstance(recorded, dict)
    _kept, now = decontaminated(load_rows() + load_written())
    ids = set(now["dropped_ids"])
    if now["missing_sources"]:  # a clone without ../shared: its drops cannot be recomputed
        assert ids <= set(recorded["dropped_ids"]), f"an evaluation set changed: {RETRAIN}"
    else:
        assert ids == set(recorded["dropped_ids"]), (
            f"the evaluation sets changed what training must leave out: {RETRAIN}"
        )


def test_equal_and_near_items_are_dropped_and_counted_per_source() -> None:
    train = [
        "Ship the invoice run on Friday.",  # equal after normalisation
        "ship the invoice run on friday please",  # near: 6 of 7 words
        "the invoice run ships on monday",  # not near
        "我们周五发布",  # unspaced script: one token a character
        "lunch at noon",
    ]
    sources = {"b.jsonl": ["我们周五发布。"], "a.jsonl": ["ship the invoice run on friday!"]}
    found = contaminated(train, sources)
    assert found.dropped == [0, 1, 3]
    assert (found.exact, found.near) == (2, 1)
    assert found.per_source == {"a.jsonl": 2, "b.jsonl": 1}
    assert len(tokens("我们周五发布")) == 6


def test_a_missing_source_is_skipped_and_reported(tmp_path: Path) -> None:
    (tmp_path / "bench" / "data").mkdir(parents=True)
    (tmp_path / "bench" / "data" / "x_fresh_1.jsonl").write_text(
        json.dumps({"id": "1", "text": "we deploy on tuesdays", "expect": ["a b"]}) + "\n",
        encoding="utf-8",
    )
    sources, missing = evaluation_texts(tmp_path, Path("../nowhere/dev.jsonl"))
    assert sources == {"x_fresh_1.jsonl": ["we deploy on tuesdays"]}
    assert missing == ["../nowhere/dev.jsonl"]


@pytest.mark.skipif(
    not (decontaminate._ROOT / decontaminate.DEV_PATH).is_file(), reason="needs ../shared/data"
)
def test_no_training_item_equals_or_nears_a_dev_or_fresh_item_after_decontamination() -> None:
    kept, report = decontaminated(load_rows() + load_written())
    assert report["missing_sources"] == []
    sources, _ = evaluation_texts()
    again = contaminated([str(r["text"]) for r in kept], sources)
    assert again.dropped == []  # counts only: no item is printed
