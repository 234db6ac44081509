"""The clause reader: what a clause of a user's turn *is*, for memory.

The rules (``rules_*.py``) know how to fill a slot and resolve a date; they
do not know whether "dentist appointment tomorrow" is worth keeping or
whether "the api is written in go" is a fact. The reader answers that for
every clause: one of :data:`LABELS` with a probability, from small heads
trained on a corpus of realistic chat (``extract/training/``). The extractor
keeps what the reader calls durable (fact, preference, decision, goal, todo,
reminder, event, procedure), types it as the reader says, and drops
questions, chit-chat and one-offs (today's plans, moods, logistics).

The heads read hashed character n-grams and word uni/bigrams
(:mod:`memvault.learn.features`) — no sentence encoder: the reader runs on
every clause *before* anything is embedded, and n-grams keep it well under a
millisecond per clause on any platform. Weights ship in
``extract/weights/clause_reader.npz``, verified against the sha256 recorded in
``clause_reader.json`` when loaded; the model card is ``clause_reader.md``.
``memvault capture train`` rebuilds them bit for bit.

>>> reader = default_reader()
>>> [r.label for r in reader.read(["we deploy with argo cd", "thanks!", "I'm so tired today"])]
['fact', 'chitchat', 'oneoff']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memvault.errors import WeightsError
from memvault.extract.gloss import glosses
from memvault.extract.verbatim import PLACEHOLDER_PATTERN, protect
from memvault.learn import Heads, SparseRows, char_ngrams, load_weights
from memvault.learn.language import common_english
from memvault.learn.language import english_like as _reads_english
from memvault.model.enums import MemoryType

__all__ = [
    "DURABLE",
    "KEEP_FLOOR",
    "KEEP_SHARE",
    "LABELS",
    "MORE_OTHER",
    "READER_MANIFEST",
    "SILENT",
    "TYPES",
    "ClauseReader",
    "Reading",
    "default_reader",
    "english_like",
    "reader_view",
]

READER_MANIFEST = Path(__file__).with_name("weights") / "clause_reader.json"

LABELS = (
    "fact",
    "preference",
    "decision",
    "goal",
    "todo",
    "reminder",
    "event",
    "procedure",
    "question",
    "chitchat",
    "oneoff",
)
#: Labels whose clauses are never stored.
SILENT = frozenset({"question", "chitchat", "oneoff"})
DURABLE = frozenset(LABELS) - SILENT
#: The memory type and category a durable label is stored as.
TYPES: dict[str, tuple[MemoryType, str]] = {
    "fact": (MemoryType.FACT, "KNOWLEDGE"),
    "preference": (MemoryType.PREFERENCE, "PREFERENCE"),
    "decision": (MemoryType.DECISION, "DECISION"),
    "goal": (MemoryType.GOAL, "GOAL"),
    "todo": (MemoryType.TODO, "TODO"),
    "reminder": (MemoryType.TODO, "REMINDER"),
    "event": (MemoryType.EVENT, "EVENT"),
    "procedure": (MemoryType.PROCEDURE, "PROCEDURE"),
}


#: Function words of languages the shared test (:mod:`memvault.learn.language`) does not
#: list — Swedish, Danish/Norwegian, Romanian, Czech — and common verbs and prepositions
#: of the languages it does list ("Lavoro come guida alpina in Val d'Aosta" has none of its
#: words), none of them an English word.
#: "Varje fredag har vi fika med hela teamet" has no accent and no word that test knows.
MORE_OTHER = frozenset(
    """och att det som är inte jag har på av till ett kan ska också våra vår mitt mina
    mycket hela varje numera istället använder jobbar bor vi med til ikke jeg af skal også
    vores meget hver nå nu bruger bruker arbejder jobber
    și că este sunt pentru nu pe în noi meu mea noastră acum
    že jsem jsme ve můj moje naše náš taky není
    lavoro faccio vado abito anche sempre ogni nel nella alla dei trabajo hago desde
    trabalho faço moro sou soy suis travaille fais chez arbeite wohne seit werk woon
    sinds""".split()
)
_WORD = re.compile(r"[^\W\d_]+")


def english_like(text: str) -> bool:
    """Whether ``text`` reads as English, for the reader and the rules.

    The shared test (:func:`memvault.learn.language.english_like`), and not
    English when two or more words are function words of Swedish, Danish,
    Norwegian, Romanian or Czech and they outnumber the English ones.

    >>> english_like("Varje fredag har vi fika med hela teamet klockan tre")
    False
    >>> english_like("we do a fika every friday at three"), english_like("Acum lucrăm cu Go")
    (True, False)
    """
    if not _reads_english(text) and not _english_with_loanwords(text):
        return False
    words = _WORD.findall(text.lower())
    more = sum(w in MORE_OTHER for w in words)
    return more < 2 or more <= sum(common_english(w) for w in words)


#: At most this many accented words in a clause read as English with loanwords.
LOANWORDS_MAX = 2


def _english_with_loanwords(text: str) -> bool:
    """Whether ``text`` is English but for a few accented loanwords or names.

    Trigger: "the community café fixed 900 bikes", "our office moved to Zürich": the
             shared test counts every accented word as another language's, and one of
             them outweighs a short clause's English function words.
    Why: a loanword or a place name is not a language; read as another language, the
         clause is kept unparsed and glossed as foreign words.
    Outcome: English when at most :data:`LOANWORDS_MAX` words (and under a quarter of
             them) carry an accent and the clause reads as English with the accents
             taken off — "también", "très", "für" stay another language's words, and
             a clause of such words still has that language's function words.

    >>> _english_with_loanwords("Last spring the community café repaired 900 bikes.")
    True
    >>> _english_with_loanwords("Mi café favorito está en el centro")
    False
    """
    if text.isascii():
        return False
    words = _WORD.findall(text)
    accented = [w for w in words if not w.isascii()]
    if not accented or len(accented) > LOANWORDS_MAX or 4 * len(accented) >= len(words):
        return False
    if any(not _LATIN.match(w) for w in accented):
        return False  # another script: a language, not a loanword
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    # the shared test calls a clause with no other language's function word English
    # ("Taustajarjestelma julkaistaan joka torstai"): one word no other language uses
    # says it is
    english = _ONLY_ENGLISH.intersection(w.lower() for w in _WORD.findall(plain))
    return plain.isascii() and bool(english) and _reads_english(plain)


#: A word of Latin letters, accented or not (not Cyrillic, Greek, CJK …).
_LATIN = re.compile(r"^[A-Za-z\u00c0-\u024f]+$")
#: English function words that are no function word of the other languages the reader
#: reads ("is", "was", "we", "i", "at", "on" are Dutch, German, Italian, Danish, Finnish).
_ONLY_ENGLISH = frozenset(
    "the and of with our my has have for this that they their you your from which".split()
)


_DURABLE_MASK = np.array([label in DURABLE for label in LABELS])

#: Used when a manifest records no calibrated keep rule (older weights).
KEEP_SHARE = 0.5
KEEP_FLOOR = 0.1


def reader_view(text: str) -> str:
    """What the heads read: ``text`` with every identifier, path, URL, version and
    quote replaced by one token (``ID``).

    An identifier says nothing about what a clause is, and its n-grams are noise
    the corpus cannot cover: "bump opensearch-py to 2.6.0" and "bump the client"
    read alike. Training and reading use the same view.

    >>> reader_view('pin ruff==0.6.9 in `pyproject.toml`, see https://x.dev/a')
    'pin ID in ID, see ID'
    >>> reader_view("コーヒーが好きです。")
    'コーヒーが好きです. = i like'
    """
    masked, spans = protect(text)
    view = PLACEHOLDER_PATTERN.sub("ID", masked) if spans else text
    # "東京に住んでいます。" reads like the corpus's "東京に住んでいます.": full-width
    # sentence marks are one n-gram with their ASCII forms.
    view = view.translate(_FULL_WIDTH)
    if english_like(text):
        return view
    # Another language: its cue words, glossed in English ("tengo que" → "need to"),
    # share the word features thousands of English clauses trained.
    hints = glosses(view)
    return f"{view} = {' ; '.join(hints)}" if hints else view


_FULL_WIDTH = str.maketrans({"。": ".", "！": "!", "？": "?", "，": ",", "：": ":", "；": ";"})


@dataclass(frozen=True, slots=True)
class Reading:
    """The reader's answer for one clause: the best label, its probability, all of them.

    ``share`` is the best label's part of the summed probabilities: the heads
    are one-vs-rest sigmoids, so on wording unlike the corpus every head is
    low and the best of them says little; how far it stands out says more.
    ``mass`` is the durable labels' part of the summed probabilities: a clause
    that is surely worth keeping but reads half fact, half event has a low
    ``share`` and a high ``mass``. ``sure`` is the reader's calibrated keep rule
    (see :class:`ClauseReader`).
    """

    label: str
    score: float
    scores: tuple[tuple[str, float], ...]
    share: float = 1.0
    sure: bool = True
    mass: float = 1.0

    @property
    def durable(self) -> bool:
        return self.label in DURABLE

    def of(self, label: str) -> float:
        """The probability of ``label``."""
        return dict(self.scores).get(label, 0.0)


class ClauseReader:
    """Loaded heads. Loading verifies the weights (:class:`WeightsError` when broken)."""

    def __init__(self, manifest: str | Path = READER_MANIFEST) -> None:
        arrays, self.manifest = load_weights(manifest)
        self.heads = Heads.from_arrays(arrays, "reader")
        if self.heads.uses_vector:
            raise WeightsError("the clause reader reads n-grams only; these heads want a vector")
        if tuple(self.heads.labels) != LABELS:
            raise WeightsError(f"the clause reader's labels are {self.heads.labels}, not {LABELS}")
        self.dim = int(self.manifest.get("ngram_dim", 0))
        if self.dim != int(self.heads.sparse_w.shape[0]):
            raise WeightsError("the clause reader's n-gram size does not match its weights")
        # The keep rule calibrated on the validation split when the heads were
        # trained: a reading is *sure* when its label's probability is at least
        # ``floor`` (some head fired at all) and its share at least ``share`` —
        # for a durable label, when the durable labels' mass is at least ``mass``
        # (whether the clause is worth keeping, not which kind it is).
        keep = self.manifest.get("keep") or {}
        self.keep_share = float(keep.get("share", KEEP_SHARE))
        self.keep_floor = float(keep.get("floor", KEEP_FLOOR))
        self.keep_mass = float(keep.get("mass", 2.0))  # older weights: no mass rule
        # Clauses in other languages have their own rule, calibrated the same way on
        # the validation split's clauses that are not English.
        other = self.manifest.get("keep_other") or keep
        self.other_share = float(other.get("share", self.keep_share))
        self.other_floor = float(other.get("floor", self.keep_floor))
        self.other_mass = float(other.get("mass", self.keep_mass))
        # A first-person statement no rule read is dropped only on a silent reading
        # at least this sure (calibrated on the validation split's statements).
        told = self.manifest.get("keep_stated") or {}
        self.stated_min = float(told.get("silent_min", 0.5))
        self.stated_share = float(told.get("share", 0.5))

    def read(self, texts: Sequence[str]) -> list[Reading]:
        """One :class:`Reading` per text (pure arithmetic, no I/O)."""
        if not texts:
            return []
        rows = SparseRows.stack(
            [char_ngrams(reader_view(t), dim=self.dim) for t in texts], self.dim
        )
        probs = self.heads.scores(None, rows)
        out: list[Reading] = []
        for text, row in zip(texts, probs, strict=True):
            floor, need, mass_min = (
                (self.keep_floor, self.keep_share, self.keep_mass)
                if english_like(text)
                else (self.other_floor, self.other_share, self.other_mass)
            )
            best = int(np.argmax(row))
            scores = tuple(
                (label, round(float(p), 4)) for label, p in zip(LABELS, row, strict=True)
            )
            top = float(row[best])
            total = max(float(row.sum()), 1e-12)
            share = top / total
            mass = float(row[_DURABLE_MASK].sum()) / total
            sure = top >= floor and (
                share >= need or (LABELS[best] in DURABLE and mass >= mass_min)
            )
            out.append(
                Reading(LABELS[best], round(top, 4), scores, round(share, 4), sure, round(mass, 4))
            )
        return out


@cache
def default_reader() -> ClauseReader:
    """The shipped reader, loaded once per process (raises :class:`WeightsError` when broken)."""
    return ClauseReader(READER_MANIFEST)
