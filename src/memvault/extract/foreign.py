"""What a clause in another language keeps: the reader's word, kept word for word.

Neither the rules nor the pronoun rewriter read other languages, so a clause
in one is kept in the user's words (:func:`memvault.extract.reading.verbatim_candidate`)
or not at all, typed by the reader and by the cue words its glosses name
(:mod:`memvault.extract.gloss`): a sure durable reading keeps it; so does an
unsure durable one of a first-person statement that reads as surely durable as
the English keep rule asks; and so does the *lead* statement of a turn — the
turn's first sentence — when it names something ("Sou designer de produto numa
fintech em Recife", "Hola, soy Mateo y llevo el marketing de … en Sevilla") and
the durable labels hold most of the reader's belief: a turn opens with what it
is about, and the corpus has a few hundred clauses per language, not every wording.

>>> from datetime import date
>>> from memvault.extract.clause import Clause
>>> from memvault.extract.reader import Reading
>>> r = Reading("fact", 0.13, (("fact", 0.13), ("oneoff", 0.01)), 0.48, False, 0.92)
>>> clause = Clause("Sou designer de produto numa fintech em Recife", "Bia", date(2026, 12, 1))
>>> keep_other_language(clause, r, says=False, lead=True, bar=(0.8, 0.95))[0].content
'Sou designer de produto numa fintech em Recife.'
>>> keep_other_language(clause, r, says=False, lead=False, bar=(0.8, 0.95))
(None, 'silent:unread (not English, fact 0.13)')
"""

from __future__ import annotations

from dataclasses import replace

from memvault.extract.base import Candidate
from memvault.extract.clause import Clause
from memvault.extract.context import (
    about_replies,
    decision_said,
    favourite_said,
    stands_alone,
    wants_replies,
)
from memvault.extract.gloss import HABIT_GLOSS, NEED_GLOSS, REPLY_GLOSS, TASTE_GLOSSES, glosses
from memvault.extract.reader import Reading
from memvault.extract.reading import verbatim_candidate

__all__ = ["LEAD_MASS", "STATED_OTHER", "keep_other_language"]

#: What an unsure reading of a first-person clause in another language may keep: not an
#: event (where a stranger's illness or arrest is told) and never a silent reading — and
#: only when it reads as surely durable as the English keep rule asks (``keep.share`` or
#: ``keep.mass``).
STATED_OTHER = frozenset({"fact", "preference", "todo", "reminder", "goal", "decision"})

#: A turn's lead statement that names something is kept when the durable labels hold at
#: least this part of the reader's summed probabilities (validation sets 1–3: the turns'
#: first sentences this keeps are statements the labels expect, 3 to 1 against context).
LEAD_MASS = 0.85

#: Glosses that date a happening in the last days: it stays an event in any language.
_RECENT_GLOSSES = frozenset({"yesterday", "last week"})


def keep_other_language(
    clause: Clause,
    reading: Reading,
    *,
    says: bool,
    lead: bool,
    bar: tuple[float, float],
) -> tuple[Candidate | None, str]:
    """The candidate a durable reading of a clause in another language keeps, and why.

    ``says``: the clause is the speaker's first-person statement; ``lead``: it is
    in the turn's first sentence; ``bar``: the reader's English keep rule
    (``share``, ``mass``) an unsure stated reading must meet.
    """
    text = clause.text
    share, mass = bar
    sure = reading.sure or (
        says and reading.label in STATED_OTHER and (reading.share >= share or reading.mass >= mass)
    )
    if not sure and lead and reading.mass >= LEAD_MASS and stands_alone(text):
        # Trigger: the first sentence of a turn in another language, naming something,
        #          read as durable without standing out ("Hola, soy Mateo y llevo el
        #          marketing de una tienda online de café en Sevilla").
        # Why: a turn opens with what it is about; the reader knows the shape of a
        #      statement, not every wording, so its durable labels agree without one
        #      of them standing out.
        # Outcome: kept word for word, typed as below (a fact unless its words say more).
        sure = True
    if not sure:
        if not (wants_replies(text) or favourite_said(text)):
            return None, f"silent:unread (not English, {reading.label} {reading.score:.2f})"
        # "Cevapları Türkçe yazarsan sevinirim", "mi editor favorito es Helix":
        # how the answers should be, or a favourite — a taste however unsure
        reading = replace(reading, label="preference")
    hints = glosses(text)
    taste = favourite_said(text) or wants_replies(text)
    if (reading.label == "event" and not _RECENT_GLOSSES.intersection(hints)) or (
        reading.label == "preference"
        and REPLY_GLOSS not in hints
        and not TASTE_GLOSSES.intersection(hints)
        and not about_replies(text)
        and not taste
    ):
        # "mittlerweile sind wir auf Hetzner", "empecé a correr hace dos años": a
        # state of things or a life story, a fact (what happened yesterday or
        # last week stays an event); a preference in another
        # language says its taste ("me encanta", "je préfère", "请用中文")
        reading = replace(reading, label="fact")
    if reading.label == "decision" and not decision_said(text):
        # "devo aggiornare Next.js alla 15": no choice is said — a todo when
        # it says "need to", else the stack's fact
        reading = replace(reading, label="todo" if NEED_GLOSS in hints else "fact")
    if REPLY_GLOSS in hints or taste:
        if reading.label in {"fact", "event", "decision"}:
            # "Contéstame siempre en español": how the user wants replies
            reading = replace(reading, label="preference")
    elif (
        reading.label in {"preference", "event"}
        and HABIT_GLOSS in hints
        and not TASTE_GLOSSES.intersection(hints)
    ):
        # "Codziennie rano biegam …": a routine, as in English, not a taste
        reading = replace(reading, label="fact")
    word_for_word = verbatim_candidate(clause, reading)
    return word_for_word, f"reader.{reading.label} (verbatim)" + (
        "" if word_for_word else " (too short)"
    )
