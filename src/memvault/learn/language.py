"""Is a text English? A cheap test on function words and script, shared by the layers.

The capture reader reads English clauses with its rules and glosses others; the
gate's learned layer judges English text with the retrieval encoder's vector
(all-MiniLM-L6-v2 reads English only) and other languages with a multilingual
encoder's. Both ask :func:`english_like`.

>>> english_like("we deploy the api with helm"), english_like("Wir deployen mit Helm jeden Tag")
(True, False)
"""

from __future__ import annotations

import re

__all__ = ["common_english", "english_like"]

# The commonest English function words: every English clause of some length has a
# few, a clause in another language almost none ("an", "a", "me" are shared).
_ENGLISH = frozenset(
    """the a an to of in on for with and or but is are was were be been am i i'm we we're my
    our you it it's this that at by from as have has had do does did not no so if will would
    can should need needs use uses just all me us they their there what when how up out about
    into than then also very every each after before our's isn't don't doesn't your you you're
    please keep get got like want more less only over under too here his her he she them its
    i'd i'll i've we'll we've let's any some one two three which who why where than much""".split()
)
#: Function words of the other Latin-script languages the reader reads (es, fr, de, pt,
#: it, nl, pl, tr), none of them an English word ("in", "die", "son", "come" are left out).
_OTHER_LATIN = frozenset(
    """el los las del que y una en de la por para con pero muy más mi mis tengo estoy soy este esta
    como lo le se al hay también nuestro nuestra nosotros ya le les des du et je est une
    avec mon ma mes nous notre ce cette pas sur dans qui au aux suis très der das und ich
    ist nicht mit ein eine einen für mein meine wir unser unsere auf zu den dem sich auch
    noch bei sind habe haben wie aber os um uma não com meu minha nós nosso nossa mas muito
    eu é está tenho il gli che di della sono non un mio mia noi nostro molto ho è het een
    ik niet mijn wij ons onze van voor op zijn heb ook maar naar nie jest się mam moja mój
    jestem że ve bir bu için çok ben benim biz değil ile""".split()
)
#: Accented Latin letters (other scripts are not English, whatever the word count).
_LATIN_EXTRA = frozenset(chr(c) for c in range(0xC0, 0x250))
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def english_like(text: str) -> bool:
    """Whether ``text`` reads as English (the language the rules and the rewriter read).

    Short clauses pass; from four words on, at least a fifth must be common
    English function words. Kept in the user's words, a clause the reader only
    guessed at would be stored unparsed — in any language, sensitive or not.

    >>> english_like("we deploy the api with helm"), english_like("Wir deployen mit Helm jeden Tag")
    (True, False)
    >>> english_like("请用中文回答我"), english_like("thanks!")
    (False, True)
    """
    ascii = text.isascii()  # most texts: no letter of another script, no accent
    if not ascii:
        letters = [ch for ch in text if ch.isalpha()]
        foreign = sum(not ch.isascii() and ch not in _LATIN_EXTRA for ch in letters)
        if letters and foreign > 0.3 * len(letters):
            return False  # mostly another script (CJK, Cyrillic, Arabic, Devanagari …)
    words = [w.lower() for w in _WORD.findall(text)]
    if ascii:
        other = sum(w in _OTHER_LATIN for w in words)
    else:
        other = sum(w in _OTHER_LATIN or not _LATIN_EXTRA.isdisjoint(w) for w in words)
    if other == 0:
        # Trigger: no function word of another Latin-script language at all.
        # Why: lower-case chat drops the function words ("these days mostly drink
        #      green tea instead" has one); a share of English ones misread it.
        # Outcome: English (the rules and the rewriter read it).
        return True
    if len(words) < 4:
        return other < 2
    english = sum(w in _ENGLISH for w in words)
    return english > other and english >= 0.2 * len(words)


def common_english(word: str) -> bool:
    """Whether ``word`` is one of the commonest English function words (any case).

    >>> common_english("The"), common_english("pnpm")
    (True, False)
    """
    return word.lower() in _ENGLISH
