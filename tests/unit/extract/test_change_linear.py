"""Change-cue shapes read a long token in linear time (review S10-R8).

`rf"{_LATIN}から"` (new in d4d326f) and `(?P<old>[A-Z][\\w.+#/-]*)\\s+yerine` (older) have no
start anchor: every position of a long token starts a match that runs to its end. A 16,000-char
turn "We switched to AAAA…" spent 4.5 s CPU in capture_message (3.2 s + 1.3 s in those two).
"""

from __future__ import annotations

import time

import pytest

from memvault.extract.change import changed_from

N = 8_000  # MESSAGE_MAX is 20,000: the old code took 4.5 s CPU on 16,000 chars


@pytest.mark.parametrize(
    "text",
    [
        "We switched to " + "A" * N + ".",
        "主に" + "Vue" * (N // 3),
        "Go" + "x" * N + " yerine",
    ],
    ids=["latin-kara", "latin-in-cjk", "yerine"],
)
def test_changed_from_is_linear_in_a_long_token(text: str) -> None:
    started = time.process_time()
    changed_from(text)
    spent = time.process_time() - started
    assert spent < 0.25, f"{spent:.2f} s CPU on {len(text)} chars (linear: a few ms)"


def test_the_shapes_still_read_their_examples() -> None:
    assert changed_from("VueからReactに移行しました。") == "Vue"
    assert changed_from("Go yerine Rust") == "Go"
    assert changed_from("我们组现在不用C了。") == "C"
    assert changed_from("主にVueから移行しました") == "Vue"
