"""Features for the small learned layer: hashed character n-grams and a sentence vector.

Two kinds of evidence, concatenated by the heads (``memvault.learn.model``):

``char_ngrams``
    language-agnostic and dependency-free: the text is NFKC-folded, lower-cased
    and its whitespace collapsed; every character n-gram (sizes 2–5, with a space
    at each end so word starts and ends count) and every word and word pair is
    hashed (CRC-32, stable across runs, platforms and Python versions — never
    Python's salted ``hash``) into ``dim`` buckets; counts become ``1 + log(count)``
    and the row is scaled to unit length. This is what keeps the layer working
    where the sentence encoder cannot load.
``a sentence vector``
    the unit vector an :class:`~memvault.embed.base.Embedder` gives the text
    (``memvault.learn.encoder`` chooses and loads it). A caller that already has
    the vector — the write path embeds every candidate once — passes it in.

Sparse rows are kept as CSR arrays (:class:`SparseRows`) in plain numpy, so
neither training nor inference needs SciPy.

>>> row = char_ngrams("Ship it")
>>> row.indices.dtype, row.values.dtype, round(float((row.values ** 2).sum()), 5)
(dtype('int32'), dtype('float32'), 1.0)
>>> bool((char_ngrams("SHIP  it").indices == row.indices).all())
True
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "NGRAM_DIM",
    "NGRAM_SIZES",
    "SparseRow",
    "SparseRows",
    "char_ngrams",
    "fold",
    "ngram_matrix",
]

#: Hash buckets for n-grams (2**15): small enough to ship a head per family in
#: well under a megabyte (float16), large enough that collisions rarely matter.
NGRAM_DIM = 1 << 15
NGRAM_SIZES = (2, 3, 4, 5)
_MAX_CHARS = 2000  # longer texts: the first 2000 characters carry the evidence
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def fold(text: str) -> str:
    """The form n-grams are read from: NFKC, lower case, one space between words.

    >>> fold("  Ｈｅｌｌｏ\\tWORLD\\x07 ")
    'hello world'
    """
    nfkc = unicodedata.normalize("NFKC", text[: _MAX_CHARS * 2]).lower()
    return " ".join(_CONTROL.sub(" ", nfkc).split())[:_MAX_CHARS]


@dataclass(frozen=True, slots=True)
class SparseRow:
    """One text's n-gram features: sorted unique bucket ``indices`` and their ``values``."""

    indices: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]


def _bucket(gram: str, dim: int) -> int:
    return zlib.crc32(gram.encode("utf-8")) % dim


#: CRC-32 of n-grams met before: text is Zipfian, so most of a text's n-grams
#: were hashed for an earlier one (bounded; cleared when full).
_CRC: dict[str, int] = {}
_CRC_MAX = 2_000_000
#: ``1 + log(count)`` by count (math.log, as the weights were trained with).
_LOG1 = [0.0, *(1.0 + math.log(c) for c in range(1, 4097))]


def _crcs(grams: list[str]) -> list[int]:
    cache = _CRC
    if len(cache) > _CRC_MAX:
        cache.clear()
    found: list[int | None] = list(map(cache.get, grams))  # one C loop for the cached
    if None not in found:
        return found  # type: ignore[return-value]
    out: list[int] = []
    for gram, code in zip(grams, found, strict=True):
        if code is None:
            code = cache.get(gram)  # an n-gram seen twice in this list
            if code is None:
                code = cache[gram] = zlib.crc32(gram.encode("utf-8"))
        out.append(code)
    return out


def char_ngrams(
    text: str, *, dim: int = NGRAM_DIM, sizes: Sequence[int] = NGRAM_SIZES
) -> SparseRow:
    """Hashed character n-grams plus word unigrams and bigrams of ``text``, L2-normalised.

    Always holds at least one feature (a constant bucket), so an empty text
    still has a row and the heads still answer.

    Trigger: the learned layer judges every write (hundreds of n-grams each).
    Why: hashing and counting them one by one in Python cost ~2 ms a text.
    Outcome: each n-gram's CRC is cached, buckets counted with numpy; the row
      is the same, bucket for bucket and bit for bit.
    """
    folded = fold(text)
    padded = f" {folded} "
    grams = ["\x00bias"]
    for n in sizes:
        grams.extend([padded[i : i + n] for i in range(len(padded) - n + 1)])
    words = folded.split()
    grams.extend(["\x01" + w for w in words])
    grams.extend(["\x02" + a + " " + b for a, b in itertools.pairwise(words)])
    buckets = np.array(_crcs(grams), dtype=np.int64) % dim
    keys, counts = np.unique(buckets, return_counts=True)
    table = _LOG1
    vals = np.array(
        [table[c] if c < len(table) else 1.0 + math.log(c) for c in counts.tolist()],
        dtype=np.float64,
    )
    vals /= math.sqrt(float((vals * vals).sum()))
    return SparseRow(keys.astype(np.int32), vals.astype(np.float32))


@dataclass(frozen=True, slots=True)
class SparseRows:
    """Many sparse rows in CSR form: row ``i`` is ``indices[indptr[i]:indptr[i+1]]``."""

    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]
    dim: int

    @property
    def n_rows(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @classmethod
    def stack(cls, rows: Iterable[SparseRow], dim: int = NGRAM_DIM) -> SparseRows:
        """CSR arrays of ``rows`` in order."""
        rows = list(rows)
        lengths = np.array([r.indices.shape[0] for r in rows], dtype=np.int64)
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        if rows:
            indices = np.concatenate([r.indices for r in rows]).astype(np.int32)
            values = np.concatenate([r.values for r in rows]).astype(np.float32)
        else:
            indices = np.zeros(0, dtype=np.int32)
            values = np.zeros(0, dtype=np.float32)
        return cls(indptr, indices, values, dim)

    def take(self, rows: Sequence[int] | npt.NDArray[np.int64]) -> SparseRows:
        """The sub-matrix of ``rows`` (in the order given).

        >>> m = ngram_matrix(["a b", "c d e", "f"], dim=64)
        >>> sub = m.take([2, 0])
        >>> bool((sub.row(0).indices == m.row(2).indices).all()), sub.n_rows
        (True, 2)
        """
        pick = np.asarray(rows, dtype=np.int64).reshape(-1)
        starts = self.indptr[pick]
        lengths = self.indptr[pick + 1] - starts
        indptr = np.zeros(pick.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # position k of the new arrays reads old position starts[row] + (k - indptr[row])
        source = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1], dtype=np.int64)
        return SparseRows(indptr, self.indices[source], self.values[source], self.dim)

    def row(self, i: int) -> SparseRow:
        a, b = int(self.indptr[i]), int(self.indptr[i + 1])
        return SparseRow(self.indices[a:b], self.values[a:b])

    def row_ids(self) -> npt.NDArray[np.int64]:
        """For every stored value, the row it belongs to."""
        return np.repeat(
            np.arange(self.n_rows, dtype=np.int64), np.diff(self.indptr).astype(np.int64)
        )

    def dot(self, weights: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """``self @ weights`` for a dense ``(dim, k)`` matrix: ``(n_rows, k)``."""
        k = weights.shape[1]
        out = np.zeros((self.n_rows, k), dtype=np.float64)
        if self.indices.shape[0] == 0:
            return out
        contrib = weights[self.indices].astype(np.float64) * self.values[:, None]
        lengths = np.diff(self.indptr)
        full = lengths > 0
        # reduceat sums each row's run in order (deterministic); an empty row
        # would wrongly take its neighbour's first value, so those stay zero.
        sums = np.add.reduceat(contrib, np.minimum(self.indptr[:-1], contrib.shape[0] - 1), axis=0)
        out[full] = sums[full]
        return out

    def t_dot(self, grad: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """``self.T @ grad`` for a dense ``(n_rows, k)`` matrix: ``(dim, k)``."""
        rows = self.row_ids()
        k = grad.shape[1]
        # one bincount over (bucket, column) pairs: each cell still sums its
        # contributions in stored order, so the bits equal one bincount per column
        weights = self.values[:, None] * grad[rows, :]
        cells = self.indices.astype(np.int64)[:, None] * k + np.arange(k, dtype=np.int64)
        sums = np.bincount(cells.ravel(), weights=weights.ravel(), minlength=self.dim * k)
        out: npt.NDArray[np.float64] = np.asarray(sums, dtype=np.float64).reshape(self.dim, k)
        return out


def _crc_table() -> npt.NDArray[np.uint32]:
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table[i] = c
    return table


#: the CRC-32 (zlib's polynomial) of every byte value, for :func:`ngram_matrix`
_CRC_TABLE = _crc_table()
_LOG1_ARRAY = np.array(_LOG1, dtype=np.float64)


def ngram_matrix(
    texts: Iterable[str], *, dim: int = NGRAM_DIM, sizes: Sequence[int] = NGRAM_SIZES
) -> SparseRows:
    """:func:`char_ngrams` of every text, stacked — the same rows, bit for bit.

    Trigger: a batch of texts (the gate judging ``add_many`` or an ingested
      folder, training).
    Why: one text's n-grams hashed in Python cost ~0.2 ms; a batch of ASCII
      texts can hash every character n-gram at once.
    Outcome: the character n-grams of ASCII texts are hashed with a vectorised
      CRC-32 (zlib's, so the buckets are the same), counted for the whole batch
      with one ``np.unique``; each row is normalised on its own, as
      :func:`char_ngrams` does. Texts with other characters take :func:`char_ngrams`.

    >>> texts = ["Ship it on Friday", "Le déploiement est prêt", "", "a b"]
    >>> m = ngram_matrix(texts, dim=1024)
    >>> all((m.row(i).indices == char_ngrams(t, dim=1024).indices).all()
    ...     and (m.row(i).values == char_ngrams(t, dim=1024).values).all()
    ...     for i, t in enumerate(texts))
    True
    """
    texts = list(texts)
    rows: list[SparseRow | None] = [None] * len(texts)
    ascii_rows: list[int] = []
    padded: list[str] = []
    words_of: list[list[str]] = []
    for i, text in enumerate(texts):
        folded = fold(text)
        if folded.isascii():
            ascii_rows.append(i)
            padded.append(f" {folded} ")
            words_of.append(folded.split())
        else:
            rows[i] = char_ngrams(text, dim=dim, sizes=sizes)
    if ascii_rows:
        for i, row in zip(ascii_rows, _ascii_rows(padded, words_of, dim, sizes), strict=True):
            rows[i] = row
    return SparseRows.stack((r for r in rows if r is not None), dim)


def _ascii_rows(
    padded: list[str], words_of: list[list[str]], dim: int, sizes: Sequence[int]
) -> list[SparseRow]:
    """The rows of ASCII texts (``padded``: each folded text with a space at each end)."""
    data = np.frombuffer("".join(padded).encode("ascii"), dtype=np.uint8)
    lengths = np.array([len(p) for p in padded], dtype=np.int64)
    ends = np.cumsum(lengths)
    owner = np.repeat(np.arange(len(padded), dtype=np.int64), lengths)
    total = data.shape[0]
    table = _CRC_TABLE
    # CRC-32 state after k bytes from every position: size n's hash is state n.
    state = np.full(total, 0xFFFFFFFF, dtype=np.uint32)
    row_parts: list[npt.NDArray[np.int64]] = []
    bucket_parts: list[npt.NDArray[np.int64]] = []
    biggest = max(sizes)
    for k in range(biggest):
        ahead = np.zeros(total, dtype=np.uint32)
        if k < total:
            ahead[: total - k] = data[k:]
        state = table[(state ^ ahead) & 0xFF] ^ (state >> np.uint32(8))
        n = k + 1
        if n in sizes:
            pos = np.arange(total, dtype=np.int64)
            valid = pos + n <= ends[owner]
            crc = (state[valid] ^ np.uint32(0xFFFFFFFF)).astype(np.int64)
            row_parts.append(owner[valid])
            bucket_parts.append(crc % dim)
    extra_rows: list[int] = []
    extra_grams: list[str] = []
    for r, words in enumerate(words_of):
        grams = ["\x00bias"]
        grams.extend(["\x01" + w for w in words])
        grams.extend(["\x02" + a + " " + b for a, b in itertools.pairwise(words)])
        extra_grams.extend(grams)
        extra_rows.extend([r] * len(grams))
    row_parts.append(np.array(extra_rows, dtype=np.int64))
    bucket_parts.append(np.array(_crcs(extra_grams), dtype=np.int64) % dim)
    keys, counts = np.unique(
        np.concatenate(row_parts) * dim + np.concatenate(bucket_parts), return_counts=True
    )
    row_of = keys // dim
    buckets = (keys % dim).astype(np.int32)
    if counts.size and int(counts.max()) < _LOG1_ARRAY.shape[0]:
        vals = _LOG1_ARRAY[counts]
    else:
        vals = np.array([1.0 + math.log(c) if c else 0.0 for c in counts.tolist()])
    bounds = np.searchsorted(row_of, np.arange(len(padded) + 1, dtype=np.int64))
    out: list[SparseRow] = []
    for r in range(len(padded)):
        a, b = int(bounds[r]), int(bounds[r + 1])
        v = vals[a:b].copy()
        v /= math.sqrt(float((v * v).sum()))
        out.append(SparseRow(buckets[a:b], v.astype(np.float32)))
    return out
