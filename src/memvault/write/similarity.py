"""Calibrated similarity between a candidate and its recalled neighbours.

Two implementations of one small interface: :class:`LexicalSimilarity`
(content-word cosine, no model, the fallback) and :class:`EmbeddingSimilarity`
(cosine of an :class:`~memvault.embed.Embedder`'s unit vectors, with a small
cache so a stored memory is embedded once per process). ``model_id`` selects
the similarity bands (:func:`memvault.write.config.bands_for`).

>>> s = LexicalSimilarity()
>>> [round(x, 2) for x in s.scores("Dana loves tea", ["Dana loves tea a lot", "Ana owns a boat"])]
[0.87, 0.0]
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from memvault.extract.text import content_tokens

__all__ = ["EmbeddingSimilarity", "LexicalSimilarity", "Similarity", "TextEmbedder"]


class Similarity(Protocol):
    """Scores in ``[0, 1]`` between one text and several others."""

    @property
    def model_id(self) -> str: ...

    def scores(
        self, text: str, others: Sequence[str], *, ignore: Sequence[str] = ()
    ) -> list[float]:
        """Similarity of ``text`` to each of ``others``; ``ignore`` names words
        every text shares by construction (the subject's name)."""
        ...


class TextEmbedder(Protocol):
    """The part of :class:`memvault.embed.Embedder` the resolver needs."""

    @property
    def model_id(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")


def _stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word


class LexicalSimilarity:
    """Cosine over stemmed content-word sets (negations and stopwords removed).

    Negation words are removed on purpose: "Dana drinks coffee" and "Dana does
    not drink coffee" should score high, so the resolver can see the polarity
    flip as a contradiction rather than as unrelated text.
    """

    model_id = "lexical"

    @staticmethod
    def _bag(text: str, ignore: frozenset[str]) -> frozenset[str]:
        return frozenset(_stem(w) for w in content_tokens(text) if w not in ignore)

    def scores(
        self, text: str, others: Sequence[str], *, ignore: Sequence[str] = ()
    ) -> list[float]:
        skip = frozenset(t.lower() for w in ignore for t in content_tokens(w))
        mine = self._bag(text, skip)
        out: list[float] = []
        for other in others:
            theirs = self._bag(other, skip)
            if not mine or not theirs:
                out.append(0.0)
                continue
            out.append(len(mine & theirs) / math.sqrt(len(mine) * len(theirs)))
        return out


class EmbeddingSimilarity:
    """Cosine similarity with an embedder's unit vectors, clipped to ``[0, 1]``.

    Vectors are cached by text (LRU, ``cache_size`` entries), so the stored
    neighbours of a busy user are embedded once, not once per turn.
    """

    def __init__(self, embedder: TextEmbedder, *, cache_size: int = 4096) -> None:
        self.embedder = embedder
        self.cache_size = cache_size
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def _vectors(self, texts: Sequence[str]) -> list[npt.NDArray[np.float32]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            matrix = self.embedder.embed_documents(missing)
            for text, row in zip(missing, matrix, strict=True):
                self._cache[text] = row
        for text in texts:
            self._cache.move_to_end(text)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return [self._cache[t] for t in texts]

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The texts among ``texts`` that have no cached vector yet (each once)."""
        return [t for t in dict.fromkeys(texts) if t not in self._cache]

    def remember(self, vectors: Mapping[str, npt.NDArray[np.float32]]) -> None:
        """Cache vectors the caller already has, by text.

        Each must be this embedder's ``embed_documents`` vector of exactly that
        text (the capture call's batch, or the store's embedding cache), so
        scores are the same as if they had been embedded here.
        """
        for text, vector in vectors.items():
            self._cache[text] = np.asarray(vector, dtype=np.float32)
            self._cache.move_to_end(text)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def scores(
        self, text: str, others: Sequence[str], *, ignore: Sequence[str] = ()
    ) -> list[float]:
        # ``ignore`` is for bag-of-words models; a sentence encoder reads whole text.
        if not others:
            return []
        vectors = self._vectors([text, *others])
        mine = vectors[0]
        return [max(0.0, min(1.0, float(np.dot(mine, v)))) for v in vectors[1:]]
