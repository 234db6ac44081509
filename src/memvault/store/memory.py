"""The in-memory reference store: the executable definition of the contract.

It keeps everything in dicts behind one lock, applies a :class:`WriteSet` by
building the new state aside and swapping it in, so a failure half-way leaves
nothing behind — the same guarantee SQLite gives with a transaction.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memvault.errors import DuplicateEdgeError, StoreError, StoreUnavailableError
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.store.anchor import AnchorKeeper, StoreAnchor
from memvault.store.base import (
    CONTEXT_SPACE_SUFFIX,
    GENESIS_HASH,
    TEXT_COLUMNS,
    ChangeRecord,
    CheckpointsElsewhere,
    HistoryEvent,
    IndexText,
    IngestRecord,
    NodeFilter,
    RankFields,
    Store,
    StoreCounts,
    TextHit,
    VectorHit,
    VectorSearchEach,
    WriteSet,
    chain_hash,
    recorded_identity,
)
from memvault.store.filtering import matches, tokenize
from memvault.store.records import (
    AuditHead,
    EventCount,
    OpEvent,
    Proposal,
    check_decided,
    proposal_decidable,
)
from memvault.store.requests import (
    ChangesQuery,
    HistoryQuery,
    OpEventQuery,
    ProposalQuery,
    TextSearch,
    VectorSearch,
)

__all__ = ["InMemoryStore"]


@dataclass
class _Tenant:
    nodes: dict[str, MemoryNode] = field(default_factory=dict)
    edges: dict[str, MemoryEdge] = field(default_factory=dict)
    sources: list[tuple[str, Source]] = field(default_factory=list)
    history: list[HistoryEvent] = field(default_factory=list)
    changes: list[ChangeRecord] = field(default_factory=list)
    revision: int = 0
    extras: dict[str, IndexText] = field(default_factory=dict)
    vectors: dict[tuple[str, str], npt.NDArray[np.float32]] = field(default_factory=dict)
    # -- lifecycle ---
    proposals: dict[str, Proposal] = field(default_factory=dict)
    op_events: list[OpEvent] = field(default_factory=list)
    head: AuditHead = field(default_factory=lambda: AuditHead(0, GENESIS_HASH))
    # -- ingest ---
    ingest: dict[str, IngestRecord] = field(default_factory=dict)

    def copy(self) -> _Tenant:
        return _Tenant(
            dict(self.nodes),
            dict(self.edges),
            list(self.sources),
            list(self.history),
            list(self.changes),
            self.revision,
            dict(self.extras),
            dict(self.vectors),
            dict(self.proposals),
            list(self.op_events),
            self.head,
            dict(self.ingest),
        )


class InMemoryStore(CheckpointsElsewhere, VectorSearchEach, Store):
    """A :class:`~memvault.store.base.Store` held in process memory.

    >>> from memvault.store.base import NodeFilter
    >>> InMemoryStore().list_nodes("acme", NodeFilter(), limit=10)
    []
    """

    #: Where the data lives (``Store.location``): this process's memory.
    location = "memory (this process)"

    def __init__(self) -> None:
        self._tenants: dict[str, _Tenant] = {}
        self._cache: dict[tuple[str, str], npt.NDArray[np.float32]] = {}
        self._lock = threading.RLock()
        self._closed = False
        self._seen: dict[tuple[str, str, str], int] = {}  # (orchestrator, thread, reader) -> rev
        self._identities: dict[str, StoreAnchor] = {}
        self._anchors = AnchorKeeper()

    def _tenant(self, orchestrator_id: str) -> _Tenant:
        if self._closed:
            raise StoreUnavailableError("the in-memory store is closed")
        return self._tenants.get(orchestrator_id) or _Tenant()

    def apply(self, write: WriteSet) -> int:
        write.check_scope()
        with self._lock:
            state = self._tenant(write.orchestrator_id).copy()
            write.check_expected(
                {i: state.nodes[i].updated_at for i, _ in write.expected if i in state.nodes}
            )
            for node in write.nodes:
                if node.memory_id not in state.nodes:
                    state.sources.append((node.memory_id, node.source))
                state.nodes[node.memory_id] = node
            for memory_id, extra in write.index_texts:
                state.extras[memory_id] = extra
            for memory_id, source in write.extra_sources:
                self._require(state, memory_id)
                state.sources.append((memory_id, source))
            cache_rows = []
            for row in write.embeddings:
                self._require(state, row.memory_id)
                vector = np.asarray(row.vector, dtype=np.float32).copy()
                state.vectors[(row.memory_id, row.model_id)] = vector
                cache_rows.append(((row.model_id, row.text_sha256), vector))
            for edge in write.edges:
                self._require(state, edge.from_memory_id)
                self._require(state, edge.to_memory_id)
                for other in state.edges.values():
                    if (other.from_memory_id, other.to_memory_id, other.edge_type) == (
                        edge.from_memory_id,
                        edge.to_memory_id,
                        edge.edge_type,
                    ) and other.edge_id != edge.edge_id:
                        raise DuplicateEdgeError(
                            edge.from_memory_id, edge.to_memory_id, edge.edge_type.value
                        )
                state.edges[edge.edge_id] = edge
            for record in write.ingest_records:
                state.ingest[record.content_sha256] = record
            prev = state.history[-1].hash if state.history else GENESIS_HASH
            for event in write.events:
                digest = chain_hash(prev, event)
                state.history.append(replace(event, prev_hash=prev, hash=digest))
                prev = digest
            self._apply_lifecycle(state, write, prev)
            if write.changes_memory:
                state.revision += 1
            for change in write.changes:
                state.changes.append(
                    ChangeRecord(
                        state.revision,
                        write.thread_id,
                        change.memory_id,
                        change.kind,
                        change.summary,
                        write.at,
                    )
                )
            self._tenants[write.orchestrator_id] = state
            for key, vector in cache_rows:
                self._cache.setdefault(key, vector)
            self._anchors.committed(
                write.orchestrator_id,
                revision=state.revision,
                history_count=state.head.events,
                last_hash=state.head.hash,
            )
            return state.revision

    @staticmethod
    def _apply_lifecycle(state: _Tenant, write: WriteSet, head_hash: str) -> None:
        """Purges, proposals, operational events and the audit head of one write."""
        state.head = AuditHead(state.head.events + len(write.events), head_hash)
        purged = {i for i in write.purge_ids if i in state.nodes}
        if purged:
            # Their conversations' derived context quotes them: blank it (see
            # memvault.store.sqlite.lifecycle._blank_neighbour_context).
            talks = {state.nodes[i].conversation_id for i in purged} - {None}
            near = {i for i, n in state.nodes.items() if n.conversation_id in talks}
            for memory_id in near & state.extras.keys():
                state.extras[memory_id] = replace(state.extras[memory_id], context="")
            purged_ctx = {
                k for k in state.vectors if k[0] in near and k[1].endswith(CONTEXT_SPACE_SUFFIX)
            }
            state.vectors = {k: v for k, v in state.vectors.items() if k not in purged_ctx}
            for memory_id in purged:
                del state.nodes[memory_id]
                state.extras.pop(memory_id, None)
            state.vectors = {k: v for k, v in state.vectors.items() if k[0] not in purged}
            state.edges = {
                k: e
                for k, e in state.edges.items()
                if e.from_memory_id not in purged and e.to_memory_id not in purged
            }
            state.sources = [(m, s) for m, s in state.sources if m not in purged]
            state.changes = [
                replace(c, summary="") if c.memory_id in purged else c for c in state.changes
            ]
        for proposal in write.proposals:
            decidable = proposal_decidable(state.proposals.get(proposal.proposal_id), proposal)
            check_decided(proposal, decidable)  # the SQL stores' rule: rolls the write back
            if decidable:
                state.proposals[proposal.proposal_id] = proposal
        state.op_events.extend(write.op_events)

    @staticmethod
    def _require(state: _Tenant, memory_id: str) -> None:
        if memory_id not in state.nodes:
            raise StoreError(f"memory {memory_id!r} does not exist in this orchestrator")

    def get_nodes(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryNode]:
        with self._lock:
            nodes = self._tenant(orchestrator_id).nodes
            return [nodes[i] for i in sorted(set(memory_ids)) if i in nodes]

    def rank_fields(self, orchestrator_id: str, memory_ids: Sequence[str]) -> dict[str, RankFields]:
        return {n.memory_id: RankFields.of(n) for n in self.get_nodes(orchestrator_id, memory_ids)}

    def edges_of(self, orchestrator_id: str, memory_ids: Sequence[str]) -> list[MemoryEdge]:
        wanted = set(memory_ids)
        with self._lock:
            edges = self._tenant(orchestrator_id).edges.values()
            found = [e for e in edges if e.from_memory_id in wanted or e.to_memory_id in wanted]
        return sorted(found, key=lambda e: (e.created_at, e.edge_id))

    def list_nodes(
        self, orchestrator_id: str, filters: NodeFilter, *, limit: int, offset: int = 0
    ) -> list[MemoryNode]:
        with self._lock:
            nodes = [n for n in self._tenant(orchestrator_id).nodes.values() if matches(n, filters)]
        nodes.sort(key=lambda n: n.memory_id)
        nodes.sort(key=lambda n: n.updated_at, reverse=True)
        return nodes[offset : offset + limit]

    def count_nodes(self, orchestrator_id: str, filters: NodeFilter) -> int:
        with self._lock:
            nodes = self._tenant(orchestrator_id).nodes.values()
            return sum(1 for n in nodes if matches(n, filters))

    def _read_text_hits(self, orchestrator_id: str, search: TextSearch) -> list[TextHit]:
        wanted = {t.lower() for t in search.terms if t}
        weights = {c: float((search.column_weights or {}).get(c, 1.0)) for c in TEXT_COLUMNS}
        with self._lock:
            tenant = self._tenant(orchestrator_id)
            nodes = [n for n in tenant.nodes.values() if matches(n, search.filters)]
            extras = dict(tenant.extras)
        docs: dict[str, dict[str, float]] = {}
        for n in nodes:
            extra = extras.get(n.memory_id, IndexText())
            columns = {
                "content": n.content,
                "key": n.key,
                "value": n.value,
                "summary": n.summary,
                "subject": extra.subject,
                "context": extra.context,
                "date": extra.date,
            }
            bag: dict[str, float] = {}
            for column, text in columns.items():
                for token in tokenize(text):
                    bag[token] = bag.get(token, 0.0) + weights[column]
            docs[n.memory_id] = bag
        df = Counter(t for bag in docs.values() for t in wanted if bag.get(t, 0.0) > 0)
        hits: list[TextHit] = []
        for memory_id, bag in docs.items():
            score = sum(
                (1 + math.log1p(bag[t])) * math.log(1 + len(docs) / df[t])
                for t in wanted
                if bag.get(t, 0.0) > 0
            )
            if score > 0:
                hits.append(TextHit(memory_id, score))
        hits.sort(key=lambda h: (-h.score, h.memory_id))
        return hits[: search.limit]

    def _read_vector_hits(
        self, orchestrator_id: str, query: npt.NDArray[np.float32], search: VectorSearch
    ) -> list[VectorHit]:
        q = np.asarray(query, dtype=np.float32)
        with self._lock:
            tenant = self._tenant(orchestrator_id)
            scored = [
                VectorHit(memory_id, float(vector @ q))
                for (memory_id, model), vector in tenant.vectors.items()
                if model == search.model_id
                and memory_id in tenant.nodes
                and matches(tenant.nodes[memory_id], search.filters)
                and vector.shape == q.shape
            ]
        scored.sort(key=lambda h: (-h.similarity, h.memory_id))
        return scored[: search.limit]

    def missing_embeddings(
        self, orchestrator_id: str, model_id: str, *, limit: int
    ) -> list[MemoryNode]:
        with self._lock:
            tenant = self._tenant(orchestrator_id)
            missing = [
                n
                for n in tenant.nodes.values()
                if n.status.value != "soft_deleted"
                and (n.memory_id, model_id) not in tenant.vectors
            ]
        missing.sort(key=lambda n: (n.created_at, n.memory_id))
        return missing[:limit]

    def cached_embeddings(
        self, model_id: str, text_hashes: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        with self._lock:
            return {
                h: self._cache[(model_id, h)] for h in text_hashes if (model_id, h) in self._cache
            }

    def _read_history(self, orchestrator_id: str, query: HistoryQuery) -> list[HistoryEvent]:
        with self._lock:
            tenant = self._tenant(orchestrator_id)
            events = list(tenant.history)
            owners = {i: n.user_id for i, n in tenant.nodes.items()}
        return query.page(events, owners)

    def ingest_record(self, orchestrator_id: str, content_sha256: str) -> IngestRecord | None:
        with self._lock:
            return self._tenant(orchestrator_id).ingest.get(content_sha256)

    def revision(self, orchestrator_id: str) -> int:
        with self._lock:
            return self._tenant(orchestrator_id).revision

    def _read_changes(self, orchestrator_id: str, query: ChangesQuery) -> list[ChangeRecord]:
        with self._lock:
            tenant = self._tenant(orchestrator_id)
            rows = [c for c in tenant.changes if c.revision > query.revision]
            if query.visible_to is not None:
                owners = {i: n.user_id for i, n in tenant.nodes.items()}
                readers = (None, *query.visible_to)
                rows = [c for c in rows if c.memory_id in owners and owners[c.memory_id] in readers]
        return query.latest(rows)

    # -- context ---
    def thread_seen(self, orchestrator_id: str, thread_id: str, *, reader: str) -> int | None:
        with self._lock:
            self._tenant(orchestrator_id)  # fails when closed
            return self._seen.get((orchestrator_id, thread_id, reader))

    def mark_thread_seen(
        self, orchestrator_id: str, thread_id: str, revision: int, *, reader: str
    ) -> None:
        if thread_id == "*":
            raise StoreError("thread id '*' is reserved for the head revision")
        with self._lock:
            self._tenant(orchestrator_id)
            key = (orchestrator_id, thread_id, reader)
            self._seen[key] = max(revision, self._seen.get(key, revision))

    def reader_marks(self, orchestrator_id: str, reader: str) -> list[tuple[str, int]]:
        with self._lock:
            self._tenant(orchestrator_id)
            return sorted(
                (k[1], v)
                for k, v in self._seen.items()
                if k[0] == orchestrator_id and k[2] == reader
            )

    def erase_reader_marks(self, orchestrator_id: str, reader: str) -> int:
        with self._lock:
            self._tenant(orchestrator_id)
            gone = [k for k in self._seen if k[0] == orchestrator_id and k[2] == reader]
            for key in gone:
                del self._seen[key]
            return len(gone)

    def counts(self, orchestrator_id: str) -> StoreCounts:
        with self._lock:
            t = self._tenant(orchestrator_id)
            return StoreCounts(
                memories_by_status=dict(Counter(n.status.value for n in t.nodes.values())),
                memories_by_type=dict(Counter(n.type.value for n in t.nodes.values())),
                edges_by_type=dict(Counter(e.edge_type.value for e in t.edges.values())),
                history_events=len(t.history),
                revision=t.revision,
            )

    # -- lifecycle ---

    def _read_proposals(self, orchestrator_id: str, query: ProposalQuery) -> list[Proposal]:
        with self._lock:
            found = [p for p in self._tenant(orchestrator_id).proposals.values() if query.keeps(p)]
        found.sort(key=lambda p: (p.created_at, p.proposal_id))
        return found[: query.limit]

    def audit_head(self, orchestrator_id: str) -> AuditHead:
        with self._lock:
            return self._tenant(orchestrator_id).head

    def event_counts(self, orchestrator_id: str, *, since: str | None = None) -> list[EventCount]:
        with self._lock:
            events = list(self._tenant(orchestrator_id).op_events)
        grouped = Counter(
            (e.at[:10], e.node, e.op, e.status) for e in events if since is None or e.at >= since
        )
        return [EventCount(*key, count) for key, count in sorted(grouped.items())]

    def _read_op_events(self, orchestrator_id: str, query: OpEventQuery) -> list[OpEvent]:
        with self._lock:
            events = list(self._tenant(orchestrator_id).op_events)
        return [e for e in events if query.keeps(e)][: query.limit]

    # -- identity ---

    def identity(self, orchestrator_id: str) -> StoreAnchor | None:
        with self._lock:
            found = self._identities.get(orchestrator_id)
            if found is None:
                return None
            state = self._tenant(orchestrator_id)
            return found.advanced(
                revision=state.revision,
                history_count=state.head.events,
                last_hash=state.head.hash,
            )

    def claim_identity(self, anchor: StoreAnchor) -> StoreAnchor:
        with self._lock:
            self._tenant(anchor.orchestrator_id)  # refuses when closed
            self._identities.setdefault(anchor.orchestrator_id, anchor)
        return recorded_identity(self, anchor.orchestrator_id)

    def keep_anchor(self, orchestrator_id: str, path: Path) -> None:
        self._anchors.keep_identity(orchestrator_id, self.identity(orchestrator_id), path)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._anchors.close()
