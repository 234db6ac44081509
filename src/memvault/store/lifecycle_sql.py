"""Lifecycle SQL both backends share: proposals, operational events, ingest records.

Reads, and the row values each backend writes (one column order, two marks).

Pure query builders (STYLE principle 3) and row readers; a backend binds its
parameter mark (``?`` for SQLite, ``%s`` for PostgreSQL). The columns are
selected by name in a fixed order, so a row reads by position on either.

>>> sql, params = proposals_query("acme", ProposalStatus.PENDING, None, None, 5, mark="%s")
>>> sql.split(" WHERE ")[1]
'orchestrator_id = %s AND status = %s ORDER BY created_at, proposal_id LIMIT %s'
>>> params
['acme', 'pending', 5]
>>> op_events_query("acme", "pair_checked", None, 10, mark="?")[0].split(" WHERE ")[1]
'orchestrator_id = ? AND op = ? ORDER BY event_id LIMIT ?'
>>> event_counts_query("acme", "2026-01-01", mark="?")[1]
['acme', '2026-01-01']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from memvault.store.base import IngestRecord
from memvault.store.records import EventCount, OpEvent, Proposal, ProposalStatus

__all__ = [
    "SqlLifecycleReads",
    "event_counts_from_rows",
    "event_counts_query",
    "ingest_params",
    "op_event_from_row",
    "op_event_params",
    "op_events_query",
    "proposal_from_row",
    "proposal_params",
    "proposals_query",
]

Query = tuple[str, list[Any]]

_PROPOSAL_FIELDS = (
    "proposal_id",
    "orchestrator_id",
    "kind",
    "candidate",
    "status",
    "created_at",
    "expires_at",
    "user_id",
    "decided_at",
    "outcome",
)
_PROPOSAL_COLUMNS = ", ".join(_PROPOSAL_FIELDS)


def _where(orchestrator_id: str, mark: str, *pairs: tuple[str, Any]) -> tuple[str, list[Any]]:
    """``orchestrator_id = ?`` and ``column = ?`` for each pair whose value is given."""
    parts = [f"orchestrator_id = {mark}"]
    params: list[Any] = [orchestrator_id]
    for column, value in pairs:
        if value is not None:
            parts.append(f"{column} {mark}")
            params.append(value)
    return " AND ".join(parts), params


def proposals_query(
    orchestrator_id: str,
    status: ProposalStatus | None,
    user_id: str | None,
    proposal_id: str | None,
    limit: int,
    *,
    mark: str,
) -> Query:
    """SELECT for proposals, oldest first."""
    where, params = _where(
        orchestrator_id,
        mark,
        ("status =", status.value if status else None),
        ("user_id =", user_id),
        ("proposal_id =", proposal_id),
    )
    sql = (
        f"SELECT {_PROPOSAL_COLUMNS} FROM proposals WHERE {where} "
        f"ORDER BY created_at, proposal_id LIMIT {mark}"
    )
    return sql, [*params, limit]


def proposal_from_row(row: Sequence[Any]) -> Proposal:
    """A :class:`Proposal` from a row of :func:`proposals_query`."""
    data = dict(zip(_PROPOSAL_FIELDS, row, strict=True))
    data.update(
        candidate=json.loads(data["candidate"]),
        outcome=json.loads(data["outcome"]),
        status=ProposalStatus(data["status"]),
    )
    return Proposal(**data)


def event_counts_query(orchestrator_id: str, since: str | None, *, mark: str) -> Query:
    """Operational events grouped by (UTC day, node, op, status)."""
    where, params = _where(orchestrator_id, mark, ("at >=", since))
    sql = (
        "SELECT substr(at, 1, 10) AS day, node, op, status, count(*) FROM events "
        f"WHERE {where} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
    )
    return sql, params


def event_counts_from_rows(rows: Sequence[Sequence[Any]]) -> list[EventCount]:
    """:class:`EventCount` rows of :func:`event_counts_query`."""
    return [EventCount(r[0], r[1], r[2], r[3], int(r[4])) for r in rows]


def op_events_query(
    orchestrator_id: str, op: str | None, since: str | None, limit: int, *, mark: str
) -> Query:
    """Operational events in write order."""
    where, params = _where(orchestrator_id, mark, ("op =", op), ("at >=", since))
    sql = (
        "SELECT at, node, op, status, memory_id, category, best_similarity FROM events "
        f"WHERE {where} ORDER BY event_id LIMIT {mark}"
    )
    return sql, [*params, limit]


def op_event_from_row(row: Sequence[Any]) -> OpEvent:
    """An :class:`OpEvent` from a row of :func:`op_events_query` (columns in field order)."""
    return OpEvent(*row)


class SqlLifecycleReads:
    """The lifecycle reads of a SQL store, once for both backends (a mixin).

    The store sets ``_mark`` (its parameter mark) and ``_read_rows(sql, params)``
    (rows readable by position).
    """

    _mark: ClassVar[str]

    def _read_rows(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        raise NotImplementedError

    def proposals(
        self,
        orchestrator_id: str,
        *,
        status: ProposalStatus | None = None,
        user_id: str | None = None,
        proposal_id: str | None = None,
        limit: int = 1000,
    ) -> list[Proposal]:
        sql, params = proposals_query(
            orchestrator_id, status, user_id, proposal_id, limit, mark=self._mark
        )
        return [proposal_from_row(r) for r in self._read_rows(sql, params)]

    def event_counts(self, orchestrator_id: str, *, since: str | None = None) -> list[EventCount]:
        sql, params = event_counts_query(orchestrator_id, since, mark=self._mark)
        return event_counts_from_rows(self._read_rows(sql, params))

    def op_events(
        self,
        orchestrator_id: str,
        *,
        op: str | None = None,
        since: str | None = None,
        limit: int = 100_000,
    ) -> list[OpEvent]:
        sql, params = op_events_query(orchestrator_id, op, since, limit, mark=self._mark)
        return [op_event_from_row(r) for r in self._read_rows(sql, params)]


# -- row values both backends write -----------------------------------------------


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def proposal_params(orch: str, proposal: Proposal) -> list[Any]:
    """Row values of ``proposal`` for either backend's proposals upsert, in its column order."""
    return [
        proposal.proposal_id,
        orch,
        proposal.user_id,
        proposal.kind,
        _dumps(proposal.candidate),
        proposal.status.value,
        proposal.created_at,
        proposal.expires_at,
        proposal.decided_at,
        _dumps(proposal.outcome),
    ]


def op_event_params(orch: str, event: OpEvent) -> list[Any]:
    """Row values of ``event`` for either backend's events insert, in its column order."""
    return [
        orch,
        event.at,
        event.node,
        event.op,
        event.status,
        event.memory_id,
        event.category,
        event.best_similarity,
    ]


def ingest_params(orch: str, record: IngestRecord) -> list[Any]:
    """Row values of ``record`` for either backend's ingest_files upsert, in its column order."""
    return [
        orch,
        record.content_sha256,
        record.original_name,
        record.size_bytes,
        record.status,
        record.manifest_path,
        record.received_at,
        record.processed_at,
    ]
