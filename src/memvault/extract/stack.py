"""The stack's facts: a clause that names the tool a kind of work is done with.

"Payments go via Mollie", "Je dessine mes patrons dans Inkscape", "Paczki wysyłam
przez InPost", "I scan the sketches with an Epson flatbed", "フレームワークは Nuxt で
書いています": a tool, a service or a product named after the word that says it is
used (a preposition of place or means, or a verb of use) — how the speaker's work
is done, a lasting fact. The reader reads such clauses unsure in the languages it
has few clauses of (fact 0.2, a weak one-off, a question without a question mark)
and drops them; the tool's name is the part that cannot be recalled from anything
else.

:func:`tool_named` finds the name: a word with a capital (not the clause's first),
a word with an inner capital ("digiKam") or a digit ("S3"), after a cue word of one
of the languages the reader reads; in Chinese, Japanese or Korean text a word of
Latin letters beside a particle or verb of use. Never in a question, an
exclamation, a request to the listener ("send me …"), a clause about today or the
next hours (its glosses included), a clause naming a forbidden family, or a date
word ("on Monday", "in March").

>>> tool_named("Betalingen lopen via Mollie."), tool_named("I scan the sketches with an Epson")
('Mollie', 'Epson')
>>> tool_named("We met on Monday."), tool_named("Is it in Notion?")
(None, None)
"""

from __future__ import annotations

import re

from memvault.extract import when
from memvault.extract.gloss import glosses
from memvault.extract.sensitive import sensitive_words

__all__ = ["tool_named"]

#: Words a tool is named after, in the languages the reader reads: English, Spanish,
#: Portuguese, Italian, French, Catalan, Romanian, German, Dutch, the Scandinavian
#: languages, Polish, Czech, Turkish, Russian and Greek.
_CUES = (
    "use|uses|using|via|through|with|in|into|on|onto|from",
    "en|con|por|mediante|uso|usamos|utilizo|utilizamos|usa|usan",
    "no|na|nos|nas|em|com|pelo|pela|pelos|pelas",
    "su|da|tramite|usiamo|utilizziamo",
    "dans|sur|avec|par|sous|utilise|utilisons|amb|cu|pe|prin|în|folosim|folosesc",
    "mit|über|auf|per|nutzen|nutze|verwenden|verwende|op|met|gebruiken|gebruik",
    "i|på|med|genom|använder|bruger|bruker",
    "w|we|przez|z|używam|używamy|v|ve|přes|s|používáme|ile",
    "на|в|через|с|σε|στο|στη|με",
)
_ARTICLES = "a|an|the|our|my|el|la|los|las|le|les|il|lo|o|os|as|der|die|das|den|dem|het|een"
#: A date's words are no tool ("on Monday", "in March", "in 2027", "in Q3").
_DATE_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april"
    " may june july august september october november december jan feb mar apr jun jul aug"
    " sep sept oct nov dec q1 q2 q3 q4".split()
)


def _a_date(name: str) -> bool:
    word = name.lower().removesuffix("s")
    return word in _DATE_WORDS or (len(word) == 4 and word.isdigit() and word[:2] in {"19", "20"})


#: The name: a capital ("Mollie", "LibreOffice"), an inner capital ("digiKam") or a
#: digit ("S3", "Postgres 16") — read case-sensitively, the cue and article are not.
_AFTER_CUE = re.compile(
    rf"(?<![\w'’])(?i:{'|'.join(_CUES)})\s+(?i:(?:{_ARTICLES})\s+)?[\"“«]?"
    r"([A-Z][\w.+#&-]*|[a-z]+[A-Z][\w.+#-]*|[\w.+#-]*\d[\w.+#-]*)"
)
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
#: Chinese 用 / 使用 / 上, Japanese で / を使, Korean 로 / 으로 / 에서 / 써.
_CJK_CUE = re.compile(r"用|使用|上|で|を使|로|으로|에서|써")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]+")
#: A request to the listener ("Message me the link to …", "Send us the Figma file"):
#: the moment's errand, not how work is done.
_ASKS_LISTENER = re.compile(r"(?:please\s+)?\w+\s+(?:me|us)\b", re.I)
#: Glosses of another language's words that put a clause in the next hours or days.
_NOW_GLOSSES = frozenset(
    {"yesterday", "tomorrow", "tonight", "today", "last week", "next week", "this week"}
)


def tool_named(text: str) -> str | None:
    """The tool, service or product ``text`` says work is done with, or None.

    >>> tool_named("Llevo el inventario en Notion y la facturación en Holded.")
    'Notion'
    >>> tool_named("Zdjęcia porządkuję w digiKamie."), tool_named("We did it in 2024.")
    ('digiKamie', None)
    >>> tool_named("フレームワークは Nuxt で書いています。"), tool_named("今日は Nuxt で書く。")
    ('Nuxt', None)
    """
    clause = text.strip()
    if not clause or clause.endswith(("?", "？", "!", "！")):
        return None
    if (
        when.TODAY.search(clause)
        or when.TODAY_OTHER.search(clause)
        or when.TEMPORARY.search(clause)
        or _NOW_GLOSSES.intersection(glosses(clause))
        or sensitive_words(clause)
        or _ASKS_LISTENER.match(clause)
    ):
        return None
    if _CJK.search(clause):
        if _CJK_CUE.search(clause) is None:
            return None
        latin = _LATIN_WORD.search(clause)
        return latin.group(0).rstrip(".") if latin is not None else None
    for match in _AFTER_CUE.finditer(clause):
        name = match.group(1).rstrip(".,;:")
        if match.start(1) == 0 or not name or name in {"I", "I'm", "I've"}:
            continue
        if _a_date(name):
            continue
        return name
    return None
