"""The reranker's feature rows, built a column at a time, equal the per-candidate
formulas they replaced (one tuple of 13 values per candidate), on random pools
with actors, a time window, conversation links and candidates missing from a leg."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import numpy as np
import pytest

from memvault.retrieval.calibration import names_actor
from memvault.retrieval.rerank import (
    ABSENT_RANK,
    FEATURES,
    RerankInput,
    _in_window,
    rerank_features,
)
from memvault.retrieval.temporal import time_window
from memvault.store.base import RankFields
from memvault.store.filtering import tokenize

NOW = datetime(2024, 1, 10, tzinfo=UTC)


def _reference(
    ids: Sequence[str],
    fused: Sequence[tuple[str, float]],
    text: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    fields: Mapping[str, RankFields],
    query: str,
    near: Mapping[str, list[str]],
) -> np.ndarray:
    """The rows as the per-candidate loop computed them (session 5's code)."""
    window = time_window(query, NOW)
    inside = {m: _in_window(window, fields.get(m)) for m, _ in fused} if window else {}
    p, bm25, cos = dict(fused), dict(text), dict(vector)
    text_rank = {m: i for i, (m, _) in enumerate(text)}
    vector_rank = {m: i for i, (m, _) in enumerate(vector)}
    floor, top = min(cos.values(), default=0.0), max(cos.values(), default=0.0)
    best = max(bm25.values(), default=0.0)
    words = frozenset(tokenize(query))
    rows = np.zeros((len(ids), len(FEATURES)))
    for i, m in enumerate(ids):
        prob, c, score = p[m], cos.get(m, floor), max(0.0, bm25.get(m, 0.0))
        f = fields.get(m)
        others = near.get(m)
        alone = others is None
        rows[i] = (
            math.log(prob / (1.0 - prob + 1e-9) + 1e-9),
            c,
            math.log1p(score),
            1.0 if m in bm25 else 0.0,
            1.0 if f is not None and names_actor(words, f.actor_id) else 0.0,
            (c - floor) / (top - floor) if top > floor else 0.0,
            score / best if best > 0 else 0.0,
            1.0 if inside.get(m) else 0.0,
            1.0 if window is not None else 0.0,
            prob if alone else max((p.get(o, 0.0) for o in others or ()), default=0.0),
            c if alone else max((cos.get(o, floor) for o in others or ()), default=0.0),
            math.log1p(text_rank.get(m, ABSENT_RANK)),
            math.log1p(vector_rank.get(m, ABSENT_RANK)),
        )
    return rows


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "query", ["what did Ana say about the lake", "where did Bo go in December 2023", "x"]
)
def test_columns_equal_the_per_candidate_formulas(seed: int, query: str) -> None:
    rng = random.Random(seed)
    ids = [f"m{i:03d}" for i in range(rng.randint(1, 160))]
    text = sorted(
        ((m, rng.uniform(-0.5, 12.0)) for m in rng.sample(ids, rng.randint(0, len(ids)))),
        key=lambda x: -x[1],
    )
    vector = sorted(
        ((m, rng.uniform(0.0, 0.9)) for m in rng.sample(ids, rng.randint(0, len(ids)))),
        key=lambda x: -x[1],
    )
    fused = sorted(((m, rng.uniform(0.001, 0.999)) for m in ids), key=lambda x: (-x[1], x[0]))
    fields = {
        m: RankFields(
            m,
            rng.choice([None, "", "Ana", "Bo", "u_12"]),
            50,
            1.0,
            "",
            f"2023-12-{rng.randint(1, 28):02d}T10:00:00.000000Z",
            "c",
        )
        for m in ids
        if rng.random() < 0.9
    }
    links = {m: rng.sample([*ids, "gone"], rng.randint(0, 3)) for m in ids if rng.random() < 0.5}
    got_ids, rows = rerank_features(
        RerankInput(fused, text, vector, fields, query, NOW),
        pool=100,
        linked=lambda pool: {m: links[m] for m in pool if m in links},
    )
    p = dict(fused)
    near = {m: [o for o in links[m] if o in p] for m in got_ids if m in links}
    if not near:  # no links among the pool: the clock's neighbours (tested elsewhere)
        return
    expected = _reference(got_ids, fused, text, vector, fields, query, near)
    assert rows.shape == expected.shape
    np.testing.assert_allclose(rows, expected, rtol=1e-12, atol=1e-12)
