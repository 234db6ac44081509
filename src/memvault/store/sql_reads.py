"""The reads both SQL stores run the same way, written once: :class:`SqlReads`.

Each builds its query with :mod:`memvault.store.sql` or
:mod:`memvault.store.sql_records` (the store's parameter mark bound) and reads
the rows by position: SQLite and PostgreSQL run these reads with the same code
and differ only in how a query reaches the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from memvault.model.node import MemoryNode
from memvault.store.anchor import AnchorKeeper, StoreAnchor
from memvault.store.base import GENESIS_HASH, ChangeRecord, HistoryEvent, IngestRecord, NodeFilter
from memvault.store.records import EventCount, OpEvent, Proposal
from memvault.store.requests import ChangesQuery, HistoryQuery, OpEventQuery, ProposalQuery
from memvault.store.sql import (
    change_from_row,
    changes_since_query,
    count_nodes_query,
    history_from_row,
    history_query,
    identity_query,
    list_nodes_query,
    reader_marks_query,
    revision_query,
    thread_seen_query,
)
from memvault.store.sql_records import (
    event_counts_from_rows,
    event_counts_query,
    ingest_from_row,
    ingest_record_query,
    op_event_from_row,
    op_events_query,
    proposal_from_row,
    proposals_query,
)

__all__ = ["SqlReads"]


class SqlReads:
    """The reads both SQL stores run the same way, written once (a mixin).

    The store sets ``_mark`` (its parameter mark), ``_read_rows(sql, params)``
    (rows readable by position) and ``_anchors`` (its :class:`AnchorKeeper`).
    """

    _mark: ClassVar[str]
    _anchors: AnchorKeeper
    #: the store's ``SELECT`` of node rows (:func:`~memvault.store.sql.select_node`)
    _select_node: ClassVar[str]

    def _read_rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        raise NotImplementedError

    def _read(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]:
        """Rows as the store's ``_node`` reads them."""
        raise NotImplementedError

    def _node(self, row: Any) -> MemoryNode:
        raise NotImplementedError

    def list_nodes(
        self, orchestrator_id: str, filters: NodeFilter, *, limit: int, offset: int = 0
    ) -> list[MemoryNode]:
        sql, params = list_nodes_query(
            orchestrator_id, filters, limit, offset, select=self._select_node, mark=self._mark
        )
        return [self._node(r) for r in self._read(sql, params)]

    def count_nodes(self, orchestrator_id: str, filters: NodeFilter) -> int:
        sql, params = count_nodes_query(orchestrator_id, filters, mark=self._mark)
        return int(self._read_rows(sql, params)[0][0])

    def _read_proposals(self, orchestrator_id: str, query: ProposalQuery) -> list[Proposal]:
        sql, params = proposals_query(orchestrator_id, query, mark=self._mark)
        return [proposal_from_row(r) for r in self._read_rows(sql, params)]

    def event_counts(self, orchestrator_id: str, *, since: str | None = None) -> list[EventCount]:
        sql, params = event_counts_query(orchestrator_id, since, mark=self._mark)
        return event_counts_from_rows(self._read_rows(sql, params))

    def _read_op_events(self, orchestrator_id: str, query: OpEventQuery) -> list[OpEvent]:
        sql, params = op_events_query(orchestrator_id, query, mark=self._mark)
        return [op_event_from_row(r) for r in self._read_rows(sql, params)]

    def _read_history(self, orchestrator_id: str, query: HistoryQuery) -> list[HistoryEvent]:
        sql, params = history_query(orchestrator_id, query, mark=self._mark)
        return [history_from_row(r) for r in self._read_rows(sql, params)]

    def _read_changes(self, orchestrator_id: str, query: ChangesQuery) -> list[ChangeRecord]:
        sql, params = changes_since_query(orchestrator_id, query, mark=self._mark)
        return [change_from_row(r) for r in self._read_rows(sql, params)]

    def revision(self, orchestrator_id: str) -> int:
        rows = self._read_rows(*revision_query(orchestrator_id, mark=self._mark))
        return int(rows[0][0]) if rows else 0

    def thread_seen(self, orchestrator_id: str, thread_id: str, *, reader: str) -> int | None:
        sql, params = thread_seen_query(orchestrator_id, thread_id, reader, mark=self._mark)
        rows = self._read_rows(sql, params)
        return int(rows[0][0]) if rows else None

    def reader_marks(self, orchestrator_id: str, reader: str) -> list[tuple[str, int]]:
        sql, params = reader_marks_query(orchestrator_id, reader, mark=self._mark)
        return [(str(thread), int(revision)) for thread, revision in self._read_rows(sql, params)]

    def ingest_record(self, orchestrator_id: str, content_sha256: str) -> IngestRecord | None:
        sql, params = ingest_record_query(orchestrator_id, content_sha256, mark=self._mark)
        rows = self._read_rows(sql, params)
        return ingest_from_row(rows[0]) if rows else None

    def identity(self, orchestrator_id: str) -> StoreAnchor | None:
        rows = self._read_rows(*identity_query(orchestrator_id, mark=self._mark))
        if not rows:
            return None
        uuid, created, events, head, revision = rows[0]
        return StoreAnchor(
            orchestrator_id, uuid, created, int(revision), int(events), head or GENESIS_HASH
        )

    def keep_anchor(self, orchestrator_id: str, path: Path) -> None:
        self._anchors.keep_identity(orchestrator_id, self.identity(orchestrator_id), path)

    @property
    def anchor_error(self) -> str | None:
        """Why the last anchor file update failed (``None``: it is up to date)."""
        return self._anchors.last_error
