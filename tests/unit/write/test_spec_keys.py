"""``write.spec.derive_key``: the default key, a slug of the first eight words."""

from __future__ import annotations

import re
import sys

from memvault.write.spec import derive_key


def _by_characters(content: str) -> str:
    """The definition: every character that is not ``str.isalnum()`` separates words."""
    words = "".join(c if c.isalnum() else " " for c in content.lower()).split()
    return "_".join(words[:8])[:128] or "memory"


def test_a_word_is_a_run_of_isalnum_characters_in_every_script() -> None:
    alnum = re.compile(r"[^\W_]")
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        assert ch.isalnum() is (alnum.fullmatch(ch) is not None), hex(code)


def test_the_key_is_the_slug_of_the_first_eight_words() -> None:
    texts = [
        "Prefers concise answers!",
        "",
        "  ___  ",
        "snake_case_name and more words than eight, really: nine ten",
        "İstanbul ıs big; Straße ﬁne ǅemal",
        "１２３ ＡＢＣ full width",
        "x" * 300,
        "٣٣ arabic digits ²³ ½ and e\u0301 accents",
        "日本語のテキスト です",
        "emoji 🎉 party 🎉 time",
    ]
    for text in texts:
        assert derive_key(text) == _by_characters(text), text
    assert derive_key("Prefers concise answers!") == "prefers_concise_answers"
    assert derive_key("!!!") == "memory"
    assert len(derive_key("x" * 300)) == 128
