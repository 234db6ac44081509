"""Calibrated fusion: scores that mean the same thing for every query (issue 17).

Min-max fusion rescales each query's candidates so its best hit scores 1.0 —
"quantum chromodynamics lattice gauge" then gets "Tom hates YAML" with full
confidence. Calibrated fusion instead maps each candidate's *raw* evidence —
the vector leg's cosine, the text leg's bm25 (and whether the query names the
memory's actor) — through a logistic model to a probability of relevance,
fitted once on a tuning split (``python -m memvault.benchmarks.calibration``,
LoCoMo conversations 26, 30, 41 in ``add`` mode; docs/retrieval.md). The
classes were weighted 50/50 when fitting, so 0.5 reads "as likely relevant as
not" and a threshold such as the spec's 0.65 (003 §6) is absolute: a query
with nothing relevant gets nothing above it.

Cosines are model-specific, so coefficients are per embedder model; for a
model without fitted coefficients (e.g. the test ``hashing`` embedder) the
vector leg is left out of the probability and only the text evidence counts.
bm25 is SQLite FTS5's; other backends' text scores are mapped through the same
curve (documented limit).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from memvault.store.filtering import tokenize
from memvault.store.ordering import best_first

__all__ = [
    "CALIBRATIONS",
    "Calibration",
    "CalibrationPair",
    "Legs",
    "calibrated_fuse",
    "calibration_for",
    "features",
    "fitted_for",
    "fused_probabilities",
    "legs_of",
    "names_actor",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Calibration:
    """Logistic coefficients over :func:`features` + bias.

    ``rel_cos``/``rel_bm25`` weigh the candidate's place within its query's
    legs (cosine min-max scaled, bm25 over the best bm25): they order
    candidates of one query, while the absolute terms decide how high the
    query's best candidates can score at all.
    """

    cos: float
    bm25: float
    in_text: float
    actor: float
    bias: float
    rel_cos: float = 0.0
    rel_bm25: float = 0.0

    def logit(self, row: Sequence[float]) -> float:
        cos, bm25, in_text, actor, rel_cos, rel_bm25 = row
        return (
            self.cos * cos
            + self.bm25 * bm25
            + self.in_text * in_text
            + self.actor * actor
            + self.rel_cos * rel_cos
            + self.rel_bm25 * rel_bm25
            + self.bias
        )


@dataclass(frozen=True, slots=True)
class CalibrationPair:
    """Two fits of one model: on absolute evidence only, and with the relative terms.

    The fused score is the geometric mean of their probabilities: the
    absolute fit keeps an unrelated query's best hit low (its raw cosine and
    bm25 are low whatever the ranking), the relative fit orders one query's
    candidates as well as per-query min-max fusion did.
    """

    absolute: Calibration
    within: Calibration

    def probability(self, row: Sequence[float]) -> float:
        return math.sqrt(_sigmoid(self.absolute.logit(row)) * _sigmoid(self.within.logit(row)))

    def probabilities(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """:meth:`probability` of every row of a ``(n, 6)`` feature matrix at once.

        >>> one = Calibration(cos=10, bm25=1, in_text=0, actor=1, bias=-7)
        >>> pair = CalibrationPair(one, one)
        >>> row = features(8.0, 0.6, frozenset(), None)
        >>> round(float(pair.probabilities(np.array([row]))[0]), 12) == round(
        ...     pair.probability(row), 12)
        True
        """
        return np.asarray(
            np.sqrt(
                _sigmoids(_logits(self.absolute, rows)) * _sigmoids(_logits(self.within, rows))
            ),
            dtype=np.float64,
        )


#: Fitted on the tuning split (see the module docstring; 108,418 candidates of
#: 3 LoCoMo conversations' questions, 481 from evidence turns); per model id.
CALIBRATIONS: dict[str, CalibrationPair] = {
    "all-MiniLM-L6-v2": CalibrationPair(
        Calibration(cos=7.285, bm25=2.1679, in_text=-0.7735, actor=2.3902, bias=-6.1979),
        Calibration(
            cos=-0.5927,
            bm25=0.5206,
            in_text=-0.8078,
            actor=2.5487,
            rel_cos=3.5398,
            rel_bm25=4.6123,
            bias=-4.2652,
        ),
    ),
}

#: The text leg alone (no embedder, or a model without coefficients).
TEXT_ONLY = CalibrationPair(
    Calibration(cos=0.0, bm25=2.4364, in_text=-0.8028, actor=2.8528, bias=-3.8258),
    Calibration(cos=0.0, bm25=0.523, in_text=-0.8012, actor=2.9043, rel_bm25=5.3994, bias=-3.8758),
)


def calibration_for(model_id: str | None) -> CalibrationPair | None:
    """The coefficients of ``model_id`` (``None`` when it has none).

    >>> calibration_for("all-MiniLM-L6-v2") is not None
    True
    >>> calibration_for("hashing-256") is None
    True
    """
    return fitted_for(CALIBRATIONS, model_id)


def fitted_for(table: Mapping[str, T], model_id: str | None) -> T | None:
    """What ``table`` holds for an embedding model: by its id without the ``#`` suffix,
    else by its last path part ("sentence-transformers/all-MiniLM-L6-v2" → its name).

    >>> fitted_for({"all-MiniLM-L6-v2": 1}, "sentence-transformers/all-MiniLM-L6-v2#384")
    1
    """
    if model_id is None:
        return None
    base = model_id.split("#", 1)[0]
    found = table.get(base)
    return found if found is not None else table.get(base.rsplit("/", 1)[-1])


def names_actor(query_words: frozenset[str], actor_id: str | None) -> bool:
    """Whether the query names ``actor_id`` as whole words ("Caroline", "mary-jane").

    Alphabetic actor names only: opaque ids ("u_123") never match.

    >>> names_actor(frozenset({"what", "did", "caroline", "paint"}), "Caroline")
    True
    >>> names_actor(frozenset({"what", "is", "123"}), "u_123")
    False
    """
    if not actor_id:
        return False
    words = tokenize(actor_id)
    return bool(words) and all(w.isalpha() and w in query_words for w in words)


def features(
    bm25: float | None,
    cos: float,
    query_words: frozenset[str],
    actor_id: str | None,
    *,
    cos_range: tuple[float, float] = (0.0, 0.0),
    bm25_max: float = 0.0,
) -> tuple[float, float, float, float, float, float]:
    """One candidate's evidence: (cosine, log1p(bm25), in the text leg, actor named,
    cosine min-max scaled within the query's vector leg, bm25 / the leg's best).

    >>> features(None, 0.5, frozenset({"ana"}), "Ana", cos_range=(0.1, 0.9))
    (0.5, 0.0, 0.0, 1.0, 0.5, 0.0)
    """
    score = max(0.0, bm25 or 0.0)
    lo, hi = cos_range
    return (
        float(cos),
        math.log1p(score),
        1.0 if bm25 is not None else 0.0,
        1.0 if names_actor(query_words, actor_id) else 0.0,
        (cos - lo) / (hi - lo) if hi > lo else 0.0,
        score / bm25_max if bm25_max > 0 else 0.0,
    )


def _logits(c: Calibration, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:meth:`Calibration.logit` over rows (the same terms, added in the same order)."""
    cos, bm25, in_text, actor, rel_cos, rel_bm25 = rows.T
    out: npt.NDArray[np.float64] = (
        c.cos * cos
        + c.bm25 * bm25
        + c.in_text * in_text
        + c.actor * actor
        + c.rel_cos * rel_cos
        + c.rel_bm25 * rel_bm25
        + c.bias
    )
    return out


def _sigmoids(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    e = np.exp(-np.abs(z))  # never overflows; mirrors _sigmoid's two branches
    out: npt.NDArray[np.float64] = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return out


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@dataclass(frozen=True, slots=True)
class Legs:
    """Both legs' candidates once, as arrays: what the calibration and the reranker read.

    ``ids``: the text leg's ids in its order, then the vector leg's others (with
    ``use_vector``); ``position``: each id's index. Per id: ``cos`` (the vector leg's
    cosine, its lowest for an id it lacks), ``raw`` (bm25, NaN outside the text
    leg), ``text_rank`` / ``vector_rank`` (0-based place in each leg, ``absent`` if
    missing). ``unique``: neither leg repeats an id (a repeated one keeps its best
    cosine here, while the reranker's per-id reads took its last).
    """

    ids: list[str]
    position: dict[str, int]
    cos: npt.NDArray[np.float64]
    raw: npt.NDArray[np.float64]
    text_rank: npt.NDArray[np.float64]
    vector_rank: npt.NDArray[np.float64]
    floor: float
    top: float
    best_bm25: float
    use_vector: bool
    unique: bool
    absent: float

    def rows(self) -> npt.NDArray[np.float64]:
        """The ``(n, 6)`` matrix of :func:`features` without the actor column (zero)."""
        in_text = ~np.isnan(self.raw)
        scores = np.maximum(0.0, np.where(in_text, self.raw, 0.0))
        rows = np.zeros((len(self.ids), 6), dtype=np.float64)
        if self.use_vector:
            rows[:, 0] = self.cos
            if self.top > self.floor:
                rows[:, 4] = (self.cos - self.floor) / (self.top - self.floor)
        rows[:, 1] = np.log1p(scores)
        rows[:, 2] = in_text
        if self.best_bm25 > 0:
            rows[:, 5] = scores / self.best_bm25
        return rows


def legs_of(
    text: Sequence[tuple[str, float]] | None,
    vector: Sequence[tuple[str, float]] | None,
    use_vector: bool,
    absent: float = 0.0,
) -> Legs:
    """The candidates of both legs as :class:`Legs` (``absent``: the rank of a missing id).

    >>> legs = legs_of([("a", 2.0)], [("b", 0.9), ("a", 0.5)], True, absent=300)
    >>> legs.ids, legs.cos.tolist(), legs.text_rank.tolist(), legs.vector_rank.tolist()
    (['a', 'b'], [0.5, 0.9], [0.0, 300.0], [1.0, 0.0])
    """
    text, vector = text or (), vector or ()
    bm25 = dict(text)
    cos = dict(vector)
    unique = len(bm25) == len(text) and len(cos) == len(vector)
    if len(cos) != len(vector):  # a repeated id keeps its best cosine
        cos = {}
        for memory_id, score in vector:
            cos[memory_id] = max(score, cos.get(memory_id, score))
    cos_values = list(cos.values())
    floor = min(cos_values, default=0.0)
    top = max(cos_values, default=0.0)
    best_bm25 = max(bm25.values(), default=0.0)
    # Trigger: candidates of two legs, ~180 ids sharing a long prefix ("mem_01a2…").
    # Why: sorting them first (only to break ties by id) cost a third of the fusion.
    # Outcome: each candidate once, in leg order; ties are broken by id at the end.
    ids = list(bm25)
    if use_vector:
        ids.extend(m for m in cos if m not in bm25)
    position = dict(zip(ids, range(len(ids)), strict=True))
    n = len(ids)
    raw = np.array(list(map(bm25.get, ids, repeat(math.nan))), dtype=np.float64)
    c = np.array(list(map(cos.get, ids, repeat(floor))), dtype=np.float64)
    text_rank = np.full(n, absent, dtype=np.float64)
    vector_rank = np.full(n, absent, dtype=np.float64)
    if unique:
        text_rank[: len(bm25)] = np.arange(len(bm25))
        if use_vector:
            at = np.fromiter(map(position.__getitem__, cos), dtype=np.intp, count=len(cos))
            vector_rank[at] = np.arange(len(cos))
    return Legs(
        ids,
        position,
        c,
        raw,
        text_rank,
        vector_rank,
        floor,
        top,
        best_bm25,
        use_vector,
        unique,
        absent,
    )


def calibrated_fuse(
    text: Sequence[tuple[str, float]] | None,
    vector: Sequence[tuple[str, float]] | None,
    actors: Mapping[str, str | None],
    query: str,
    calibration: CalibrationPair | None,
    *,
    legs: Legs | None = None,
) -> list[tuple[str, float]]:
    """Probability of relevance per candidate, best first (ties by id).

    ``text``/``vector``: each leg's ``(memory_id, raw score)`` (bm25, cosine),
    ``None`` when the leg did not run. A candidate missing from the vector leg
    gets that leg's lowest cosine; one missing from the text leg has no bm25.
    Without coefficients for the vector leg only the text evidence counts.
    ``legs``: the two legs as :func:`legs_of` made them (read, not made again).

    >>> one = Calibration(cos=10, bm25=1, in_text=0, actor=1, bias=-7)
    >>> cal = CalibrationPair(one, one)
    >>> fused = calibrated_fuse([("a", 8.0)], [("a", 0.6), ("b", 0.1)], {}, "x", cal)
    >>> [(m, round(p, 3)) for m, p in fused]
    [('a', 0.768), ('b', 0.002)]
    """
    ids, p = fused_probabilities(text, vector, actors, query, calibration, legs=legs)
    return best_first(ids, p) if ids else []


def fused_probabilities(
    text: Sequence[tuple[str, float]] | None,
    vector: Sequence[tuple[str, float]] | None,
    actors: Mapping[str, str | None],
    query: str,
    calibration: CalibrationPair | None,
    *,
    legs: Legs | None = None,
) -> tuple[list[str], npt.NDArray[np.float64]]:
    """:func:`calibrated_fuse`'s probabilities in the candidates' leg order (``legs.ids``)."""
    use_vector = vector is not None and calibration is not None
    model = calibration if use_vector and calibration is not None else TEXT_ONLY
    if legs is None or legs.use_vector != use_vector:
        legs = legs_of(text, vector, use_vector)
    ids = legs.ids
    if not ids:
        return [], np.zeros(0, dtype=np.float64)
    # Trigger: a search calibrates a few hundred candidates.
    # Why: the per-candidate Python of :func:`features` cost ~4 ms a call.
    # Outcome: the same features as columns of one matrix (one row per id).
    rows = legs.rows()
    if actors:
        words = frozenset(tokenize(query))
        position = legs.position
        named: dict[str, bool] = {}
        for m, actor in actors.items():
            i = position.get(m)
            if i is None or actor is None:
                continue
            if actor not in named:
                named[actor] = names_actor(words, actor)
            rows[i, 3] = named[actor]
    return ids, model.probabilities(rows)
