"""The narrow store interface every backend implements (STYLE principles 1–4).

A backend does five things: apply one atomic :class:`WriteSet`, fetch nodes,
fetch edges, run a filtered full-text query, and read the audit trail and
change log. Everything else (add, update, delete, link, search ranking) is
built above it in the engine, once, for every backend.

Every call takes the ``orchestrator_id`` explicitly and a backend applies it
inside its query — a row of another orchestrator is never even a candidate.

The values the protocol speaks in (filters, write sets, audit events, hits) are
defined in :mod:`memvault.store.values` and re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memvault.model.enums import HistoryOp
from memvault.model.node import SCALAR_FILTERS, MemoryEdge, MemoryNode
from memvault.store import requests as rq

# The values the protocol speaks in, re-exported as values.py lists them (once).
from memvault.store import values
from memvault.store.anchor import StoreAnchor
from memvault.store.records import AuditHead, EventCount, OpEvent, Proposal, ProposalStatus
from memvault.store.values import *  # noqa: F403
from memvault.store.values import (
    ChangeRecord,
    HistoryEvent,
    IngestRecord,
    NodeFilter,
    RankFields,
    StoreCounts,
    TextHit,
    VectorHit,
    WriteSet,
)

if TYPE_CHECKING:
    # Only annotations name numpy here: importing it costs ~0.1-0.2 s, which
    # ``memvault --help`` (NodeFilter's CLI options) must not pay.
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "SCALAR_FILTERS",
    "CheckpointsElsewhere",
    "Store",
    "VectorSearchEach",
    "recorded_identity",
    *values.__all__,
]


class CheckpointsElsewhere:
    """For a backend whose agent checkpoints live in a SQLite file of their own beside
    the home (the engine erases that file): no agent threads in the store's database.

    >>> CheckpointsElsewhere().erase_agent_threads("acme", "dana")
    []
    """

    def agent_threads(self, orchestrator_id: str, user_id: str) -> list[str]:
        return []

    def erase_agent_threads(
        self, orchestrator_id: str, user_id: str, quoting: Sequence[str] = ()
    ) -> list[str]:
        return []


class VectorSearchEach:
    """For a backend that answers one vector query per call: a batch is one call per query.

    The SQLite store scores a batch with one matrix product instead.

    >>> import numpy as np
    >>> from memvault.store import InMemoryStore
    >>> InMemoryStore().search_vectors_many("acme", "m", np.eye(2, dtype=np.float32),
    ...                                     NodeFilter(), limit=3)
    [[], []]
    """

    def _read_vector_hits_many(
        self, orchestrator_id: str, queries: npt.NDArray[np.float32], search: rq.VectorSearch
    ) -> list[list[VectorHit]]:
        read: Any = getattr(self, "_read_vector_hits")  # noqa: B009  # the backend's own
        return [read(orchestrator_id, q, search) for q in queries]


def recorded_identity(store: Store, orchestrator_id: str) -> StoreAnchor:
    """The identity ``claim_identity`` just recorded (or found) for ``orchestrator_id``."""
    recorded = store.identity(orchestrator_id)
    assert recorded is not None, "claim_identity recorded no identity"
    return recorded


@runtime_checkable
class Store(Protocol):
    """What the engine needs from a backend. Implementations: in-memory, SQLite, PostgreSQL.

    Each backend subclasses it. A read with many options (the searches,
    ``history``, ``proposals``, ``op_events``, ``changes_since``) is stated here
    once, with its defaults and checks, and reaches the backend as one value of
    :mod:`memvault.store.requests` (``_read_history(orchestrator_id, query)``).
    """

    #: Where the data lives, safe to print: a database file, or a PostgreSQL DSN
    #: without its password (``memvault stats``).
    location: str

    def apply(self, write: WriteSet) -> int:
        """Apply ``write`` atomically; return the orchestrator's new revision."""
        ...

    def get_nodes(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryNode]:
        """The nodes with these ids in this orchestrator (any status), in id order."""
        ...

    def edges_of(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        """Every edge touching one of ``memory_ids``, ordered by ``created_at, edge_id``."""
        ...

    def rank_fields(self, orchestrator_id: str, memory_ids: Sequence[str]) -> dict[str, RankFields]:
        """The ranking fields of the memories with these ids in this orchestrator (any status)."""
        ...

    def list_nodes(
        self, orchestrator_id: str, filters: NodeFilter, *, limit: int, offset: int = 0
    ) -> list[MemoryNode]:
        """Filtered nodes, newest ``updated_at`` first, ties by ``memory_id``."""
        ...

    def count_nodes(self, orchestrator_id: str, filters: NodeFilter) -> int:
        """How many nodes ``list_nodes`` would list without a limit (no rows are read)."""
        ...

    def search_text(
        self,
        orchestrator_id: str,
        terms: Sequence[str],
        filters: NodeFilter,
        *,
        limit: int,
        column_weights: Mapping[str, float] | None = None,
    ) -> list[TextHit]:
        """Nodes matching any of ``terms`` (OR semantics), best first.

        ``column_weights`` weighs the :data:`TEXT_COLUMNS` (missing ones: 1.0).
        No term but blanks finds nothing.
        """
        if not any(t.strip() for t in terms):
            return []
        return self._read_text_hits(
            orchestrator_id, rq.TextSearch(terms, filters, limit, column_weights)
        )

    def search_vectors(
        self,
        orchestrator_id: str,
        model_id: str,
        query: npt.NDArray[np.float32],
        filters: NodeFilter,
        *,
        limit: int,
    ) -> list[VectorHit]:
        """Nearest nodes to ``query`` by cosine among those matching ``filters``, best first
        (ties by memory id)."""
        search = rq.VectorSearch(model_id, filters, limit)
        return self._read_vector_hits(orchestrator_id, query, search)

    def search_vectors_many(
        self,
        orchestrator_id: str,
        model_id: str,
        queries: npt.NDArray[np.float32],
        filters: NodeFilter,
        *,
        limit: int,
    ) -> list[list[VectorHit]]:
        """:meth:`search_vectors` of each row of ``queries`` (one batch: ingest and
        capture resolve a file's or a turn's candidates at once).

        ``queries`` must be a matrix, one row per query (:class:`ValueError`).
        """
        import numpy as np

        matrix = np.asarray(queries, dtype=np.float32)
        if matrix.ndim != 2:
            raise ValueError(f"queries must be a matrix (one row per query), got {matrix.shape}")
        if matrix.shape[0] == 0:
            return []
        search = rq.VectorSearch(model_id, filters, limit)
        return self._read_vector_hits_many(orchestrator_id, matrix, search)

    # The backend's half of the searches above (their options as one value).
    def _read_text_hits(self, orchestrator_id: str, search: rq.TextSearch) -> list[TextHit]: ...

    def _read_vector_hits(
        self, orchestrator_id: str, query: npt.NDArray[np.float32], search: rq.VectorSearch
    ) -> list[VectorHit]: ...

    def _read_vector_hits_many(
        self, orchestrator_id: str, queries: npt.NDArray[np.float32], search: rq.VectorSearch
    ) -> list[list[VectorHit]]: ...

    def missing_embeddings(
        self, orchestrator_id: str, model_id: str, *, limit: int
    ) -> list[MemoryNode]:
        """Non-deleted nodes without a vector in ``model_id`` (the backfill queue)."""
        ...

    def cached_embeddings(
        self, model_id: str, text_hashes: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Vectors already computed for these text hashes in ``model_id``."""
        ...

    def history(
        self,
        orchestrator_id: str,
        memory_id: str | None = None,
        *,
        limit: int = 1000,
        ops: Sequence[HistoryOp] | None = None,
        newest_first: bool = False,
        offset: int = 0,
        visible_to: tuple[str, ...] | None = None,
        after: str | None = None,
    ) -> list[HistoryEvent]:
        """Audit events in write order (all of the orchestrator's when no id).

        ``ops`` keeps only those operations; ``newest_first`` reverses the order
        and ``offset`` skips that many events of it (a page of a timeline);
        ``visible_to`` keeps those of no memory and of memories that reader may
        see (theirs and shared ones, any status); ``after`` starts after that
        event in this order (keyset paging, :class:`~memvault.store.requests.HistoryQuery`).
        """
        query = rq.HistoryQuery(memory_id, limit, ops, newest_first, offset, visible_to, after)
        return self._read_history(orchestrator_id, query)

    def _read_history(self, orchestrator_id: str, query: rq.HistoryQuery) -> list[HistoryEvent]: ...

    def ingest_record(self, orchestrator_id: str, content_sha256: str) -> IngestRecord | None:
        """The ``ingest_files`` row for this content hash, or ``None``."""
        ...

    def revision(self, orchestrator_id: str) -> int:
        """The orchestrator's current revision (0 before any write)."""
        ...

    def changes_since(
        self,
        orchestrator_id: str,
        revision: int,
        *,
        visible_to: tuple[str, ...] | None = None,
        newest: int | None = None,
    ) -> list[ChangeRecord]:
        """Change-log rows with a revision greater than ``revision``.

        ``visible_to`` is the user scope of :class:`NodeFilter`: only rows of
        memories that reader may see (a row whose memory is gone is left out).
        ``newest`` keeps only that many of the latest rows (still oldest first).
        """
        return self._read_changes(orchestrator_id, rq.ChangesQuery(revision, visible_to, newest))

    def _read_changes(self, orchestrator_id: str, query: rq.ChangesQuery) -> list[ChangeRecord]: ...

    # -- context ---
    def thread_seen(self, orchestrator_id: str, thread_id: str, *, reader: str) -> int | None:
        """The revision ``reader`` last saw in ``thread_id`` (``None`` if never marked).

        ``reader`` is an opaque key of whoever reads the thread
        (``store.scope.reader_key``): marks are kept per thread *and* reader, so
        one user reading a thread does not hide its changes from another.
        """
        ...

    def mark_thread_seen(
        self, orchestrator_id: str, thread_id: str, revision: int, *, reader: str
    ) -> None:
        """Remember that ``reader`` has seen ``revision`` in ``thread_id``; never backwards.

        ``"*"`` names the head revision and is refused (:class:`StoreError`).
        """
        ...

    def reader_marks(self, orchestrator_id: str, reader: str) -> list[tuple[str, int]]:
        """Every ``(thread_id, revision)`` mark of ``reader``, by thread id (right of access)."""
        ...

    def erase_reader_marks(self, orchestrator_id: str, reader: str) -> int:
        """Delete every thread mark of ``reader`` (right to erasure); how many went."""
        ...

    def counts(self, orchestrator_id: str) -> StoreCounts:
        """Row counts for stats."""
        ...

    # -- lifecycle ---

    def proposals(
        self,
        orchestrator_id: str,
        *,
        status: ProposalStatus | None = None,
        user_id: str | None = None,
        proposal_id: str | None = None,
        limit: int = 1000,
    ) -> list[Proposal]:
        """Consent proposals, oldest first, optionally narrowed."""
        query = rq.ProposalQuery(status, user_id, proposal_id, limit)
        return self._read_proposals(orchestrator_id, query)

    def _read_proposals(self, orchestrator_id: str, query: rq.ProposalQuery) -> list[Proposal]: ...

    def audit_head(self, orchestrator_id: str) -> AuditHead:
        """Event count and last hash of the audit chain as recorded at write time."""
        ...

    def event_counts(self, orchestrator_id: str, *, since: str | None = None) -> list[EventCount]:
        """Operational events grouped by (UTC day, node, op, status), oldest day first."""
        ...

    def op_events(
        self,
        orchestrator_id: str,
        *,
        op: str | None = None,
        since: str | None = None,
        limit: int = 100_000,
    ) -> list[OpEvent]:
        """Operational events in write order, optionally one ``op`` and from ``since`` on."""
        return self._read_op_events(orchestrator_id, rq.OpEventQuery(op, since, limit))

    def _read_op_events(self, orchestrator_id: str, query: rq.OpEventQuery) -> list[OpEvent]: ...

    # -- identity ---

    def identity(self, orchestrator_id: str) -> StoreAnchor | None:
        """The identity recorded in the database with its live audit head; ``None`` if none.

        ``None`` means the database does not (or no longer) hold this
        orchestrator's store: new, emptied, re-created or another store's file.
        """
        ...

    def claim_identity(self, anchor: StoreAnchor) -> StoreAnchor:
        """Record ``anchor``'s identity unless one is recorded; return the recorded one."""
        ...

    def keep_anchor(self, orchestrator_id: str, path: Path) -> None:
        """Write the anchor file at ``path`` now and after every committed write of the tenant.

        The orchestrator must have an identity (:meth:`claim_identity`).
        """
        ...

    def agent_threads(self, orchestrator_id: str, user_id: str) -> list[str]:
        """The agent's thread ids of the user when their checkpoints live in this
        store's database (PostgreSQL); ``[]`` for backends that keep them elsewhere."""
        ...

    def erase_agent_threads(
        self, orchestrator_id: str, user_id: str, quoting: Sequence[str] = ()
    ) -> list[str]:
        """Delete the agent's thread checkpoints of the user — and of any thread of the
        orchestrator whose checkpoints hold one of ``quoting`` — when they live in this
        store's database (PostgreSQL); return the thread ids. Backends whose agent
        checkpoints live elsewhere (a SQLite file beside the home) return ``[]``.
        """
        ...

    def close(self) -> None:
        """Release connections. Idempotent.

        Calls running in other threads finish first; calls made after (or
        waiting at) close fail with :class:`~memvault.errors.StoreUnavailableError`.
        """
        ...
