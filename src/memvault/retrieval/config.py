"""Retrieval as typed configuration with named presets (STYLE principle 9).

``spec`` is the memory-subsystem spec's contract verbatim (RRF k=60 over a
vector top 50 and a text top 50, top 20). ``default`` fuses calibrated
probabilities of relevance (comparable across queries; docs/retrieval.md);
``minmax`` is the previous per-query min-max fusion; ``text`` and
``vector`` are the single legs, kept for baselines and degraded modes; ``fts``
is plain full text over the memory's own words (no enrichment columns) — the
simple baseline.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["PRESETS", "Modifiers", "RetrievalConfig", "preset"]

Weight = Annotated[float, Field(ge=0.0, le=10.0)]


class Modifiers(BaseModel):
    """Ranking modifiers applied after fusion (each one's effect is explained)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    importance_boost: Annotated[float, Field(ge=0.0, le=1.0)] = 0.2
    recency_half_life_days: Annotated[float, Field(gt=0.0)] | None = 90.0
    recency_weight: Annotated[float, Field(ge=0.0, le=1.0)] = 0.1
    confidence_weight: Annotated[float, Field(ge=0.0, le=1.0)] = 0.2
    relation_boost: Annotated[float, Field(ge=0.0, le=1.0)] = 0.02
    contradiction_penalty: Annotated[float, Field(ge=0.0, le=1.0)] = 0.1
    #: Boost (score x (1 + b)) for a memory whose actor the query names as a
    #: whole word ("What did Caroline paint?" and a memory with actor_id
    #: "Caroline"). 0 = off; inert when actors are opaque ids.
    actor_match_boost: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0


DEFAULT_COLUMN_WEIGHTS: dict[str, float] = {
    "content": 1.0,
    "key": 0.0,
    "value": 0.5,
    "summary": 0.0,
    "subject": 0.5,
    "context": 0.25,
    "date": 0.25,
}


class RetrievalConfig(BaseModel):
    """How one search runs: legs, fusion, weights, modifiers.

    >>> preset("spec").rrf_k
    60.0
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    top_k_text: Annotated[int, Field(ge=0, le=1000)] = 50
    top_k_vector: Annotated[int, Field(ge=0, le=1000)] = 50
    top_n: Annotated[int, Field(ge=1, le=1000)] = 20
    fusion: Literal["rrf", "minmax", "calibrated"] = "rrf"
    rrf_k: Annotated[float, Field(gt=0.0)] = 60.0
    text_weight: Weight = 1.0
    vector_weight: Weight = 1.0
    column_weights: dict[str, Annotated[float, Field(ge=0.0, le=10.0)]] = Field(
        default_factory=lambda: dict(DEFAULT_COLUMN_WEIGHTS)
    )
    use_context_vectors: bool = False
    #: calibrated fusion only: the learned second stage (time window, conversation
    #: neighbours, leg ranks) over the best candidates (retrieval/rerank.py)
    rerank: bool = False
    modifiers: Modifiers = Modifiers()

    @property
    def uses_text(self) -> bool:
        return self.text_weight > 0 and self.top_k_text > 0

    @property
    def uses_vector(self) -> bool:
        return self.vector_weight > 0 and self.top_k_vector > 0


#: Modifiers of the fused presets: the defaults plus the actor-match boost.
_FUSED_MODIFIERS = Modifiers(actor_match_boost=0.5)


def _fused(
    name: str, fusion: Literal["rrf", "minmax"], *, vector_weight: float, **settings: Any
) -> RetrievalConfig:
    """A score-fusion preset: both legs (text at full weight), the context column at
    half weight, and the actor-match boost (:data:`_FUSED_MODIFIERS`)."""
    return RetrievalConfig(
        name=name,
        fusion=fusion,
        text_weight=1.0,
        vector_weight=vector_weight,
        column_weights={**DEFAULT_COLUMN_WEIGHTS, "context": 0.5},
        modifiers=_FUSED_MODIFIERS,
        **settings,
    )


PRESETS: dict[str, RetrievalConfig] = {
    # Calibrated fusion (retrieval/calibration.py): each leg's raw score and the
    # actor match mapped to a probability of relevance, fitted on a tuning split
    # of stores built by the production write path; scores are comparable
    # across queries, so the spec's threshold is absolute (docs/retrieval.md).
    # Both legs 100 deep (issue 22): LoCoMo dev add mode R@10 .651 -> .665
    # (held-out conversations 42/43 .610/.673 -> .630/.672) and half the
    # candidates to fetch, calibrate and read ranking fields for.
    "default": RetrievalConfig(
        name="default",
        fusion="calibrated",
        rerank=True,
        top_k_text=100,
        top_k_vector=100,
        column_weights={**DEFAULT_COLUMN_WEIGHTS, "context": 0.5},
    ),
    # The previous default: per-query min-max score fusion with a lighter vector
    # leg and the actor-match boost. Its scores are relative (every query's best
    # hit is 1.0), so an absolute threshold means nothing with it.
    "minmax": _fused("minmax", "minmax", vector_weight=0.5, top_k_text=200, top_k_vector=200),
    "spec": RetrievalConfig(
        name="spec",
        fusion="rrf",
        rrf_k=60.0,
        column_weights={
            "content": 1.0,
            "key": 1.0,
            "value": 1.0,
            "summary": 1.0,
            "subject": 0.0,
            "context": 0.0,
            "date": 0.0,
        },
        use_context_vectors=False,
    ),
    "rrf": _fused("rrf", "rrf", vector_weight=0.7, rrf_k=10.0),
    "text": RetrievalConfig(
        name="text",
        vector_weight=0.0,
        top_k_vector=0,
        column_weights={**DEFAULT_COLUMN_WEIGHTS, "context": 0.5},
    ),
    "fts": RetrievalConfig(
        name="fts",
        vector_weight=0.0,
        top_k_vector=0,
        column_weights={
            "content": 1.0,
            "key": 0.0,
            "value": 0.0,
            "summary": 0.0,
            "subject": 0.0,
            "context": 0.0,
            "date": 0.0,
        },
    ),
    "vector": RetrievalConfig(name="vector", text_weight=0.0, top_k_text=0),
}


def preset(name: str) -> RetrievalConfig:
    """A named preset; raises ``KeyError`` listing the names when unknown."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown retrieval preset {name!r}; one of {sorted(PRESETS)}") from None
