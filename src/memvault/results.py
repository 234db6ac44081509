"""What the engine returns: plain, frozen result values with ``to_json``."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from memvault.errors import WriteRefusedError
from memvault.model.enums import StopReason
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.store.base import HistoryEvent

__all__ = [
    "EngineStats",
    "MemoryView",
    "SearchHit",
    "SearchResults",
    "WriteResult",
    "fields_json",
]


def fields_json(record: Any, *, omit: Collection[str] = (), **values: Any) -> dict[str, Any]:
    """The JSON of a frozen result record: its fields in order (an enum as its value),
    but those in ``omit``; ``values`` give fields another value (a rounded score).

    >>> fields_json(WriteResult(StopReason.SUCCESS_STORED, "m1"), omit=("errors", "parts"))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'stop_reason': 'SUCCESS_STORED', 'memory_id': 'm1', 'reason': '', 'detector': None,
     'revision': None, 'edge_id': None, 'store_unavailable': False, 'proposal_id': None}
    """
    data: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        if f.name not in omit:
            value = values[f.name] if f.name in values else getattr(record, f.name)
            data[f.name] = value.value if isinstance(value, Enum) else value
    return data


@dataclass(frozen=True, slots=True)
class WriteResult:
    """The outcome of one write: exactly one stop reason.

    >>> WriteResult(StopReason.SUCCESS_STORED, memory_id="mem_1").ok
    True
    """

    stop_reason: StopReason
    memory_id: str | None = None
    reason: str = ""
    detector: str | None = None
    errors: tuple[tuple[str, str], ...] = ()
    revision: int | None = None
    edge_id: str | None = None
    #: The write failed because the store is unavailable (read-only, full, locked,
    #: damaged): exit 4 / HTTP 503 rather than a refusal; retrying later may work.
    store_unavailable: bool = False
    #: A consent-gated write queued for the user's confirmation instead of being lost.
    proposal_id: str | None = None
    #: A long ``add`` stored as several memories: all their ids in order
    #: (``memory_id`` is the first); empty for a memory stored whole.
    parts: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.stop_reason.is_success

    def raise_for_status(self) -> WriteResult:
        """Return ``self`` on success, else raise :class:`WriteRefusedError`."""
        if not self.ok:
            raise WriteRefusedError(self.stop_reason, self.reason, self.errors)
        return self

    def to_json(self) -> dict[str, Any]:
        """The stop reason and memory id, then each other field only when it is set.

        >>> WriteResult(StopReason.SUCCESS_STORED, "m1", revision=0).to_json()
        {'stop_reason': 'SUCCESS_STORED', 'memory_id': 'm1', 'revision': 0}
        """
        data: dict[str, Any] = {
            "stop_reason": self.stop_reason.value,
            "memory_id": self.memory_id,
        }
        when_set = {
            "reason": self.reason or None,
            "detector": self.detector or None,
            "errors": [{"field": f, "message": m} for f, m in self.errors] or None,
            "revision": self.revision,
            "edge_id": self.edge_id,
            "memory_available": False if self.store_unavailable else None,
            "proposal_id": self.proposal_id,
            "parts": list(self.parts) or None,
        }
        data.update((k, v) for k, v in when_set.items() if v is not None)
        return data


@dataclass(frozen=True, slots=True)
class MemoryView:
    """A node with every edge that touches it."""

    node: MemoryNode
    edges: tuple[MemoryEdge, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = self.node.to_json()
        data["edges"] = [e.to_json() for e in self.edges]
        return data


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One recalled memory, its rank (1-based) and score (higher is better)."""

    node: MemoryNode
    score: float
    rank: int
    explain: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memory_id": self.node.memory_id,
            "content": self.node.content,
            "type": self.node.type.value,
            "category": self.node.category,
            "score": round(self.score, 6),
            "rank": self.rank,
            "importance": self.node.importance,
            "status": self.node.status.value,
            "updated_at": self.node.updated_at,
            "source": self.node.source.model_dump(mode="json", by_alias=True),
        }
        if self.explain:
            data["explain"] = dict(self.explain)
        return data


@dataclass(frozen=True, slots=True)
class SearchResults:
    """Ranked hits plus which retrieval legs ran."""

    query: str
    hits: tuple[SearchHit, ...]
    legs: tuple[str, ...] = ("text",)
    edges: tuple[MemoryEdge, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "legs": list(self.legs),
            "results": [h.to_json() for h in self.hits],
            "edges": [e.to_json() for e in self.edges],
        }


@dataclass(frozen=True, slots=True)
class EngineStats:
    """Counts and paths for ``memvault stats``."""

    orchestrator: str
    #: The SQLite database file (``None`` for any other backend).
    db_path: str | None
    revision: int
    memories_by_status: Mapping[str, int]
    memories_by_type: Mapping[str, int]
    edges_by_type: Mapping[str, int]
    history_events: int
    #: Operational events (spec §14): counts by node, op, node/op and day.
    operations: Mapping[str, Any] = field(default_factory=dict)
    #: Where the data lives, safe to print (``Store.location``: a file, or a
    #: PostgreSQL DSN without its password).
    location: str = ""

    def to_json(self) -> dict[str, Any]:
        by_status = dict(sorted(self.memories_by_status.items()))
        return {
            "orchestrator": self.orchestrator,
            "db_path": self.db_path,
            "location": self.location,
            "revision": self.revision,
            "memories": {
                "total": sum(by_status.values()),
                "active": by_status.get("active", 0),
                "superseded": by_status.get("superseded", 0),
                "retracted": by_status.get("retracted", 0),
                "soft_deleted": by_status.get("soft_deleted", 0),
                "by_type": dict(sorted(self.memories_by_type.items())),
            },
            "edges": {
                "total": sum(self.edges_by_type.values()),
                "by_type": dict(sorted(self.edges_by_type.items())),
            },
            "history_events": self.history_events,
            "operations": dict(self.operations),
        }


def history_json(event: HistoryEvent) -> dict[str, Any]:
    """One audit event as JSON."""
    return {
        "event_id": event.event_id,
        "op": event.op.value,
        "at": event.at,
        "memory_id": event.memory_id,
        "stop_reason": event.stop_reason.value if event.stop_reason else None,
        "actor": event.actor,
        "detector": event.detector,
        "detail": dict(event.detail),
        "hash": event.hash,
    }
