"""Fit the calibration of fused scores (issue 17) on a TUNING split, reproducibly.

For every question of the tuning conversations (LoCoMo, ``add`` mode: what a
production store holds) both legs run as the default preset runs them; each
candidate becomes a row of raw, per-query-independent features (cosine,
bm25, whether the query names the memory's actor) labelled 1 when the memory
came from an evidence turn. A logistic regression with balanced class weights
(a 50/50 prior: 0.5 means "as likely relevant as not") is fitted in numpy;
its coefficients go into :mod:`memvault.retrieval.calibration`.

    python -m memvault.benchmarks.calibration ../shared/data/locomo CACHE 26 30 41

prints the coefficients and the tuning recall of calibrated fusion beside
min-max fusion. With ``--rerank`` it fits the second stage instead
(:mod:`memvault.retrieval.rerank`): the same legs and the production fusion
(:func:`calibrated_fuse` with the actors of the wide pool), then the
reranker's features of the best 100 candidates from
:func:`rerank_features` — the very function search runs — labelled by
evidence, and a balanced logistic fit (standardised, L2 10)::

    python -m memvault.benchmarks.calibration ../shared/data/locomo CACHE 26 30 41 --rerank

Never run it on data reported as held-out.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.benchmarks.locomo import Question, bench_turns, load_conversation
from memvault.benchmarks.modes import BuiltIndex, build_index, day_after
from memvault.embed import Embedder, make_embedder
from memvault.retrieval.calibration import calibrated_fuse, calibration_for, features, names_actor
from memvault.retrieval.config import PRESETS
from memvault.retrieval.rerank import FEATURES, RerankInput, follows, rerank_features
from memvault.retrieval.text import query_terms
from memvault.store.base import NodeFilter, Store
from memvault.store.filtering import tokenize

__all__ = ["collect", "collect_rerank", "fit_logistic", "fit_standardised"]


Hits = list[tuple[str, float]]


class _Rows:
    """Feature rows, their labels (the candidate is evidence) and question groups."""

    def __init__(self) -> None:
        self.x: list[list[float]] = []
        self.y: list[int] = []
        self.group: list[int] = []

    def add(
        self, qn: int, memory_id: str, row: list[float], built: BuiltIndex, evidence: set[str]
    ) -> None:
        self.x.append(row)
        self.y.append(1 if set(built.provenance.get(memory_id, ())) & evidence else 0)
        self.group.append(qn)

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "group": self.group}


def _questions(
    data: Path, names: list[str], cache: Path, mode: str, embedder: Embedder
) -> Iterator[tuple[BuiltIndex, Question, Hits, Hits, datetime]]:
    """Each question of the named conversations with its two legs' hits, on the bench's index.

    One index per conversation, built by the bench's own write path (``mode``),
    closed after its last question; ``now`` is the day after its last turn.
    """
    cfg = PRESETS["default"]
    for name in names:
        conv = load_conversation(data / f"{name}.json")
        turns = bench_turns(conv)
        now = day_after(t.at for t in turns)
        built = build_index(
            mode,
            turns,
            data_hash=conv.sha256,
            cache=cache,
            embedder=embedder,
            prefix="locomo",
            search_at=now,
        )
        engine, store = built.engine, built.engine.store
        try:
            for q in conv.questions:
                text = [
                    (h.memory_id, h.score)
                    for h in store.search_text(
                        engine.orchestrator,
                        query_terms(q.question),
                        NodeFilter(),
                        limit=cfg.top_k_text,
                        column_weights=cfg.column_weights,
                    )
                ]
                vec = [
                    (v.memory_id, v.similarity)
                    for v in store.search_vectors(
                        engine.orchestrator,
                        embedder.model_id,
                        embedder.embed_query(q.question),
                        NodeFilter(),
                        limit=cfg.top_k_vector,
                    )
                ]
                yield built, q, text, vec, now
        finally:
            engine.close()


def collect(data: Path, names: list[str], cache: Path, mode: str = "add") -> dict[str, Any]:
    """Feature rows of the candidates of every question of the named conversations."""
    rows = _Rows()
    questions = _questions(data, names, cache, mode, make_embedder())
    for qn, (built, q, text_hits, vec_hits, _now) in enumerate(questions):
        text, vec = dict(text_hits), dict(vec_hits)
        ids = sorted(set(text) | set(vec))
        store, orchestrator = built.engine.store, built.engine.orchestrator
        nodes = {n.memory_id: n for n in store.get_nodes(orchestrator, ids)}
        words = frozenset(tokenize(q.question))
        floor = min(vec.values(), default=0.0)
        top = max(vec.values(), default=0.0)
        best = max(text.values(), default=0.0)
        evidence = set(q.evidence)
        for memory_id in ids:
            node = nodes.get(memory_id)
            if node is None:
                continue
            row = features(
                text.get(memory_id),
                vec.get(memory_id, floor),
                words,
                node.actor_id,
                cos_range=(floor, top),
                bm25_max=best,
            )
            rows.add(qn, memory_id, list(row), built, evidence)
    return rows.to_json()


def collect_rerank(
    data: Path, names: list[str], cache: Path, mode: str = "add", pool: int = 100
) -> dict[str, Any]:
    """The reranker's feature rows of the best ``pool`` candidates of every question."""
    embedder = make_embedder()
    cal = calibration_for(embedder.model_id)
    rows = _Rows()
    for qn, (built, q, text, vec, now) in enumerate(_questions(data, names, cache, mode, embedder)):
        store, orchestrator = built.engine.store, built.engine.orchestrator
        first = calibrated_fuse(text, vec, {}, q.question, cal)
        fields = store.rank_fields(orchestrator, [m for m, _ in first[:100]])
        actors = {m: f.actor_id for m, f in fields.items()}
        words = frozenset(tokenize(q.question))
        fused = (
            calibrated_fuse(text, vec, actors, q.question, cal)
            if any(names_actor(words, a) for a in set(actors.values()))
            else first
        )
        fields.update(
            store.rank_fields(orchestrator, [m for m, _ in fused[: pool * 2] if m not in fields])
        )

        def linked(
            ids: Sequence[str], store: Store = store, orchestrator: str = orchestrator
        ) -> dict[str, list[str]]:
            return follows(store.edges_of(orchestrator, list(ids)))

        ids, x = rerank_features(
            RerankInput(fused, text, vec, fields, q.question, now), pool=pool, linked=linked
        )
        evidence = set(q.evidence)
        for memory_id, row in zip(ids, x.tolist(), strict=True):
            rows.add(qn, memory_id, row, built, evidence)
    return rows.to_json()


def fit_standardised(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], *, l2: float = 10.0
) -> tuple[npt.NDArray[np.float64], float]:
    """:func:`fit_logistic` on standardised columns, returned as plain (weights, bias).

    >>> x = np.array([[0.0, 5.0], [0.1, 5.0], [0.9, 5.0], [1.0, 5.0]])
    >>> w, b = fit_standardised(x, np.array([0.0, 0.0, 1.0, 1.0]), l2=1.0)
    >>> bool(w[0] > 0)
    True
    """
    mu = x.mean(axis=0)
    sd = x.std(axis=0) + 1e-9
    w = fit_logistic((x - mu) / sd, y, l2=l2)
    return w[:-1] / sd, float(w[-1] - (w[:-1] * mu / sd).sum())


def fit_logistic(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    *,
    l2: float = 1e-3,
    steps: int = 50,
) -> npt.NDArray[np.float64]:
    """Balanced-weight logistic regression by Newton's method; returns [w..., bias].

    >>> x = np.array([[0.0], [0.1], [0.9], [1.0]])
    >>> w = fit_logistic(x, np.array([0.0, 0.0, 1.0, 1.0]), l2=1.0)
    >>> bool(w[0] > 0)
    True
    """
    xb = np.hstack([x, np.ones((len(x), 1))])
    pos = max(1.0, float(y.sum()))
    neg = max(1.0, float(len(y) - y.sum()))
    sw = np.where(y > 0, 0.5 / pos, 0.5 / neg) * len(y)
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (sw * (p - y)) + l2 * np.r_[w[:-1], 0.0]
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def _recall_at(scores: npt.NDArray[np.float64], data: dict[str, Any], k: int) -> float:
    y = np.asarray(data["y"])
    g = np.asarray(data["group"])
    out = []
    for q in np.unique(g):
        idx = np.where(g == q)[0]
        if y[idx].sum() == 0:
            continue
        top = idx[np.argsort(-scores[idx], kind="stable")[:k]]
        out.append(y[top].sum() / y[idx].sum())
    return float(np.mean(out)) if out else 0.0


def main(argv: list[str]) -> int:
    data, cache, names = Path(argv[0]), Path(argv[1]), argv[2:]
    if "--rerank" in argv:
        got = collect_rerank(data, [n for n in names if not n.startswith("--")], cache)
        weights, bias = fit_standardised(
            np.asarray(got["x"], dtype=np.float64), np.asarray(got["y"], dtype=np.float64)
        )
        print(
            json.dumps(
                {
                    "model": "rerank",
                    "features": list(FEATURES),
                    "weights": weights.round(4).tolist(),
                    "bias": round(bias, 4),
                    "rows": len(got["y"]),
                    "positives": int(sum(got["y"])),
                }
            )
        )
        return 0
    saved = cache / "calibration-rows.json"
    if saved.exists() and "--reuse" in argv:
        got = json.loads(saved.read_text())
    else:
        got = collect(data, [n for n in names if not n.startswith("--")], cache)
        saved.write_text(json.dumps(got))
    x = np.asarray(got["x"], dtype=np.float64)
    y = np.asarray(got["y"], dtype=np.float64)
    names_ = ["cos", "log1p_bm25", "in_text", "actor", "rel_cos", "rel_bm25"]
    for label, cols in (
        ("both legs, absolute", [0, 1, 2, 3]),
        ("both legs, absolute + relative", [0, 1, 2, 3, 4, 5]),
        ("text only, absolute", [1, 2, 3]),
        ("text only, absolute + relative", [1, 2, 3, 5]),
    ):
        w = fit_logistic(x[:, cols], y)
        logit = np.hstack([x[:, cols], np.ones((len(x), 1))]) @ w
        print(
            json.dumps(
                {
                    "model": label,
                    "features": [names_[c] for c in cols],
                    "coefficients": w.round(4).tolist(),
                    "rows": len(y),
                    "positives": int(y.sum()),
                    "candidate_recall@10": round(_recall_at(logit, got, 10), 4),
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
