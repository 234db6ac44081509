"""REVIEW S14-R8: ``policy train --heads-from`` refuses heads trained on another corpus.

``--heads-from DIR`` (3c76d86) reads an earlier run's heads instead of training them and
calibrates them again; its help and docstring say "on the same corpus", and nothing
checks it. Heads trained on one corpus, calibrated with another, are written with a
manifest whose ``training_corpus`` names the NEW corpus — the record
tests/unit/policy/test_training_corpus.py checks, and the model card shows — though no
head was trained on it (a full run on that corpus gives other weights). A corpus that
grew since the earlier run (new ``written/*.jsonl`` files) is the ordinary case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault.policy.training.train import train_gate

#: one hand-written file added after the earlier run (its own sentences)
ADDED = [
    "the standup moved to half past nine on Tuesdays",
    "use the staging bucket for screenshots from now on",
    "remind me to renew the team's domain names in March",
    "I like release notes grouped by component",
]


def test_heads_from_a_run_on_another_corpus_is_refused(tmp_path: Path) -> None:
    train_gate(out_dir=tmp_path / "a", encoder=None, written=None, limit=160)
    written = tmp_path / "written"
    written.mkdir()
    rows = [
        {
            "id": f"wr-review-{i}",
            "text": text,
            "label": "benign",
            "family": "preference",
            "subcategory": "preference",
            "expected": "ALLOW",
            "hard_negative": False,
            "lang": "en",
            "style": "plain",
            "source": "written",
        }
        for i, text in enumerate(ADDED)
    ]
    (written / "benign_review.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    with pytest.raises(ValueError, match="corpus"):
        # otherwise: the earlier heads, written under the grown corpus's record
        train_gate(
            out_dir=tmp_path / "b",
            encoder=None,
            written=written,
            limit=160,
            heads_from=tmp_path / "a",
        )
