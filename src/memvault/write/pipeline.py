"""The one write pipeline: build → validate → gate → (resolve) → WriteSet → apply (DESIGN §4).

Every write kind reaches the store through :class:`WritePipeline`:

==========  ===============================================================
step        what it does
==========  ===============================================================
clean       the text cleaner at the edge (``clean``; strips by default)
build       a :class:`~memvault.model.node.MemoryNode` from a
            :class:`~memvault.write.spec.NewMemory` (or raw fields), with a
            canonical ``sourcePath``
validate    every ``validators`` step (``(op, node) -> Decision | None``)
gate        the ``WriteGate`` seam; a schema problem is a *finding* ranked
            with the gate's (contract §7), never an early exit
resolve     capture and ingest: dedup / update / contradiction
            (:mod:`memvault.write.resolve`)
relations   every ``relations`` step adds edges to a new node
write set   one :class:`~memvault.store.base.WriteSet`, built by
            :class:`~memvault.write.commit.WriteBuilder` (pure)
apply       ``store.apply`` — one transaction
failures    one mapping to stop reasons (:meth:`WritePipeline.commit`)
refusal     one record: a ``REFUSE`` history row and a ``write_refused`` log
            line (:meth:`WritePipeline.record_refusal`)
==========  ===============================================================

A :class:`Draft` may carry a precomputed vector of its content. One vector per
candidate, used three times: before the gate runs, every new draft without one
gets its content's document vector from ``embed`` (the engine's embedder, its
cache first — the vector retrieval stores anyway); the gate reads it (when it
declares ``reads_vectors``: the learned layer's heads), the stored embedding
reuses it, and nothing is embedded twice.

>>> import tempfile, pathlib
>>> from datetime import UTC, datetime
>>> from memvault.store import SQLiteStore
>>> from memvault.write.spec import OpenGate
>>> store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "m.db")
>>> p = WritePipeline(store=store, orchestrator="acme", gate=OpenGate(),
...                   clock=lambda: datetime(2026, 1, 15, tzinfo=UTC))
>>> r = p.add({"content": "Prefers tea", "type": "Preference", "category": "PREFERENCE",
...            "source_kind": "USER_EXPLICIT"})
>>> r.stop_reason.value, p.add({"content": "x", "type": "nope"}).stop_reason.value
('SUCCESS_STORED', 'SCHEMA_INVALID')
>>> [e.op.value for e in store.history("acme", limit=5)]
['CREATE', 'REFUSE']
>>> store.close()
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from typing_extensions import Unpack

from memvault.embed.base import Embedder, FloatVector
from memvault.errors import (
    DuplicateEdgeError,
    StaleWriteError,
    StoreUnavailableError,
    ValidationFailed,
)
from memvault.model.clock import format_timestamp, new_id
from memvault.model.clock import summarise as _summarise
from memvault.model.decision import Decision
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, MemoryOp, MemoryStatus, StopReason
from memvault.model.node import SUMMARY_MAX, MemoryEdge, MemoryNode, Source
from memvault.model.text import clean_fields
from memvault.model.validation import canonical_source_path
from memvault.results import WriteResult
from memvault.retrieval.indexing import embedding_rows, text_sha256
from memvault.store.base import EmbeddingRow, HistoryEvent, IndexText, Store, WriteSet
from memvault.store.records import OpEvent
from memvault.write.commit import WriteBuilder, with_op_events
from memvault.write.drafts import (
    Cleaner,
    Draft,
    EmbedRows,
    LogFn,
    Relations,
    Splitter,
    content_parts,
    new_edges,
    validation_failed,
    with_index_text,
    with_vectors,
)
from memvault.write.gating import STORE_UNAVAILABLE, Judging, Validator, strongest
from memvault.write.spec import (
    PURGE_AFTER,
    UPDATABLE_FIELDS,
    Clock,
    FieldGate,
    LinkOptions,
    MemoryPatch,
    NewMemory,
    WriteGate,
    derive_key,
)

__all__ = ["RELATIONS_BATCH_MAX", "STATUS_CHANGES", "STREAM_CHUNK", "WritePipeline", "chunk_spans"]

#: A judged summary's refusals that refuse its memory (its caps and category are the memory's).
_CONTENT_REFUSALS = frozenset(
    {
        StopReason.INJECTION_DETECTED,
        StopReason.FORBIDDEN_CATEGORY,
        StopReason.INTERNAL_INCONSISTENCY,
    }
)


def derived_summary(content: str) -> str:
    """The summary the write path gives ``content`` when the caller gives none.

    >>> derived_summary("  The standup   is at nine.  ")
    'The standup is at nine.'
    """
    return _summarise(content)[:SUMMARY_MAX]


#: How an edge's reason is judged: as the words of a plain fact (its content checks).
_REASON_FIELDS = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}


#: How each status change is judged, audited and shown in the delta header.
STATUS_CHANGES: dict[MemoryStatus, tuple[MemoryOp, HistoryOp, ChangeKind]] = {
    MemoryStatus.SOFT_DELETED: (MemoryOp.DELETE, HistoryOp.DELETE, ChangeKind.SOFT_DELETED),
    MemoryStatus.ACTIVE: (MemoryOp.UPDATE, HistoryOp.RESTORE, ChangeKind.RESTORED),
    MemoryStatus.SUPERSEDED: (MemoryOp.UPDATE, HistoryOp.SUPERSEDE, ChangeKind.UPDATED),
    MemoryStatus.RETRACTED: (MemoryOp.UPDATE, HistoryOp.UPDATE, ChangeKind.UPDATED),
}

#: ``create`` runs the relations steps for batches up to this size (``add`` is one).
RELATIONS_BATCH_MAX = 32

#: A bulk write is judged and prepared in chunks of at most this many drafts
#: (:meth:`WritePipeline.create_chunks`); each is over ``RELATIONS_BATCH_MAX``.
STREAM_CHUNK = 256


def chunk_spans(count: int) -> list[range]:
    """``range(count)`` in equal consecutive chunks of at most :data:`STREAM_CHUNK`.

    >>> [len(r) for r in chunk_spans(1000)], [len(r) for r in chunk_spans(300)]
    ([250, 250, 250, 250], [150, 150])
    >>> chunk_spans(3), chunk_spans(0)
    ([range(0, 3)], [range(0, 0)])
    """
    n = max(1, -(-count // STREAM_CHUNK))
    bounds = [count * k // n for k in range(n + 1)]
    return [range(lo, hi) for lo, hi in itertools.pairwise(bounds)]


def _clean(text: str) -> str:
    return text.strip()


class WritePipeline(Judging):
    """The write path of one orchestrator: the only code that builds a write or a refusal.

    Cheap to construct (the engine builds one per call, so a changed gate,
    clock or agent takes effect at once). ``embed`` turns nodes into
    embedding rows; without it nodes are stored without vectors (the backfill
    queue picks them up).
    """

    def __init__(
        self,
        *,
        store: Store,
        orchestrator: str,
        gate: WriteGate,
        clock: Clock,
        agent_id: str | None = None,
        log: LogFn | None = None,
        embed: EmbedRows | None = None,
        workspace_roots: Sequence[Path] = (),
        validators: Sequence[Validator] = (),
        relations: Sequence[Relations] = (),
        clean: Cleaner = _clean,
        content_limit: Callable[[str], int] | None = None,
        splitter: Splitter | None = None,
        purge_after: timedelta = PURGE_AFTER,
    ) -> None:
        super().__init__(gate=gate, agent_id=agent_id, validators=validators, log=log)
        self.store = store
        self.orchestrator = orchestrator
        self.clock = clock
        self.embed = embed
        self.workspace_roots = tuple(workspace_roots)
        self.relations = tuple(relations)
        self.clean = clean
        #: The longest content one memory of a category may hold (``None``: no split).
        self.content_limit = content_limit
        #: Cuts a long content into exact slices (``ingest.statements.message_parts``).
        self.splitter = splitter
        #: How long a soft-deleted memory stays restorable (``LifecyclePolicy.purge_after``).
        self.purge_after = purge_after
        #: REFUSE rows waiting for the next commit (inside :meth:`batched_refusals`)
        self._refusals: list[HistoryEvent] | None = None

    # -- plumbing ------------------------------------------------------------

    def now(self) -> str:
        """The clock, as a stored timestamp."""
        return format_timestamp(self.clock())

    def builder(self, at: str | None = None, thread_id: str = "default") -> WriteBuilder:
        """The pure builder of this pipeline's write sets (one moment, one thread)."""
        return WriteBuilder(self.orchestrator, self.agent_id, at or self.now(), thread_id)

    def apply(self, write: WriteSet) -> int:
        """The one call that reaches the store: ``write`` in one transaction; the new revision.

        Raises what the store raises (nothing was written). Writes whose
        caller wants a stop reason go through :meth:`commit`, which maps the
        failure; batch writers (ingest's file transaction, the lifecycle's
        sweeps) decide themselves what a failed batch means.
        """
        return self.store.apply(write)

    # -- build ---------------------------------------------------------------

    def node(
        self,
        fields: Mapping[str, Any],
        source: Source | Mapping[str, Any],
        *,
        at: str | None = None,
        memory_id: str | None = None,
    ) -> MemoryNode:
        """The one constructor of a node about to be written: fields as given, this
        orchestrator, a new id (unless ``memory_id``), created and updated ``at``.

        Raises :class:`ValidationFailed` (a bad enum, a bound) — never pydantic's error.
        """
        at = at or self.now()
        try:
            src = source if isinstance(source, Source) else Source(**dict(source))
            return MemoryNode(
                **dict(fields),
                memory_id=memory_id or new_id("mem"),
                orchestrator_id=self.orchestrator,
                source=src,
                created_at=at,
                updated_at=at,
            )
        except ValidationError as exc:
            raise validation_failed(exc) from None

    def build(self, spec: NewMemory, *, memory_id: str | None = None) -> MemoryNode:
        """A node from ``spec``; raises :class:`ValidationFailed` (or ``UnsafePathError``)."""
        path = spec.source_path
        if path is not None:
            path = canonical_source_path(path, self.workspace_roots)
        source = {
            "source_type": spec.source_type,
            "captured_by": spec.captured_by,
            "source_kind": spec.source_kind,
            "source_path": path,
            "conversation_id": spec.conversation_id,
            "workflow_run_id": spec.workflow_run_id,
            "step_id": spec.step_id,
            "source_ref": spec.source_ref,
        }
        content = self.clean(spec.content)
        return self.node(
            {
                "project_id": spec.project_id,
                "type": spec.type,
                "category": spec.category,
                "key": spec.key or derive_key(content),
                "value": spec.value,
                "content": content,
                "summary": spec.summary or derived_summary(content),
                "importance": spec.importance,
                "confidence": spec.confidence,
                "pinned": spec.pinned,
                "ttl_class": spec.ttl_class,
                "user_id": spec.user_id,
                "agent_id": spec.agent_id,
                "run_id": spec.run_id,
                "actor_id": spec.actor_id,
                "role": spec.role,
                "conversation_id": spec.conversation_id,
            },
            source,
            memory_id=memory_id,
        )

    @staticmethod
    def parse_new(fields: Mapping[str, Any]) -> NewMemory:
        """Raw fields (``content`` included) as a NewMemory; raises :class:`ValidationFailed`."""
        try:
            return NewMemory(**dict(fields))
        except ValidationError as exc:
            raise validation_failed(exc) from None

    @staticmethod
    def parse_patch(changes: Mapping[str, Any]) -> MemoryPatch:
        """Raw changes as a MemoryPatch; raises :class:`ValidationFailed` (unknown fields first)."""
        unknown = sorted(set(changes) - UPDATABLE_FIELDS)
        if unknown:
            raise ValidationFailed(
                f"cannot update field(s): {', '.join(unknown)}",
                errors=tuple((f, "not an updatable field") for f in unknown),
            )
        try:
            return MemoryPatch(**dict(changes))
        except ValidationError as exc:
            raise validation_failed(exc) from None

    def build_fields(self, fields: Mapping[str, Any]) -> MemoryNode:
        """A node from raw fields (``content`` included); raises :class:`ValidationFailed`."""
        return self.build(self.parse_new(fields))

    # -- validate + gate: Judging (memvault.write.gating) ---------------------

    # -- refusals and failures ----------------------------------------------

    def record_refusal(
        self,
        op: MemoryOp | str,
        decision: Decision,
        *,
        memory_id: str | None = None,
        **detail: Any,
    ) -> None:
        """The one refusal record: a REFUSE history row and a ``write_refused`` log line.

        The row holds the stop reason, detector and field *names* — never content.
        The refusal stands even when the row cannot be written.
        """
        builder = self.builder()
        try:
            event = builder.refusal_event(op, decision, memory_id, **detail)
            if self._refusals is not None:
                self._refusals.append(event)  # written with the next commit (see below)
            else:
                self.apply(builder.events_only(event))
        except Exception as exc:
            self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")
        self.log_refusal(op, decision, memory_id=memory_id)

    @contextmanager
    def batched_refusals(self) -> Iterator[None]:
        """REFUSE rows recorded in the block ride along with the block's next commit.

        Trigger: a capture turn: a refused candidate next to stored ones.
        Why: each refusal record was an audit-only transaction of its own (an
          fsync and an anchor write), beside each stored candidate's.
        Outcome: the rows join the next write :meth:`commit` applies (after its
          own events, same transaction); what is left when the block ends — or
          when that write failed and rolled back — is written then, in one
          transaction. A write is never delayed or changed by them otherwise.
        """
        if self._refusals is not None:  # nested: the outer block writes them
            yield
            return
        self._refusals = []
        try:
            yield
        finally:
            pending, self._refusals = self._refusals, None
            if pending:
                try:
                    self.apply(self.builder().events_only(*pending))
                except Exception as exc:
                    self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")

    def log_refusal(
        self, op: MemoryOp | str, decision: Decision, *, memory_id: str | None = None
    ) -> None:
        """The log line of a refusal (for writes that carry their own REFUSE rows)."""
        self.log(
            "info",
            "write_refused",
            operation=op.value if isinstance(op, MemoryOp) else op,
            stop_reason=decision.stop_reason.value,
            detector=decision.detector,
            memory_id=memory_id,
        )

    def refuse(
        self,
        op: MemoryOp,
        decision: Decision,
        *,
        memory_id: str | None = None,
        errors: tuple[tuple[str, str], ...] = (),
    ) -> WriteResult:
        """Record a refusal and answer it (a refused STORE carries no memory id)."""
        self.record_refusal(
            op, decision, memory_id=memory_id, fields=sorted({f for f, _ in errors})
        )
        return WriteResult(
            decision.stop_reason,
            memory_id=None if op is MemoryOp.STORE else memory_id,
            reason=decision.reason,
            detector=decision.detector,
            errors=errors,
            store_unavailable=decision.detector == STORE_UNAVAILABLE,
        )

    def refuse_all(
        self, op: MemoryOp, decisions: Sequence[Decision], *, written: bool = False
    ) -> list[WriteResult]:
        """:meth:`refuse` for many STOREs at once: their REFUSE rows in one transaction.

        ``written``: the caller carries the rows in a write of its own
        (:meth:`refusal_rows`); only the log lines and the results are made here.
        """
        if not written:
            try:
                self.apply(self.builder().events_only(*self.refusal_rows(op, decisions)))
            except Exception as exc:
                self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")
        for decision in decisions:
            self.log_refusal(op, decision)
        return [
            WriteResult(
                d.stop_reason,
                memory_id=None,
                reason=d.reason,
                detector=d.detector,
                store_unavailable=d.detector == STORE_UNAVAILABLE,
            )
            for d in decisions
        ]

    def refusal_rows(
        self, op: MemoryOp, decisions: Sequence[Decision], builder: WriteBuilder | None = None
    ) -> list[HistoryEvent]:
        """The REFUSE rows of refused STOREs (what :meth:`refuse` records for each)."""
        builder = builder or self.builder()
        return [builder.refusal_event(op, d, None, fields=[]) for d in decisions]

    def invalid(
        self,
        op: MemoryOp,
        failed: ValidationFailed,
        *,
        memory_id: str | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> WriteResult:
        """Refuse input no node could be built from (schema ranked with the gate)."""
        decision = (
            self.judge_invalid(op, failed, fields)
            if fields is not None
            else Decision(failed.stop_reason, detector="schema", reason=failed.message)
        )
        errors = failed.errors if decision.detector == "schema" else ()
        return self.refuse(op, decision, memory_id=memory_id, errors=errors)

    def commit(
        self,
        write: WriteSet,
        result: WriteResult,
        *,
        op: MemoryOp = MemoryOp.STORE,
        node: str | None = "hotpath",
    ) -> WriteResult:
        """Apply ``write`` in one transaction; the one mapping of failures to stop reasons.

        A duplicate edge is a refusal (SCHEMA_INVALID, recorded); anything else
        is INTERNAL_INCONSISTENCY — the store rolled back, nothing partial is
        left, and the result names no memory (none was written). ``node``: the
        operational-event node of the write's audited events (``None``: none).
        """
        if node is not None:
            write = with_op_events(write, node)  # operational events (spec §14)
        carried = tuple(self._refusals or ()) if write.events else ()
        if carried:  # REFUSE rows of batched_refusals, after the write's own events
            write = replace(write, events=(*write.events, *carried))
        try:
            revision = self.apply(write)
            if carried and self._refusals is not None:
                del self._refusals[: len(carried)]
        except DuplicateEdgeError as exc:
            decision = Decision(StopReason.SCHEMA_INVALID, detector="schema", reason=str(exc))
            errors = (("edge", "an edge with this (from, to, type) already exists"),)
            return self.refuse(op, decision, memory_id=result.memory_id, errors=errors)
        except StaleWriteError:
            # the row this write read changed first: rolled back, and the engine
            # retries on a fresh read (review S11-R7) — no internal error
            raise
        except Exception as exc:
            # Trigger: anything unexpected while writing (I/O, corrupt file, bug).
            # Why: contract INV-8 — fail closed, never leave partial state.
            # Outcome: the store rolled back; the caller gets INTERNAL_INCONSISTENCY
            #          and no memory id (nothing was written under it).
            self.log("error", "write_failed", error=f"{type(exc).__name__}: {exc}")
            return WriteResult(
                StopReason.INTERNAL_INCONSISTENCY,
                reason=f"write failed and was rolled back: {type(exc).__name__}",
                # a read-only, full, locked or damaged store: exit 4 / 503, not a refusal
                store_unavailable=isinstance(exc, StoreUnavailableError),
            )
        return replace(result, revision=revision)

    def record_op_events(self, events: Sequence[OpEvent]) -> None:
        """Operational events on their own, one transaction (raises on failure)."""
        if events:
            self.apply(self.builder(events[-1].at).compose(op_events=events))

    def backfill(self, embedder: Embedder, *, batch: int = 256, limit: int = 100_000) -> int:
        """Embed memories stored without a vector; returns how many were embedded."""
        done = 0
        while done < limit:
            nodes = self.store.missing_embeddings(self.orchestrator, embedder.model_id, limit=batch)
            if not nodes:
                break
            rows = [
                r
                for r in embedding_rows(self.store, embedder, nodes, with_context=False)
                if r.model_id == embedder.model_id
            ]
            self.apply(self.builder().compose(embeddings=rows))
            done += len(nodes)
        return done

    # -- vectors ---------------------------------------------------------------

    def vectored(self, drafts: Sequence[Draft]) -> list[Draft]:
        """The drafts with their content vectors, when the gate reads them (else as given).

        Every judgement of content goes through here first (``create``, ``update``,
        a restore, the consent queue, the consolidation), so the gate sees the same
        inputs for the same text whatever the write kind.
        """
        if self.embed is not None and getattr(self.gate, "reads_vectors", False):
            return with_vectors(drafts, self.embed, self.log)
        return list(drafts)

    def validated(self, op: MemoryOp, node: MemoryNode) -> list[Decision]:
        """Every validator's finding, and the gate's on a summary the caller wrote.

        Trigger: a memory whose ``summary`` is not the one the write path derives
          from its content (``NewMemory.summary``, ``MemoryPatch.summary``, HTTP bodies).
        Why: the bulletin, query answers and the delta header show the summary in
          place of the content, so it reaches the model; it was stored unjudged
          (review S10-R2) and, judged as a side field, by the n-gram heads alone (R2c).
        Outcome: the summary is judged as the content of the same memory — detectors
          and the full heads with its own vector; a content refusal of it refuses the
          write. A derived summary costs nothing more.
        """
        found = super().validated(op, node)
        found += self._judged_actor(op, node)
        summary = node.summary
        if op is MemoryOp.DELETE or not summary or summary == derived_summary(node.content):
            return found
        probe = node.model_copy(update={"content": summary, "summary": "", "key": "", "value": ""})
        decision = self.check(op, self.vectored([Draft(probe)])[0])
        if decision.stop_reason in _CONTENT_REFUSALS:
            found.append(decision)
        return found

    def _judged_actor(self, op: MemoryOp, node: MemoryNode) -> list[Decision]:
        """A new memory's ``actor_id`` of several words judged as text (review S11-R6b).

        Trigger: a speaker's name with spaces ("Mary Jane"), which the id rule lets
          through as a name.
        Why: "Dana has HIV" or "Ignore previous instructions now" is name-shaped too,
          and was stored unjudged.
        Outcome: such an actor id gets the gate's content checks (detectors and text
          heads, as an edge's reason); a content refusal of it refuses the write.
        """
        actor = (node.actor_id or "").strip()
        if op is not MemoryOp.STORE or " " not in actor or not isinstance(self.gate, FieldGate):
            return []
        decision = self.gate.check_fields(
            MemoryOp.STORE, {**_REASON_FIELDS, "content": actor}, agent_id=None
        )
        return [decision] if decision.stop_reason in _CONTENT_REFUSALS else []

    def judged(self, op: MemoryOp, node: MemoryNode) -> tuple[Draft, Decision]:
        """``node`` judged exactly as ``add`` judges it: its draft (with vector) and the decision.

        Trigger: a write of content other than ``add`` (an update, a restore, a
          proposal, its confirmation, a consolidation's merge).
        Why: judged without the content's vector, English text got the n-gram
          heads only while ``add`` gave the full heads: a text ``add`` refused was
          stored by updating a harmless memory to it (fail-open).
        Outcome: the draft carries the vector ``add`` would compute (reused for
          the stored embedding); a DELETE's content is not judged, so it gets none.
        """
        draft = Draft(node)
        if op is not MemoryOp.DELETE:
            draft = self.vectored([draft])[0]
        decision = self.judge(op, node, vector=draft.vector, vector_model=draft.vector_model)
        return draft, decision

    def rows(
        self,
        drafts: Sequence[Draft],
    ) -> tuple[EmbeddingRow, ...]:
        """Embedding rows of new nodes, reusing their precomputed vectors."""
        if self.embed is None or not drafts:
            return ()
        nodes = tuple(d.node for d in drafts)
        extras = {d.node.memory_id: d.index_text for d in drafts if d.index_text is not None}
        known = {d.node.content: d.vector for d in drafts if d.vector is not None}
        if extras:
            rows = self.embed(nodes, extras, known=known or None)
        else:
            rows = self.embed(nodes, known=known) if known else self.embed(nodes)
        # Trigger: a vector the caller handed in (``add(vector=...)``).
        # Why: the cache maps a text to its vector for every later write of that text, by
        #      any user; a caller's vector of other words would be read as that text's
        #      vector by the gate's heads and the recall of everyone after (review S10-R3).
        # Outcome: it is this memory's vector only; the cache keeps what the embedder made.
        supplied = {text_sha256(d.node.content) for d in drafts if d.supplied}
        if not supplied:
            return rows
        return tuple(replace(r, cache=False) if r.text_sha256 in supplied else r for r in rows)

    # -- the write kinds -----------------------------------------------------

    def add(
        self,
        fields: Mapping[str, Any],
        *,
        thread_id: str = "default",
        index_text: IndexText | None = None,
        vector: FloatVector | None = None,
    ) -> WriteResult:
        """Build, validate, gate and store one new memory from raw fields.

        A content longer than its category allows is stored as several
        memories (:meth:`parts`), all or none, never cut.
        """
        fields, removed = self.strip_controls(fields)
        pieces = content_parts(fields, self.content_limit, self.splitter)
        if len(pieces) > 1:
            return self.add_parts(fields, pieces, removed, thread_id, index_text)
        try:
            node = self.build_fields(fields)
        except ValidationFailed as exc:
            return self.invalid(MemoryOp.STORE, exc, fields=fields)
        draft = Draft(node, vector, index_text, removed, supplied=vector is not None)
        return self.create([draft], thread_id=thread_id)[0]

    def add_parts(
        self,
        fields: Mapping[str, Any],
        pieces: Sequence[str],
        removed: int,
        thread_id: str,
        index_text: IndexText | None,
    ) -> WriteResult:
        """One message as several memories in one transaction: all stored, or none.

        Judged piece by piece; any refusal refuses the message (its strongest
        stop reason, one REFUSE row), as the same text added whole would be.
        Consecutive pieces are linked (the conversation links). The result is
        the first piece's, with every piece's id in ``parts``.
        """
        drafts: list[Draft] = []
        for n, piece in enumerate(pieces):
            try:
                node = self.build_fields({**fields, "content": piece})
            except ValidationFailed as exc:
                return self.invalid(MemoryOp.STORE, exc, fields=fields)
            drafts.append(Draft(node, None, index_text, removed if n == 0 else 0))
        results = self.create(drafts, thread_id=thread_id, whole=True)
        first = results[0]
        if len(results) != len(drafts) or not all(r.ok for r in results):
            return first
        self.log("info", "content_split", parts=len(results))
        return replace(first, parts=tuple(r.memory_id or "" for r in results))

    def strip_controls(self, fields: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
        """The cleaning step: control characters other than tab and line breaks removed.

        Trigger: such characters in a caller's text (a pasted terminal table, a PDF).
        Why: the node cannot hold them, and refusing would lose what the user
          said (issue 17); tabs and line breaks are content and stay.
        Outcome: removed before validation; the count goes to the log here and
          into the CREATE event's detail (``control_chars_removed``).
        """
        cleaned, removed = clean_fields(fields)
        if removed:
            self.log("info", "control_chars_removed", removed=removed)
        return cleaned, removed

    def add_many(
        self,
        items: Sequence[tuple[Mapping[str, Any], IndexText | None]],
        *,
        thread_id: str = "default",
        vectors: Sequence[FloatVector | None] | None = None,
    ) -> list[WriteResult]:
        """Many new memories, judged one by one, the accepted ones in ONE transaction.

        ``vectors``: a precomputed document vector per item (or ``None``), already
        checked against the embedder's space by the caller. A large batch is
        built, judged and prepared in chunks (:meth:`create`), so the gate's
        second process judges one chunk while this process builds the next.
        """
        if vectors is not None and len(vectors) != len(items):
            raise ValueError("vectors must match items")
        results: list[WriteResult | None] = [None] * len(items)
        positions: list[int] = []

        def drafts(span: range) -> list[Draft]:
            out: list[Draft] = []
            for i in span:
                raw, index_text = items[i]
                fields, removed = self.strip_controls(raw)
                try:
                    node = self.build_fields(fields)
                except ValidationFailed as exc:
                    results[i] = self.invalid(MemoryOp.STORE, exc, fields=fields)
                    continue
                vector = vectors[i] if vectors is not None else None
                out.append(
                    Draft(
                        node,
                        vector,
                        index_text=index_text,
                        cleaned=removed,
                        supplied=vector is not None,
                    )
                )
                positions.append(i)
            return out

        spans = chunk_spans(len(items))
        chunks = (drafts(span) for span in spans) if len(spans) > 1 else [drafts(spans[0])]
        created = self.create_chunks(chunks, thread_id=thread_id, single=len(items) == 1)
        for i, result in zip(positions, created, strict=True):
            results[i] = result
        return [r for r in results if r is not None]

    def create(
        self, drafts: Sequence[Draft], *, thread_id: str = "default", whole: bool = False
    ) -> list[WriteResult]:
        """Judge each draft; write the accepted ones (and their relations) in one transaction.

        ``whole``: the drafts are the pieces of one text: a refusal of any
        refuses them all (one result, the strongest stop reason; nothing stored),
        and consecutive pieces are linked.
        """
        spans = [range(len(drafts))] if whole else chunk_spans(len(drafts))
        return self.create_chunks(
            [drafts[s.start : s.stop] for s in spans],
            thread_id=thread_id,
            whole=whole,
            single=len(drafts) == 1,
        )

    def create_chunks(
        self,
        chunks: Iterable[Sequence[Draft]],
        *,
        thread_id: str = "default",
        whole: bool = False,
        single: bool = False,
    ) -> list[WriteResult]:
        """:meth:`create` of the drafts of every chunk, in order: ONE transaction.

        Trigger: a bulk write (``add_many`` of hundreds of memories).
        Why: one batch at a time, the gate's second process idled while this
          process built the batch and prepared its write (~40% of a bulk row's
          time here); the commit itself must stay one transaction.
        Outcome: the gate takes a chunk when it is ready for it
          (:meth:`judge_stream`: the second process judges chunk k+1 while the
          accepted drafts of chunk k get their index text, links, vectors and
          CREATE rows here); then the REFUSE rows and every chunk's part are
          applied together, as the whole batch at once would be: same decisions,
          same rows, one transaction (``tests/unit/policy/test_check_many.py``).
        ``single``: the write is of one draft (its node's timestamp is the write's).
        """
        out: list[WriteResult | None] = []
        accepted: list[tuple[int, Draft, Decision]] = []
        refused: list[tuple[int, Decision]] = []
        parts: list[WriteSet] = []
        edges: list[MemoryEdge] = []
        earlier: list[MemoryNode] = []  # accepted nodes of the chunks before
        builder: WriteBuilder | None = None
        judged = self.judge_stream(MemoryOp.STORE, (self.vectored(c) for c in chunks))
        with closing(judged):
            for chunk, decisions in judged:
                mine: list[tuple[int, Draft, Decision]] = []
                for draft, decision in zip(chunk, decisions, strict=True):
                    if decision.allowed:
                        mine.append((len(out), draft, decision))
                    else:
                        refused.append((len(out), decision))
                    out.append(None)
                accepted += mine
                if not mine or (whole and refused):
                    continue
                if builder is None:
                    at = mine[0][1].node.created_at if single else self.now()
                    builder = self.builder(at, thread_id)
                bulk = len(chunk) > RELATIONS_BATCH_MAX  # every chunk of several is
                part, links = self.created_part(builder, mine, earlier, whole=whole, bulk=bulk)
                parts.append(part)
                edges += links
        if whole and refused:
            return [self.refuse(MemoryOp.STORE, strongest(d for _, d in refused))]
        # Trigger: a batch with refusals beside accepted drafts (a bulk add).
        # Why: the refusals' audit-only transaction (an fsync, the anchor) came on
        #   top of the batch's own commit, on the bulk load's critical path.
        # Outcome: their REFUSE rows ride in the accepted drafts' write, before the
        #   CREATE rows (the order they had in two transactions); if that write
        #   fails they are written on their own, as before.
        carried = bool(refused and accepted and self._refusals is None)
        if len(refused) == 1 and not carried:
            i, decision = refused[0]
            out[i] = self.refuse(MemoryOp.STORE, decision)
        elif refused:
            # Trigger: a bulk add with several refusals.
            # Why: one audit-only transaction (fsync, anchor) per refusal cost more
            #   than the batch's own commit.
            # Outcome: their REFUSE rows land together, before the accepted ones.
            decisions = [d for _, d in refused]
            results = self.refuse_all(MemoryOp.STORE, decisions, written=carried)
            for (i, _), result in zip(refused, results, strict=True):
                out[i] = result
        if builder is not None:
            before = (
                self.refusal_rows(MemoryOp.STORE, [d for _, d in refused], builder)
                if carried
                else []
            )
            # REFUSE rows, every CREATE row, then the LINK rows: one batch's order
            write = builder.combined(
                [builder.events_only(*before), *parts, builder.created([], [], edges=edges)]
            )
            first = accepted[0]
            committed = self.commit(
                write, WriteResult(first[2].stop_reason, memory_id=first[1].node.memory_id)
            )
            if before and not committed.ok:  # rolled back: the rows on their own
                try:
                    self.apply(self.builder().events_only(*before))
                except Exception as exc:
                    self.log("error", "refusal_not_recorded", error=f"{type(exc).__name__}: {exc}")
            for i, draft, decision in accepted:
                out[i] = WriteResult(
                    committed.stop_reason if not committed.ok else decision.stop_reason,
                    memory_id=draft.node.memory_id if committed.ok else None,
                    reason=committed.reason,
                    detector=committed.detector if not committed.ok else None,
                    revision=committed.revision,
                    store_unavailable=committed.store_unavailable,
                )
        return [r for r in out if r is not None]

    def created_part(
        self,
        builder: WriteBuilder,
        accepted: Sequence[tuple[int, Draft, Decision]],
        earlier: list[MemoryNode],
        *,
        whole: bool,
        bulk: bool,
    ) -> tuple[WriteSet, list[MemoryEdge]]:
        """The write of one chunk's accepted drafts (nodes, vectors, CREATE rows), and
        their edges (written after every chunk's CREATE rows, as in one batch).

        ``earlier`` (the accepted nodes of the chunks before; extended here) gives
        the index text and the conversation links what the whole batch would;
        ``bulk``: the relations steps are skipped (:func:`new_edges`).
        """
        kept = with_index_text(self.store, [d for _, d, _ in accepted], self.log, earlier)
        nodes = [d.node for d in kept]
        edges = new_edges(
            self.store,
            self.orchestrator,
            nodes,
            self.relations,
            self.log,
            bulk=bulk,
            chain=whole,
            earlier=earlier,
        )
        write = builder.created(
            nodes,
            [dec for _, _, dec in accepted],
            embeddings=self.rows(kept),
            index_texts=[
                (d.node.memory_id, d.index_text) for d in kept if d.index_text is not None
            ],
            node_detail={
                d.node.memory_id: {"control_chars_removed": d.cleaned} for d in kept if d.cleaned
            },
        )
        earlier.extend(nodes)
        return write, edges

    def update(
        self,
        old: MemoryNode,
        changes: Mapping[str, Any] | MemoryPatch,
        *,
        thread_id: str = "default",
    ) -> WriteResult:
        """Change fields of ``old``; unknown fields and bad values are refused (recorded)."""
        memory_id = old.memory_id
        raw = changes.changes() if isinstance(changes, MemoryPatch) else dict(changes)
        raw, _removed = self.strip_controls(raw)
        unknown = sorted(set(raw) - UPDATABLE_FIELDS)
        if unknown:
            failed = ValidationFailed(
                f"cannot update field(s): {', '.join(unknown)}",
                errors=tuple((f, "not an updatable field") for f in unknown),
            )
            return self.invalid(MemoryOp.UPDATE, failed, memory_id=memory_id)
        now = self.now()
        data = old.model_dump()
        data.update(raw)
        data["updated_at"] = now
        if "content" in raw:
            data["content"] = self.clean(str(raw["content"]))
            if "summary" not in raw:
                data["summary"] = derived_summary(str(raw["content"]))
        try:
            node = MemoryNode.model_validate(data)
        except ValidationError as exc:
            return self.invalid(MemoryOp.UPDATE, validation_failed(exc), memory_id=memory_id)
        draft, decision = self.judged(MemoryOp.UPDATE, node)
        if not decision.allowed:
            return self.refuse(MemoryOp.UPDATE, decision, memory_id=memory_id)
        rows = self.rows([draft]) if node.content != old.content else ()
        write = self.builder(now, thread_id).updated(
            node, decision, list(raw), rows, read_at=old.updated_at
        )
        return self.commit(
            write, WriteResult(decision.stop_reason, memory_id=memory_id), op=MemoryOp.UPDATE
        )

    def transition(
        self, node: MemoryNode, status: MemoryStatus, *, thread_id: str = "default"
    ) -> WriteResult:
        """A status change (soft delete, restore, supersede, retract), gated like any write.

        A soft delete sets ``purge_at`` ``purge_after`` from now (restorable until
        then); a restore clears it.
        """
        op, history_op, kind = STATUS_CHANGES[status]
        changes: dict[str, Any] = {"status": status}
        if status is MemoryStatus.SOFT_DELETED:
            changes["purge_at"] = format_timestamp(self.clock() + self.purge_after)
        elif status is MemoryStatus.ACTIVE:
            changes["purge_at"] = None
        now = self.now()
        new = node.model_copy(update={**changes, "updated_at": now})
        _, decision = self.judged(op, new)
        if not decision.allowed:
            return self.refuse(op, decision, memory_id=node.memory_id)
        write = self.builder(now, thread_id).transitioned(node, new, decision, history_op, kind)
        return self.commit(
            write, WriteResult(decision.stop_reason, memory_id=node.memory_id), op=op
        )

    def delete(self, node: MemoryNode, *, thread_id: str = "default") -> WriteResult:
        """Soft delete: hidden from every read path, restorable until ``purge_at``.

        A no-op (SUCCESS_DELETED, nothing written) when ``node`` is already deleted.
        """
        if node.status is MemoryStatus.SOFT_DELETED:
            return WriteResult(
                StopReason.SUCCESS_DELETED, memory_id=node.memory_id, reason="already deleted"
            )
        return self.transition(node, MemoryStatus.SOFT_DELETED, thread_id=thread_id)

    def restore(self, node: MemoryNode, *, thread_id: str = "default") -> WriteResult:
        """Back to ``active`` (judged as an UPDATE); a no-op when not deleted."""
        if node.status is not MemoryStatus.SOFT_DELETED:
            return WriteResult(
                StopReason.SUCCESS_UPDATED, memory_id=node.memory_id, reason="memory is not deleted"
            )
        return self.transition(node, MemoryStatus.ACTIVE, thread_id=thread_id)

    def link(
        self, from_id: str, to_id: str, edge_type: EdgeType | str, **options: Unpack[LinkOptions]
    ) -> WriteResult:
        """A typed edge between two memories the caller has loaded (scope checked there).

        A bad edge and a duplicate (from, to, type) are refusals, recorded.
        """
        now = self.now()
        weight, reason = options.get("weight", 1.0), options.get("reason")
        thread_id = options.get("thread_id", "default")
        try:
            edge = MemoryEdge(
                edge_id=new_id("edge"),
                orchestrator_id=self.orchestrator,
                from_memory_id=from_id,
                to_memory_id=to_id,
                edge_type=edge_type,  # type: ignore[arg-type]  # validated by pydantic
                weight=weight,
                reason=reason,
                created_at=now,
            )
        except ValidationError as exc:
            return self.invalid(MemoryOp.STORE, validation_failed(exc), memory_id=from_id)
        # Trigger: an edge with a reason (get(), search hits' edges and the inspector show it).
        # Why: text shown to the model or the user is judged like a memory's content
        #      (review S10-R2: an injection or an SSN as a reason was stored unjudged).
        # Outcome: the gate judges the reason's words (detectors, text heads); a refusal
        #          is recorded against the from-memory like any refused write.
        if edge.reason and isinstance(self.gate, FieldGate):
            decision = self.gate.check_fields(
                MemoryOp.STORE, {**_REASON_FIELDS, "content": edge.reason}, agent_id=None
            )
            if not decision.allowed:
                return self.refuse(MemoryOp.STORE, decision, memory_id=from_id)
        write = self.builder(now, thread_id).linked(edge)
        return self.commit(
            write,
            WriteResult(StopReason.SUCCESS_STORED, memory_id=from_id, edge_id=edge.edge_id),
        )
