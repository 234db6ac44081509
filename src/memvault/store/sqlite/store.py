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

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memvault.errors import (
    DuplicateEdgeError,
    MigrationError,
    ScopeViolationError,
    StoreError,
    StoreUnavailableError,
)
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, StopReason
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.base import (
    GENESIS_HASH,
    ChangeRecord,
    HistoryEvent,
    IngestRecord,
    NodeFilter,
    StoreCounts,
    TextHit,
    WriteSet,
    chain_hash,
)
from memvault.store.records import AuditHead, EventCount, OpEvent, Proposal, ProposalStatus
from memvault.store.sqlite import lifecycle as lifecycle_sql
from memvault.store.sqlite import queries as q
from memvault.store.sqlite.schema import MIGRATIONS

__all__ = ["SQLiteStore"]

BUSY_TIMEOUT_MS = 30_000


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


class SQLiteStore:
    """A :class:`~memvault.store.base.Store` on one SQLite file.

    >>> import tempfile, pathlib
    >>> store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "memory.db")
    >>> store.revision("acme")
    0
    >>> store.close()
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._write_lock = threading.Lock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = _connect(self.path, readonly=False)
            mode = self._writer.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreUnavailableError(f"could not enable WAL on {self.path} (got {mode})")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailableError(f"cannot open memory database {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreUnavailableError(f"cannot open memory database {self.path}: {exc}") from exc

    # -- connections ---------------------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError("store is closed")
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

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self._reader().execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailableError(f"read failed on {self.path}: {exc}") from exc

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise StoreError("store is closed")
        with self._write_lock:
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            else:
                conn.execute("COMMIT")

    # -- schema --------------------------------------------------------------

    def _migrate(self) -> None:
        with self._transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                "version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            applied = {r[0] for r in conn.execute("SELECT version FROM schema_version")}
            known = {v for v, _, _ in MIGRATIONS}
            if applied - known:
                raise MigrationError(
                    f"{self.path} has schema version {max(applied)}, newer than this memvault",
                    hint="upgrade memvault",
                )
            for version, description, sql in MIGRATIONS:
                if version in applied:
                    continue
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
        try:
            with self._transaction() as conn:
                for node in write.nodes:
                    self._upsert_node(conn, node, write.at)
                for memory_id, source in write.extra_sources:
                    self._insert_source(conn, orch, memory_id, source, write.at, primary=False)
                for edge in write.edges:
                    self._insert_edge(conn, edge)
                for record in write.ingest_records:
                    self._upsert_ingest_record(conn, orch, record)
                self._insert_events(conn, orch, write.events)
                lifecycle_sql.apply_lifecycle(conn, write)
                revision = self._bump_revision(conn, write)
            if write.purge_ids:
                self._after_purge(orch)
            return revision
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"write refused by the database: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailableError(f"write failed on {self.path}: {exc}") from exc

    def _upsert_node(self, conn: sqlite3.Connection, node: MemoryNode, at: str) -> None:
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
        # Trigger: a node written for the first time. Why: memory_id is UNINDEXED in
        # FTS5, so looking it up scans the whole index (quadratic bulk ingest).
        # Outcome: the FTS delete runs only for nodes that already existed.
        if existed is not None:
            conn.execute("DELETE FROM memory_fts WHERE memory_id = ?", (node.memory_id,))
        conn.execute(
            "INSERT INTO memory_fts (memory_id, orchestrator_id, content, key, value, summary) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                node.memory_id,
                node.orchestrator_id,
                node.content,
                node.key,
                node.value,
                node.summary,
            ),
        )

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
                (
                    edge.edge_id,
                    edge.orchestrator_id,
                    edge.from_memory_id,
                    edge.to_memory_id,
                    edge.edge_type.value,
                    edge.weight,
                    edge.reason,
                    int(edge.resolved),
                    edge.created_at,
                ),
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
        for event in events:
            digest = chain_hash(prev, event)
            conn.execute(
                "INSERT INTO history (event_id, orchestrator_id, memory_id, op, stop_reason, actor,"
                " detector, detail, at, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    event.event_id,
                    orch,
                    event.memory_id,
                    event.op.value,
                    event.stop_reason.value if event.stop_reason else None,
                    event.actor,
                    event.detector,
                    json.dumps(event.detail, sort_keys=True, ensure_ascii=False),
                    event.at,
                    prev,
                    digest,
                ),
            )
            prev = digest

    @staticmethod
    def _bump_revision(conn: sqlite3.Connection, write: WriteSet) -> int:
        orch = write.orchestrator_id
        if not (write.nodes or write.edges or write.changes or write.extra_sources):
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
        for seq, change in enumerate(write.changes):
            conn.execute(
                "INSERT INTO change_log (orchestrator_id, revision, seq, thread_id, memory_id,"
                " kind, summary, at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    orch,
                    revision,
                    seq,
                    write.thread_id,
                    change.memory_id,
                    change.kind.value,
                    change.summary,
                    write.at,
                ),
            )
        return revision

    # -- reads ---------------------------------------------------------------

    @staticmethod
    def _node(row: sqlite3.Row) -> MemoryNode:
        data = {c: row[c] for c in q.NODE_COLUMNS}
        data["pinned"] = bool(data["pinned"])
        data["source"] = Source(**{c: row[f"s_{c}"] for c in q.SOURCE_COLUMNS})
        return MemoryNode.model_validate(data)

    def get_nodes(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryNode]:
        ids = sorted(set(memory_ids))
        if not ids:
            return []
        out: list[MemoryNode] = []
        for start in range(0, len(ids), 500):
            sql, params = q.get_nodes_query(orchestrator_id, ids[start : start + 500])
            out.extend(self._node(r) for r in self._read(sql, params))
        return out

    def edges_of(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        ids = sorted(set(memory_ids))
        if not ids:
            return []
        found: dict[str, MemoryEdge] = {}
        for start in range(0, len(ids), 400):
            chunk = ids[start : start + 400]
            marks = ", ".join("?" for _ in chunk)
            rows = self._read(
                "SELECT * FROM memory_edges WHERE orchestrator_id = ? AND "
                f"(from_memory_id IN ({marks}) OR to_memory_id IN ({marks}))",
                [orchestrator_id, *chunk, *chunk],
            )
            for r in rows:
                found[r["edge_id"]] = MemoryEdge(
                    edge_id=r["edge_id"],
                    orchestrator_id=r["orchestrator_id"],
                    from_memory_id=r["from_memory_id"],
                    to_memory_id=r["to_memory_id"],
                    edge_type=EdgeType(r["edge_type"]),
                    weight=r["weight"],
                    reason=r["reason"],
                    resolved=bool(r["resolved"]),
                    created_at=r["created_at"],
                )
        return sorted(found.values(), key=lambda e: (e.created_at, e.edge_id))

    def list_nodes(
        self, orchestrator_id: str, filters: NodeFilter, *, limit: int, offset: int = 0
    ) -> list[MemoryNode]:
        sql, params = q.list_nodes_query(orchestrator_id, filters, limit, offset)
        return [self._node(r) for r in self._read(sql, params)]

    def search_text(
        self, orchestrator_id: str, terms: Sequence[str], filters: NodeFilter, *, limit: int
    ) -> list[TextHit]:
        if not any(t.strip() for t in terms):
            return []
        sql, params = q.search_text_query(orchestrator_id, terms, filters, limit)
        return [TextHit(r[0], float(r[1])) for r in self._read(sql, params)]

    def history(
        self, orchestrator_id: str, memory_id: str | None = None, *, limit: int = 1000
    ) -> list[HistoryEvent]:
        sql = "SELECT * FROM history WHERE orchestrator_id = ?"
        params: list[Any] = [orchestrator_id]
        if memory_id is not None:
            sql += " AND memory_id = ?"
            params.append(memory_id)
        rows = self._read(sql + " ORDER BY seq LIMIT ?", [*params, limit])
        return [
            HistoryEvent(
                event_id=r["event_id"],
                orchestrator_id=r["orchestrator_id"],
                op=HistoryOp(r["op"]),
                at=r["at"],
                memory_id=r["memory_id"],
                stop_reason=StopReason(r["stop_reason"]) if r["stop_reason"] else None,
                actor=r["actor"],
                detector=r["detector"],
                detail=json.loads(r["detail"]),
                prev_hash=r["prev_hash"],
                hash=r["hash"],
            )
            for r in rows
        ]

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
            (
                orch,
                record.content_sha256,
                record.original_name,
                record.size_bytes,
                record.status,
                record.manifest_path,
                record.received_at,
                record.processed_at,
            ),
        )

    def ingest_record(self, orchestrator_id: str, content_sha256: str) -> IngestRecord | None:
        rows = self._read(
            "SELECT * FROM ingest_files WHERE orchestrator_id = ? AND content_sha256 = ?",
            [orchestrator_id, content_sha256],
        )
        if not rows:
            return None
        r = rows[0]
        return IngestRecord(
            content_sha256=r["content_sha256"],
            original_name=r["original_name"],
            size_bytes=int(r["size_bytes"]),
            status=r["status"],
            manifest_path=r["manifest_path"],
            received_at=r["received_at"],
            processed_at=r["processed_at"],
        )

    def revision(self, orchestrator_id: str) -> int:
        rows = self._read(
            "SELECT revision FROM thread_revision WHERE orchestrator_id = ? AND thread_id = '*'",
            [orchestrator_id],
        )
        return int(rows[0][0]) if rows else 0

    def changes_since(self, orchestrator_id: str, revision: int) -> list[ChangeRecord]:
        rows = self._read(
            "SELECT * FROM change_log WHERE orchestrator_id = ? AND revision > ? "
            "ORDER BY revision, seq",
            [orchestrator_id, revision],
        )
        return [
            ChangeRecord(
                r["revision"],
                r["thread_id"],
                r["memory_id"],
                ChangeKind(r["kind"]),
                r["summary"],
                r["at"],
            )
            for r in rows
        ]

    # -- context ---
    def thread_seen(self, orchestrator_id: str, thread_id: str) -> int | None:
        rows = self._read(
            "SELECT revision FROM thread_revision WHERE orchestrator_id = ? AND thread_id = ?",
            [orchestrator_id, thread_id],
        )
        return int(rows[0][0]) if rows else None

    def mark_thread_seen(self, orchestrator_id: str, thread_id: str, revision: int) -> None:
        if thread_id == "*":
            raise StoreError("thread id '*' is reserved for the head revision")
        try:
            with self._transaction() as conn:
                conn.execute(
                    "INSERT INTO thread_revision (orchestrator_id, thread_id, revision) "
                    "VALUES (?, ?, ?) ON CONFLICT (orchestrator_id, thread_id) "
                    "DO UPDATE SET revision = max(revision, excluded.revision)",
                    (orchestrator_id, thread_id, revision),
                )
        except sqlite3.DatabaseError as exc:
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
        """Empty the WAL of the purged bytes of ``orchestrator_id``."""
        with self._write_lock:
            lifecycle_sql.checkpoint(self._writer)

    def proposals(
        self,
        orchestrator_id: str,
        *,
        status: ProposalStatus | None = None,
        user_id: str | None = None,
        proposal_id: str | None = None,
        limit: int = 1000,
    ) -> list[Proposal]:
        sql, params = lifecycle_sql.proposals_query(
            orchestrator_id, status, user_id, proposal_id, limit
        )
        return [lifecycle_sql.proposal_from_row(r) for r in self._read(sql, params)]

    def audit_head(self, orchestrator_id: str) -> AuditHead:
        return lifecycle_sql.audit_head(
            self._read(
                "SELECT events, head_hash FROM audit_head WHERE orchestrator_id = ?",
                [orchestrator_id],
            )
        )

    def event_counts(self, orchestrator_id: str, *, since: str | None = None) -> list[EventCount]:
        sql, params = lifecycle_sql.event_counts_query(orchestrator_id, since)
        return lifecycle_sql.event_counts(self._read(sql, params))

    def op_events(
        self,
        orchestrator_id: str,
        *,
        op: str | None = None,
        since: str | None = None,
        limit: int = 100_000,
    ) -> list[OpEvent]:
        sql, params = lifecycle_sql.op_events_query(orchestrator_id, op, since, limit)
        return [lifecycle_sql.op_event_from_row(r) for r in self._read(sql, params)]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        with self._write_lock:
            self._writer.close()


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
