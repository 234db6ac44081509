"""The characters normalisation removes or folds: invisibles and Latin look-alikes.

:func:`~memvault.policy.normalize.normalize` drops :data:`INVISIBLE` characters and folds
:data:`HOMOGLYPHS` to Latin inside Latin-looking words (:func:`fold_homoglyphs`), so
"раѕѕwоrd" written with Cyrillic letters reads as "password".

>>> fold_homoglyphs("раѕѕwоrd")
('password', 5)
>>> fold_homoglyphs("пароль")  # a Russian word stays Russian
('пароль', 0)
"""

from __future__ import annotations

import re

__all__ = ["HOMOGLYPHS", "INVISIBLE", "LATIN_LOOKALIKES", "fold_homoglyphs"]

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

# Zero-width, bidi controls, soft hyphen, word joiners, BOM, Mongolian vowel separator, tag chars.
INVISIBLE = frozenset(
    [
        *(0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFEFF, 0xFFA0),
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2070),
        *range(0xFE00, 0xFE10),
        *range(0xE0000, 0xE0080),
    ]
)

# Cyrillic and Greek letters that look like Latin ones.
HOMOGLYPHS = {
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "һ": "h", "ɡ": "g", "ӏ": "l",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W",
    "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ϲ": "c", "ϳ": "j", "ѵ": "v",
    "ԍ": "G",
    # Latin small capitals and IPA letters (Latin script, not ASCII): "ɪɢɴᴏʀᴇ ᴀʟʟ"
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i",
    "ᴊ": "j", "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s",
    "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z", "ɑ": "a", "ɩ": "i", "ɒ": "a",
    # Armenian letters that look like Latin ones (folded inside a Latin word only)
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g", "զ": "q", "ա": "w",
}  # fmt: skip
#: non-ASCII letters of the Latin script among the homoglyphs: a text of small capitals
#: is Latin text ("mostly Latin" below), an Armenian or Cyrillic one is not
LATIN_LOOKALIKES = frozenset("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢɑɩɒ")


def fold_homoglyphs(text: str) -> tuple[str, int]:
    if not any(c in HOMOGLYPHS for c in text):
        return text, 0
    letters = [c for c in text if c.isalpha()]
    latin = sum(1 for c in letters if c.isascii() or c in LATIN_LOOKALIKES)
    mostly_latin = latin >= 0.5 * max(1, len(letters))
    chars = list(text)
    count = 0
    for m in _WORD.finditer(text):
        word = m.group()
        has_latin = any(c.isascii() or c in LATIN_LOOKALIKES for c in word)
        if not (has_latin or mostly_latin):
            continue
        for k, c in enumerate(word):
            rep = HOMOGLYPHS.get(c)
            if rep is not None:
                chars[m.start() + k] = rep
                count += 1
    return "".join(chars), count
