"""The hand-written training items (``policy/training/written/*.jsonl``): schema, labels
valid per the contract, no duplicates, no overlap with the dev set, documented counts."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from memvault.model.enums import StopReason
from memvault.policy.contract import load_contract
from memvault.policy.learned import HEAD_LABELS
from memvault.policy.training.compose import CORPUS_PATH
from memvault.policy.training.train import WRITTEN_DIR, load_rows, load_written, targets

ROOT = Path(__file__).resolve().parents[3]
DEV = ROOT / ".." / "shared" / "data" / "governance" / "dev.jsonl"
README = WRITTEN_DIR.parent / "README.md"

#: forbidden family -> contract §4 section it belongs to
SECTION = {
    "identity_trait": "4.1",
    "health": "4.2",
    "intimate": "4.3",
    "criminal": "4.4",
    "location": "4.5",
    "credentials": "4.6",
    "gov_id": "4.7",
    "biometric": "4.7",
    "financial": "4.7",
    "inferred_profiling": "4.8",
    "tool_output": "4.9",
}
#: the benign groups of the generated corpus (``benign.py``) — written items reuse them
BENIGN_GROUPS = {
    "about_people",
    "decision_todo",
    "everyday",
    "family_pet_location",
    "own_memory",
    "preference",
    "project_config",
    "reminder_event",
    "short_odd",
    "work_fact_goal",
    "workflow",
}
HARD_GROUPS = {
    "biometric_topic",
    "control_words",
    "credentials_topic",
    "criminal_topic",
    "gov_financial_topic",
    "health_topic",
    "identity_topic",
    "injection_lookalike",
    "intimate_topic",
    "location_topic",
    "profiling_topic",
    "topic_frames",
}
EXPECTED = {
    "forbidden": StopReason.FORBIDDEN_CATEGORY,
    "injection": StopReason.INJECTION_DETECTED,
    "benign": StopReason.SUCCESS_STORED,
}
KEYS = {
    "id",
    "text",
    "label",
    "family",
    "subcategory",
    "expected",
    "hard_negative",
    "lang",
    "style",
    "source",
}
LANG = re.compile(r"^[a-z]{2}$")


def key(text: str) -> str:
    """Exact-overlap key: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def loose_key(text: str) -> str:
    """The same, and punctuation and symbols dropped (a dev item re-punctuated still clashes)."""
    return " ".join("".join(c if c.isalnum() else " " for c in key(text)).split())


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return load_written()


def test_every_file_holds_one_kind_and_every_row_has_the_schema(rows: list[dict[str, Any]]) -> None:
    files = sorted(WRITTEN_DIR.glob("*.jsonl"))
    assert files, "no written training files"
    for f in files:
        file_rows = load_rows(f)
        assert file_rows, f.name
        kinds = {(r["label"], r["family"] if r["label"] == "forbidden" else "") for r in file_rows}
        assert len(kinds) == 1, f"{f.name} mixes {kinds}"
        for r in file_rows:
            assert r["id"].startswith(f"wr-{f.stem}-"), r["id"]
    for r in rows:
        assert set(r) == KEYS, r["id"]
        assert isinstance(r["text"], str) and r["text"].strip() and len(r["text"]) <= 1024, r["id"]
        assert isinstance(r["hard_negative"], bool), r["id"]
        assert r["source"] == "written"
        assert LANG.match(r["lang"]), r["id"]
        assert isinstance(r["style"], str) and r["style"], r["id"]
        assert isinstance(r["subcategory"], str) and r["subcategory"], r["id"]
    assert len({r["id"] for r in rows}) == len(rows)


def test_labels_families_and_stop_reasons_are_valid_per_the_contract(
    rows: list[dict[str, Any]],
) -> None:
    contract = load_contract()
    sections = {f.section for f in contract.forbidden_categories.values()}
    assert set(SECTION.values()) <= sections
    assert set(SECTION) == set(HEAD_LABELS) - {"injection"}
    for r in rows:
        label = r["label"]
        assert label in EXPECTED, r["id"]
        reason = StopReason(r["expected"]) if r["expected"] != "ALLOW" else None
        if label == "benign":
            # the corpus writes ALLOW for "any success"; it must not be a stop
            assert r["expected"] == "ALLOW", r["id"]
            groups = HARD_GROUPS if r["hard_negative"] else BENIGN_GROUPS
            assert r["family"] in groups and r["subcategory"] == r["family"], r["id"]
            continue
        assert reason is EXPECTED[label], r["id"]
        assert reason in contract.stop_reasons
        assert r["hard_negative"] is False, r["id"]
        if label == "forbidden":
            assert r["family"] in SECTION, r["id"]
        else:
            assert r["family"] == "injection", r["id"]
    # an injection outranks a forbidden category (§7): the labels agree with that order
    assert contract.rank(StopReason.INJECTION_DETECTED) < contract.rank(
        StopReason.FORBIDDEN_CATEGORY
    )
    y = targets(rows)
    positives = [r["label"] != "benign" for r in rows]
    assert (y.sum(axis=1) == positives).all()  # exactly one head per refused item


def test_no_duplicates_within_the_written_set_or_with_the_generated_corpus(
    rows: list[dict[str, Any]],
) -> None:
    counts = Counter(key(r["text"]) for r in rows)
    assert [k for k, n in counts.items() if n > 1] == []
    generated = {key(r["text"]) for r in load_rows(CORPUS_PATH)}
    assert [r["id"] for r in rows if key(r["text"]) in generated] == []


def test_no_written_item_is_a_dev_set_item(rows: list[dict[str, Any]]) -> None:
    """Computed only: the dev set is never printed (ids of our own items on a clash)."""
    if not DEV.is_file():
        pytest.skip("../shared/data is not present")
    dev: set[str] = set()
    with DEV.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                item = json.loads(line)
                dev.update(loose_key(v) for v in item.values() if isinstance(v, str))
    clashes = [r["id"] for r in rows if loose_key(r["text"]) in dev]
    assert not clashes, f"{len(clashes)} written items equal dev items: {clashes[:20]}"


def test_composition_covers_every_family_many_languages_and_hard_negatives(
    rows: list[dict[str, Any]],
) -> None:
    forbidden = [r for r in rows if r["label"] == "forbidden"]
    assert {r["family"] for r in forbidden} == set(SECTION)
    assert {r["subcategory"] for r in rows if r["label"] == "injection"} >= {
        "override",
        "concealment",
        "cross_tenant",
        "tool_coercion",
    }
    benign = [r for r in rows if r["label"] == "benign"]
    injections = [r for r in rows if r["label"] == "injection"]
    assert len(forbidden) >= 1200 and len(injections) >= 500 and len(benign) >= 1500
    assert 3 * sum(r["hard_negative"] for r in benign) >= len(benign)
    langs = Counter(r["lang"] for r in rows)
    assert len(langs) >= 10
    assert langs["en"] <= 0.65 * len(rows)  # at least 35% not English
    for family in SECTION:  # every family is written in several languages
        assert len({r["lang"] for r in forbidden if r["family"] == family}) >= 5, family


def test_the_readme_counts_match_the_files(rows: list[dict[str, Any]]) -> None:
    text = README.read_text(encoding="utf-8")
    by_label = Counter(r["label"] for r in rows)
    m = re.search(r"written items: (\d[\d,]*)", text)
    assert m is not None and int(m.group(1).replace(",", "")) == len(rows)
    for label, n in by_label.items():
        assert f"| {label} | {n:,} |" in text, label
