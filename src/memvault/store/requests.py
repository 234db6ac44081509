"""A store read with several options, as one value a backend receives.

:class:`~memvault.store.base.Store` states each such read's keyword signature
once, with its defaults and checks, and hands the backend one of these values:
a backend implements the narrow form (``_read_history(orchestrator_id,
HistoryQuery)``), so no backend restates the options. A SQL store compiles the
value to a WHERE clause (:mod:`memvault.store.sql`); the in-memory store keeps
what :meth:`keeps` keeps, the same rule written once.

>>> HistoryQuery(memory_id="m1", limit=5).offset
0
>>> ProposalQuery(user_id="dana").limit
1000
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from memvault.model.enums import HistoryOp
from memvault.model.validation import clean_user_id

if TYPE_CHECKING:
    from memvault.store.base import ChangeRecord, HistoryEvent, NodeFilter
    from memvault.store.records import OpEvent, Proposal, ProposalStatus

__all__ = [
    "ChangesQuery",
    "HistoryQuery",
    "OpEventQuery",
    "ProposalQuery",
    "TextSearch",
    "VectorSearch",
]


@dataclass(frozen=True, slots=True)
class TextSearch:
    """A full-text search: any of ``terms``, among nodes matching ``filters``."""

    terms: Sequence[str]
    filters: NodeFilter
    limit: int
    #: weights of the :data:`~memvault.store.base.TEXT_COLUMNS` (missing ones: 1.0)
    column_weights: Mapping[str, float] | None = None


@dataclass(frozen=True, slots=True)
class VectorSearch:
    """A nearest-vector search in the ``model_id`` space among nodes matching ``filters``."""

    model_id: str
    filters: NodeFilter
    limit: int


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Audit events: of one memory (or all), of some ``ops`` (or all), one page of them.

    ``visible_to`` (the user scope of :class:`~memvault.store.base.NodeFilter`) keeps
    the events of no memory and those of memories that reader may see (theirs and
    shared ones; a purged memory's, owner unknown, are left out); ``after`` starts the
    page after that event (its ``event_id``) in the query's order — keyset paging: a
    next page costs no re-read of the rows before it.

    >>> from memvault.store.base import HistoryEvent
    >>> e = HistoryEvent("e1", "acme", HistoryOp.CREATE, "2026-01-01T00:00:00.000000Z", "m1")
    >>> HistoryQuery(ops=(HistoryOp.REFUSE,)).keeps(e), HistoryQuery("m1").keeps(e)
    (False, True)
    >>> HistoryQuery(visible_to=()).keeps(e, owners={"m1": "bob"})
    False
    """

    memory_id: str | None = None
    limit: int = 1000
    ops: Sequence[HistoryOp] | None = None
    newest_first: bool = False
    offset: int = 0
    visible_to: tuple[str, ...] | None = None
    after: str | None = None

    def keeps(self, event: HistoryEvent, owners: Mapping[str, str | None] | None = None) -> bool:
        """Whether ``event`` is one this query reads (before ordering and paging);
        ``owners`` (memory id → user id of every stored memory) serves ``visible_to``."""
        if self.visible_to is not None and event.memory_id is not None:
            owner = (owners or {}).get(event.memory_id, _PURGED)
            if owner is _PURGED or (owner is not None and owner not in self.visible_to):
                return False
        return (self.memory_id is None or event.memory_id == self.memory_id) and (
            self.ops is None or event.op in self.ops
        )

    def page(
        self, events: Sequence[HistoryEvent], owners: Mapping[str, str | None] | None = None
    ) -> list[HistoryEvent]:
        """The kept ``events`` (given in write order) in this query's order and page."""
        chosen = [e for e in events if self.keeps(e, owners)]
        if self.newest_first:
            chosen.reverse()
        if self.after is not None:
            at = next((i for i, e in enumerate(events) if e.event_id == self.after), None)
            if at is None:
                return []  # an unknown event starts no page (as SQL's comparison with NULL)
            order = {e.event_id: i for i, e in enumerate(events)}
            chosen = [
                e
                for e in chosen
                if (order[e.event_id] < at if self.newest_first else order[e.event_id] > at)
            ]
        return chosen[self.offset : self.offset + self.limit]


#: ``owners``' answer for a memory the store no longer holds (purged).
_PURGED: Final = object()


@dataclass(frozen=True, slots=True)
class ProposalQuery:
    """Consent proposals, oldest first, optionally of one status, user or id."""

    status: ProposalStatus | None = None
    user_id: str | None = None
    proposal_id: str | None = None
    limit: int = 1000

    def __post_init__(self) -> None:
        if self.user_id is not None:  # 'dana ' is 'dana', as every write trims it
            object.__setattr__(self, "user_id", clean_user_id(self.user_id))

    def keeps(self, proposal: Proposal) -> bool:
        """Whether ``proposal`` is one this query reads (before ordering and the limit).

        Its user matches with surrounding whitespace trimmed: a proposal stored for
        ``'dana '`` before user ids were trimmed is Dana's (her erasure reaches it).
        """
        owner = proposal.user_id.strip() if proposal.user_id is not None else None
        return (
            (self.status is None or proposal.status is self.status)
            and (self.user_id is None or owner == self.user_id)
            and (self.proposal_id is None or proposal.proposal_id == self.proposal_id)
        )


@dataclass(frozen=True, slots=True)
class OpEventQuery:
    """Operational events in write order, optionally one ``op`` and from ``since`` on."""

    op: str | None = None
    since: str | None = None
    limit: int = 100_000

    def keeps(self, event: OpEvent) -> bool:
        """Whether ``event`` is one this query reads (before the limit)."""
        return (self.op is None or event.op == self.op) and (
            self.since is None or event.at >= self.since
        )


@dataclass(frozen=True, slots=True)
class ChangesQuery:
    """Change-log rows after ``revision``, of memories ``visible_to`` may see, the
    ``newest`` many of them (see :meth:`~memvault.store.base.Store.changes_since`)."""

    revision: int
    visible_to: tuple[str, ...] | None = None
    newest: int | None = None

    def latest(self, rows: list[ChangeRecord]) -> list[ChangeRecord]:
        """The ``newest`` of ``rows`` (oldest first), or all of them."""
        return rows if self.newest is None else rows[max(0, len(rows) - self.newest) :]
