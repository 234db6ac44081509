"""Second stage of calibrated ranking: a small learned reranker over the best candidates.

The calibrated fusion (:mod:`memvault.retrieval.calibration`) scores each
candidate from its own legs' evidence. Three things it cannot see decide many
of the questions users ask a conversational memory (issue 17):

- **time** — "What did Maria donate in December 2023?", "a sports event two
  weeks ago": :func:`memvault.retrieval.temporal.time_window` turns the
  question's time into a window of memory timestamps;
- **conversation neighbours** — the answer is often said a turn before or
  after the turn that matches the question's words; a candidate's neighbours
  (the memories the write path linked it to as written just before or after
  it in its conversation, :func:`memvault.retrieval.indexing.conversation_links`)
  lend it their evidence when they are candidates too. A store written before
  those links falls back to the best candidates of the same conversation
  stored within :data:`NEIGHBOUR_GAP` of each other (the memory graph's own
  ``conversation_id`` and timestamps, never transcript text);
- **each leg's rank** beside its raw score.

The reranker is a logistic model over those features of the best
:attr:`Reranker.pool` candidates, fitted on a tuning split of stores written by
the production write path (``python -m memvault.benchmarks.calibration …
--rerank``; docs/retrieval.md). Its probability is combined with the absolute
calibration (``p_rerank^(1-a) · p_abs^a``) so an unrelated query's best hit
stays low: the rank features alone would make every query's best look good.
Every input is a leg score or a :class:`~memvault.store.base.RankFields`
column: no node is read.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import count, pairwise, repeat
from operator import itemgetter

import numpy as np
import numpy.typing as npt

from memvault.model.clock import parse_timestamp
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryEdge
from memvault.retrieval.calibration import CalibrationPair, Legs, fitted_for, names_actor
from memvault.retrieval.temporal import TimeWindow, time_window
from memvault.store.base import RankFields
from memvault.store.filtering import tokenize
from memvault.store.ordering import best_first

__all__ = [
    "ABSENT_RANK",
    "FEATURES",
    "FOLLOWS",
    "NEIGHBOUR_GAP",
    "RERANKERS",
    "Linked",
    "RerankInput",
    "Reranker",
    "follows",
    "query_window",
    "rerank",
    "rerank_features",
    "reranker_for",
]

#: Two memories of one conversation stored this close are neighbours.
NEIGHBOUR_GAP = timedelta(hours=1)
#: Rank given to a candidate missing from a leg.
ABSENT_RANK = 300
FEATURES: tuple[str, ...] = (
    "logit_fused",
    "cos",
    "log1p_bm25",
    "in_text",
    "actor",
    "rel_cos",
    "rel_bm25",
    "in_window",
    "has_window",
    "neighbour_fused",
    "neighbour_cos",
    "log1p_text_rank",
    "log1p_vector_rank",
)


#: The ``reason`` of the write path's conversation links
#: (:func:`memvault.retrieval.indexing.conversation_links`).
FOLLOWS = "follows in conversation"

Linked = Callable[[Sequence[str]], Mapping[str, Sequence[str]]]
"""Given memory ids, each one's conversation neighbours (linked by the write path)."""


def follows(edges: Iterable[MemoryEdge]) -> dict[str, list[str]]:
    """Both ends' neighbours along the write path's conversation links among ``edges``.

    >>> e = MemoryEdge(edge_id="e1", orchestrator_id="o", from_memory_id="b",
    ...                to_memory_id="a", edge_type=EdgeType.RELATED_TO, reason=FOLLOWS,
    ...                created_at="2026-01-01T00:00:00.000000Z")
    >>> follows([e])
    {'b': ['a'], 'a': ['b']}
    """
    out: dict[str, list[str]] = {}
    for e in edges:
        if e.edge_type is EdgeType.RELATED_TO and e.reason == FOLLOWS:
            out.setdefault(e.from_memory_id, []).append(e.to_memory_id)
            out.setdefault(e.to_memory_id, []).append(e.from_memory_id)
    return out


@dataclass(frozen=True, slots=True)
class Reranker:
    """Logistic weights over :data:`FEATURES` (+ bias) and how its score is used.

    ``pool``: how many of the fused candidates (time-window first) it reorders;
    ``absolute_share``: the exponent ``a`` of ``p_abs`` in the final score.
    """

    weights: tuple[float, ...]
    bias: float
    pool: int = 100
    absolute_share: float = 0.4
    window_boost: float = 1.0

    def probabilities(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The reranker's probability of relevance of each row.

        >>> r = Reranker(weights=(1.0,) + (0.0,) * 12, bias=0.0)
        >>> rows = np.array([[0.0] * 13, [2.0] + [0.0] * 12])
        >>> [round(float(p), 3) for p in r.probabilities(rows)]
        [0.5, 0.881]
        """
        z = rows @ np.asarray(self.weights, dtype=np.float64) + self.bias
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
        return out


#: Fitted on LoCoMo conversations 26, 30, 41 written in ``add`` mode (the
#: production write path with its conversation links, the learned gate on),
#: 383 questions, top 100 candidates each (38,300 rows, 444 from evidence
#: turns); per model id.
RERANKERS: dict[str, Reranker] = {
    "all-MiniLM-L6-v2": Reranker(
        weights=(
            1.1654,
            -9.8326,
            -1.4497,
            -0.413,
            0.0852,
            0.6507,
            1.7655,
            3.4597,
            -2.5179,
            0.4984,
            2.5069,
            -0.1669,
            -0.3844,
        ),
        bias=5.0671,
    ),
}


def reranker_for(model_id: str | None) -> Reranker | None:
    """The reranker fitted for ``model_id``'s cosines (``None`` when there is none).

    >>> reranker_for("hashing-256") is None
    True
    """
    return fitted_for(RERANKERS, model_id)


@functools.lru_cache(maxsize=8)
def query_window(query: str, now: datetime) -> TimeWindow | None:
    """:func:`~memvault.retrieval.temporal.time_window`, kept for the last few searches.

    Trigger: a search asks twice (how many ranking fields to read; the rerank).
    Why: parsing the query's time costs as much as a leg's sort.
    Outcome: the second ask is a lookup (a window is frozen, ``now`` part of the key).

    >>> from datetime import UTC
    >>> query_window("what did I do last month?", datetime(2023, 4, 20, tzinfo=UTC)).phrase
    'last month'
    """
    return time_window(query, now)


def _in_window(window: TimeWindow | None, fields: RankFields | None) -> bool:
    if window is None or fields is None or not fields.created_at:
        return False
    try:
        return window.contains(parse_timestamp(fields.created_at))
    except ValueError:
        return False


def _neighbours(pool: Sequence[str], fields: Mapping[str, RankFields]) -> dict[str, list[str]]:
    """Pool members adjacent in (conversation, time) order, stored within the gap.

    >>> f = {m: RankFields(m, None, 50, 1.0, "", t, "c") for m, t in (
    ...     ("a", "2023-01-01T10:00:00.000000Z"), ("b", "2023-01-01T10:00:05.000000Z"),
    ...     ("c", "2023-03-01T10:00:00.000000Z"))}
    >>> _neighbours(["a", "b", "c"], f)
    {'a': ['b'], 'b': ['a']}
    """
    placed = []
    for m in pool:
        f = fields.get(m)
        if f is None or not f.conversation_id or not f.created_at:
            continue
        try:
            placed.append((f.conversation_id, parse_timestamp(f.created_at), m))
        except ValueError:
            continue
    placed.sort()
    out: dict[str, list[str]] = {}
    for (conv_a, at_a, a), (conv_b, at_b, b) in pairwise(placed):
        if conv_a == conv_b and at_b - at_a <= NEIGHBOUR_GAP:
            out.setdefault(a, []).append(b)
            out.setdefault(b, []).append(a)
    return out


@dataclass(frozen=True, slots=True)
class RerankInput:
    """What a rerank reads about one search's candidates.

    ``fused``: the calibrated ``(memory_id, probability)`` list, best first;
    ``text``/``vector``: the raw legs, best first (``None`` when a leg did not
    run); ``fields``: the candidates' ranking fields (missing = unknown);
    ``query`` and ``now`` place a time window ("last week") the pool may favour.
    ``legs`` and ``probabilities``: the two legs as arrays and the probability of
    each of ``legs.ids`` that ``fused`` was sorted from, when the caller has them
    (the features are then gathered from them instead of read id by id).
    """

    fused: Sequence[tuple[str, float]]
    text: Sequence[tuple[str, float]] | None
    vector: Sequence[tuple[str, float]] | None
    fields: Mapping[str, RankFields]
    query: str
    now: datetime
    legs: Legs | None = None
    probabilities: npt.NDArray[np.float64] | None = None


def rerank_features(
    given: RerankInput,
    *,
    pool: int,
    window_boost: float = 1.0,
    linked: Linked | None = None,
) -> tuple[list[str], npt.NDArray[np.float64]]:
    """The pool (best ``pool`` of ``fused``, time-window matches boosted) and its feature rows.

    ``linked``: the pool's conversation neighbours as the write path linked
    them (only neighbours that are candidates count: a memory the search's
    filters exclude is never read); without links, time adjacency in the pool.
    """
    fused, text, vector, fields = given.fused, given.text, given.vector, given.fields
    query, now = given.query, given.now
    window = query_window(query, now)
    if window is None:
        inside: dict[str, bool] = {}
        ids = list(map(itemgetter(0), fused[:pool]))  # fused is best first, ties by id
    else:
        inside = {m: _in_window(window, fields.get(m)) for m, _ in fused}
        boosted = sorted(
            fused, key=lambda item: (-item[1] * (1.0 + window_boost * inside[item[0]]), item[0])
        )
        ids = list(map(itemgetter(0), boosted[:pool]))
    legs, probs = given.legs, given.probabilities
    if (
        legs is not None
        and probs is not None
        and legs.unique
        and legs.use_vector
        and legs.absent == ABSENT_RANK
    ):
        return ids, _gathered(given, ids, inside, window, legs, probs, linked)
    p = dict(fused)
    bm25 = dict(text or ())
    cos = dict(vector or ())
    floor = min(cos.values(), default=0.0)
    top = max(cos.values(), default=0.0)
    best = max(bm25.values(), default=0.0)
    found = linked(ids) if linked is not None else {}
    # A memory without any neighbour (no conversation) counts as its own:
    # the fit's memories nearly all have one, and a zero would sink it.
    near = (
        {m: [o for o in found[m] if o in p] for m in ids if m in found}
        if found
        else _neighbours(ids, fields)
    )
    # Trigger: every search builds these rows for its 100-candidate pool.
    # Why: one Python tuple of 13 values per candidate cost about a third of
    #   the search's CPU at 100k memories.
    # Outcome: one column at a time over the pool (the same formulas; only
    #   candidates with conversation neighbours take a Python step).
    n = len(ids)
    rows = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return ids, rows
    prob = np.fromiter(map(p.__getitem__, ids), dtype=np.float64, count=n)
    c = np.fromiter(map(cos.get, ids, repeat(floor)), dtype=np.float64, count=n)
    raw = np.fromiter(map(bm25.get, ids, repeat(math.nan)), dtype=np.float64, count=n)
    _fill_columns(rows, ids, prob, c, raw, (floor, top, best), inside, window, fields, query)
    for i, m in enumerate(ids if near else ()):
        others = near.get(m)
        if others is not None:
            rows[i, 9] = max((p.get(o, 0.0) for o in others), default=0.0)
            rows[i, 10] = max((cos.get(o, floor) for o in others), default=0.0)
    text_rank = dict(zip(map(itemgetter(0), text or ()), count()))
    vector_rank = dict(zip(map(itemgetter(0), vector or ()), count()))
    rows[:, 11] = np.log1p(
        np.fromiter(map(text_rank.get, ids, repeat(ABSENT_RANK)), dtype=np.float64, count=n)
    )
    rows[:, 12] = np.log1p(
        np.fromiter(map(vector_rank.get, ids, repeat(ABSENT_RANK)), dtype=np.float64, count=n)
    )
    return ids, rows


def _gathered(
    given: RerankInput,
    ids: list[str],
    inside: Mapping[str, bool],
    window: TimeWindow | None,
    legs: Legs,
    probs: npt.NDArray[np.float64],
    linked: Linked | None,
) -> npt.NDArray[np.float64]:
    """:func:`rerank_features`' rows of ``ids`` gathered from the legs' arrays.

    Trigger: a search whose fusion already holds both legs as arrays (one per column).
    Why: reading each candidate's cosine, bm25, probability and leg ranks again from
      dictionaries built for the purpose cost about a third of the rerank.
    Outcome: the same values, in the same formulas, taken by index.
    """
    position = legs.position
    n = len(ids)
    rows = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return rows
    at = np.fromiter(map(position.__getitem__, ids), dtype=np.intp, count=n)
    prob, c, raw = probs[at], legs.cos[at], legs.raw[at]
    floor, top, best = legs.floor, legs.top, legs.best_bm25
    found = linked(ids) if linked is not None else {}
    near = (
        {m: [o for o in found[m] if o in position] for m in ids if m in found}
        if found
        else _neighbours(ids, given.fields)
    )
    _fill_columns(
        rows, ids, prob, c, raw, (floor, top, best), inside, window, given.fields, given.query
    )
    for i, m in enumerate(ids if near else ()):
        others = near.get(m)
        if others is not None:
            rows[i, 9] = max((probs[position[o]] for o in others), default=0.0)
            rows[i, 10] = max((legs.cos[position[o]] for o in others), default=0.0)
    rows[:, 11] = np.log1p(legs.text_rank[at])
    rows[:, 12] = np.log1p(legs.vector_rank[at])
    return rows


def _fill_columns(
    rows: npt.NDArray[np.float64],
    ids: list[str],
    prob: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    raw: npt.NDArray[np.float64],
    bounds: tuple[float, float, float],
    inside: Mapping[str, bool],
    window: TimeWindow | None,
    fields: Mapping[str, RankFields],
    query: str,
) -> None:
    """Columns 0-10 of the feature rows of ``ids`` (the neighbours' columns 9-10 are
    each candidate's own values here): one formula for both ways of gathering them."""
    floor, top, best = bounds
    n = len(ids)
    in_text = ~np.isnan(raw)
    score = np.maximum(0.0, np.where(in_text, raw, 0.0))
    rows[:, 0] = np.log(prob / (1.0 - prob + 1e-9) + 1e-9)
    rows[:, 1] = c
    rows[:, 2] = np.log1p(score)
    rows[:, 3] = in_text
    _actor_column(rows, ids, fields, query)
    if top > floor:
        rows[:, 5] = (c - floor) / (top - floor)
    if best > 0:
        rows[:, 6] = score / best
    if inside:
        rows[:, 7] = np.fromiter(map(inside.get, ids, repeat(False)), dtype=np.float64, count=n)
    if window is not None:
        rows[:, 8] = 1.0
    rows[:, 9] = prob
    rows[:, 10] = c


def _actor_column(
    rows: npt.NDArray[np.float64], ids: Sequence[str], fields: Mapping[str, RankFields], query: str
) -> None:
    """Column 4: whether the query names the candidate's actor (each actor asked once)."""
    named: dict[str | None, bool] = {}
    words: frozenset[str] | None = None  # the query's words, once a candidate has an actor
    for i, f in enumerate(map(fields.get, ids)):
        if f is not None and f.actor_id:
            hit = named.get(f.actor_id)
            if hit is None:
                if words is None:
                    words = frozenset(tokenize(query))
                hit = named[f.actor_id] = names_actor(words, f.actor_id)
            rows[i, 4] = hit


def rerank(
    given: RerankInput,
    calibration: CalibrationPair,
    model: Reranker,
    *,
    pool: int | None = None,
    linked: Linked | None = None,
) -> list[tuple[str, float]]:
    """The best ``pool`` candidates reordered and rescored, best first (ties by id).

    Candidates beyond the pool are dropped: the caller selects from the pool.
    """
    ids, rows = rerank_features(
        given, pool=max(pool or 0, model.pool), window_boost=model.window_boost, linked=linked
    )
    if not ids:
        return []
    p_rerank = model.probabilities(rows)
    z = (
        calibration.absolute.cos * rows[:, 1]
        + calibration.absolute.bm25 * rows[:, 2]
        + calibration.absolute.in_text * rows[:, 3]
        + calibration.absolute.actor * rows[:, 4]
        + calibration.absolute.bias
    )
    p_abs = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
    a = model.absolute_share
    score = p_rerank ** (1.0 - a) * p_abs**a
    return best_first(ids, score)
