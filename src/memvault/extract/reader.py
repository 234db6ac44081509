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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memvault.errors import WeightsError
from memvault.learn import Heads, SparseRows, char_ngrams, load_weights
from memvault.model.enums import MemoryType

__all__ = [
    "DURABLE",
    "LABELS",
    "READER_MANIFEST",
    "SILENT",
    "TYPES",
    "ClauseReader",
    "Reading",
    "default_reader",
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


@dataclass(frozen=True, slots=True)
class Reading:
    """The reader's answer for one clause: the best label, its probability, all of them."""

    label: str
    score: float
    scores: tuple[tuple[str, float], ...]

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

    def read(self, texts: Sequence[str]) -> list[Reading]:
        """One :class:`Reading` per text (pure arithmetic, no I/O)."""
        if not texts:
            return []
        rows = SparseRows.stack([char_ngrams(t, dim=self.dim) for t in texts], self.dim)
        probs = self.heads.scores(None, rows)
        out: list[Reading] = []
        for row in probs:
            best = int(np.argmax(row))
            scores = tuple(
                (label, round(float(p), 4)) for label, p in zip(LABELS, row, strict=True)
            )
            out.append(Reading(LABELS[best], round(float(row[best]), 4), scores))
        return out


@cache
def default_reader() -> ClauseReader:
    """The shipped reader, loaded once per process (raises :class:`WeightsError` when broken)."""
    return ClauseReader(READER_MANIFEST)
