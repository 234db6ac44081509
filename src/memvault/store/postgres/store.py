"""The PostgreSQL backend: one database (and schema) shared by many orchestrators.

Isolation level: READ COMMITTED (PostgreSQL's default) plus one row lock per
orchestrator, not SERIALIZABLE.

Trigger: concurrent writers — threads of one process, or many processes on
many machines — writing to the same orchestrator.
Why: a write reads two things it then extends (the history chain head and
the revision); under READ COMMITTED two writers could read the same head.
SERIALIZABLE would turn that into serialization failures that every caller
must retry; a lock taken by the first statement of the write is simpler,
never fails, and gives exactly SQLite's semantics (one writer per
orchestrator, readers never blocked).
Outcome: :meth:`PostgresStore.apply` opens with
:func:`~memvault.store.postgres.queries.lock_and_bump_query`, an upsert on the
orchestrator's revision row that holds its row lock until commit. Every later
statement of the transaction takes a fresh READ COMMITTED snapshot, so it sees
everything the previous writer committed. Writers of different orchestrators
never wait for each other.

Connections come from a ``psycopg_pool.ConnectionPool`` in autocommit mode;
a write is one explicit transaction, a read is one statement.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import Unpack

from memvault.errors import ConfigError, MigrationError, StoreError, StoreUnavailableError
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.anchor import AnchorKeeper, StoreAnchor
from memvault.store.base import (
    RankFields,
    Store,
    StoreCounts,
    TextHit,
    VectorHit,
    VectorSearchEach,
    WriteSet,
    recorded_identity,
)
from memvault.store.postgres import lifecycle as lc
from memvault.store.postgres import queries as q
from memvault.store.postgres import vectors as v
from memvault.store.postgres import writing as w
from memvault.store.postgres.connecting import (
    DEFAULT_KEEPALIVE_IDLE_S,
    DEFAULT_POOL_SIZE,
    DEFAULT_SCHEMA,
    DEFAULT_STATEMENT_TIMEOUT_S,
    UNREACHABLE,
    PostgresOptions,
    first_line,
    keepalive_options,
    probe,
    psycopg,
    redacted_dsn,
    statement_timeout_option,
)
from memvault.store.postgres.schema import MIGRATIONS, validate_schema_name
from memvault.store.records import AuditHead
from memvault.store.requests import TextSearch, VectorSearch
from memvault.store.sql import (
    edge_from_row,
    erase_reader_marks_query,
    mark_thread_seen_query,
    pending_migrations,
)
from memvault.store.sql_reads import SqlReads

try:
    from psycopg import errors as pg_errors
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ConfigError(
        "the PostgreSQL backend needs psycopg 3 and psycopg-pool",
        hint='pip install "memvault[postgres]"',
    ) from exc

__all__ = ["PostgresStore", "redacted_dsn"]

#: Rows (nodes + vectors) written by one store object before it refreshes statistics.
ANALYZE_AFTER_ROWS = 1000


class PostgresStore(SqlReads, VectorSearchEach, Store):
    """A :class:`~memvault.store.base.Store` on a PostgreSQL database with pgvector.

    Tables live in ``schema`` (created if missing); the migration list of
    :mod:`memvault.store.postgres.schema` is applied once, under an advisory
    lock, so many processes may open the same database at once.

    >>> store = PostgresStore.connect("postgresql://localhost/memvault")  # doctest: +SKIP
    >>> store.revision("acme")  # doctest: +SKIP
    0
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        pool_size: int = DEFAULT_POOL_SIZE,
        timeout: float = 10.0,
        statement_timeout_s: float = DEFAULT_STATEMENT_TIMEOUT_S,
        keepalive_idle_s: int = DEFAULT_KEEPALIVE_IDLE_S,
    ) -> None:
        self.schema = validate_schema_name(schema)
        #: Where the data lives, safe to print (``Store.location``): no password.
        self.location = redacted_dsn(dsn, self.schema)
        if pool_size < 1:
            raise ConfigError(f"pool_size must be >= 1, got {pool_size}")
        if statement_timeout_s < 0 or keepalive_idle_s < 0:
            raise ConfigError(
                "statement_timeout_s and keepalive_idle_s must be >= 0",
                hint="0 turns the limit off",
            )
        self._closed = False
        self._anchors = AnchorKeeper()
        self._indexed_dims: set[int] = set()
        self._rows_since_analyze = 0
        self._analyze_at = ANALYZE_AFTER_ROWS
        self._pool = ConnectionPool(
            dsn,
            min_size=1,
            max_size=pool_size,
            kwargs={
                "autocommit": True,
                # Trigger: psycopg prepares a statement run 5 times; PostgreSQL then
                # may switch to one generic plan for every parameter value.
                # Why: a search's best plan depends on its values — a word in most
                # memories wants a scan and a top-N sort, a rare word the GIN index.
                # Measured at 10k memories, 2-term queries: p95 0.9 s with the
                # generic plan, 0.04 s planned per call (planning costs ~1 ms).
                # Outcome: every statement is planned for its own values.
                # Trigger: a statement that never ends (a lock held elsewhere, a runaway
                #   plan) or a server whose host vanished (no FIN, no RST).
                # Why: a read or write then hung its caller for as long as the OS kept
                #   the socket (hours); only /v1/health was bounded.
                # Outcome: the server cancels a statement after ``statement_timeout_s``
                #   and TCP keepalive probes find a dead peer after about
                #   ``keepalive_idle_s`` + 3 probes; both end as StoreUnavailableError.
                #   (A server process that is stopped but whose kernel still answers,
                #   SIGSTOP, is bounded by neither: the health probe's deadline covers it.)
                "options": (
                    f"-c search_path={self.schema},public -c hnsw.iterative_scan=strict_order"
                    " -c plan_cache_mode=force_custom_plan"
                    f" {statement_timeout_option(statement_timeout_s)}"
                ),
                "connect_timeout": max(1, round(timeout)),
                **keepalive_options(keepalive_idle_s),
            },
            timeout=timeout,
            name=f"memvault-{self.schema}",
            open=False,
        )
        try:
            probe(dsn, timeout)
            try:
                self._pool.open(wait=True, timeout=timeout)
            except PoolTimeout as exc:
                raise StoreUnavailableError(
                    f"cannot connect to PostgreSQL within {timeout:g} s", hint=UNREACHABLE
                ) from exc
            self._migrate()
        except BaseException:
            self._pool.close()
            raise

    @classmethod
    def connect(cls, dsn: str, **options: Unpack[PostgresOptions]) -> PostgresStore:
        """Open a pool to ``dsn``, create/upgrade the schema, return the store
        (the constructor's keywords: ``schema``, ``pool_size``, ``timeout``).

        Raises :class:`StoreUnavailableError` when the server cannot be
        reached within ``timeout`` seconds.

        >>> PostgresStore.connect("postgresql://db/memvault", pool_size=20)  # doctest: +SKIP
        """
        return cls(dsn, **options)

    # -- connections ---------------------------------------------------------

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        if self._closed:
            raise StoreUnavailableError("the PostgreSQL store is closed")
        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolClosed as exc:
            raise StoreUnavailableError("the PostgreSQL store is closed") from exc
        except PoolTimeout as exc:
            raise StoreUnavailableError(f"no PostgreSQL connection available: {exc}") from exc
        except pg_errors.IntegrityError as exc:
            raise StoreError(f"write refused by the database: {first_line(exc)}") from exc
        except (pg_errors.DataError, pg_errors.ProgrammingError) as exc:
            raise StoreError(f"PostgreSQL refused the statement: {first_line(exc)}") from exc
        except psycopg.Error as exc:
            raise StoreUnavailableError(f"PostgreSQL failed: {first_line(exc)}") from exc

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._conn() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(sql, params)
            return cur.fetchall()

    _mark = "%s"
    _select_node = q.SELECT_NODE

    def _read_rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._read_tuples(sql, params)

    def _read_tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._conn() as conn, conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall()

    # -- schema --------------------------------------------------------------

    def _migrate(self) -> None:
        with self._conn() as conn, conn.transaction(), conn.cursor() as cur:
            # A schema upgrade may rebuild an index on a large table: no statement limit.
            cur.execute("SET LOCAL statement_timeout = 0")
            cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [1, self.schema])
            cur.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY,"
                " description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            applied = {r[0] for r in cur.execute("SELECT version FROM schema_version")}
            where = f"PostgreSQL schema {self.schema!r}"
            for version, description, sql in pending_migrations(applied, MIGRATIONS, where):
                try:
                    cur.execute(sql)
                except psycopg.Error as exc:
                    raise MigrationError(
                        f"migration {version} ({description}) failed: {first_line(exc)}",
                        hint="pgvector must be installed (CREATE EXTENSION vector as a superuser)",
                    ) from exc
                cur.execute(
                    "INSERT INTO schema_version (version, description) VALUES (%s, %s)",
                    [version, description],
                )

    def schema_versions(self) -> list[int]:
        """Applied migration versions, ascending."""
        return [r[0] for r in self._read_tuples("SELECT version FROM schema_version ORDER BY 1")]

    # -- writes --------------------------------------------------------------

    def apply(self, write: WriteSet) -> int:
        write.check_scope()
        if write.embeddings:
            self._ensure_vector_indexes({v.vector_dim(r.vector) for r in write.embeddings})
        try:
            with self._conn() as conn:
                with conn.transaction(), conn.pipeline():
                    revision = w.apply_write(conn, write)
                if self._anchors.wants(write.orchestrator_id):
                    row = conn.execute(lc.AUDIT_HEAD, [write.orchestrator_id]).fetchone()
                    head = lc.audit_head_from_row(row)
                    self._anchors.committed(
                        write.orchestrator_id,
                        revision=revision,
                        history_count=head.events,
                        last_hash=head.hash,
                    )
        except StoreError as exc:
            cause = exc.__cause__
            if (
                isinstance(cause, pg_errors.UniqueViolation)
                and cause.diag.constraint_name == "memory_edges_triple"
            ):
                raise w.duplicate_edge(write, cause) from cause
            raise
        self._note_rows(len(write.nodes) + len(write.embeddings))
        return revision

    def _note_rows(self, rows: int) -> None:
        """Refresh planner statistics after this store wrote many rows.

        Trigger: the rows this store object wrote since its last ``ANALYZE``
        reach :data:`ANALYZE_AFTER_ROWS` (then twice that, four times, ...).
        Why: right after a bulk load (ingest, import, a benchmark seed) the
        statistics still describe the empty tables until autovacuum's next
        round (up to a minute, longer on a busy server). Measured at 10k
        memories: the planner then joins vectors to memories in a nested loop
        over every pair (1.9 s per vector search at 2k memories, quadratic)
        and ignores the GIN index for text (a scan of the scope index).
        Outcome: ``ANALYZE`` of the searched tables (~0.4 s at 10k rows),
        outside the write's transaction; a failure is ignored (it only tunes).
        """
        self._rows_since_analyze += rows
        if self._rows_since_analyze < self._analyze_at:
            return
        self._rows_since_analyze = 0
        self._analyze_at = min(self._analyze_at * 2, ANALYZE_AFTER_ROWS * 64)
        with contextlib.suppress(StoreError), self._conn() as conn:
            conn.execute(q.ANALYZE_SEARCHED)

    def _ensure_vector_indexes(self, dims: set[int]) -> None:
        """Create the HNSW index of each new dimension (:func:`writing.create_vector_indexes`)."""
        todo = dims - self._indexed_dims
        if not todo:
            return
        with self._conn() as conn:
            w.create_vector_indexes(conn, todo, self._indexed_dims)

    def mark_thread_seen(
        self, orchestrator_id: str, thread_id: str, revision: int, *, reader: str
    ) -> None:
        if thread_id == "*":
            raise StoreError("thread id '*' is reserved for the head revision")
        sql, params = mark_thread_seen_query(
            orchestrator_id, thread_id, reader, revision, mark="%s"
        )
        with self._conn() as conn:
            conn.execute(sql, params)

    def erase_reader_marks(self, orchestrator_id: str, reader: str) -> int:
        sql, params = erase_reader_marks_query(orchestrator_id, reader, mark="%s")
        with self._conn() as conn:
            return conn.execute(sql, params).rowcount

    # -- reads ---------------------------------------------------------------

    @staticmethod
    def _node(row: dict[str, Any]) -> MemoryNode:
        data = {c: row[c] for c in q.NODE_COLUMNS}
        data["source"] = Source(**{c: row[f"s_{c}"] for c in q.SOURCE_COLUMNS})
        return MemoryNode.model_validate(data)

    def get_nodes(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryNode]:
        ids = sorted(set(memory_ids))
        if not ids:
            return []
        sql, params = q.get_nodes_query(orchestrator_id, ids)
        return [self._node(r) for r in self._read(sql, params)]

    def rank_fields(self, orchestrator_id: str, memory_ids: Sequence[str]) -> dict[str, RankFields]:
        ids = sorted(set(memory_ids))
        if not ids:
            return {}
        sql, params = q.rank_fields_query(orchestrator_id, ids)
        return {
            m: RankFields(m, actor, int(importance), float(confidence), updated, created, conv)
            for m, actor, importance, confidence, updated, created, conv in self._read_tuples(
                sql, params
            )
        }

    def edges_of(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        ids = sorted(set(memory_ids))
        if not ids:
            return []
        sql, params = q.edges_of_query(orchestrator_id, ids)
        return [edge_from_row(r) for r in self._read_tuples(sql, params)]

    def _read_text_hits(self, orchestrator_id: str, search: TextSearch) -> list[TextHit]:
        sql, params = q.search_text_query(orchestrator_id, search)
        return [TextHit(r[0], float(r[1])) for r in self._read_tuples(sql, params)]

    def _read_vector_hits(
        self, orchestrator_id: str, query: npt.NDArray[np.float32], search: VectorSearch
    ) -> list[VectorHit]:
        if search.limit <= 0:
            return []
        sql, params = v.search_vectors_query(
            orchestrator_id, search.model_id, query, search.filters, search.limit
        )
        return [VectorHit(r[0], float(r[1])) for r in self._read_tuples(sql, params)]

    def missing_embeddings(
        self, orchestrator_id: str, model_id: str, *, limit: int
    ) -> list[MemoryNode]:
        sql, params = q.missing_embeddings_query(orchestrator_id, model_id, limit)
        return [self._node(r) for r in self._read(sql, params)]

    def cached_embeddings(
        self, model_id: str, text_hashes: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        hashes = sorted(set(text_hashes))
        if not hashes:
            return {}
        sql, params = v.cached_embeddings_query(model_id, hashes)
        return {r[0]: v.decode_vector(r[1]) for r in self._read_tuples(sql, params)}

    def audit_head(self, orchestrator_id: str) -> AuditHead:
        rows = self._read_tuples(lc.AUDIT_HEAD, [orchestrator_id])
        return lc.audit_head_from_row(rows[0] if rows else None)

    def counts(self, orchestrator_id: str) -> StoreCounts:
        def grouped(sql: str) -> dict[str, int]:
            return {r[0]: int(r[1]) for r in self._read_tuples(sql, [orchestrator_id])}

        return StoreCounts(
            memories_by_status=grouped(q.COUNT_BY_STATUS),
            memories_by_type=grouped(q.COUNT_BY_TYPE),
            edges_by_type=grouped(q.COUNT_EDGES),
            history_events=int(self._read_tuples(q.COUNT_HISTORY, [orchestrator_id])[0][0]),
            revision=self.revision(orchestrator_id),
        )

    # -- identity ---

    def claim_identity(self, anchor: StoreAnchor) -> StoreAnchor:
        with self._conn() as conn:
            conn.execute(
                lc.CLAIM_IDENTITY, [anchor.orchestrator_id, anchor.store_uuid, anchor.created_at]
            )
        return recorded_identity(self, anchor.orchestrator_id)

    def agent_threads(self, orchestrator_id: str, user_id: str) -> list[str]:
        with self._conn() as conn:
            present = {r[0] for r in conn.execute(lc.CHECKPOINT_TABLES, [self.schema])}
            if "checkpoints" not in present:
                return []
            return lc.thread_ids(conn, orchestrator_id, user_id, ())

    def erase_agent_threads(
        self, orchestrator_id: str, user_id: str, quoting: Sequence[str] = ()
    ) -> list[str]:
        """LangGraph's checkpoint tables in this schema (when the agent put them here)."""
        with self._conn() as conn:
            present = {r[0] for r in conn.execute(lc.CHECKPOINT_TABLES, [self.schema])}
            if not {"checkpoints", "checkpoint_blobs", "checkpoint_writes"} <= present:
                return []
            threads = lc.thread_ids(conn, orchestrator_id, user_id, quoting)
            if threads:
                with conn.transaction():
                    for table in ("checkpoint_writes", "checkpoint_blobs", "checkpoints"):
                        conn.execute(f"DELETE FROM {table} WHERE thread_id = ANY(%s)", [threads])
            return threads

    def close(self) -> None:
        """Close the pool: calls holding a connection finish first (up to 30 s).

        Later calls fail with :class:`StoreUnavailableError`.
        """
        if self._closed:
            return
        self._closed = True
        self._pool.close(timeout=30.0)
        self._anchors.close()
