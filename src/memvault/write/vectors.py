"""One vector per candidate: a capture call's candidate texts, embedded together once.

Capture needs a candidate's vector three times — as the query of its
neighbour search, as one side of the similarity bands, and as the stored
embedding of the new memory. :class:`TurnVectors` embeds all of a call's
candidate texts in **one** ``embed_documents`` batch, the first time any of
them is needed, and hands the same vectors to all three uses:

- storage and similarity want ``embed_documents(text)``: always reused
  (a document vector is a function of the model and the text alone);
- the search wants ``embed_query(text)``: reused only when the embedder
  declares itself symmetric (:func:`memvault.embed.base.is_symmetric`),
  otherwise the search embeds the query itself.

>>> from memvault.embed import HashingEmbedder
>>> e = HashingEmbedder(dimension=32)
>>> tv = TurnVectors(e, ["Dana likes tea.", "Dana owns a bike."])
>>> v = tv.document("Dana likes tea.")
>>> tv.batches, bool((v == e.embed_documents(["Dana likes tea."])[0]).all())
(1, True)
>>> _ = tv.document("Dana owns a bike."); tv.batches   # already in the first batch
1
>>> tv.query("Dana likes tea.") is v   # the hashing embedder is symmetric
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from memvault.embed.base import FloatVector, is_symmetric
from memvault.write.similarity import TextEmbedder

__all__ = ["TurnVectors"]


class TurnVectors:
    """Document vectors of one capture call's candidate texts, computed lazily in one batch.

    ``on_error`` is told when the embedder raises; the vector is then ``None``
    and every use falls back to its own path (the search embeds the query, the
    store queues the node for the embedding backfill).
    """

    def __init__(
        self,
        embedder: TextEmbedder,
        texts: Iterable[str],
        *,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        self.embedder = embedder
        self.symmetric = is_symmetric(embedder)
        self._pending = list(dict.fromkeys(texts))
        self._vectors: dict[str, FloatVector] = {}
        self._failed = False
        self._on_error = on_error
        self.batches = 0

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def document(self, text: str) -> FloatVector | None:
        """``embed_documents([text])[0]``, from the call's batch (embedded on first need)."""
        if text not in self._vectors and not self._failed:
            batch = [t for t in self._pending if t not in self._vectors]
            if text not in batch:
                batch.append(text)
            try:
                matrix = self.embedder.embed_documents(batch)
            except Exception as exc:
                # Trigger: the embedder failed (model missing, bad input).
                # Why: memory writes never depend on the vector leg.
                # Outcome: no shared vectors for this call; each use falls back.
                self._failed = True
                if self._on_error is not None:
                    self._on_error(exc)
                return None
            self.batches += 1
            for t, row in zip(batch, matrix, strict=True):
                self._vectors[t] = np.asarray(row, dtype=np.float32)
        return self._vectors.get(text)

    def query(self, text: str) -> FloatVector | None:
        """The query vector of ``text`` if it equals the document vector, else ``None``."""
        return self.document(text) if self.symmetric else None
