"""REVIEW S14-R1: a key whose words begin the text is not judged, whatever it holds.

70ae271 / 2780130 skip the ``key`` field in every detector group when its words are the
first words of the text (``Prepared.key_is_slug``: "a slug of the text"), so that a
derived, cut key is not read as a bare instruction. The comparison reads words only
(``\\w+``): punctuation that makes the key mean something the text does not — the dot
and comma of GPS coordinates — is dropped, so a key "home 40.7128,-74.0060" beside the
text "home 40 7128 74 0060 is where we meet" is stored, and a get, a listing or a
LangGraph item hands the coordinates back. The same key beside any other text is
FORBIDDEN_CATEGORY (detector.location.coordinates).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.write.spec import NewMemory

COORDS_KEY = "home 40.7128,-74.0060"
WORDS_OF_IT = "home 40 7128 74 0060 is where we meet"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[MemoryEngine]:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as e:
        yield e


def _note(content: str, key: str) -> NewMemory:
    return NewMemory(
        content=content,
        key=key,
        type="Fact",
        category="KNOWLEDGE",
        source_kind="USER_EXPLICIT",
        user_id="dana",
    )


def test_coordinates_in_a_key_that_starts_like_the_text_are_refused(
    engine: MemoryEngine,
) -> None:
    result = engine.add(_note(WORDS_OF_IT, COORDS_KEY))
    assert result.stop_reason.value == "FORBIDDEN_CATEGORY", result
    assert [m.key for m in engine.list_memories()] == []


def test_coordinates_in_a_key_beside_another_text_are_refused(engine: MemoryEngine) -> None:
    result = engine.add(_note("we meet at the usual place", COORDS_KEY))
    assert result.stop_reason.value == "FORBIDDEN_CATEGORY", result


def test_a_key_that_is_the_texts_own_slug_is_stored(engine: MemoryEngine) -> None:
    result = engine.add(_note("The canteen closes at three on Fridays", "the_canteen_closes"))
    assert result.ok, result
