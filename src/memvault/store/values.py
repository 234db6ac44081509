"""The values a store takes and returns: filters, write sets, audit events, hits.

:class:`~memvault.store.base.Store` speaks in these; the engine and the write
pipeline build them, every backend reads and writes them. The audit chain's
hashing (:func:`chain_hash`, :func:`row_digest`) lives here beside the
:class:`HistoryEvent` it hashes. :mod:`memvault.store.base` re-exports every name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from memvault.model.enums import ChangeKind, HistoryOp, MemoryStatus, MemoryType, StopReason
from memvault.model.node import CheckedTimestamp, MemoryEdge, MemoryNode, Source
from memvault.model.validation import UserId
from memvault.store.records import OpEvent, Proposal

if TYPE_CHECKING:
    # Only annotations name numpy here: importing it costs ~0.1-0.2 s, which
    # ``memvault --help`` (NodeFilter's CLI options) must not pay.
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "CONTEXT_SPACE_SUFFIX",
    "DIGEST_FIELDS",
    "GENESIS_HASH",
    "NO_FILTER",
    "TEXT_COLUMNS",
    "ChangeEntry",
    "ChangeRecord",
    "EmbeddingRow",
    "HistoryEvent",
    "IndexText",
    "IngestRecord",
    "NodeFilter",
    "RankFields",
    "StoreCounts",
    "TextHit",
    "VectorHit",
    "WriteSet",
    "as_tuple",
    "chain_hash",
    "recorded_digests",
    "row_digest",
    "with_row_digests",
]

GENESIS_HASH = "0" * 64
#: Model-id suffix of the "context + content" vector space, stored beside the plain one
#: (a purge drops it for the purged memories' conversation neighbours).
CONTEXT_SPACE_SUFFIX = "#ctx"


def as_tuple(value: Any) -> Any:
    """A filter's several values as one sorted tuple (one value: a tuple of one).

    Filters compare equal, and hash alike, however their values were listed.

    >>> as_tuple("Fact"), as_tuple(["b", "a"]), as_tuple(None)
    (('Fact',), ('a', 'b'), None)
    >>> as_tuple(["TODO", 3])  # not all text: left to the field's own check (a clear error)
    ('TODO', 3)
    """
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | set | frozenset):
        if all(isinstance(v, str) for v in value):
            return tuple(sorted(value))
        # Trigger: a list mixing text with a number, None, an object …
        # Why: sorting it raised TypeError, which pydantic passes through: a crash
        #   of list/search/memory.query instead of SCHEMA_INVALID.
        # Outcome: kept in its order; the field's type check refuses it.
        return tuple(value)
    return value


class NodeFilter(BaseModel):
    """The only filter keys a caller may use; unknown keys are an error.

    Filters are translated to SQL by each backend (never applied in Python
    after the query). ``status`` defaults to active memories only; soft-deleted
    memories are returned only when asked for by name.

    >>> NodeFilter(user_id="u1", importance_min=50).user_id
    'u1'
    >>> NodeFilter(user_id="dana ").user_id  # trimmed as every write trims it
    'dana'
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: UserId | None = None
    agent_id: str | None = None
    run_id: str | None = None
    actor_id: str | None = None
    role: str | None = None
    conversation_id: str | None = None
    project_id: str | None = None
    #: The memory's ``key``, exactly (indexed; the LangGraph adapter finds an item by it).
    key: str | None = None
    type: tuple[MemoryType, ...] | None = None
    category: tuple[str, ...] | None = None
    status: tuple[MemoryStatus, ...] = (MemoryStatus.ACTIVE,)
    pinned: bool | None = None
    importance_min: Annotated[int, Field(ge=0, le=100)] | None = None
    importance_max: Annotated[int, Field(ge=0, le=100)] | None = None
    updated_after: CheckedTimestamp | None = None
    updated_before: CheckedTimestamp | None = None
    #: Whose turn the read serves (the user scope, DESIGN §1.1): ``("alice",)`` keeps
    #: Alice's memories and shared ones (``user_id = 'alice' OR user_id IS NULL``),
    #: ``()`` keeps shared ones only, ``None`` sets no user condition (the
    #: orchestrator-wide view; the engine passes it only for :data:`ALL_USERS`).
    visible_to: tuple[str, ...] | None = None

    #: Set only by :meth:`of_user_any_spelling` (erasure and export): ``user_id``
    #: also matches rows stored padded (``'dana '``) before ids were trimmed.
    _padded_too: bool = PrivateAttr(default=False)

    _tuple = field_validator("type", "category", "status", "visible_to", mode="before")(as_tuple)

    @classmethod
    def of_user_any_spelling(cls, user_id: str, status: Sequence[MemoryStatus]) -> NodeFilter:
        """Every memory of ``user_id`` in ``status``, however its id was stored.

        Trigger: before d68832f the library, HTTP and MCP stored ``'dana '`` as is;
            now ``'dana '`` is trimmed to ``'dana'`` and no longer meets those rows.
        Why: erasure and export are compliance paths; they must reach every copy.
        Outcome: the store matches ``user_id`` on the stored id with surrounding
            whitespace trimmed (a scan of the tenant's rows; only these paths pay it).

        >>> f = NodeFilter.of_user_any_spelling(" dana", (MemoryStatus.ACTIVE,))
        >>> f.user_id, f.padded_too
        ('dana', True)
        """
        flt = cls(user_id=user_id, status=tuple(status))
        flt._padded_too = True
        return flt

    @property
    def padded_too(self) -> bool:
        """Whether ``user_id`` also matches stored ids padded with whitespace."""
        return self._padded_too

    @field_validator("visible_to")
    @classmethod
    def _named(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and any(not u or not u.strip() for u in value):
            raise ValueError("a user in visible_to must be a non-empty id")
        return value

    @field_validator("status")
    @classmethod
    def _nonempty(cls, value: tuple[MemoryStatus, ...]) -> tuple[MemoryStatus, ...]:
        if not value:
            raise ValueError("status filter must name at least one status")
        return value


#: The filter of an unfiltered search, built once (a pydantic model costs tens of
#: microseconds to build and to compare); frozen, so it is shared, and stores may
#: recognise it by identity before comparing.
NO_FILTER = NodeFilter()


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    """One audit row. ``detail`` never carries refused content.

    ``prev_hash``/``hash`` chain every row of an orchestrator; the store fills
    them in when the event is written.
    """

    event_id: str
    orchestrator_id: str
    op: HistoryOp
    at: str
    memory_id: str | None = None
    stop_reason: StopReason | None = None
    actor: str | None = None
    detector: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    prev_hash: str = ""
    hash: str = ""

    def canonical(self) -> str:
        """The bytes the hash chain covers (everything but the hashes)."""
        return json.dumps(
            {
                "event_id": self.event_id,
                "orchestrator_id": self.orchestrator_id,
                "op": self.op.value,
                "at": self.at,
                "memory_id": self.memory_id,
                "stop_reason": self.stop_reason.value if self.stop_reason else None,
                "actor": self.actor,
                "detector": self.detector,
                "detail": self.detail,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )


#: What a row's digest covers: what the memory says and where it came from.
DIGEST_FIELDS = ("memory_id", "content", "key", "value", "type", "category", "status", "source")


def row_digest(node: MemoryNode) -> str:
    """sha256 of a stored memory row's content, key, value, type, category, status, provenance.

    Access bookkeeping (``last_accessed_at``, ``access_count``), weights and
    timestamps are left out: they change without an audited write.

    >>> from memvault.model.node import MemoryNode, Source
    >>> src = Source(source_type="manual", captured_by="user", source_kind="USER_EXPLICIT")
    >>> at = "2026-01-01T00:00:00.000000Z"
    >>> n = MemoryNode(memory_id="mem_1", orchestrator_id="acme", type="Fact", category="KNOWLEDGE",
    ...                content="Deploys on Tuesdays", source=src, created_at=at, updated_at=at)
    >>> row_digest(n) == row_digest(n.model_copy(update={"access_count": 3}))
    True
    >>> row_digest(n) == row_digest(n.model_copy(update={"content": "Deploys on Fridays"}))
    False
    """
    data = node.to_json()
    payload = {name: data[name] for name in DIGEST_FIELDS}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def with_row_digests(
    events: Sequence[HistoryEvent], nodes: Sequence[MemoryNode]
) -> tuple[HistoryEvent, ...]:
    """``events`` with the digest of each written row (see :class:`WriteSet`).

    A row's digest is computed only where an event still lacks it: a write set
    copied with ``dataclasses.replace`` (operational events added) runs this
    again on events that already carry their digests.
    """
    rows = {n.memory_id: n for n in nodes}
    digests: dict[str, str] = {}

    def digest_of(memory_id: str) -> str:
        found = digests.get(memory_id)
        if found is None:
            found = digests[memory_id] = row_digest(rows[memory_id])
        return found

    out: list[HistoryEvent] = []
    named: set[str] = set()
    for event in events:
        memory_id = event.memory_id or ""
        if memory_id in rows and "digest" not in event.detail:
            event = replace(event, detail={**event.detail, "digest": digest_of(memory_id)})
        if event.memory_id in rows:
            named.add(event.memory_id)
        out.append(event)
    rest = sorted(m for m in rows if m not in named)
    if rest and out and "digests" not in out[0].detail:
        named_rest = {m: digest_of(m) for m in rest}
        out[0] = replace(out[0], detail={**out[0].detail, "digests": named_rest})
    return tuple(out)


def recorded_digests(events: Sequence[HistoryEvent]) -> dict[str, tuple[int, str]]:
    """The last digest the chain recorded for each memory: ``{id: (position, digest)}``."""
    latest: dict[str, tuple[int, str]] = {}
    for position, event in enumerate(events, start=1):
        digest = event.detail.get("digest")
        if event.memory_id and isinstance(digest, str):
            latest[event.memory_id] = (position, digest)
        extra = event.detail.get("digests")
        if isinstance(extra, Mapping):
            for memory_id, value in extra.items():
                if isinstance(value, str):
                    latest[str(memory_id)] = (position, value)
    return latest


def chain_hash(prev_hash: str, event: HistoryEvent) -> str:
    """sha256 over the previous row's hash and this row's canonical form."""
    return hashlib.sha256((prev_hash + "\n" + event.canonical()).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ChangeEntry:
    """A change-log line for the delta header (what changed, to which memory)."""

    memory_id: str
    kind: ChangeKind
    summary: str = ""


@dataclass(frozen=True, slots=True)
class ChangeRecord:
    """A stored change-log row: the entry plus the revision it belongs to."""

    revision: int
    thread_id: str
    memory_id: str
    kind: ChangeKind
    summary: str
    at: str


#: Full-text columns a backend indexes, in order. ``subject``, ``context`` and
#: ``date`` hold index-only enrichment (see :class:`IndexText`), weighted down.
TEXT_COLUMNS: tuple[str, ...] = ("content", "key", "value", "summary", "subject", "context", "date")


@dataclass(frozen=True, slots=True)
class IndexText:
    """Extra text indexed for recall but never returned as the memory's content.

    In production it may hold only what memory may hold (a subject name, a
    date, summaries of related memories) — never raw transcript text.
    """

    subject: str = ""
    context: str = ""
    date: str = ""


@dataclass(frozen=True, slots=True)
class EmbeddingRow:
    """One vector of a memory in one vector space (``model_id``).

    ``text_sha256`` is the hash of the exact text embedded; the store also
    keeps ``(model_id, text_sha256) → vector`` as a cache — unless ``cache`` is
    false: a vector a caller handed in is that memory's only, never the text's.
    """

    memory_id: str
    model_id: str
    vector: npt.NDArray[np.float32]
    text_sha256: str
    cache: bool = True


class VectorHit(NamedTuple):
    """A vector candidate: memory id and cosine similarity (higher is better).

    A named ``(memory_id, similarity)`` pair: a search builds ~100 of them, and
    the fusion reads them as the plain pairs they are (no copy).
    """

    memory_id: str
    similarity: float


@dataclass(frozen=True, slots=True)
class IngestRecord:
    """One ingested file (``ingest_files``), keyed by content hash in an orchestrator.

    Written in the same transaction as the file's memories, so "this content
    was ingested" and "its memories exist" are never out of step. ``status``
    is ``processed`` or ``rejected``; ``manifest_path`` is where the file's
    manifest goes, so a rerun after a crash can finish the move exactly.

    >>> IngestRecord("ab" * 32, "notes.md", 12, "processed", "/x/notes.md.manifest.json",
    ...              "2026-01-01T00:00:00.000000Z").status
    'processed'
    """

    content_sha256: str
    original_name: str
    size_bytes: int
    status: str
    manifest_path: str | None
    received_at: str
    processed_at: str | None = None


@dataclass(frozen=True, slots=True)
class WriteSet:
    """Everything one write changes, applied by the store in one transaction.

    Nodes are upserted by ``memory_id``; a node written for the first time also
    gets its primary ``source`` row. ``extra_sources`` append provenance (a
    merge). Edges are inserted; an existing (from, to, type) is an error.
    ``changes`` bump the orchestrator's revision by exactly one.
    """

    orchestrator_id: str
    at: str
    nodes: tuple[MemoryNode, ...] = ()
    edges: tuple[MemoryEdge, ...] = ()
    extra_sources: tuple[tuple[str, Source], ...] = ()
    #: ``ingest_files`` rows, upserted by ``(orchestrator_id, content_sha256)``.
    ingest_records: tuple[IngestRecord, ...] = ()
    events: tuple[HistoryEvent, ...] = ()
    changes: tuple[ChangeEntry, ...] = ()
    thread_id: str = "default"
    # -- lifecycle ---
    #: Hard-delete these memories of the orchestrator (node, edges, sources,
    #: full-text row, embeddings) and blank their change-log summaries; ids
    #: that are not there are ignored. Pair them with ``changes``.
    purge_ids: tuple[str, ...] = ()
    #: Operational events (``events`` table); they never move the revision.
    op_events: tuple[OpEvent, ...] = ()
    #: Consent proposals, upserted by ``proposal_id``.
    proposals: tuple[Proposal, ...] = ()
    embeddings: tuple[EmbeddingRow, ...] = ()
    index_texts: tuple[tuple[str, IndexText], ...] = ()
    #: ``(memory_id, updated_at)`` of the stored memories this write was built from: each
    #: must still be stored with that ``updated_at`` when the write commits, else the whole
    #: write is rolled back (:class:`~memvault.errors.StaleWriteError`) — a write from a
    #: stale copy never undoes another that committed in between.
    expected: tuple[tuple[str, str], ...] = ()

    def check_expected(self, stored: Mapping[str, str]) -> None:
        """Raise :class:`~memvault.errors.StaleWriteError` unless every ``expected``
        memory is in ``stored`` (memory id -> stored ``updated_at``) as read.

        >>> w = WriteSet("acme", "t", expected=(("m1", "t0"),))
        >>> w.check_expected({"m1": "t0"})
        >>> w.check_expected({"m1": "t1"})
        Traceback (most recent call last):
        memvault.errors.StaleWriteError: memory 'm1' changed since this write read it
        """
        from memvault.errors import StaleWriteError

        for memory_id, updated_at in self.expected:
            if stored.get(memory_id) != updated_at:
                raise StaleWriteError(memory_id)

    def __post_init__(self) -> None:
        # Trigger: every write that stores a memory row and audits it.
        # Why: the hash chain covers history events; without the row's digest in
        #      them, a row edited in the database file goes unnoticed (issue 18).
        # Outcome: each event about a row of this write carries that row's digest
        #      (and the first event carries the digests of rows no event names), so
        #      ``audit verify`` can re-hash the live rows against the chain.
        if self.nodes and self.events:
            object.__setattr__(self, "events", with_row_digests(self.events, self.nodes))

    @property
    def changes_memory(self) -> bool:
        """True when the write changes memory (and so moves the revision)."""
        return bool(self.nodes or self.edges or self.changes or self.extra_sources)

    def check_scope(self) -> None:
        """Fail closed when any row belongs to another orchestrator."""
        from memvault.errors import ScopeViolationError

        for owner in (
            *(n.orchestrator_id for n in self.nodes),
            *(e.orchestrator_id for e in self.edges),
            *(ev.orchestrator_id for ev in self.events),
            *(p.orchestrator_id for p in self.proposals),
        ):
            if owner != self.orchestrator_id:
                raise ScopeViolationError(self.orchestrator_id, owner)


@dataclass(frozen=True, slots=True)
class RankFields:
    """What ranking reads of a memory besides its legs' scores (no full node).

    Trigger: a search ranks 100+ candidates but returns 10.
    Why: building a node (validation, its source) costs more than its row;
      calibration needs only the actor, the modifiers four scalars.
    Outcome: :meth:`Store.rank_fields` reads these columns alone; only the
      final top k are hydrated with :meth:`Store.get_nodes`.

    >>> RankFields("m1", "Caroline", 50, 1.0, "2026-01-01T00:00:00.000000Z").actor_id
    'Caroline'
    """

    memory_id: str
    actor_id: str | None
    importance: int
    confidence: float
    updated_at: str
    #: the caller's timestamp (the temporal window) and conversation (neighbours)
    created_at: str = ""
    conversation_id: str | None = None

    @classmethod
    def of(cls, node: MemoryNode) -> RankFields:
        """The ranking fields of ``node``."""
        return cls(
            node.memory_id,
            node.actor_id,
            node.importance,
            node.confidence,
            node.updated_at,
            node.created_at,
            node.conversation_id,
        )


class TextHit(NamedTuple):
    """A full-text candidate: memory id and a score where higher is better.

    A named ``(memory_id, score)`` pair, like :class:`VectorHit`.
    """

    memory_id: str
    score: float


@dataclass(frozen=True, slots=True)
class StoreCounts:
    """Row counts for ``stats``."""

    memories_by_status: Mapping[str, int]
    memories_by_type: Mapping[str, int]
    edges_by_type: Mapping[str, int]
    history_events: int
    revision: int

    @property
    def total(self) -> int:
        return sum(self.memories_by_status.values())
