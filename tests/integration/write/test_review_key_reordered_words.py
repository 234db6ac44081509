"""Review S18-R1: a key of the text's own words in another order says what the gate refuses.

A key that adds no word to the memory's text, or only a capture namespace ("fact.",
"note."), is read by the pattern detectors alone (8cf2305, 6ce53a4): the heads would only
read the text's words again. They would not: the key puts them in its own order. Beside
"Dana has a cold; the HIV charity run is on Sunday" the key "dana_has_hiv" is stored, and
beside "The new intern Dana is positive about the HIV clinic rota" the key
"note.dana_is_hiv_positive" — each refused as a key beside another text (S15-R3b). ``get``,
``list``, HTTP and a LangGraph item's key hand the key back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import MemoryEngine, NewMemory

COLD = "Dana has a cold; the HIV charity run is on Sunday"
ROTA = "The new intern Dana is positive about the HIV clinic rota"


def _add(tmp_path: Path, content: str, key: str) -> str:
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing") as engine:
        memory = NewMemory(content=content, key=key, type="Fact", category="KNOWLEDGE",
                           source_kind="USER_EXPLICIT", user_id="dana")  # fmt: skip
        return engine.add(memory).stop_reason.value


@pytest.mark.parametrize(
    ("content", "key"),
    [(COLD, "dana_has_hiv"), (COLD, "fact.dana_has_hiv"), (ROTA, "note.dana_is_hiv_positive")],
)
def test_a_key_that_reorders_the_texts_words_is_judged(
    tmp_path: Path, content: str, key: str
) -> None:
    assert _add(tmp_path, content, key) == "FORBIDDEN_CATEGORY"


@pytest.mark.xfail(strict=True, reason="S18-R1 (after dd81cd1): routed to the lead (building)")
def test_a_run_of_content_words_that_says_more_than_the_text_is_judged(tmp_path: Path) -> None:
    """dd81cd1 leaves a key that is a run of the text's content words (past stopwords) to the
    patterns: "dana_positive_hiv" is one beside ROTA ("Dana is positive about the HIV …")."""
    assert _add(tmp_path, ROTA, "dana_positive_hiv") == "FORBIDDEN_CATEGORY"


def test_the_same_key_beside_another_text_is_refused(tmp_path: Path) -> None:
    """What the key says is refused when it adds words (S15-R3b): the key is the fact."""
    for key in ("dana_has_hiv", "dana_positive_hiv"):
        assert _add(tmp_path, "The build runs nightly", key) == "FORBIDDEN_CATEGORY"


@pytest.mark.parametrize(
    ("content", "key"),
    [(COLD, None), (COLD, "fact.dana_has_a_cold"), (COLD, "hiv_charity_run_sunday")],
)
def test_the_text_and_keys_that_keep_its_sense_are_stored(
    tmp_path: Path, content: str, key: str | None
) -> None:
    """Near misses: the text alone, and keys of its words that say what it says."""
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing") as engine:
        extra = {"key": key} if key else {}
        memory = NewMemory(content=content, type="Fact", category="KNOWLEDGE",
                           source_kind="USER_EXPLICIT", user_id="dana", **extra)  # fmt: skip
        assert engine.add(memory).stop_reason.value == "SUCCESS_STORED"
