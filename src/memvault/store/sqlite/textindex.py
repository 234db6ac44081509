"""The full-text leg in memory: FTS5's own tokens and bm25, scored with numpy.

FTS5 answers ``MATCH … ORDER BY bm25() LIMIT k`` by scoring every row that
holds any query term, one auxiliary-function call per row, and counts each
term's rows again for its IDF: a word in a third of 100k memories costs tens
of ms however small ``k`` is. This index holds the same postings as
``memory_fts`` — (row, column, term frequency) per term, with each row's token
count — in compact arrays, so one term's contribution for all its rows is a
handful of vector operations, and the top ``k`` is cut with a partition.

**Same answer as FTS5.** Tokens come from FTS5 itself: every whitespace-free
chunk of text is tokenized once by a private in-memory FTS5 table with the
store's tokenizer (``porter unicode61 remove_diacritics 2``) and cached.
Whitespace always separates tokens there, so a chunk's tokens do not depend
on its neighbours and the cache is exact. Scores follow FTS5's ``bm25()``
(k1 = 1.2, b = 0.75, IDF ``log((N - n + 0.5) / (n + 0.5))`` floored at 1e-6,
column weights on term frequencies, the row length over all columns), so the
ranking is FTS5's up to floating-point rounding in the last place
(``tests/unit/store/test_textindex.py`` compares both on the same file).

Like the vector matrix, the index is derived data: built from ``memory_fts``
(on a worker thread; the SQL leg answers meanwhile), followed by this
process's writes, and rebuilt when another process changed rows it cannot
follow. A query term FTS5 splits into several tokens (a phrase) is answered
by the SQL leg.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.store.base import TEXT_COLUMNS, RankFields
from memvault.store.ordering import best_first

__all__ = [
    "BM25_B",
    "BM25_K1",
    "DEFAULT_TEXT_INDEX_MIN_ROWS",
    "FtsTokens",
    "TextIndex",
    "TextLeg",
    "TextRow",
    "fts_marker",
    "read_rows",
]

#: FTS5's bm25() constants.
BM25_K1 = 1.2
BM25_B = 0.75

#: From this many rows in ``memory_fts`` the text leg is served by the index.
#: Measured (200-deep default leg, CPU per search, load ~20): 300 rows FTS5
#: 0.18 ms / index 0.19 ms; 1,000 rows 0.44 / 0.26; 1,999 rows 0.92 / 0.31.
DEFAULT_TEXT_INDEX_MIN_ROWS = 500

#: The store's FTS5 tokenizer (schema migration 2).
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

_CACHE_MAX = 1_000_000

#: A new index scores every term found in this many rows (or 0.5% of them, if
#: more) before its first search: a common term's first search scored all its
#: postings while the user waited (see :meth:`TextIndex.warm`).
WARM_MIN_ROWS = 1_000

Slots = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class TextRow:
    """One ``memory_fts`` row: its rowid, memory, tenant, status and the 7 text columns.

    ``rank``: the memory's ranking fields, when known (the index answers
    :meth:`TextIndex.rank_fields` from them).
    """

    rowid: int
    memory_id: str
    orchestrator_id: str
    status: str
    texts: tuple[str, ...]
    rank: RankFields | None = None


class FtsTokens:
    """FTS5's tokens of text, through a private in-memory FTS5 table, cached per chunk.

    >>> tokens = FtsTokens()
    >>> tokens.of("Caroline's café, painting")
    ['carolin', 's', 'cafe', 'paint']
    """

    def __init__(self, tokenize: str = FTS_TOKENIZE, cache_max: int = _CACHE_MAX) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(c, tokenize = '{tokenize}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        self._cache: dict[str, tuple[str, ...]] = {}
        self._cache_max = cache_max
        self._lock = threading.Lock()

    def resolve(self, chunks: Iterable[str]) -> None:
        """Tokenize the chunks not seen before (one FTS5 round trip for all of them)."""
        missing = list({c for c in chunks if c not in self._cache})
        if not missing:
            return
        found: dict[int, list[tuple[int, str]]] = {}
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.executemany(
                    "INSERT INTO t (rowid, c) VALUES (?, ?)", enumerate(missing, start=1)
                )
                for term, doc, offset in conn.execute("SELECT term, doc, offset FROM v"):
                    found.setdefault(int(doc), []).append((int(offset), str(term)))
            finally:
                conn.execute("ROLLBACK")  # the table stays empty
            if len(self._cache) + len(missing) > self._cache_max:
                self._cache.clear()
            for i, chunk in enumerate(missing, start=1):
                self._cache[chunk] = tuple(t for _, t in sorted(found.get(i, ())))

    def of(self, text: str) -> list[str]:
        """Every token of ``text`` in order, as FTS5 indexes it."""
        self.resolve(text.split())
        return self.resolved(text)

    def resolved(self, text: str) -> list[str]:
        """:meth:`of` for a text whose chunks were just resolved (a chunk the cache
        dropped meanwhile is resolved again); skips the check of every chunk."""
        cache = self._cache
        out: list[str] = []
        for chunk in text.split():
            terms = cache.get(chunk)
            if terms is None:  # not resolved, or the cache was cleared meanwhile
                self.resolve([chunk])
                terms = self._cache[chunk]
            out.extend(terms)
        return out

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _Postings:
    """One term's (slot, column, frequency) entries, in slot order, growable."""

    __slots__ = ("_np", "_summed", "cols", "scored", "slots", "tfs")

    def __init__(self) -> None:
        self.slots = array("q")
        self.cols = array("b")
        self.tfs = array("l")
        self._np: tuple[int, Slots, npt.NDArray[np.int8], npt.NDArray[np.float64]] | None = None
        self._summed: tuple[int, tuple[float, ...], Slots, npt.NDArray[np.float64]] | None = None
        #: (index version, column weights, live slots, their bm25 terms): see TextIndex.search
        self.scored: tuple[int, tuple[float, ...], Slots, npt.NDArray[np.float64]] | None = None

    def summed(
        self, weights: npt.NDArray[np.float64], key: tuple[float, ...]
    ) -> tuple[Slots, npt.NDArray[np.float64]]:
        """Each slot once, with its column-weighted term frequency (``key``: the weights).

        Trigger: a common term has tens of thousands of postings, and every
          search weighted and summed all of them again.
        Why: they change only when the term's postings grow (a write), and a
          store's searches use one set of column weights.
        Outcome: kept until the postings grow or the weights differ; the sums
          are the same operations in the same order as before (exact).
        """
        n = len(self.slots)
        hit = self._summed
        if hit is not None and hit[0] == n and hit[1] == key:
            return hit[2], hit[3]
        slots, cols, tfs = self.arrays()
        freq_all = weights[cols] * tfs
        if slots.size > 1:
            starts = np.flatnonzero(np.concatenate(([True], slots[1:] != slots[:-1])))
            uniq, freq = slots[starts], np.add.reduceat(freq_all, starts)
        else:
            uniq, freq = slots, freq_all
        self._summed = (n, key, uniq, freq)
        return uniq, freq

    def arrays(self) -> tuple[Slots, npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        n = len(self.slots)
        if self._np is None or self._np[0] != n:
            self._np = (
                n,
                np.array(self.slots, dtype=np.int64),
                np.array(self.cols, dtype=np.int8),
                np.array(self.tfs, dtype=np.float64),
            )
        return self._np[1], self._np[2], self._np[3]


class TextIndex:
    """BM25 over ``memory_fts`` rows held in memory (see the module docstring).

    >>> def row(i, text):
    ...     return TextRow(i, f"m{i}", "acme", "active", (text, "", "", "", "", "", ""))
    >>> index = TextIndex(FtsTokens())
    >>> index.add([row(1, "tea and toast"), row(2, "coffee"), row(3, "coffee again")])
    >>> [(m, round(s, 4)) for m, s in index.search("acme", index.phrases(["teas"]), None, 5)]
    [('m1', 0.4241)]
    """

    def __init__(self, tokens: FtsTokens) -> None:
        self.tokens = tokens
        self._slot_of_row: dict[int, int] = {}
        self._slot_of_memory: dict[str, int] = {}
        self.memory_ids: list[str] = []
        self._orch_code: dict[str, int] = {}
        self._status_code: dict[str, int] = {}
        cap = 1024
        self._orch = np.zeros(cap, dtype=np.int32)
        self._status = np.zeros(cap, dtype=np.int32)
        self._live = np.zeros(cap, dtype=bool)
        self._length = np.zeros(cap, dtype=np.float64)
        self._postings: dict[str, _Postings] = {}
        self._rank: dict[str, RankFields] = {}
        self.rows = 0  # live rows (FTS5's nRow)
        self.tokens_total = 0  # tokens of live rows (FTS5's total column size)
        self.max_rowid = 0
        #: (sum of head revisions, max content rowid) the index reflects
        self.marker: tuple[int, int] | None = None
        self.version = 0  # bumped by every change (keys the allowed-rows cache)
        self._allowed: dict[tuple[int, int, tuple[str, ...]], npt.NDArray[np.bool_]] = {}
        self._scratch = _Scratch()  # used under ``lock``
        self.lock = threading.RLock()

    def __len__(self) -> int:
        return self.rows

    def _grow(self, need: int) -> None:
        cap = self._live.shape[0]
        if need <= cap:
            return
        new = max(need, cap * 2)
        for name in ("_orch", "_status", "_live", "_length"):
            old = getattr(self, name)
            grown = np.zeros(new, dtype=old.dtype)
            grown[:cap] = old
            setattr(self, name, grown)

    def _code(self, table: dict[str, int], value: str) -> int:
        code = table.get(value)
        if code is None:
            code = table[value] = len(table)
        return code

    def add(self, rows: Sequence[TextRow]) -> None:
        """Add rows (a memory already indexed under another rowid is replaced)."""
        chunks = [c for r in rows for text in r.texts for c in text.split()]
        self.tokens.resolve(chunks)
        tokens_of = self.tokens.resolved  # every chunk resolved just now (one round trip)
        counted: list[tuple[TextRow, list[dict[str, int]], int]] = []
        for row in rows:
            per_col: list[dict[str, int]] = []
            length = 0
            for text in row.texts:
                counts: dict[str, int] = {}
                for term in tokens_of(text) if text else ():
                    counts[term] = counts.get(term, 0) + 1
                    length += 1
                per_col.append(counts)
            counted.append((row, per_col, length))
        with self.lock:
            for row, per_col, length in counted:
                self._drop_memory(row.memory_id)
                slot = len(self.memory_ids)
                self._grow(slot + 1)
                self.memory_ids.append(row.memory_id)
                self._slot_of_row[row.rowid] = slot
                self._slot_of_memory[row.memory_id] = slot
                self._orch[slot] = self._code(self._orch_code, row.orchestrator_id)
                self._status[slot] = self._code(self._status_code, row.status)
                self._live[slot] = True
                self._length[slot] = length
                self.rows += 1
                self.tokens_total += length
                self.max_rowid = max(self.max_rowid, row.rowid)
                if row.rank is not None:
                    self._rank[row.memory_id] = row.rank
                for col, counts in enumerate(per_col):
                    for term, tf in counts.items():
                        post = self._postings.get(term)
                        if post is None:
                            post = self._postings[term] = _Postings()
                        post.slots.append(slot)
                        post.cols.append(col)
                        post.tfs.append(tf)
            self.version += 1
            self._allowed.clear()

    def _drop_memory(self, memory_id: str) -> None:
        slot = self._slot_of_memory.pop(memory_id, None)
        self._rank.pop(memory_id, None)
        if slot is not None and self._live[slot]:
            self._live[slot] = False
            self.rows -= 1
            self.tokens_total -= int(self._length[slot])

    def drop(self, memory_ids: Iterable[str]) -> None:
        """Forget memories' rows (deleted from ``memory_fts``)."""
        with self.lock:
            for memory_id in memory_ids:
                self._drop_memory(memory_id)
            self.version += 1
            self._allowed.clear()

    def rank_fields(self, orchestrator_id: str, memory_ids: Iterable[str]) -> dict[str, RankFields]:
        """The ranking fields the index holds for ``memory_ids`` of that tenant.

        Trigger: every search reads them for 100–200 candidates.
        Why: one SQL read of those rows cost more than both search legs (a
          B-tree probe and a Python row each); the index already holds one
          row per memory and follows every write that changes them.
        Outcome: dictionary lookups; ids it does not hold are left out.

        >>> row = TextRow(1, "m1", "acme", "active", ("tea",) + ("",) * 6,
        ...               RankFields("m1", "Ann", 50, 1.0, "2026-01-01T00:00:00.000000Z"))
        >>> index = TextIndex(FtsTokens()); index.add([row])
        >>> index.rank_fields("acme", ["m1", "m2"])["m1"].actor_id, index.rank_fields("x", ["m1"])
        ('Ann', {})
        """
        orch = self._orch_code.get(orchestrator_id)
        if orch is None:
            return {}
        out: dict[str, RankFields] = {}
        with self.lock:
            rank = self._rank
            if len(self._orch_code) == 1:  # one tenant: every row held is its row
                for m in memory_ids:
                    fields = rank.get(m)
                    if fields is not None:
                        out[m] = fields
                return out
            slot_of, tenant = self._slot_of_memory, self._orch
            for m in memory_ids:
                fields = rank.get(m)
                if fields is not None and tenant[slot_of[m]] == orch:
                    out[m] = fields
        return out

    def phrases(self, terms: Sequence[str]) -> list[list[str]]:
        """Each query term as FTS5 tokenizes it inside a quoted phrase.

        The words no search used before are tokenized in one FTS5 round trip
        for the whole query, not one per term (a new query's first search).
        """
        kept = [t for t in terms if t.strip()]
        self.tokens.resolve([c for t in kept for c in t.split()])
        return [self.tokens.of(t) for t in kept]

    def _allowed_rows(
        self, orchestrator_id: str, statuses: tuple[str, ...]
    ) -> npt.NDArray[np.bool_] | None:
        orch = self._orch_code.get(orchestrator_id)
        if orch is None:
            return None
        key = (self.version, orch, statuses)
        mask = self._allowed.get(key)
        if mask is None:
            n = len(self.memory_ids)
            codes = [self._status_code[s] for s in statuses if s in self._status_code]
            mask = self._live[:n] & (self._orch[:n] == orch) & np.isin(self._status[:n], codes)
            self._allowed.clear()
            self._allowed[key] = mask
        return mask

    def search(
        self,
        orchestrator_id: str,
        phrases: Sequence[Sequence[str]],
        weights: Mapping[str, float] | None,
        limit: int,
        *,
        statuses: tuple[str, ...] = ("active",),
        allowed_ids: Iterable[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``limit`` best rows as FTS5 ranks them: ``(memory_id, -bm25)``, ties by id.

        ``phrases``: one single-token phrase per query term (see :meth:`phrases`).
        Rows count when their tenant is ``orchestrator_id``, their status one of
        ``statuses`` and, with ``allowed_ids``, their memory one of those.
        """
        if any(len(p) != 1 for p in phrases):
            raise ValueError("every phrase must be one token")
        key = tuple(float((weights or {}).get(c, 1.0)) for c in TEXT_COLUMNS)
        w = np.array(key, dtype=np.float64)
        with self.lock:
            if not phrases or self.rows == 0 or limit <= 0:
                return []
            allowed = self._allowed_rows(orchestrator_id, statuses)
            if allowed is None:
                return []
            if allowed_ids is not None:
                picked = np.zeros_like(allowed)
                chosen = [self._slot_of_memory.get(m) for m in allowed_ids]
                picked[[s for s in chosen if s is not None]] = True
                allowed = allowed & picked
            found_slots: list[Slots] = []
            found_scores: list[npt.NDArray[np.float64]] = []
            for (term,) in phrases:
                post = self._postings.get(term)
                if post is None:
                    continue
                uniq, score = self._scored(post, w, key)
                if uniq.size == 0:
                    continue
                found_slots.append(uniq)
                found_scores.append(score)
            if not found_slots:
                return []
            cand, total = _sum_by_slot(
                found_slots, found_scores, len(self.memory_ids), self._scratch
            )
            ok = allowed[cand]
            cand, total = cand[ok], total[ok]
            if cand.size > limit:
                kth = np.partition(-total, limit - 1)[limit - 1]
                top = -total <= kth  # every row tied with the limit-th one
                cand, total = cand[top], total[top]
            ids = self.memory_ids
            return best_first(list(map(ids.__getitem__, cand.tolist())), total)[:limit]

    def _scored(
        self, post: _Postings, w: npt.NDArray[np.float64], key: tuple[float, ...]
    ) -> tuple[Slots, npt.NDArray[np.float64]]:
        """One term's live rows and their bm25 terms (call with :attr:`lock` held).

        Trigger: a term searched again before the index changed.
        Why: its bm25 terms depend only on its postings, the live rows, the row
          count and the mean row length, all fixed by ``version``.
        Outcome: kept on the postings until the next write (the same arrays the
          computation below would give).
        """
        done = post.scored
        if done is not None and done[0] == self.version and done[1] == key:
            return done[2], done[3]
        n_rows = float(self.rows)
        avgdl = self.tokens_total / n_rows
        uniq, freq = post.summed(w, key)
        keep = self._live[uniq]
        uniq, freq = uniq[keep], freq[keep]
        hits = uniq.size
        idf = math.log((n_rows - hits + 0.5) / (hits + 0.5)) if hits else 0.0
        if idf <= 0.0:
            idf = 1e-6
        dl = self._length[uniq]
        score = idf * (
            (freq * (BM25_K1 + 1.0)) / (freq + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl))
        )
        post.scored = (self.version, key, uniq, score)
        return uniq, score

    def warm(self, weights: Mapping[str, float] | None, min_rows: int) -> int:
        """Score now every term found in ``min_rows`` rows or more; how many were.

        Trigger: the first search of a common term scored all its postings
          (hundreds of thousands at 1M rows) while the user waited.
        Why: the index was just built and nothing has been searched yet; the
          scores stay valid until the next write, and the same code computes them.
        Outcome: the builder pays it once; a search finds the term scored.

        >>> def row(i, text):
        ...     return TextRow(i, f"m{i}", "acme", "active", (text, "", "", "", "", "", ""))
        >>> index = TextIndex(FtsTokens())
        >>> index.add([row(1, "tea"), row(2, "tea and toast"), row(3, "coffee")])
        >>> index.warm(None, 2)
        1
        """
        key = tuple(float((weights or {}).get(c, 1.0)) for c in TEXT_COLUMNS)
        w = np.array(key, dtype=np.float64)
        done = 0
        with self.lock:
            if self.rows == 0:
                return 0
            for post in self._postings.values():
                if len(post.slots) >= min_rows:
                    self._scored(post, w, key)
                    done += 1
        return done


class _Scratch:
    """A score and a mark per slot, all zero between uses: one index's searches share
    them (under the index's lock) instead of allocating and zeroing a row-sized array
    per search."""

    __slots__ = ("acc", "hit")

    def __init__(self) -> None:
        self.acc = np.zeros(0, dtype=np.float64)
        self.hit = np.zeros(0, dtype=bool)

    def arrays(self, n: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        if self.acc.size < n:
            size = max(n, 2 * self.acc.size)
            self.acc = np.zeros(size, dtype=np.float64)
            self.hit = np.zeros(size, dtype=bool)
        return self.acc, self.hit


def _sum_by_slot(
    slots: list[Slots],
    scores: list[npt.NDArray[np.float64]],
    n: int,
    scratch: _Scratch | None = None,
) -> tuple[Slots, npt.NDArray[np.float64]]:
    """Per matched slot, its phrases' scores added in phrase order (FTS5's order).

    Each phrase's slots are distinct (a term's postings summed per slot).

    >>> one, two = np.array([1, 4]), np.array([0, 4])
    >>> cand, total = _sum_by_slot([one, two], [np.array([.5, .25]), np.array([1., 2.])], 5)
    >>> cand.tolist(), total.tolist()
    ([0, 1, 4], [1.0, 0.5, 2.25])
    """
    if len(slots) == 1:
        return slots[0], scores[0]
    if sum(s.size for s in slots) * 8 >= n:
        # Trigger: common terms match a large share of the rows.
        # Why: a sort of their postings, or a count over every row, cost more
        #   than the search's other steps together.
        # Outcome: each phrase's scores added into a zeroed per-slot array in
        #   phrase order (0.0 + first + second …, as before), the matched slots
        #   read from a mark per slot; both arrays are zeroed again after use.
        acc, hit = (scratch or _Scratch()).arrays(n)
        try:
            for phrase_slots, phrase_scores in zip(slots, scores, strict=True):
                acc[phrase_slots] += phrase_scores  # distinct slots: one add each
                hit[phrase_slots] = True
            cand = np.flatnonzero(hit[:n])
            total = acc[cand]
            acc[cand] = 0.0
            hit[cand] = False
        except BaseException:
            acc[:] = 0.0
            hit[:] = False
            raise
        return cand, total
    all_slots = np.concatenate(slots)
    all_scores = np.concatenate(scores)
    order = np.argsort(all_slots, kind="stable")  # stable: phrase order within a slot
    s = all_slots[order]
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    return s[starts], np.add.reduceat(all_scores[order], starts)


# -- the store's side: when the index is built, followed, caught up ------------------

Marker = tuple[int, int]

_ROWS_SQL = (
    "SELECT f.rowid, f.memory_id, f.orchestrator_id, coalesce(m.status, ''), "
    + ", ".join(f"f.{c}" for c in TEXT_COLUMNS)
    + ", m.actor_id, m.importance, m.confidence, m.updated_at, m.created_at, m.conversation_id"
    + " FROM memory_fts f LEFT JOIN memories m ON m.memory_id = f.memory_id"
)
_TEXTS = slice(4, 4 + len(TEXT_COLUMNS))


def fts_marker(conn: sqlite3.Connection) -> Marker:
    """(sum of the tenants' head revisions, largest ``memory_fts`` rowid) on ``conn``.

    Every memory change bumps its tenant's revision and re-inserts the memory's
    full-text row under a new rowid, so equal markers mean equal rows.
    """
    revision, top = conn.execute(
        "SELECT (SELECT coalesce(sum(revision), 0) FROM thread_revision WHERE thread_id = '*'),"
        " (SELECT coalesce(max(id), 0) FROM memory_fts_content)"
    ).fetchone()
    return int(revision), int(top)


def read_rows(conn: sqlite3.Connection, after_rowid: int = 0) -> list[TextRow]:
    """The ``memory_fts`` rows past ``after_rowid``, with their memories' status and rank fields."""
    rows = conn.execute(_ROWS_SQL + " WHERE f.rowid > ? ORDER BY f.rowid", (after_rowid,))
    out: list[TextRow] = []
    for r in rows:
        memory_id = str(r[1])
        actor, importance, confidence, updated, created, conv = r[_TEXTS.stop :]
        rank = (
            None
            if updated is None  # a full-text row without its memory
            else RankFields(
                memory_id, actor, int(importance), float(confidence), updated, created, conv
            )
        )
        texts = tuple(str(t or "") for t in r[_TEXTS])
        out.append(TextRow(int(r[0]), memory_id, str(r[2]), str(r[3]), texts, rank))
    return out


class TextLeg:
    """The text index of one store file: built on demand, then kept up to date.

    ``snapshot`` opens a read transaction on the store and yields its
    connection (a context manager factory). Trigger: building the index reads
    and tokenizes every row (seconds at 100k). Why: the first search must not
    wait for it. Outcome: with ``background`` the build runs on a worker thread
    and :meth:`ready` returns ``None`` (the caller's SQL leg answers) until it
    is installed; rows written meanwhile are caught up on the next search.
    """

    def __init__(self, min_rows: int | None, *, background: bool = True) -> None:
        self.min_rows = min_rows
        self.background = background
        self._index: TextIndex | None = None
        self._tokens: FtsTokens | None = None
        self._building: threading.Thread | None = None
        self._failed: str | None = None
        self._lock = threading.Lock()
        #: the column weights searches asked for last (a build warms its terms with them)
        self._weights: Mapping[str, float] | None = None

    @property
    def index(self) -> TextIndex | None:
        return self._index

    def ready(
        self,
        conn: sqlite3.Connection,
        snapshot: Any,
        marker: Marker | None = None,
        weights: Mapping[str, float] | None = None,
    ) -> TextIndex | None:
        """The index matching ``conn``'s snapshot (``marker``: its :func:`fts_marker`,
        when the caller has it), or ``None`` (use SQL meanwhile). A new index
        has its common terms scored with ``weights`` before it is used."""
        if not self.min_rows and self.min_rows != 0:
            return None
        if weights is not None:
            self._weights = weights
        if marker is None:
            marker = fts_marker(conn)
        if marker[1] < (self.min_rows or 0) or self._failed is not None:
            return None
        with self._lock:
            index = self._index
            if index is not None and index.marker == marker:
                return index
            if index is not None and index.marker is not None and _behind(index.marker, marker):
                if _catch_up(conn, index, marker):
                    return index
                self._index = None
            if self._building is None:
                if not self.background:
                    self._index = self._build(snapshot, weights)
                    return self._index if self._index and self._index.marker == marker else None
                self._building = threading.Thread(
                    target=self._build_and_install,
                    args=(snapshot, weights),
                    name="memvault-text-index",
                    daemon=True,
                )
                self._building.start()
        return None

    def start_small(self, conn: sqlite3.Connection, snapshot: Any, most_rows: int) -> bool:
        """Build the index here and now if none exists and the file holds at most
        ``most_rows`` full-text rows (and at least ``min_rows``); whether it did.

        Trigger: a bulk load (``add_many`` batch after batch) into a small store.
        Why: built after the load, on the first search, the index read and
          tokenized every row again (100k rows: seconds on a worker while searches
          went to SQL); built while the store is small it costs milliseconds, and
          :meth:`follow` then adds each committed batch's rows, already at hand.
        Outcome: the caller (the store, after a bulk batch committed) gets an
          index current with its snapshot; larger files are left to the first
          search's background build, as before.
        """
        if (not self.min_rows and self.min_rows != 0) or self._failed is not None:
            return False
        if self._index is not None or self._building is not None:
            return False
        rows = fts_marker(conn)[1]  # the largest rowid: at least the row count
        if rows < (self.min_rows or 0) or rows > most_rows:
            return False
        with self._lock:
            if self._index is not None or self._building is not None:
                return False
            self._index = self._build(snapshot, self._weights)
        return self._index is not None

    def _build(self, snapshot: Any, weights: Mapping[str, float] | None = None) -> TextIndex | None:
        if self._tokens is None:
            self._tokens = FtsTokens()
        index = TextIndex(self._tokens)
        with snapshot() as conn:
            marker = fts_marker(conn)
            rows = read_rows(conn)
        for start in range(0, len(rows), 5_000):
            index.add(rows[start : start + 5_000])
        index.marker = marker
        index.warm(weights, max(WARM_MIN_ROWS, index.rows // 200))
        return index

    def _build_and_install(self, snapshot: Any, weights: Mapping[str, float] | None = None) -> None:
        try:
            index = self._build(snapshot, weights)
        except Exception as exc:  # never an error in a search: SQL answers instead
            with self._lock:
                self._building = None
                self._failed = f"{type(exc).__name__}: {exc}"
            return
        with self._lock:
            if self._failed is None:
                self._index = index
            self._building = None

    def wait(self, timeout: float | None = None) -> TextIndex | None:
        """Wait for a background build; the index (or ``None``)."""
        thread = self._building
        if thread is not None:
            thread.join(timeout)
        return self._index

    def follow(self, before: Marker | None, after: Marker, rows: Sequence[TextRow]) -> None:
        """Apply this process's committed write (its new rows) when nothing else came between."""
        with self._lock:
            index = self._index
            if index is None or before is None or index.marker != before:
                return  # caught up (or rebuilt) by the next search
            index.add(rows)
            index.marker = after

    def forget(self) -> None:
        """Drop the index (rows were deleted: a purge); the next search rebuilds it."""
        with self._lock:
            self._index = None

    def close(self) -> None:
        """Drop the index; a build still running finds its tokenizer closed and stops."""
        with self._lock:
            self._index = None
            self._failed = "closed"
        if self._tokens is not None:
            self._tokens.close()


def _behind(have: Marker, now: Marker) -> bool:
    return now[0] >= have[0] and now[1] >= have[1]


def _catch_up(conn: sqlite3.Connection, index: TextIndex, marker: Marker) -> bool:
    """Add rows written by others since ``index.marker``; False when rows also vanished."""
    fresh = read_rows(conn, index.max_rowid)
    index.add(fresh)
    (count,) = conn.execute("SELECT count(*) FROM memory_fts_content").fetchone()
    if int(count) != index.rows:
        return False  # a purge (or another deletion): rebuild
    index.marker = marker
    return True
