"""``english_like``'s ASCII fast path answers exactly what the full test answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.learn.language import _ENGLISH, _LATIN_EXTRA, _OTHER_LATIN, _WORD, english_like


def _reference(text: str) -> bool:
    """The test as written before the fast path: every character looked at."""
    letters = [ch for ch in text if ch.isalpha()]
    foreign = sum(not ch.isascii() and ch not in _LATIN_EXTRA for ch in letters)
    if letters and foreign > 0.3 * len(letters):
        return False
    words = [w.lower() for w in _WORD.findall(text)]
    other = sum(w in _OTHER_LATIN or not _LATIN_EXTRA.isdisjoint(w) for w in words)
    if other == 0:
        return True
    if len(words) < 4:
        return other < 2
    english = sum(w in _ENGLISH for w in words)
    return english > other and english >= 0.2 * len(words)


_WORDS = [
    *sorted(_ENGLISH | _OTHER_LATIN),
    "deploy",
    "helm",
    "café",
    "über",
    "naïve",
    "東京",
    "мама",
    "x1",
    "İstanbul",
    "ÀÉÎ",
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=12), st.sampled_from([" ", ", ", "! ", "\n"]))
def test_the_fast_path_agrees_on_sentences_of_known_words(words: list[str], sep: str) -> None:
    text = sep.join(words)
    assert english_like(text) == _reference(text)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_the_fast_path_agrees_on_any_text(text: str) -> None:
    assert english_like(text) == _reference(text)


def test_known_answers() -> None:
    assert english_like("we deploy the api with helm")
    assert not english_like("Wir deployen mit Helm jeden Tag")
    assert not english_like("tengo dos hijos y un perro")
    assert not english_like("请用中文回答我")
    assert english_like("thanks!") and english_like("")
