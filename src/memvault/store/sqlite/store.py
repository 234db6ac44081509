"""The SQLite backend: one file per orchestrator, WAL, one writer, many readers.

Trigger: SQLite allows one writer at a time; a second writer waits on the
lock and, past ``busy_timeout``, fails with "database is locked".
Why: a memory write must never be lost to lock contention.
Outcome: every write in this process goes through one connection behind a
lock and opens with ``BEGIN IMMEDIATE`` (so writers from other processes
queue on ``busy_timeout`` instead of failing mid-transaction); readers use
their own per-thread connections and, thanks to WAL, never wait for it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.errors import (
    DuplicateEdgeError,
    ScopeViolationError,
    StoreError,
    StoreMissingError,
    StoreUnavailableError,
)
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.anchor import AnchorKeeper, StoreAnchor
from memvault.store.base import (
    GENESIS_HASH,
    NO_FILTER,
    CheckpointsElsewhere,
    EmbeddingRow,
    HistoryEvent,
    IndexText,
    IngestRecord,
    NodeFilter,
    RankFields,
    Store,
    StoreCounts,
    TextHit,
    VectorHit,
    WriteSet,
    chain_hash,
    recorded_identity,
)
from memvault.store.records import AuditHead
from memvault.store.requests import TextSearch, VectorSearch
from memvault.store.sql import (
    EDGE_COLUMNS,
    edge_from_row,
    edge_params,
    erase_reader_marks_query,
    history_params,
    ingest_params,
    mark_thread_seen_query,
    pending_migrations,
)
from memvault.store.sql_reads import SqlReads
from memvault.store.sqlite import lifecycle as lifecycle_sql
from memvault.store.sqlite import queries as q
from memvault.store.sqlite.ann import DEFAULT_ANN_MIN_ROWS
from memvault.store.sqlite.schema import MIGRATIONS
from memvault.store.sqlite.textindex import (
    DEFAULT_TEXT_INDEX_MIN_ROWS,
    TextLeg,
    TextRow,
    fts_marker,
)
from memvault.store.sqlite.vectors import (
    ANN_KINDS,
    VectorMatrix,
    decode_vector,
    encode_vector,
)

__all__ = ["LockWaits", "SQLiteStore"]

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: SQLite's own busy handler only
    fcntl = None  # type: ignore[assignment]

BUSY_TIMEOUT_MS = 30_000
#: validated nodes kept for reuse by get_nodes (see SQLiteStore._hydrate)
NODE_CACHE_SIZE = 20_000
#: filters whose allowed ids are kept (see SQLiteStore._allowed_ids)
FILTER_CACHE_SIZE = 32
#: ranking fields kept in memory (see SQLiteStore.rank_fields)
RANK_CACHE_SIZE = 500_000
#: Files up to this size are integrity-checked (``PRAGMA quick_check``) before
#: the store opens; larger ones in the background (measured: ~0.3 s for 240 MB).
QUICK_CHECK_SYNC_BYTES = 256 * 1024 * 1024


#: the filter of an unfiltered search (built once: a pydantic model costs ~50 us to build)
_NO_FILTER = NO_FILTER
#: columns of a ``SELECT_NODE`` row that belong to the node (the source's follow)
_NODE_WIDTH = len(q.NODE_COLUMNS)


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,  # we issue BEGIN/COMMIT ourselves
        check_same_thread=False,
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    # Freed cells and pages are zeroed, so a purged memory leaves no bytes behind.
    conn.execute("PRAGMA secure_delete = ON")
    if readonly:
        conn.execute("PRAGMA query_only = ON")
    return conn


@dataclass
class LockWaits:
    """Time spent acquiring the database write lock (``BEGIN IMMEDIATE``).

    >>> w = LockWaits(); w.add(0.004); w.add(0.0001); (w.writes, w.waited, round(w.max_s, 3))
    (2, 1, 0.004)
    """

    writes: int = 0
    waited: int = 0  # writes that waited more than 1 ms (another connection held the lock)
    total_s: float = 0.0
    max_s: float = 0.0

    def add(self, seconds: float) -> None:
        self.writes += 1
        self.total_s += seconds
        self.max_s = max(self.max_s, seconds)
        if seconds > 0.001:
            self.waited += 1


def _fts_texts(node: MemoryNode, extra: IndexText) -> tuple[str, ...]:
    """A memory's full-text columns: content, key, value, summary, subject, context, date."""
    return (
        node.content,
        node.key,
        node.value,
        node.summary,
        extra.subject,
        extra.context,
        extra.date,
    )


class SQLiteStore(CheckpointsElsewhere, SqlReads, Store):
    """A :class:`~memvault.store.base.Store` on one SQLite file.

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
        self.path = Path(path)
        #: Where the data lives (``Store.location``): the database file.
        self.location = str(self.path)
        self.ann_min_rows = ann_min_rows
        if ann_kind not in ANN_KINDS:
            raise ValueError(f"unknown ANN index {ann_kind!r}; one of {', '.join(ANN_KINDS)}")
        self.ann_kind = ann_kind
        #: build the ANN index on a worker thread (searches exact meanwhile); tests turn it off
        self.ann_background = True
        #: the in-memory text index (``text_leg.background = False``: built in the search)
        self.text_leg = TextLeg(text_index_min_rows)
        self.close_timeout = close_timeout
        self._write_lock = threading.Lock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        # Calls running now (reads and writes): close() waits for them to finish.
        self._calls = threading.Condition()
        self._running = 0
        self._writer_stale = False
        #: Why the store refuses to serve (a failed integrity check), else ``None``.
        self.damaged: str | None = None
        #: How long writes of this store object waited for the database write lock.
        self.lock_waits = LockWaits()
        self._anchors = AnchorKeeper()
        self._lock_fd: int | None = None
        self._vectors: dict[tuple[str, str], VectorMatrix] = {}
        self._nodes: OrderedDict[str, tuple[tuple[Any, ...], MemoryNode]] = OrderedDict()
        self._nodes_lock = threading.Lock()
        self._filter_cache: OrderedDict[tuple[str, NodeFilter], tuple[Any, list[str]]] = (
            OrderedDict()
        )
        self._rank_cache: dict[str, tuple[str, RankFields]] = {}
        self._rank_marker: tuple[int, int] | None = None
        self._vectors_lock = threading.Lock()
        if not create and _holds_nothing(self.path):
            # Trigger: no file, or a 0-byte one, and the caller did not ask to create.
            # Why: SQLite would silently make a new empty database there.
            # Outcome: an explicit "no store here" (the engine adds what exists).
            raise StoreMissingError(None, str(self.path))
        self._writer: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = self._open_writer()
            self._file_id = _file_id(self.path)
            self._migrate()
            if self.path.stat().st_size <= QUICK_CHECK_SYNC_BYTES:
                problem = self._quick_check(self._writer)
                if problem is not None:
                    raise StoreUnavailableError(
                        f"memory database {self.path} is damaged (integrity check: {problem})",
                        hint="restore memory.db from a backup; "
                        "the agent keeps running without memory",
                    )
            else:
                # Trigger: a large file (the check reads every page: ~1.2 s per GB).
                # Why: opening must stay fast, yet damage must not go unnoticed.
                # Outcome: the check runs beside the first calls and, if it finds
                # damage, every later call is refused.
                threading.Thread(
                    target=self._background_check, name="memvault-quick-check", daemon=True
                ).start()
        except BaseException as exc:
            if self._writer is not None:
                self._writer.close()
            if isinstance(exc, sqlite3.DatabaseError | OSError):
                raise StoreUnavailableError(
                    f"cannot open memory database {self.path}: {exc}"
                ) from exc
            raise

    # -- connections ---------------------------------------------------------

    def _open_writer(self) -> sqlite3.Connection:
        conn = _connect(self.path, readonly=False)
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreUnavailableError(f"could not enable WAL on {self.path} (got {mode})")
        except BaseException:
            conn.close()
            raise
        return conn

    @contextmanager
    def _call(self) -> Iterator[None]:
        """Count a running call; refuse new ones once the store is closing.

        Trigger: ``close()`` from one thread while others are inside a statement
        (LangGraph runs ``batch`` on executor threads).
        Why: closing a SQLite connection under a running statement can crash
        the interpreter.
        Outcome: close waits for running calls; later calls fail cleanly.
        """
        with self._calls:
            if self._closed:
                raise StoreUnavailableError(f"the memory store {self.path} is closed")
            self._running += 1
        try:
            yield
        finally:
            with self._calls:
                self._running -= 1
                if self._running == 0:
                    self._calls.notify_all()

    def _check_file(self) -> None:
        """Refuse to write when the file was deleted or replaced under the open store.

        Trigger: ``memory.db`` unlinked (or swapped) while this process has it open.
        Why: SQLite keeps writing into the unlinked inode; every later write would
        be lost when the process exits.
        Outcome: the store is marked damaged and every call says so.
        """
        current = _file_id(self.path)
        if current != self._file_id:
            self.damaged = (
                "the database file was deleted while open"
                if current is None
                else "the database file was replaced while open"
            )

    def _usable(self) -> None:
        if self.damaged is not None:
            raise StoreUnavailableError(
                f"memory database {self.path} is damaged ({self.damaged})",
                hint="restore memory.db from a backup; the agent keeps running without memory",
            )

    def _reader(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreUnavailableError(f"the memory store {self.path} is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = _connect(self.path, readonly=True)
            except sqlite3.DatabaseError as exc:
                raise StoreUnavailableError(f"cannot read {self.path}: {exc}") from exc
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    _mark = "?"
    _select_node = q.SELECT_NODE

    def _read_rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return self._read(sql, params)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._call():
            self._usable()
            try:
                return self._reader().execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                self._read_failed(exc)
                raise StoreUnavailableError(f"read failed on {self.path}: {exc}") from exc

    def _read_failed(self, exc: sqlite3.DatabaseError) -> None:
        """After a failed read: is the file damaged? Then refuse every later call.

        Trigger: a read raised (corrupt page, I/O error, vanished file).
        Why: a damaged store must say so, not answer empty from what is left.
        Outcome: ``PRAGMA quick_check``; a failure marks the store damaged.
        """
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return
        self._check_file()
        if self.damaged is not None:
            return
        try:
            conn = _connect(self.path, readonly=True)
        except sqlite3.DatabaseError as check_exc:
            self.damaged = f"cannot reopen: {check_exc}"
            return
        try:
            self.damaged = self._quick_check(conn) or self.damaged
        finally:
            conn.close()

    @staticmethod
    def _quick_check(conn: sqlite3.Connection) -> str | None:
        """``None`` when ``PRAGMA quick_check`` finds nothing wrong, else its first finding."""
        try:
            rows = conn.execute("PRAGMA quick_check(3)").fetchall()
        except sqlite3.DatabaseError as exc:
            return str(exc)
        # A finding may span lines ("*** in database main ***\nPage 105: …"): one line
        # each, so the error a CLI prints stays one line.
        findings = ["; ".join(str(r[0]).splitlines()) for r in rows]
        return None if findings == ["ok"] else "; ".join(findings)

    def _background_check(self) -> None:
        with suppress(StoreUnavailableError):
            self.quick_check()

    def quick_check(self) -> str | None:
        """Run ``PRAGMA quick_check`` now; ``None`` when the file is sound.

        A finding marks the store damaged (every later call is refused).

        >>> import tempfile, pathlib
        >>> store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "memory.db")
        >>> store.quick_check() is None
        True
        >>> store.close()
        """
        with self._call():
            try:
                problem = self._quick_check(self._reader())
            except StoreUnavailableError as exc:
                problem = str(exc)
            if problem is not None:
                self.damaged = problem
            return problem

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        asked = time.perf_counter()
        with self._call(), self._write_lock, self._across_processes():
            self._check_file()
            self._usable()
            if self._writer is None or self._writer_stale:
                # Trigger: an earlier write failed in a way that can stick to the
                # connection (read-only file, disk full, failed COMMIT).
                # Why: a connection opened while the file was read-only stays so.
                # Outcome: a fresh writer, so the store recovers once the cause is gone.
                self._reopen_writer()
            conn = self._writer
            assert conn is not None
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError:
                self._writer_stale = True
                raise
            finally:
                self.lock_waits.add(time.perf_counter() - asked)
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                # Trigger: the body or the COMMIT itself raised (I/O error, disk full).
                # Why: a failed COMMIT leaves the transaction open; every later
                # BEGIN would fail until the process restarts.
                # Outcome: roll back; if even that fails, replace the connection.
                try:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                except sqlite3.DatabaseError:
                    self._writer_stale = True
                else:
                    self._writer_stale = self._writer_stale or conn.in_transaction
                raise

    @contextmanager
    def _across_processes(self) -> Iterator[None]:
        """Hold an advisory file lock around each write transaction.

        Trigger: several processes writing one store (measured with
        ``memvault bench contention``: 16 writer processes, p99 1.65 s, worst
        2.5 s, 2.46 s in one wait for the lock).
        Why: SQLite's busy handler sleeps between retries with a backoff of up
        to 100 ms, so a waiting writer keeps sleeping while others take the lock.
        Outcome: writers queue on a ``flock`` polled every 0.2–1 ms (bounded by
        the same 30 s timeout); ``BEGIN IMMEDIATE`` then finds the database free.
        The anchor file is written after the lock is released, so the lock is
        held for the transaction alone. Measured at load ~32 with 16 writers: p99
        1.65 s → 0.39 s, worst 2.5 s → 0.55 s, 71 → 110–150 writes/s. A blocking
        ``flock`` was fairer (p50 57–80 ms) but halved throughput and had a
        worse tail on this 2-core box (every hand-over waits for a wake-up).
        """
        if fcntl is None:  # pragma: no cover - platforms without flock
            yield
            return
        if self._lock_fd is None:
            self._lock_fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fd = self._lock_fd
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        delay = 0.0002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise sqlite3.OperationalError(
                        "database is locked (another process held the write lock for "
                        f"{BUSY_TIMEOUT_MS // 1000} s)"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.001)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _reopen_writer(self) -> None:
        old, self._writer = self._writer, None
        if old is not None:
            with suppress(sqlite3.Error):
                old.close()
        self._writer = self._open_writer()
        self._writer_stale = False

    def _write_failed(self, exc: sqlite3.DatabaseError) -> None:
        """A write failed: the next write reopens the writer (read-only, full, I/O)."""
        if not (isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)):
            self._writer_stale = True
        self._check_file()

    # -- schema --------------------------------------------------------------

    def _migrate(self) -> None:
        with self._transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                "version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            applied = {r[0] for r in conn.execute("SELECT version FROM schema_version")}
            for version, description, sql in pending_migrations(
                applied, MIGRATIONS, str(self.path)
            ):
                for statement in _split_sql(sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                    (version, description),
                )

    def schema_versions(self) -> list[int]:
        return [r[0] for r in self._read("SELECT version FROM schema_version ORDER BY version")]

    # -- writes --------------------------------------------------------------

    def apply(self, write: WriteSet) -> int:
        write.check_scope()
        orch = write.orchestrator_id
        extras = dict(write.index_texts)
        head: tuple[int, str] | None = None
        try:
            with self._vectors_lock:
                models = [m for (o, m) in self._vectors if o == orch]
            text_rows: list[TextRow] = []
            with self._transaction() as conn:
                before = {m: self._marker(conn, orch, m) for m in models}
                text_before = fts_marker(conn)
                fresh = self._new_nodes(conn, write.nodes)
                if fresh:  # a bulk write of new memories: each statement once for all rows
                    text_rows.extend(self._insert_new_nodes(conn, write.nodes, write.at, extras))
                else:
                    for node in write.nodes:
                        text_rows.append(
                            self._upsert_node(conn, node, write.at, extras.get(node.memory_id))
                        )
                for memory_id, source in write.extra_sources:
                    self._insert_source(conn, orch, memory_id, source, write.at, primary=False)
                for edge in write.edges:
                    self._insert_edge(conn, edge)
                if fresh:
                    self._insert_embeddings(conn, orch, write.embeddings, write.at)
                else:
                    for row in write.embeddings:
                        self._insert_embedding(conn, orch, row, write.at)
                for record in write.ingest_records:
                    self._upsert_ingest_record(conn, orch, record)
                self._insert_events(conn, orch, write.events)
                lifecycle_sql.apply_lifecycle(conn, write)
                revision = self._bump_revision(conn, write)
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
            self._follow_write(write, before, after)
            if not write.purge_ids:
                self.text_leg.follow(text_before, text_after, text_rows)
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
    ) -> None:
        """Bring cached vector matrices up to date with a committed write."""
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

    @staticmethod
    def _new_nodes(conn: sqlite3.Connection, nodes: Sequence[MemoryNode]) -> bool:
        """True when ``nodes`` are several distinct memories none of which is stored yet.

        Trigger: a bulk write (``add_many``, an ingest file) of new memories.
        Why: five statements a node, each a Python call, were a tenth of a bulk
          load's time in this process.
        Outcome: such a write takes :meth:`_insert_new_nodes` (one ``executemany``
          per statement); anything else — a merge touch, an update, one node —
          the per-node path, unchanged.
        """
        ids = [n.memory_id for n in nodes]
        if len(ids) < 2 or len(set(ids)) != len(ids):
            return False
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            found = conn.execute(
                f"SELECT 1 FROM memories WHERE memory_id IN ({marks}) LIMIT 1", chunk
            ).fetchone()
            if found is not None:
                return False
        return True

    @staticmethod
    def _insert_new_nodes(
        conn: sqlite3.Connection,
        nodes: Sequence[MemoryNode],
        at: str,
        extras: Mapping[str, IndexText],
    ) -> list[TextRow]:
        """:meth:`_upsert_node` of memories none of which exists: the same rows, batched.

        Full-text rows get the rowids the per-node inserts would get (one past the
        largest, in order), so ``memory_fts_rows`` can be written in one go too.
        """
        conn.executemany(q.UPSERT_NODE, [q.node_params(n) for n in nodes])
        conn.executemany(
            q.INSERT_SOURCE,
            [[n.orchestrator_id, n.memory_id, 1, *q.source_params(n.source), at] for n in nodes],
        )
        top = conn.execute("SELECT max(rowid) FROM memory_fts").fetchone()
        first = int(top[0] or 0) + 1 if top else 1
        rows: list[TextRow] = []
        params: list[tuple[Any, ...]] = []
        for offset, node in enumerate(nodes):
            texts = _fts_texts(node, extras.get(node.memory_id) or IndexText())
            rowid = first + offset
            params.append((rowid, node.memory_id, node.orchestrator_id, *texts))
            rows.append(
                TextRow(
                    rowid,
                    node.memory_id,
                    node.orchestrator_id,
                    node.status.value,
                    texts,
                    RankFields.of(node),
                )
            )
        conn.executemany(
            "INSERT INTO memory_fts (rowid, memory_id, orchestrator_id, content, key, value,"
            " summary, subject, context, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            params,
        )
        conn.executemany(
            "INSERT OR REPLACE INTO memory_fts_rows (memory_id, fts_rowid) VALUES (?, ?)",
            [(p[1], p[0]) for p in params],
        )
        return rows

    @staticmethod
    def _insert_embeddings(
        conn: sqlite3.Connection, orch: str, rows: Sequence[EmbeddingRow], at: str
    ) -> None:
        """:meth:`_insert_embedding` of many rows: the same checks and rows, batched."""
        if not rows:
            return
        ids = sorted({r.memory_id for r in rows})
        owners: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            owners.update(
                conn.execute(
                    f"SELECT memory_id, orchestrator_id FROM memories WHERE memory_id IN ({marks})",
                    chunk,
                ).fetchall()
            )
        stored: list[tuple[Any, ...]] = []
        cached: list[tuple[Any, ...]] = []
        for row in rows:
            if owners.get(row.memory_id) != orch:
                raise StoreError(f"memory {row.memory_id!r} does not exist in this orchestrator")
            blob = encode_vector(row.vector)
            dim = int(np.asarray(row.vector).shape[0])
            stored.append((orch, row.memory_id, row.model_id, dim, blob, row.text_sha256, at))
            cached.append((row.model_id, row.text_sha256, dim, blob))
        conn.executemany(
            "INSERT OR REPLACE INTO memory_embeddings (orchestrator_id, memory_id, model_id, dim,"
            " vector, text_sha256, created_at) VALUES (?,?,?,?,?,?,?)",
            stored,
        )
        conn.executemany(
            "INSERT OR IGNORE INTO embedding_cache (model_id, text_sha256, dim, vector) "
            "VALUES (?,?,?,?)",
            cached,
        )

    @staticmethod
    def _insert_embedding(conn: sqlite3.Connection, orch: str, row: EmbeddingRow, at: str) -> None:
        owner = conn.execute(
            "SELECT orchestrator_id FROM memories WHERE memory_id = ?", (row.memory_id,)
        ).fetchone()
        if owner is None or owner[0] != orch:
            raise StoreError(f"memory {row.memory_id!r} does not exist in this orchestrator")
        blob = encode_vector(row.vector)
        dim = int(np.asarray(row.vector).shape[0])
        conn.execute(
            "INSERT OR REPLACE INTO memory_embeddings (orchestrator_id, memory_id, model_id, dim,"
            " vector, text_sha256, created_at) VALUES (?,?,?,?,?,?,?)",
            (orch, row.memory_id, row.model_id, dim, blob, row.text_sha256, at),
        )
        conn.execute(
            "INSERT OR IGNORE INTO embedding_cache (model_id, text_sha256, dim, vector) "
            "VALUES (?,?,?,?)",
            (row.model_id, row.text_sha256, dim, blob),
        )

    def _upsert_node(
        self, conn: sqlite3.Connection, node: MemoryNode, at: str, extra: IndexText | None
    ) -> TextRow:
        existed = conn.execute(
            "SELECT orchestrator_id FROM memories WHERE memory_id = ?", (node.memory_id,)
        ).fetchone()
        if existed is not None and existed[0] != node.orchestrator_id:
            raise ScopeViolationError(node.orchestrator_id, existed[0])
        conn.execute(q.UPSERT_NODE, q.node_params(node))
        if existed is None:
            self._insert_source(
                conn, node.orchestrator_id, node.memory_id, node.source, at, primary=True
            )
        # Trigger: a node that already existed (a merge touch, a status change).
        # Why: memory_id is UNINDEXED in FTS5, so looking it up scans the whole
        #   index (quadratic bulk ingest and capture).
        # Outcome: its full-text row is found by rowid (``memory_fts_rows``).
        where = self._fts_row(conn, node.memory_id) if existed is not None else None
        if extra is None and where is not None:
            old = conn.execute(
                f"SELECT subject, context, date FROM memory_fts WHERE {where[0]}", where[1]
            ).fetchone()
            extra = IndexText(*old) if old else IndexText()
        extra = extra or IndexText()
        if where is not None:
            conn.execute(f"DELETE FROM memory_fts WHERE {where[0]}", where[1])
        texts = _fts_texts(node, extra)
        cursor = conn.execute(
            "INSERT INTO memory_fts (memory_id, orchestrator_id, content, key, value, summary,"
            " subject, context, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (node.memory_id, node.orchestrator_id, *texts),
        )
        rowid = int(cursor.lastrowid or 0)
        conn.execute(
            "INSERT OR REPLACE INTO memory_fts_rows (memory_id, fts_rowid) VALUES (?, ?)",
            (node.memory_id, rowid),
        )
        rank = RankFields.of(node)
        return TextRow(rowid, node.memory_id, node.orchestrator_id, node.status.value, texts, rank)

    @staticmethod
    def _fts_row(conn: sqlite3.Connection, memory_id: str) -> tuple[str, tuple[Any, ...]]:
        """The WHERE clause (and its parameters) that finds ``memory_id``'s full-text row.

        By rowid when ``memory_fts_rows`` knows it; else by ``memory_id`` (a scan:
        a row written by an older version that wrote no ``memory_fts_rows`` row).
        """
        found = conn.execute(
            "SELECT fts_rowid FROM memory_fts_rows WHERE memory_id = ?", (memory_id,)
        ).fetchone()
        if found is not None:
            return "rowid = ?", (int(found[0]),)
        return "memory_id = ?", (memory_id,)

    @staticmethod
    def _insert_source(
        conn: sqlite3.Connection,
        orch: str,
        memory_id: str,
        source: Source,
        at: str,
        *,
        primary: bool,
    ) -> None:
        conn.execute(q.INSERT_SOURCE, [orch, memory_id, int(primary), *q.source_params(source), at])

    @staticmethod
    def _insert_edge(conn: sqlite3.Connection, edge: MemoryEdge) -> None:
        for end in (edge.from_memory_id, edge.to_memory_id):
            row = conn.execute(
                "SELECT 1 FROM memories WHERE memory_id = ? AND orchestrator_id = ?",
                (end, edge.orchestrator_id),
            ).fetchone()
            if row is None:
                raise StoreError(f"memory {end!r} does not exist in this orchestrator")
        try:
            conn.execute(
                "INSERT INTO memory_edges (edge_id, orchestrator_id, from_memory_id, to_memory_id,"
                " edge_type, weight, reason, resolved, created_at) VALUES (?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (edge_id) DO UPDATE SET weight = excluded.weight, "
                "reason = excluded.reason, resolved = excluded.resolved",
                edge_params(edge),
            )
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise DuplicateEdgeError(
                    edge.from_memory_id, edge.to_memory_id, edge.edge_type.value
                ) from exc
            raise

    @staticmethod
    def _insert_events(conn: sqlite3.Connection, orch: str, events: Sequence[HistoryEvent]) -> None:
        if not events:
            return
        row = conn.execute(
            "SELECT hash FROM history WHERE orchestrator_id = ? ORDER BY seq DESC LIMIT 1",
            (orch,),
        ).fetchone()
        prev = row[0] if row else GENESIS_HASH
        params: list[list[Any]] = []
        for event in events:
            digest = chain_hash(prev, event)
            params.append(history_params(orch, event, prev, digest))
            prev = digest
        conn.executemany(
            "INSERT INTO history (event_id, orchestrator_id, memory_id, op, stop_reason, actor,"
            " detector, detail, at, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            params,
        )

    @staticmethod
    def _bump_revision(conn: sqlite3.Connection, write: WriteSet) -> int:
        orch = write.orchestrator_id
        if not write.changes_memory:
            # Trigger: a write set that only records audit events (a refusal).
            # Why: the revision counts memory changes; a refusal changes none.
            # Outcome: the revision stays where it is.
            current = conn.execute(
                "SELECT revision FROM thread_revision "
                "WHERE orchestrator_id = ? AND thread_id = '*'",
                (orch,),
            ).fetchone()
            return int(current[0]) if current else 0
        row = conn.execute(
            "INSERT INTO thread_revision (orchestrator_id, thread_id, revision) VALUES (?, '*', 1) "
            "ON CONFLICT (orchestrator_id, thread_id) DO UPDATE SET revision = revision + 1 "
            "RETURNING revision",
            (orch,),
        ).fetchone()
        revision = int(row[0])
        conn.executemany(
            "INSERT INTO change_log (orchestrator_id, revision, seq, thread_id, memory_id,"
            " kind, summary, at) VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    orch,
                    revision,
                    seq,
                    write.thread_id,
                    change.memory_id,
                    change.kind.value,
                    change.summary,
                    write.at,
                )
                for seq, change in enumerate(write.changes)
            ],
        )
        return revision

    # -- reads ---------------------------------------------------------------

    @staticmethod
    def _node(row: sqlite3.Row) -> MemoryNode:
        # Trigger: a row of ``SELECT_NODE`` (node columns, then source columns).
        # Why: ``row[name]`` searches the column names one by one (~25 of them).
        # Outcome: positional values zipped with the column lists.
        values = tuple(row)
        data: dict[str, Any] = dict(zip(q.NODE_COLUMNS, values[:_NODE_WIDTH], strict=True))
        data["pinned"] = bool(data["pinned"])
        data["source"] = Source(**dict(zip(q.SOURCE_COLUMNS, values[_NODE_WIDTH:], strict=True)))
        return MemoryNode.model_validate(data)

    def get_nodes(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryNode]:
        ids = sorted(set(memory_ids))
        if not ids:
            return []
        out: list[MemoryNode] = []
        for start in range(0, len(ids), 500):
            sql, params = q.get_nodes_query(orchestrator_id, ids[start : start + 500])
            out.extend(self._hydrate(r) for r in self._read(sql, params))
        return out

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
        ids = sorted(set(memory_ids))
        if not ids or not self._has_edges():
            return []
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

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction on this thread's reader (one consistent view)."""
        with self._call():
            self._usable()
            conn = self._reader()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    def _unchanged_marker(
        self, conn: sqlite3.Connection, key: Any, compute: Any
    ) -> tuple[int, int]:
        """``compute(conn)``, reused while no connection has committed since.

        Trigger: every search compares the in-memory indexes' markers with the
          file's (several statements per search).
        Why: ``PRAGMA data_version`` on a connection changes exactly when another
          connection (this process's writer or another process) commits.
        Outcome: one pragma per search when nothing was written; the markers are
          read again after any commit.
        """
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        local = self._local
        if getattr(local, "data_version", None) != version:
            local.data_version = version
            local.markers = {}
        markers: dict[Any, tuple[int, int]] = local.markers
        found = markers.get(key)
        if found is None:
            found = markers[key] = compute(conn)
        return found

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
        index = self.text_leg.ready(conn, self._snapshot, marker)
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
        return [TextHit(m, s) for m, s in hits]

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
        return [[VectorHit(m, s) for m, s in hits] for hits in found]

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
        return [VectorHit(m, s) for m, s in hits]

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

    @staticmethod
    def _upsert_ingest_record(conn: sqlite3.Connection, orch: str, record: IngestRecord) -> None:
        conn.execute(
            "INSERT INTO ingest_files (orchestrator_id, content_sha256, original_name, size_bytes,"
            " status, manifest_path, received_at, processed_at) VALUES (?,?,?,?,?,?,?,?) "
            "ON CONFLICT (orchestrator_id, content_sha256) DO UPDATE SET "
            "original_name = excluded.original_name, size_bytes = excluded.size_bytes, "
            "status = excluded.status, manifest_path = excluded.manifest_path, "
            "received_at = excluded.received_at, processed_at = excluded.processed_at",
            ingest_params(orch, record),
        )

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

    def _write_one(self, sql: str, params: Sequence[Any]) -> int:
        """One statement in its own transaction; the rows it changed."""
        try:
            with self._transaction() as conn:
                return conn.execute(sql, params).rowcount
        except sqlite3.DatabaseError as exc:
            self._write_failed(exc)
            raise StoreUnavailableError(f"write failed on {self.path}: {exc}") from exc

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
                del self._vectors[key]
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
        with self._calls:
            if self._closed:
                return
            self._closed = True
            done = self._calls.wait_for(lambda: self._running == 0, self.close_timeout)
            if not done:
                with self._readers_lock:
                    for conn in self._readers:
                        conn.interrupt()
                done = self._calls.wait_for(lambda: self._running == 0, 5.0)
        self._anchors.close()  # the last committed head is on disk before close returns
        if not done:
            return
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None
        self.text_leg.close()


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _holds_nothing(path: Path) -> bool:
    """True when there is no database at ``path``: no file, or an empty one."""
    try:
        return path.stat().st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _behind(have: tuple[int, int] | None, now: tuple[int, int]) -> bool:
    """Whether a matrix at marker ``have`` can catch up to ``now`` (both only grew).

    >>> _behind((3, 10), (5, 12)), _behind((3, 10), (2, 12)), _behind(None, (1, 1))
    (True, False, False)
    """
    return have is not None and now[0] >= have[0] and now[1] >= have[1]


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements (``sqlite3.complete_statement`` aware)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
