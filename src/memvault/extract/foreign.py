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
>>> from memvault.extract.reader import MORE_OTHER, Reading
>>> r = Reading("fact", 0.13, (("fact", 0.13), ("oneoff", 0.01)), 0.48, False, 0.92)
>>> clause = Clause("Sou designer de produto numa fintech em Recife", "Bia", date(2026, 12, 1))
>>> keep_other_language(clause, r, says=False, lead=True, bar=(0.8, 0.95))[0].content
'Sou designer de produto numa fintech em Recife.'
>>> keep_other_language(clause, r, says=False, lead=False, bar=(0.8, 0.95))
(None, 'silent:unread (not English, fact 0.13)')
"""

from __future__ import annotations

import re
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
from memvault.extract.reader import MORE_OTHER, Reading
from memvault.extract.reading import verbatim_candidate
from memvault.learn.language import _OTHER_LATIN

#: Function words of the Latin-script languages the reader reads (the shared language
#: test's list, plus Swedish, Danish/Norwegian, Romanian and Czech ones).
_READ_WORDS = _OTHER_LATIN | MORE_OTHER

__all__ = [
    "LEAD_MASS",
    "STATED_OTHER",
    "asks_listener",
    "in_a_read_language",
    "introduces",
    "keep_other_language",
    "profile_reading",
    "profile_said",
]

#: What an unsure reading of a first-person clause in another language may keep: not an
#: event (where a stranger's illness or arrest is told) and never a silent reading — and
#: only when it reads as surely durable as the English keep rule asks (``keep.share`` or
#: ``keep.mass``).
STATED_OTHER = frozenset({"fact", "preference", "todo", "reminder", "goal", "decision"})

#: A turn's lead statement that names something is kept when the durable labels hold at
#: least this part of the reader's summed probabilities (validation sets 1–3: the turns'
#: first sentences this keeps are statements the labels expect, 3 to 1 against context).
LEAD_MASS = 0.85

#: Asked of the assistant with "please" or "give me" ("Donne-moi les recettes en grammes,
#: s'il te plaît", "Kod örneklerini TypeScript ile ver lütfen"): how the user wants things.
_ASKED = re.compile(
    r"(?<!\w)(?:por favor|s'il (?:te|vous) pla[iî]t|per favore|alsjeblieft|alstublieft|proszę"
    r"|lütfen|пожалуйста|donne-moi|donnez-moi|dame|dammi|gib mir|geben sie mir|me d[aá]|me passa"
    r"|geef me|daj mi|bana ver)(?!\w)",
    re.I,
)

#: How the listener should explain, answer or write, asked of it ("Quando mi spieghi
#: qualcosa, usa elenchi puntati", "Skriv till mig på svenska", "Erklär mir Technik mit
#: Vergleichen", "説明は箇条書きにしてください", "설명은 짧게 해 주세요"): a standing
#: request about the answers, however the reader types it.
_VERBS_TO_LISTENER = (
    r"spieg|rispond|scriv|expli|explí|respond|contest|contést|escrib|escrí|escrev|répond"
    r"|écri|erklär|antwort|schreib|wyjaś|wytłumacz|odpowiad|odpisz|förklar|svara|skriv"
    r"|forklar|vysvětl|odpovíd|piš|răspun|scrie|tutoy"
)
_TO_LISTENER = re.compile(
    rf"(?<!\w)(?:mi|me|mir|mig|mij|mnie|em)\s+(?:\w+\s+)?(?:{_VERBS_TO_LISTENER})\w*"
    rf"|(?<!\w)(?:{_VERBS_TO_LISTENER})\w*[\s-]+(?:till\s+|to\s+)?(?:mi|me|mir|mig|mij|mnie)(?!\w)"
    rf"|(?<!\w)(?:{_VERBS_TO_LISTENER})\w*(?:me|mi)(?!\w)"
    r"|(?:説明|回答|返事|答え|返信|解説)[^。]*(?:ください|下さい|お願い|してね|してほしい)"
    r"|(?:설명|답변|대답|답)[^.]*(?:주세요|주시면|부탁)"
    r"|(?:请|請)[^。]*(?:回答|解释|解釋|说明|說明|回复|回覆)",
    re.I,
)

#: Glosses that date a happening in the last days: it stays an event in any language.
_RECENT_GLOSSES = frozenset({"yesterday", "last week"})


def asks_listener(text: str) -> bool:
    """Whether a clause not in English asks the listener how to explain, answer or write
    (a standing request about the answers), not said of a recent day.

    >>> asks_listener("Erklär mir Technik bitte mit Alltagsvergleichen")
    True
    >>> asks_listener("Mi hermano me escribió ayer"), asks_listener("Ik woon in Gent")
    (False, False)
    """
    return _TO_LISTENER.search(text) is not None and not _RECENT_GLOSSES.intersection(glosses(text))


#: A fact reading this probable keeps a clause in another language that names something.
NAMED_FACT = 0.9


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
    # a language outside the corpus (Finnish) is read surely only when its best label
    # is itself probable: standing out among eleven low scores says little there
    unknown = reading.score < 0.5 and not in_a_read_language(text)
    sure = (reading.sure and not unknown) or (
        says and reading.label in STATED_OTHER and (reading.share >= share or reading.mass >= mass)
    )
    if (
        not sure
        and reading.label in {"todo", "reminder"}
        and NEED_GLOSS in glosses(text)
        and (says or reading.score >= 0.5)
    ):
        # "来週の金曜までに原稿を読んで感想を送らないといけない": a task said with a task's
        # words ("need to"), read as one without standing out — a todo
        sure = True
    if (
        not sure
        and reading.label == "fact"
        and reading.score >= NAMED_FACT
        and stands_alone(text)
        and in_a_read_language(text)
    ):
        # "Le client est sous Unity 6, le backend en Node": read as a fact, surely by its
        # own head, naming things — the stack's fact, whatever else the heads half-say
        sure = True
    if not sure and introduces(text):
        sure, reading = True, replace(reading, label="fact")  # "jag heter Nils och …"
    if not sure and says and profile_said(text):
        # "Je suis affineuse de fromages dans le Jura", read as an unsure fact or taste:
        # who the speaker is (see :func:`profile_reading`) — a fact
        sure, reading = True, replace(reading, label="fact")
    if (
        not sure
        and lead
        and reading.mass >= LEAD_MASS
        and stands_alone(text, any_letter=True)
        and in_a_read_language(text)
    ):
        # Trigger: the first sentence of a turn in another language, naming something,
        #          read as durable without standing out ("Hola, soy Mateo y llevo el
        #          marketing de una tienda online de café en Sevilla").
        # Why: a turn opens with what it is about; the reader knows the shape of a
        #      statement, not every wording, so its durable labels agree without one
        #      of them standing out.
        # Outcome: kept word for word, typed as below (a fact unless its words say more).
        sure = True
    if not sure:
        if not (wants_replies(text) or favourite_said(text) or asks_listener(text)):
            return None, f"silent:unread (not English, {reading.label} {reading.score:.2f})"
        # "Cevapları Türkçe yazarsan sevinirim", "mi editor favorito es Helix":
        # how the answers should be, or a favourite — a taste however unsure
        reading = replace(reading, label="preference")
    hints = glosses(text)
    taste = (
        favourite_said(text)
        or wants_replies(text)
        or (reading.label in {"fact", "preference"} and _ASKED.search(text) is not None)
        or asks_listener(text)
    )
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


#: "Soy enfermera en …", "Je suis affineuse de …", "Ik ben sluiswachter in …": who the
#: speaker is, said with a copula at the clause's start (after a greeting).
_COPULA = re.compile(
    r"^(?:(?:hola|hi|hey|salut|bonjour|hallo|ciao|olá|oi|hoi|hej|hei|cześć|bună|ahoj"
    r"|γεια(?: σας| σου)?)[,!]?\s+)?"
    r"(?:soy|sou|je suis|ich bin|sono|ik ben|jestem|jag är|jeg er|sunt|είμαι)\s+\w",
    re.I,
)
#: … at or in a named place or employer ("en un hospital de Zaragoza", "dans le Jura").
_AT_PLACE = re.compile(
    r"\s(?:en|em|dans|in|bei|a|à|w|we|i|på|la|din|στην|στη|στο|στον|σε|de|di|da|do|du|del|van|von"
    r"|bij|aus|at|för|hos|chez|na|no|nel|nella|im|am)\s+(?:[\w'’-]+\s+){0,3}?"
    r"(?-i:[A-ZÀ-ÖØ-ÞΑ-Ω])",
    re.I,
)
#: Days near now and negations: "nächste Woche nicht im Büro" is no profile.
_SOON = re.compile(
    r"(?<!\w)(?:nächste woche|diese woche|morgen|heute|nicht|kein\w*|la semana que viene"
    r"|la próxima semana|esta semana|mañana|hoy|no|la semaine prochaine|cette semaine|demain"
    r"|aujourd'hui|pas|la settimana prossima|questa settimana|domani|oggi|non"
    r"|na próxima semana|amanhã|hoje|não|volgende week|deze week|vandaag|niet"
    r"|w przyszłym tygodniu|w tym tygodniu|jutro|dziś|dzisiaj|nie|nästa vecka|imorgon|idag"
    r"|inte|næste uge|i morgen|i dag|ikke|săptămâna viitoare|mâine|azi|nu|αύριο|σήμερα"
    r"|την επόμενη εβδομάδα|δεν)(?!\w)",
    re.I,
)
#: Glosses of a time that makes a statement about the speaker this week's logistics.
_TIME_GLOSSES = frozenset(
    {"today", "tonight", "tomorrow", "this week", "right now", "yesterday", "last week"}
)
#: The glosses of a profile slot the English rules fill (occupation, employer, home).
_PROFILE_GLOSSES = frozenset({"i work at", "i live in"})
#: A one-off reading at least this probable is not overruled by a profile's words.
PROFILE_ONEOFF_MAX = 0.3


def introduces(text: str) -> bool:
    """Whether a clause in another language gives the speaker's name ("jag heter Nils").

    >>> introduces("Hej, jag heter Nils och jobbar som slussvakt"), introduces("Hej Nils!")
    (True, False)
    """
    return "my name is" in glosses(text)


def profile_reading(text: str, reading: Reading) -> Reading:
    """A first-person profile statement in another language, as a fact the reader missed.

    Trigger: "Soy enfermera en un hospital de Zaragoza", "Sou controladora de tráfego
             aéreo em Lisboa": the reader, unsure, calls it a one-off or a taste.
    Why: who the speaker is, where they work or live, is what the English rules
         (occupation, employer, lives in) keep as a fact in any wording; said in
         another language with a copula or a "work at" / "live in" cue and a name,
         it is the same statement.
    Outcome: read as a sure fact, kept word for word — unless the reader is fairly
             sure it is a one-off ("je suis en retard pour la réunion avec Marc").

    >>> from memvault.extract.reader import MORE_OTHER, Reading
    >>> weak = Reading("oneoff", 0.08, (("oneoff", 0.08), ("fact", 0.05)), 0.35, False, 0.4)
    >>> profile_reading("Soy enfermera en un hospital de Zaragoza", weak).label
    'fact'
    >>> profile_reading("Soy muy feliz hoy", weak).label
    'oneoff'
    """
    if introduces(text):
        return replace(reading, label="fact", sure=True)  # however the greeting reads
    if reading.label == "oneoff" and reading.score >= PROFILE_ONEOFF_MAX:
        return reading
    return replace(reading, label="fact", sure=True) if profile_said(text) else reading


_WORD = re.compile(r"[^\W\d_]+")


def in_a_read_language(text: str) -> bool:
    """Whether a clause not in English is in a language of the reader's corpus, as far
    as its words tell: another script, a function word of a Latin-script language the
    reader reads, or a cue word it glosses. Finnish or Hungarian have none of those: an
    unsure reading of them is no reading.

    >>> in_a_read_language("Llevo el marketing de una tienda en Sevilla")
    True
    >>> in_a_read_language("Taustajärjestelmä julkaistaan joka torstai klusterille Argolla")
    False
    """
    if any(ch.isalpha() and ord(ch) >= 0x250 for ch in text):
        return True
    words = {w.lower() for w in _WORD.findall(text)}
    return not words.isdisjoint(_READ_WORDS) or bool(glosses(text))


def profile_said(text: str) -> bool:
    """Whether a clause in another language says who the speaker is, with a name.

    >>> profile_said("Sou controladora de tráfego aéreo em Lisboa"), profile_said("Sou feliz")
    (True, False)
    """
    hints = glosses(text)
    if not _TIME_GLOSSES.isdisjoint(hints) or _SOON.search(text):
        return False  # "ich bin nächste Woche nicht da": this week's logistics
    if not _PROFILE_GLOSSES.isdisjoint(hints):
        return stands_alone(text, any_letter=True)
    return _COPULA.match(text) is not None and _AT_PLACE.search(text) is not None
