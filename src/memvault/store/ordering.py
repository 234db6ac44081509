"""Best-first order of scored rows, ties by memory id (SQL's ``ORDER BY score DESC, id``).

The legs hand back a few hundred scored rows per search; sorting them in
Python with a key function cost more than the search that found them.
"""

from __future__ import annotations

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
    if values.size < 2 or bool(np.all(values[1:] < values[:-1])):
        # Trigger: rows that already come best first without ties (an ANN's hits).
        # Why: sorting and re-indexing them again cost more than the check.
        # Outcome: the rows as they are, in the same pairs the sort would give.
        return list(zip(ids, values.tolist(), strict=True))
    order = np.argsort(-values, kind="stable")
    ranked = values[order]
    picked = list(map(ids.__getitem__, order.tolist()))
    same = ranked[1:] == ranked[:-1]
    if bool(same.any()):
        # Trigger: equal scores (common in the text leg and among candidates
        #   only one leg found). Why: they must come by id, not by position.
        # Outcome: each run of equal scores sorted by id in place; a lexsort
        #   over every id (a string array of all of them) cost more.
        if bool(np.isnan(ranked).any()):
            order = np.lexsort((np.array(ids, dtype=str), -values))
            return list(
                zip(map(ids.__getitem__, order.tolist()), values[order].tolist(), strict=True)
            )
        edges = np.diff(np.concatenate(([0], same.view(np.int8), [0])))
        for start, end in zip(
            np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(), strict=True
        ):
            picked[start : end + 1] = sorted(picked[start : end + 1])
    return list(zip(picked, ranked.tolist(), strict=True))
