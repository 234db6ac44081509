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
    order = np.argsort(-values, kind="stable").tolist()
    ranked = [(ids[i], float(values[i])) for i in order]
    out: list[tuple[str, float]] = []
    i = 0
    while i < len(ranked):
        j = i + 1
        while j < len(ranked) and ranked[j][1] == ranked[i][1]:
            j += 1
        out.extend(sorted(ranked[i:j]) if j - i > 1 else ranked[i:j])
        i = j
    return out
