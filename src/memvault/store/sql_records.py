"""SQL both backends share for the operational records: proposals, operational events
(and their daily counts) and ingest records.

Pure query builders and row readers, as :mod:`memvault.store.sql` (which holds the
memories, the audit history, the change log and revisions); a backend binds its
parameter mark (``?`` for SQLite, ``%s`` for PostgreSQL).

>>> pending = ProposalQuery(ProposalStatus.PENDING, limit=5)
>>> sql, params = proposals_query("acme", pending, mark="%s")
>>> sql.split(" WHERE ")[1]
'orchestrator_id = %s AND status = %s ORDER BY created_at, proposal_id LIMIT %s'
>>> params
['acme', 'pending', 5]
>>> op_events_query("acme", OpEventQuery("pair_checked", limit=10), mark="?")[0].split(" WHERE ")[1]
'orchestrator_id = ? AND op = ? ORDER BY event_id LIMIT ?'
>>> event_counts_query("acme", "2026-01-01", mark="?")[1]
['acme', '2026-01-01']
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from memvault.store.base import IngestRecord
from memvault.store.records import EventCount, OpEvent, Proposal, ProposalStatus
from memvault.store.requests import OpEventQuery, ProposalQuery
from memvault.store.sql import TRIM, WHITESPACE, Query, json_text

__all__ = [
    "event_counts_from_rows",
    "event_counts_query",
    "ingest_from_row",
    "ingest_params",
    "ingest_record_query",
    "op_event_from_row",
    "op_event_params",
    "op_events_query",
    "proposal_from_row",
    "proposal_params",
    "proposals_query",
]


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


def proposals_query(orchestrator_id: str, query: ProposalQuery, *, mark: str) -> Query:
    """SELECT for proposals, oldest first."""
    where, params = _where(
        orchestrator_id,
        mark,
        ("status =", query.status.value if query.status else None),
        ("proposal_id =", query.proposal_id),
    )
    if query.user_id is not None:  # also 'dana ' stored before ids were trimmed
        where += f" AND {TRIM[mark]}(user_id, {mark}) = {mark}"
        params += [WHITESPACE, query.user_id]
    sql = (
        f"SELECT {_PROPOSAL_COLUMNS} FROM proposals WHERE {where} "
        f"ORDER BY created_at, proposal_id LIMIT {mark}"
    )
    return sql, [*params, query.limit]


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


#: The ``events`` columns after ``orchestrator_id``: an :class:`OpEvent`'s fields, in order.
_OP_EVENT_FIELDS = tuple(f.name for f in dataclasses.fields(OpEvent))


def op_events_query(orchestrator_id: str, query: OpEventQuery, *, mark: str) -> Query:
    """Operational events in write order."""
    where, params = _where(orchestrator_id, mark, ("op =", query.op), ("at >=", query.since))
    sql = (
        f"SELECT {', '.join(_OP_EVENT_FIELDS)} FROM events "
        f"WHERE {where} ORDER BY event_id LIMIT {mark}"
    )
    return sql, [*params, query.limit]


def op_event_from_row(row: Sequence[Any]) -> OpEvent:
    """An :class:`OpEvent` from a row of :func:`op_events_query` (columns in field order)."""
    return OpEvent(*row)


# -- ingest records ----------------------------------------------------------------

#: The ``ingest_files`` columns after ``orchestrator_id``: an :class:`IngestRecord`'s fields.
_INGEST_FIELDS = tuple(f.name for f in dataclasses.fields(IngestRecord))


def ingest_record_query(orchestrator_id: str, content_sha256: str, *, mark: str) -> Query:
    """The ``ingest_files`` row of one content hash."""
    sql = (
        f"SELECT {', '.join(_INGEST_FIELDS)} FROM ingest_files"
        f" WHERE orchestrator_id = {mark} AND content_sha256 = {mark}"
    )
    return sql, [orchestrator_id, content_sha256]


def ingest_from_row(row: Sequence[Any]) -> IngestRecord:
    """An :class:`IngestRecord` from a row of :func:`ingest_record_query`."""
    data = dict(zip(_INGEST_FIELDS, row, strict=True))
    return IngestRecord(**{**data, "size_bytes": int(data["size_bytes"])})


# -- row values both backends write -----------------------------------------------


def proposal_params(orch: str, proposal: Proposal) -> list[Any]:
    """Row values of ``proposal`` for either backend's proposals upsert, in its column order."""
    return [
        proposal.proposal_id,
        orch,
        proposal.user_id,
        proposal.kind,
        json_text(proposal.candidate),
        proposal.status.value,
        proposal.created_at,
        proposal.expires_at,
        proposal.decided_at,
        json_text(proposal.outcome),
    ]


def op_event_params(orch: str, event: OpEvent) -> list[Any]:
    """Row values of ``event`` for either backend's events insert, in its column order."""
    return [orch, *(getattr(event, name) for name in _OP_EVENT_FIELDS)]


def ingest_params(orch: str, record: IngestRecord) -> list[Any]:
    """Row values of ``record`` for either backend's ingest_files upsert, in its column order."""
    return [orch, *(getattr(record, name) for name in _INGEST_FIELDS)]
