"""Rank fusion as small pure functions (STYLE principle 9).

Each leg hands in an ordered list of ``(memory_id, score)`` pairs, best
first. The result is sorted by fused score, best first, ties broken by
memory id, so the output is deterministic for a given input.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["Ranking", "minmax_fuse", "rrf_fuse"]

Ranking = Sequence[tuple[str, float]]


def _sorted(scores: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def rrf_fuse(
    rankings: Sequence[Ranking], *, k: float = 60.0, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion: ``Σ w_leg / (k + rank)`` with 1-based ranks.

    >>> rrf_fuse([[("a", 9.0), ("b", 1.0)], [("b", 0.9)]], k=60)
    [('b', 0.03252247488101534), ('a', 0.01639344262295082)]
    """
    if k <= 0:
        raise ValueError("rrf k must be positive")
    w = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(w) != len(rankings):
        raise ValueError("one weight per ranking")
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, w, strict=True):
        if weight <= 0:
            continue
        seen: set[str] = set()
        rank = 0
        for memory_id, _score in ranking:
            if memory_id in seen:
                continue
            seen.add(memory_id)
            rank += 1
            fused[memory_id] = fused.get(memory_id, 0.0) + weight / (k + rank)
    return _sorted(fused)


def minmax_fuse(
    rankings: Sequence[Ranking], *, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Weighted sum of per-leg min-max normalised scores (absent = 0).

    A leg whose scores are all equal contributes its full weight to each
    of its candidates.

    >>> minmax_fuse([[("a", 10.0), ("b", 5.0)], [("b", 0.8), ("c", 0.4)]])
    [('a', 1.0), ('b', 1.0), ('c', 0.0)]
    """
    w = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(w) != len(rankings):
        raise ValueError("one weight per ranking")
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, w, strict=True):
        if weight <= 0 or not ranking:
            continue
        best: dict[str, float] = {}
        for memory_id, score in ranking:
            best[memory_id] = max(score, best.get(memory_id, score))
        lo, hi = min(best.values()), max(best.values())
        span = hi - lo
        for memory_id, score in best.items():
            norm = 1.0 if span == 0 else (score - lo) / span
            fused[memory_id] = fused.get(memory_id, 0.0) + weight * norm
    return _sorted(fused)
