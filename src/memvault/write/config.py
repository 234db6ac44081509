"""Write-path configuration: similarity bands per embedder, caps, extractor choice.

Typed, frozen and validated once (STYLE principle 8); unknown keys fail.
Bands are *configuration calibrated per embedder*: a cosine of 0.8 means
"near-duplicate" for one model and "same topic" for another, so
:func:`bands_for` looks the bands up by the similarity model's id.

>>> CaptureConfig().max_writes_per_turn
3
>>> bands_for("sentence-transformers/all-MiniLM-L6-v2").duplicate
0.95
>>> bands_for("some-unknown-model") == bands_for("lexical")
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["DEFAULT_BANDS", "CaptureConfig", "SimilarityBands", "bands_for"]

_Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class SimilarityBands(BaseModel):
    """Cosine thresholds the resolver uses (higher band ⇒ closer meaning).

    - ``duplicate``: at or above, the same statement → MERGE (no new node);
    - ``contradiction``: at or above, with opposite polarity or a different
      number, the statements conflict → ``Contradicts`` edge;
    - ``related``: at or above → ``RelatedTo`` edge with weight = similarity;
    - ``done``: how close a "finished X" must be to an open todo to close it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    duplicate: _Unit
    contradiction: _Unit
    related: _Unit
    done: _Unit

    @model_validator(mode="after")
    def _ordered(self) -> SimilarityBands:
        if not self.duplicate >= self.contradiction >= self.related:
            raise ValueError("bands must satisfy duplicate >= contradiction >= related")
        return self


#: Lexical: tuned on bench/data/extraction.jsonl. MiniLM: from 16 labelled pairs of
#: that set (paraphrase ≥ 0.90, negation flips 0.75–0.86, same-topic 0.73–0.90,
#: same-user unrelated 0.36–0.55); see docs/write-path.md.
DEFAULT_BANDS: Mapping[str, SimilarityBands] = {
    "lexical": SimilarityBands(duplicate=0.9, contradiction=0.6, related=0.34, done=0.5),
    "sentence-transformers/all-MiniLM-L6-v2": SimilarityBands(
        duplicate=0.95, contradiction=0.72, related=0.62, done=0.7
    ),
    "hashing": SimilarityBands(duplicate=0.9, contradiction=0.55, related=0.3, done=0.45),
}


def bands_for(
    model_id: str, overrides: Mapping[str, SimilarityBands] | None = None
) -> SimilarityBands:
    """Bands for a similarity model: exact id, then id prefix, then the lexical bands."""
    table = {**DEFAULT_BANDS, **(overrides or {})}
    if model_id in table:
        return table[model_id]
    for name, bands in table.items():
        if model_id.startswith(name):
            return bands
    return table["lexical"]


class CaptureConfig(BaseModel):
    """Caps and knobs of the capture path (all configurable, defaults per the issue).

    ``max_writes_per_turn`` bounds the node-creating writes of one transcript
    turn (merges into an existing node are not new writes);
    ``max_writes_per_output`` does the same for one workflow output or
    diagnostics batch; ``daily_cap_per_user`` bounds a user's captured nodes per
    UTC day (ENTITLEMENT_CAP beyond it). ``related_top_k`` bounds ``RelatedTo``
    edges per new node; ``neighbours`` is how many recall hits are compared.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_writes_per_turn: Annotated[int, Field(ge=0, le=50)] = 3
    max_writes_per_output: Annotated[int, Field(ge=0, le=500)] = 20
    daily_cap_per_user: Annotated[int, Field(ge=0, le=1_000_000)] = 200
    related_top_k: Annotated[int, Field(ge=0, le=20)] = 3
    neighbours: Annotated[int, Field(ge=1, le=100)] = 8
    confidence_nudge: Annotated[float, Field(ge=0.0, le=0.5)] = 0.05
    evidence_max_chars: Annotated[int, Field(ge=0, le=2000)] = 400
    bands: Mapping[str, SimilarityBands] = Field(default_factory=dict)
