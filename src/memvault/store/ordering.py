"""Best-first order of scored rows, ties by memory id (SQL's ``ORDER BY score DESC, id``).

The legs hand back a few hundred scored rows per search; sorting them in
Python with a key function cost more than the search that found them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["best_first"]


def best_first(ids: Sequence[str], scores: npt.NDArray[Any]) -> list[tuple[str, float]]:
    """``(id, score)`` pairs by score descending, equal scores by id.

    >>> best_first(["b", "c", "a"], np.array([1.0, 2.0, 1.0]))
    [('c', 2.0), ('a', 1.0), ('b', 1.0)]
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.size < 2 or bool((values[1:] < values[:-1]).all()):
        # Trigger: rows that already come best first without ties (an ANN's hits).
        # Why: sorting and re-indexing them again cost more than the check.
        # Outcome: the rows as they are, in the same pairs the sort would give.
        return list(zip(ids, values.tolist(), strict=True))
    order = np.argsort(-values, kind="stable")
    ranked = values[order]
    # positions i whose score equals the next one's (NaN equals nothing)
    tied = np.flatnonzero(ranked[1:] == ranked[:-1]).tolist()
    scores_out = ranked.tolist()
    if tied and math.isnan(scores_out[-1]):  # the sort puts every NaN last
        order = np.lexsort((np.array(ids, dtype=str), -values))
        return list(zip(map(ids.__getitem__, order.tolist()), values[order].tolist(), strict=True))
    picked = list(map(ids.__getitem__, order.tolist()))
    if tied:
        # Trigger: equal scores (common in the text leg and among candidates
        #   only one leg found). Why: they must come by id, not by position.
        # Outcome: each run of equal scores sorted by id in place, runs found
        #   in one pass over the tied positions (a lexsort over every id, a
        #   string array of all of them, cost more).
        start = prev = tied[0]
        for i in tied[1:]:
            if i != prev + 1:
                picked[start : prev + 2] = sorted(picked[start : prev + 2])
                start = i
            prev = i
        picked[start : prev + 2] = sorted(picked[start : prev + 2])
    return list(zip(picked, scores_out, strict=True))
