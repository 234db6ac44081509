"""The SQLite backend: one file per orchestrator (:class:`.SQLiteFile` keeps its
connections), written through :mod:`.writes`, read through SQL and the in-memory
text and vector legs that follow every committed write.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.errors import StoreError, StoreUnavailableError
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.store.anchor import AnchorKeeper, StoreAnchor
from memvault.store.base import (
    GENESIS_HASH,
    NO_FILTER,
    CheckpointsElsewhere,
    NodeFilter,
    RankFields,
    Store,
    StoreCounts,
    TextHit,
    VectorHit,
    WriteSet,
    recorded_identity,
)
from memvault.store.records import AuditHead
from memvault.store.requests import TextSearch, VectorSearch
from memvault.store.sql import (
    EDGE_COLUMNS,
    edge_from_row,
    erase_reader_marks_query,
    mark_thread_seen_query,
)
from memvault.store.sql_reads import SqlReads
from memvault.store.sqlite import lifecycle as lifecycle_sql
from memvault.store.sqlite import queries as q
from memvault.store.sqlite import writes
from memvault.store.sqlite.ann import DEFAULT_ANN_MIN_ROWS
from memvault.store.sqlite.connection import SQLiteFile
from memvault.store.sqlite.schema import MIGRATIONS
from memvault.store.sqlite.textindex import (
    DEFAULT_TEXT_INDEX_MIN_ROWS,
    TextLeg,
    fts_marker,
)
from memvault.store.sqlite.vectors import (
    ANN_KINDS,
    VectorMatrix,
    decode_vector,
)

__all__ = ["SQLiteStore"]

#: validated nodes kept for reuse by get_nodes (see SQLiteStore._hydrate)
NODE_CACHE_SIZE = 20_000
#: nodes a thread keeps between commits without reading them again (SQLiteStore.get_nodes)
SEEN_NODES_SIZE = 4096
#: filters whose allowed ids are kept (see SQLiteStore._allowed_ids)
FILTER_CACHE_SIZE = 32
#: ranking fields kept in memory (see SQLiteStore.rank_fields)
RANK_CACHE_SIZE = 500_000


#: the filter of an unfiltered search (built once: a pydantic model costs ~50 us to build)
_NO_FILTER = NO_FILTER
#: columns of a ``SELECT_NODE`` row that belong to the node (the source's follow)
_NODE_WIDTH = len(q.NODE_COLUMNS)
#: a leg's ``(memory_id, score)`` pair as its hit, in C (no Python call per hit)
_text_hit = functools.partial(tuple.__new__, TextHit)
_vector_hit = functools.partial(tuple.__new__, VectorHit)


class SQLiteStore(SQLiteFile, CheckpointsElsewhere, SqlReads, Store):
    """A :class:`~memvault.store.base.Store` on one SQLite file (:class:`.SQLiteFile`).

    >>> import tempfile, pathlib
    >>> store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "memory.db")
    >>> store.revision("acme")
    0
    >>> store.close()

    ``ann_min_rows``: from this many candidate vectors on, vector search uses
    an approximate faiss index when the ``ann`` extra is installed; ``None``
    or 0 keeps it exact. It may be changed on a live store. ``ann_kind``:
    ``hnsw`` (default: a graph that follows writes) or ``ivf``.
    ``text_index_min_rows``: from this many full-text rows on, the text leg is
    served by an in-memory copy of the FTS5 index with FTS5's own tokens and
    bm25 (:mod:`.textindex`); ``None`` keeps every text search in SQL.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        ann_min_rows: int | None = DEFAULT_ANN_MIN_ROWS,
        ann_kind: str = "hnsw",
        create: bool = True,
        close_timeout: float = 30.0,
        text_index_min_rows: int | None = DEFAULT_TEXT_INDEX_MIN_ROWS,
    ) -> None:
        #: Where the data lives (``Store.location``): the database file.
        self.location = str(Path(path))
        self.ann_min_rows = ann_min_rows
        if ann_kind not in ANN_KINDS:
            raise ValueError(f"unknown ANN index {ann_kind!r}; one of {', '.join(ANN_KINDS)}")
        self.ann_kind = ann_kind
        #: build the ANN index on a worker thread (searches exact meanwhile); tests turn it off
        self.ann_background = True
        #: keep the HNSW graph beside the file for the next process (``_graph_path``)
        self.ann_persist = True
        #: the in-memory text index (``text_leg.background = False``: built in the search)
        self.text_leg = TextLeg(text_index_min_rows)
        self._anchors = AnchorKeeper()
        self._vectors: dict[tuple[str, str], VectorMatrix] = {}
        self._nodes: OrderedDict[str, tuple[tuple[Any, ...], MemoryNode]] = OrderedDict()
        self._nodes_lock = threading.Lock()
        self._filter_cache: OrderedDict[tuple[str, NodeFilter], tuple[Any, list[str]]] = (
            OrderedDict()
        )
        self._rank_cache: dict[str, tuple[str, RankFields]] = {}
        self._rank_marker: tuple[int, int] | None = None
        self._vectors_lock = threading.Lock()
        SQLiteFile.__init__(
            self, path, migrations=MIGRATIONS, create=create, close_timeout=close_timeout
        )

    # -- reads shared with PostgreSQL (SqlReads) -------------------------------

    _mark = "?"
    _select_node = q.SELECT_NODE

    def _read_rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return self._read(sql, params)

    # -- writes --------------------------------------------------------------

    def apply(self, write: WriteSet) -> int:
        write.check_scope()
        orch = write.orchestrator_id
        head: tuple[int, str] | None = None
        try:
            with self._vectors_lock:
                models = [m for (o, m) in self._vectors if o == orch]
            bulk = _bulk_models(write, models)
            with self._transaction() as conn:
                before = {m: self._marker(conn, orch, m) for m in models}
                # a small store's bulk batch: its matrix is loaded now and follows the load
                bulk = {m: d for m, d in bulk.items() if self._small(conn, orch, m)}
                lifecycle_sql.check_expected(conn, write)  # before any row is written
                text_before = fts_marker(conn)
                text_rows = writes.write_rows(conn, write)
                lifecycle_sql.apply_lifecycle(conn, write)
                revision = writes.bump_revision(conn, write)
                after = {m: self._marker(conn, orch, m) for m in models}
                text_after = fts_marker(conn)
                if self._anchors.wants(orch):
                    found = conn.execute(
                        "SELECT events, head_hash FROM audit_head WHERE orchestrator_id = ?",
                        (orch,),
                    ).fetchone()
                    head = (int(found[0]), str(found[1])) if found else (0, GENESIS_HASH)
            # Committed, locks released: the anchor (an fsync) does not lengthen the
            # time other writers wait; advance_anchor keeps it in commit order.
            if head is not None:
                self._anchors.committed(
                    orch, revision=revision, history_count=head[0], last_hash=head[1]
                )
            # Committed: only now may the in-memory vector index follow the write.
            self._follow_write(write, before, after, _bulk_models(write, ()))
            for model_id, dim in bulk.items():
                self._follow_bulk(orch, model_id, dim)
            if not write.purge_ids:
                self.text_leg.follow(text_before, text_after, text_rows)
                if len(text_rows) >= FOLLOW_BULK_ROWS:
                    self._follow_text_bulk()
                self._follow_rank_fields(write, text_before, text_after)
            if write.purge_ids:
                self._after_purge(orch)
            return revision
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"write refused by the database: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            self._write_failed(exc)
            raise StoreUnavailableError(f"write failed on {self.path}: {exc}") from exc

    @staticmethod
    def _marker(conn: sqlite3.Connection, orch: str, model_id: str) -> tuple[int, int]:
        rev = conn.execute(
            "SELECT revision FROM thread_revision WHERE orchestrator_id = ? AND thread_id = '*'",
            (orch,),
        ).fetchone()
        top = conn.execute(
            "SELECT max(rowid) FROM memory_embeddings WHERE orchestrator_id = ? AND model_id = ?",
            (orch, model_id),
        ).fetchone()
        return (int(rev[0]) if rev else 0, int(top[0] or 0))

    def _follow_write(
        self,
        write: WriteSet,
        before: dict[str, tuple[int, int]],
        after: dict[str, tuple[int, int]],
        bulk: Mapping[str, int],
    ) -> None:
        """Bring cached vector matrices up to date with a committed write (``bulk``:
        the models it wrote a bulk batch of, see :func:`_bulk_models`)."""
        with self._vectors_lock:
            for model_id, marker in before.items():
                key = (write.orchestrator_id, model_id)
                matrix = self._vectors.get(key)
                if matrix is None:
                    continue
                if matrix.marker != marker:
                    # Trigger: someone else wrote since this matrix was loaded.
                    # Why: applying only our delta would leave theirs missing.
                    # Outcome: leave its marker behind; the next search catches
                    #   up with every write since it (ours included), see _matrix.
                    continue
                for node in write.nodes:
                    matrix.set_active(node.memory_id, node.status.value == "active")
                statuses = {n.memory_id: n.status.value for n in write.nodes}
                for row in write.embeddings:
                    if row.model_id != model_id:
                        continue
                    active = statuses.get(row.memory_id)
                    if active is None:
                        current = self.get_nodes(write.orchestrator_id, [row.memory_id])
                        active = current[0].status.value if current else "gone"
                    matrix.upsert(row.memory_id, row.vector, active=active == "active")
                matrix.marker = after[model_id]
                matrix.follow_ann(self.ann_min_rows, bulk=model_id in bulk)

    def _small(self, conn: sqlite3.Connection, orch: str, model_id: str) -> bool:
        """Whether (tenant, model) holds fewer vectors than the ANN threshold (cheap to load).

        ``max(rowid)`` of its rows bounds their count from above (one index probe).
        """
        top = conn.execute(
            "SELECT max(rowid) FROM memory_embeddings WHERE orchestrator_id = ? AND model_id = ?",
            (orch, model_id),
        ).fetchone()
        return int(top[0] or 0) < (self.ann_min_rows or DEFAULT_ANN_MIN_ROWS)

    def _follow_bulk(self, orchestrator_id: str, model_id: str, dim: int) -> None:
        """Load the matrix of a small store after its first bulk batch (then it follows).

        Trigger: ``add_many`` batches into a store no search has read yet.
        Why: the first search after the load read every vector back and built
          the ANN graph in one go (15.9 s at 100k on a quiet box).
        Outcome: the matrix (a few rows yet) is loaded after the first batch and
          follows the next ones; from the ANN threshold on, its graph grows on a
          worker thread while the load goes on (:meth:`VectorMatrix.follow_ann`).
          A read failing here fails nothing: the next search loads it.
        """
        try:
            with self._call():
                self._usable()
                matrix = self._matrix(orchestrator_id, model_id, dim)
        except (sqlite3.DatabaseError, StoreUnavailableError):
            return
        matrix.follow_ann(self.ann_min_rows, bulk=True)

    def _follow_text_bulk(self) -> None:
        """After a bulk batch: build the text index now while the file is small
        (:meth:`TextLeg.start_small`); later batches follow into it.

        A read failing here fails nothing: the first search builds the index.
        """
        try:
            with self._call():
                self._usable()
                self.text_leg.start_small(self._reader(), self._snapshot, BULK_TEXT_BUILD_ROWS)
        except (sqlite3.DatabaseError, StoreUnavailableError):
            return

    def _follow_rank_fields(
        self, write: WriteSet, before: tuple[int, int], after: tuple[int, int]
    ) -> None:
        """The committed nodes' ranking fields into the cache (when it was current)."""
        with self._nodes_lock:
            if self._rank_marker != before:
                return  # another connection wrote since: the next read clears it
            for node in write.nodes:
                self._rank_cache[node.memory_id] = (node.orchestrator_id, RankFields.of(node))
            self._rank_marker = after

    # -- reads ---------------------------------------------------------------

    @staticmethod
    def _node(row: sqlite3.Row) -> MemoryNode:
        # Trigger: a row of ``SELECT_NODE`` (node columns, then source columns).
        # Why: ``row[name]`` searches the column names one by one (~25 of them).
        # Outcome: positional values zipped with the column lists.
        # The source goes in as a dict: validated with the node in one call.
        values = tuple(row)
        data: dict[str, Any] = dict(zip(q.NODE_COLUMNS, values[:_NODE_WIDTH], strict=True))
        data["pinned"] = bool(data["pinned"])
        data["source"] = dict(zip(q.SOURCE_COLUMNS, values[_NODE_WIDTH:], strict=True))
        return MemoryNode.model_validate(data)

    def get_nodes(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryNode]:
        """The nodes of ``memory_ids`` that exist, by id.

        Trigger: every search reads its final 10 nodes, many read by earlier searches.
        Why: the SQL read of a node (two B-tree probes of the memory, two of its
          source, a 33-column row) cost more than the rest of its hydration.
        Outcome: nodes read on this thread are kept until any connection commits
          (``PRAGMA data_version`` of this thread's reader); only the others are
          read. If a commit lands during the read, every node is read again, so
          one answer never mixes two states of the file.
        """
        ids = sorted(set(memory_ids))
        if not ids:
            return []
        version, seen = self._seen_nodes()
        found = {m: n for m in ids if (n := seen.get(m)) is not None}
        if found:
            found = {m: n for m, n in found.items() if n.orchestrator_id == orchestrator_id}
        missing = [m for m in ids if m not in found]
        for start in range(0, len(missing), 500):
            sql, params = q.get_nodes_query(orchestrator_id, missing[start : start + 500])
            for row in self._read(sql, params):
                node = self._hydrate(row)
                found[node.memory_id] = node
        if missing and found and self._seen_nodes()[0] != version:
            return self._read_nodes(orchestrator_id, ids)  # a commit landed meanwhile
        if missing:
            if len(seen) + len(missing) > SEEN_NODES_SIZE:
                seen.clear()
            seen.update((m, found[m]) for m in missing if m in found)
        return [found[m] for m in ids if m in found]  # by id, as ORDER BY memory_id

    def _read_nodes(self, orchestrator_id: str, ids: Sequence[str]) -> list[MemoryNode]:
        """``ids`` (sorted, distinct) read from the file, none from :meth:`_seen_nodes`."""
        out: list[MemoryNode] = []
        for start in range(0, len(ids), 500):
            sql, params = q.get_nodes_query(orchestrator_id, ids[start : start + 500])
            out.extend(self._hydrate(r) for r in self._read(sql, params))
        return out

    def _seen_nodes(self) -> tuple[int, dict[str, MemoryNode]]:
        """This thread's reader's ``data_version`` and the nodes it read since it last changed."""
        with self._call():
            self._usable()
            version = int(self._reader().execute("PRAGMA data_version").fetchone()[0])
        local = self._local
        if getattr(local, "nodes_version", None) != version:
            local.nodes_version = version
            local.nodes = {}
        seen: dict[str, MemoryNode] = local.nodes
        return version, seen

    def _hydrate(self, row: sqlite3.Row) -> MemoryNode:
        """The node of ``row``, reusing the one built from an identical row before.

        Trigger: a search hydrates 30–100 candidates, and validating a node
          (pydantic, content checks) costs more than reading its row.
        Why: nodes are frozen, and a node is a function of its row alone.
        Outcome: an LRU of nodes keyed by memory id, used only when every
          column of the row read now equals the cached row's.
        """
        key = tuple(row)
        memory_id = row["memory_id"]
        hit = self._nodes.get(memory_id)
        if hit is not None and hit[0] == key:
            return hit[1]
        node = self._node(row)
        with self._nodes_lock:
            self._nodes[memory_id] = (key, node)
            while len(self._nodes) > NODE_CACHE_SIZE:
                self._nodes.popitem(last=False)
        return node

    def rank_fields(self, orchestrator_id: str, memory_ids: Sequence[str]) -> dict[str, RankFields]:
        """Ranking fields, from memory while no other connection changed the file.

        Trigger: every search reads them for 100-200 candidates.
        Why: they change only when their memory is written; the writes of this
          store follow into the cache, anyone else's commit clears it.
        Outcome: one SQL read for the ids not seen since the last foreign write.
        """
        with self._call():
            self._usable()
            marker = self._unchanged_marker(self._reader(), "fts", fts_marker)
        index = self.text_leg.index
        if index is not None and index.marker == marker:
            # the text index reflects exactly this snapshot and holds every row's fields
            out = index.rank_fields(orchestrator_id, memory_ids)
            if len(out) == len(set(memory_ids)):
                return out
        else:
            out = {}
        with self._nodes_lock:
            if self._rank_marker != marker:
                self._rank_cache.clear()
                self._rank_marker = marker
            cache = self._rank_cache
            for m in memory_ids:
                hit = cache.get(m)
                if hit is not None and hit[0] == orchestrator_id:
                    out[m] = hit[1]
        ids = sorted({m for m in memory_ids if m not in out})
        fresh: dict[str, RankFields] = {}
        for start in range(0, len(ids), 500):
            sql, params = q.rank_fields_query(orchestrator_id, ids[start : start + 500])
            for m, actor, importance, confidence, updated, created, conv in self._read(sql, params):
                fresh[m] = RankFields(
                    m, actor, int(importance), float(confidence), updated, created, conv
                )
        if fresh:
            with self._nodes_lock:
                if self._rank_marker == marker:
                    if len(self._rank_cache) + len(fresh) > RANK_CACHE_SIZE:
                        self._rank_cache.clear()
                    self._rank_cache.update((m, (orchestrator_id, f)) for m, f in fresh.items())
            out.update(fresh)
        return out

    def edges_of(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        if not memory_ids or not self._has_edges():  # before sorting 100-200 ids for nothing
            return []
        ids = sorted(set(memory_ids))
        found: dict[str, MemoryEdge] = {}
        for start in range(0, len(ids), 256):
            chunk = q.padded(ids[start : start + 256])
            marks = ", ".join("?" for _ in chunk)
            rows = self._read(
                f"SELECT {', '.join(EDGE_COLUMNS)} FROM memory_edges WHERE orchestrator_id = ? AND "
                f"(from_memory_id IN ({marks}) OR to_memory_id IN ({marks}))",
                [orchestrator_id, *chunk, *chunk],
            )
            for edge in map(edge_from_row, rows):
                found[edge.edge_id] = edge
        return sorted(found.values(), key=lambda e: (e.created_at, e.edge_id))

    def _has_edges(self) -> bool:
        """Whether the file holds any edge (checked again after every commit).

        Trigger: every search reads the edges of its 100-200 candidates.
        Why: a store used as plain memory (no links) answered that with an
          indexed read of twice as many ids for nothing.
        Outcome: one ``EXISTS`` per change of the file, then no read at all
          while it holds no edge.
        """
        with self._call():
            self._usable()
            found, _ = self._unchanged_marker(
                self._reader(),
                "edges",
                lambda c: (
                    int(c.execute("SELECT EXISTS (SELECT 1 FROM memory_edges)").fetchone()[0]),
                    0,
                ),
            )
        return bool(found)

    def _read_text_hits(self, orchestrator_id: str, search: TextSearch) -> list[TextHit]:
        terms, filters, limit = search.terms, search.filters, search.limit
        column_weights = search.column_weights
        q.bm25_weights(column_weights)  # unknown columns are an error on every path
        with self._call():
            self._usable()
            try:
                indexed = self._search_text_index(
                    orchestrator_id, terms, filters, limit, column_weights
                )
            except sqlite3.DatabaseError as exc:
                self._read_failed(exc)
                raise StoreUnavailableError(f"read failed on {self.path}: {exc}") from exc
        if indexed is not None:
            return indexed
        # a margin over ``limit`` for rows the filters drop (deleted, other scope)
        prefetch = limit + max(50, limit // 4)
        sql, params = q.search_text_query(orchestrator_id, search, prefetch=prefetch)
        rows = self._read(sql, params)
        if len(rows) < limit or float(rows[-1][1]) <= float(rows[-1][2]):
            # too few survivors, or a tie at the prefix's edge: rank every match
            sql, params = q.search_text_query(orchestrator_id, search)
            rows = self._read(sql, params)
        return [TextHit(r[0], float(r[1])) for r in rows]

    def _search_text_index(
        self,
        orchestrator_id: str,
        terms: Sequence[str],
        filters: NodeFilter,
        limit: int,
        column_weights: Mapping[str, float] | None,
    ) -> list[TextHit] | None:
        """The text leg from the in-memory index; ``None`` when SQL must answer.

        Trigger: the index is built (or being built), a term FTS5 reads as a
          phrase of several tokens, filters beyond status.
        Why: the index answers single-token OR queries exactly as FTS5 ranks them.
        Outcome: filters other than status come from SQL as a set of allowed
          ids (cached per store revision); everything else falls back to SQL.
        """
        conn = self._reader()
        marker = self._unchanged_marker(conn, "fts", fts_marker)
        index = self.text_leg.ready(conn, self._snapshot, marker, column_weights)
        if index is None:
            return None
        phrases = index.phrases(terms)
        if any(len(p) != 1 for p in phrases):
            return None
        statuses = tuple(s.value for s in filters.status)
        allowed = None
        if filters is not _NO_FILTER and (
            filters.model_copy(update={"status": _NO_FILTER.status}) != _NO_FILTER
        ):
            allowed = self._allowed_ids(orchestrator_id, filters)
        hits = index.search(
            orchestrator_id,
            phrases,
            column_weights,
            limit,
            statuses=statuses,
            allowed_ids=allowed,
        )
        return list(map(_text_hit, hits))

    def _allowed_ids(self, orchestrator_id: str, filters: NodeFilter) -> list[str]:
        """Ids of the memories matching ``filters``, cached until the store changes.

        Trigger: a filtered search (user, project, type …) — both legs need the
          allowed set. Why: the SQL behind it reads every matching row; an agent
          repeats the same filter for every search of a conversation.
        Outcome: one query per (filter, revision) instead of one per leg and search.
        """
        conn = self._reader()
        key = (orchestrator_id, filters)
        marker = self._unchanged_marker(conn, "fts", fts_marker)
        with self._nodes_lock:
            hit = self._filter_cache.get(key)
        if hit is not None and hit[0] == marker:
            return hit[1]
        sql, params = q.filter_ids_query(orchestrator_id, filters)
        ids = [r[0] for r in conn.execute(sql, params)]
        with self._nodes_lock:
            self._filter_cache[key] = (marker, ids)
            while len(self._filter_cache) > FILTER_CACHE_SIZE:
                self._filter_cache.pop(next(iter(self._filter_cache)))
        return ids

    def _matrix(self, orchestrator_id: str, model_id: str, dim: int) -> VectorMatrix:
        """The up-to-date vector matrix of (orchestrator, model), loading it if needed."""
        conn = self._reader()
        key = (orchestrator_id, model_id)
        known = self._unchanged_marker(
            conn, key, lambda c: self._marker(c, orchestrator_id, model_id)
        )
        with self._vectors_lock:
            matrix = self._vectors.get(key)
            if matrix is not None and matrix.marker == known and matrix.dim == dim:
                return matrix
            conn.execute("BEGIN")  # one snapshot for the marker and the rows
            try:
                marker = self._marker(conn, orchestrator_id, model_id)
                matrix = self._vectors.get(key)
                if matrix is not None and matrix.marker == marker and matrix.dim == dim:
                    return matrix
                if matrix is not None and matrix.dim == dim and _behind(matrix.marker, marker):
                    self._catch_up(conn, matrix, orchestrator_id, model_id)
                    matrix.marker = marker
                    return matrix
                matrix = VectorMatrix(dim, ann_kind=self.ann_kind, background=self.ann_background)
                matrix.graph_path = self._graph_path(orchestrator_id, model_id)
                rows = conn.execute(
                    "SELECT e.memory_id, e.vector, e.dim, m.status FROM memory_embeddings e "
                    "JOIN memories m ON m.memory_id = e.memory_id "
                    "WHERE e.orchestrator_id = ? AND e.model_id = ? ORDER BY e.rowid",
                    (orchestrator_id, model_id),
                ).fetchall()
                for memory_id, blob, row_dim, status in rows:
                    if row_dim == dim:
                        vector = decode_vector(blob, dim)
                        matrix.upsert(memory_id, vector, active=status == "active")
                matrix.marker = marker
                self._vectors[key] = matrix
                return matrix
            finally:
                conn.execute("COMMIT")

    def wait_for_indexes(self, timeout: float | None = None, *, text: bool = True) -> int:
        """Wait for the background index work (ANN workers, a text index build).

        Returns how many vectors are still outside their ANN graph (once the
        workers caught up, fewer than a chunk per graph: 64, scored exactly by
        every search; a timeout can leave more). Benchmarks call it so that
        timed searches run on the indexes a settled process uses (``text=False``:
        the ANN workers only, to time them apart).

        >>> import tempfile, pathlib
        >>> SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "m.db").wait_for_indexes()
        0
        """
        with self._vectors_lock:
            matrices = list(self._vectors.values())
        for matrix in matrices:
            matrix.wait_for_ann(timeout)
        if text:
            self.text_leg.wait(timeout)
        return self.ann_backlog()

    def ann_backlog(self) -> int:
        """Vectors written but not in their ANN graph yet (the workers' backlog)."""
        with self._vectors_lock:
            matrices = list(self._vectors.values())
        return sum(m.ann_backlog() for m in matrices)

    def _graph_path(self, orchestrator_id: str, model_id: str) -> Path | None:
        """Where the ANN graph of (tenant, model) is kept between processes (``None``: nowhere).

        Beside the database, in ``<file>.ann/``, named by a hash of the pair: it
        holds the graph and each point's memory id, never a vector or any text.

        >>> import tempfile
        >>> store = SQLiteStore(Path(tempfile.mkdtemp()) / "m.db")
        >>> store._graph_path("acme", "minilm").parent.name
        'm.db.ann'
        """
        if not self.ann_persist:
            return None
        digest = hashlib.sha256(f"{orchestrator_id}\0{model_id}".encode()).hexdigest()[:24]
        return self.path.with_name(self.path.name + ".ann") / f"{digest}.hnsw"

    @staticmethod
    def _catch_up(
        conn: sqlite3.Connection, matrix: VectorMatrix, orchestrator_id: str, model_id: str
    ) -> None:
        """Apply writes made since ``matrix.marker`` (by any process) without a reload.

        Trigger: another process wrote (the marker moved past ours).
        Why: reloading the matrix and rebuilding its ANN index costs seconds to
          minutes at 100k+ rows; the change is usually a handful of rows.
        Outcome: vectors stored after the marker (new or replaced: a replaced
          row gets a new rowid) are upserted, the ANN index follows them, and
          every row's active flag is re-read in one pass (a status change or a
          purge leaves no trace in the embeddings table).
        """
        assert matrix.marker is not None
        fresh = conn.execute(
            "SELECT e.memory_id, e.vector, e.dim, m.status FROM memory_embeddings e "
            "JOIN memories m ON m.memory_id = e.memory_id "
            "WHERE e.orchestrator_id = ? AND e.model_id = ? AND e.rowid > ? ORDER BY e.rowid",
            (orchestrator_id, model_id, matrix.marker[1]),
        ).fetchall()
        for memory_id, blob, row_dim, status in fresh:
            if row_dim == matrix.dim:
                matrix.upsert(memory_id, decode_vector(blob, matrix.dim), active=status == "active")
        active = {
            r[0]
            for r in conn.execute(
                "SELECT memory_id FROM memories WHERE orchestrator_id = ? AND status = 'active'",
                (orchestrator_id,),
            )
        }
        matrix.refresh_active(active)

    def _read_vector_hits(
        self, orchestrator_id: str, query: npt.NDArray[np.float32], search: VectorSearch
    ) -> list[VectorHit]:
        dim = int(np.asarray(query).shape[0])
        with self._call():
            self._usable()
            return self._search_vectors(
                orchestrator_id, search.model_id, query, search.filters, dim, search.limit
            )

    def _read_vector_hits_many(
        self, orchestrator_id: str, queries: npt.NDArray[np.float32], search: VectorSearch
    ) -> list[list[VectorHit]]:
        filters = search.filters
        with self._call():
            self._usable()
            try:
                matrix = self._matrix(orchestrator_id, search.model_id, int(queries.shape[1]))
                rows = None
                if filters != _NO_FILTER:  # as in _search_vectors: the database filters
                    rows = matrix.rows_of(self._allowed_ids(orchestrator_id, filters))
                found = matrix.search_many(
                    queries, search.limit, rows, ann_min_rows=self.ann_min_rows
                )
            except sqlite3.DatabaseError as exc:
                self._read_failed(exc)
                raise StoreUnavailableError(f"read failed on {self.path}: {exc}") from exc
        return [list(map(_vector_hit, hits)) for hits in found]

    def _search_vectors(
        self,
        orchestrator_id: str,
        model_id: str,
        query: npt.NDArray[np.float32],
        filters: NodeFilter,
        dim: int,
        limit: int,
    ) -> list[VectorHit]:
        try:
            matrix = self._matrix(orchestrator_id, model_id, dim)
            rows = None
            if filters is not _NO_FILTER and filters != _NO_FILTER:
                # Trigger: filters beyond "active". Why: they must be applied by
                # the database, never in Python after ranking. Outcome: the
                # allowed ids come from SQL and only their rows are scored.
                rows = matrix.rows_of(self._allowed_ids(orchestrator_id, filters))
            hits = matrix.search(query, limit, rows, ann_min_rows=self.ann_min_rows)
        except sqlite3.DatabaseError as exc:
            self._read_failed(exc)
            raise StoreUnavailableError(f"read failed on {self.path}: {exc}") from exc
        return list(map(_vector_hit, hits))

    def missing_embeddings(
        self, orchestrator_id: str, model_id: str, *, limit: int
    ) -> list[MemoryNode]:
        rows = self._read(
            "SELECT m.memory_id FROM memories m WHERE m.orchestrator_id = ? "
            "AND m.status <> 'soft_deleted' AND NOT EXISTS (SELECT 1 FROM memory_embeddings e "
            "WHERE e.memory_id = m.memory_id AND e.model_id = ?) ORDER BY m.created_at LIMIT ?",
            [orchestrator_id, model_id, limit],
        )
        return self.get_nodes(orchestrator_id, [r[0] for r in rows])

    def cached_embeddings(
        self, model_id: str, text_hashes: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        found: dict[str, npt.NDArray[np.float32]] = {}
        hashes = sorted(set(text_hashes))
        for start in range(0, len(hashes), 512):
            chunk = q.padded(hashes[start : start + 512])
            marks = ", ".join("?" for _ in chunk)
            for sha, dim, blob in self._read(
                "SELECT text_sha256, dim, vector FROM embedding_cache "
                f"WHERE model_id = ? AND text_sha256 IN ({marks})",
                [model_id, *chunk],
            ):
                found[sha] = decode_vector(blob, dim)
        return found

    # -- ingest ---

    # -- context ---
    def mark_thread_seen(
        self, orchestrator_id: str, thread_id: str, revision: int, *, reader: str
    ) -> None:
        if thread_id == "*":
            raise StoreError("thread id '*' is reserved for the head revision")
        self._write_one(
            *mark_thread_seen_query(orchestrator_id, thread_id, reader, revision, mark="?")
        )

    def erase_reader_marks(self, orchestrator_id: str, reader: str) -> int:
        return self._write_one(*erase_reader_marks_query(orchestrator_id, reader, mark="?"))

    def counts(self, orchestrator_id: str) -> StoreCounts:
        def grouped(sql: str) -> dict[str, int]:
            return {r[0]: int(r[1]) for r in self._read(sql, [orchestrator_id])}

        return StoreCounts(
            memories_by_status=grouped(
                "SELECT status, count(*) FROM memories WHERE orchestrator_id = ? GROUP BY status"
            ),
            memories_by_type=grouped(
                "SELECT type, count(*) FROM memories WHERE orchestrator_id = ? GROUP BY type"
            ),
            edges_by_type=grouped(
                "SELECT edge_type, count(*) FROM memory_edges WHERE orchestrator_id = ? "
                "GROUP BY edge_type"
            ),
            history_events=int(
                self._read(
                    "SELECT count(*) FROM history WHERE orchestrator_id = ?", [orchestrator_id]
                )[0][0]
            ),
            revision=self.revision(orchestrator_id),
        )

    # -- lifecycle ---

    def _after_purge(self, orchestrator_id: str) -> None:
        """Empty the WAL of purged bytes and forget cached vectors and nodes of the tenant."""
        with self._call(), self._write_lock:
            if self._writer is not None:
                lifecycle_sql.checkpoint(self._writer)
        with self._vectors_lock:
            for key in [k for k in self._vectors if k[0] == orchestrator_id]:
                self._vectors.pop(key).close()
            # the saved graphs hold purged memories' ids: every one goes (rebuilt on demand)
            shutil.rmtree(self.path.with_name(self.path.name + ".ann"), ignore_errors=True)
        with self._nodes_lock:
            self._nodes.clear()  # a purged memory's text must not outlive it in memory
            self._filter_cache.clear()
            self._rank_cache.clear()
            self._rank_marker = None
        self.text_leg.forget()

    def audit_head(self, orchestrator_id: str) -> AuditHead:
        return lifecycle_sql.audit_head(
            self._read(
                "SELECT events, head_hash FROM audit_head WHERE orchestrator_id = ?",
                [orchestrator_id],
            )
        )

    # -- identity ---

    def claim_identity(self, anchor: StoreAnchor) -> StoreAnchor:
        try:
            with self._transaction() as conn:
                conn.execute(
                    "INSERT INTO store_identity (orchestrator_id, store_uuid, created_at) "
                    "VALUES (?, ?, ?) ON CONFLICT (orchestrator_id) DO NOTHING",
                    (anchor.orchestrator_id, anchor.store_uuid, anchor.created_at),
                )
        except sqlite3.DatabaseError as exc:
            self._write_failed(exc)
            raise StoreUnavailableError(f"write failed on {self.path}: {exc}") from exc
        return recorded_identity(self, anchor.orchestrator_id)

    def close(self) -> None:
        """Close every connection once running calls are done (idempotent).

        New calls fail with :class:`StoreUnavailableError` from now on; calls
        still running after ``close_timeout`` seconds are interrupted, and a
        connection still busy after that is left to the garbage collector
        rather than closed under a running statement.
        """
        done = self._stop_calls()
        if done is None:
            return
        self._anchors.close()  # the last committed head is on disk before close returns
        if done:
            with self._vectors_lock:
                for matrix in self._vectors.values():
                    matrix.close()  # the worker stops after its chunk; rows it missed are
                    matrix.save_ann()  # added by the next process that loads the graph
            self._close_connections()
            self.text_leg.close()


#: a write with this many vectors of one model is a bulk batch (see SQLiteStore._follow_bulk)
FOLLOW_BULK_ROWS = 100
#: a bulk batch builds the text index at once up to this many full-text rows (~0.2 s)
BULK_TEXT_BUILD_ROWS = 5_000


def _bulk_models(write: WriteSet, followed: Sequence[str]) -> dict[str, int]:
    """Models (→ dimension) with ``FOLLOW_BULK_ROWS`` or more vectors in ``write`` and no matrix."""
    counts: dict[str, int] = {}
    dims: dict[str, int] = {}
    for row in write.embeddings:
        if row.model_id not in followed:
            counts[row.model_id] = counts.get(row.model_id, 0) + 1
            dims[row.model_id] = int(np.asarray(row.vector).shape[0])
    return {m: dims[m] for m, c in counts.items() if c >= FOLLOW_BULK_ROWS}


def _behind(have: tuple[int, int] | None, now: tuple[int, int]) -> bool:
    """Whether a matrix at marker ``have`` can catch up to ``now`` (both only grew).

    >>> _behind((3, 10), (5, 12)), _behind((3, 10), (2, 12)), _behind(None, (1, 1))
    (True, False, False)
    """
    return have is not None and now[0] >= have[0] and now[1] >= have[1]
