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
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from typing_extensions import Unpack

from memvault.embed.base import FloatVector
from memvault.errors import (
    ValidationFailed,
)
from memvault.model.clock import format_timestamp, new_id
from memvault.model.decision import Decision
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, MemoryOp, MemoryStatus, StopReason
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.model.text import clean_fields
from memvault.results import WriteResult
from memvault.store.base import IndexText, Store, WriteSet
from memvault.write.building import (
    Building,
    derived_summary,
    reason_fields,
    words_judged,
)
from memvault.write.commit import WriteBuilder
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
)
from memvault.write.gating import Validator, strongest
from memvault.write.spec import (
    PURGE_AFTER,
    UPDATABLE_FIELDS,
    Clock,
    FieldGate,
    LinkOptions,
    MemoryPatch,
    WriteGate,
)

__all__ = ["RELATIONS_BATCH_MAX", "STATUS_CHANGES", "STREAM_CHUNK", "WritePipeline", "chunk_spans"]


#: How each status change is judged, audited and shown in the delta header.
STATUS_CHANGES: dict[MemoryStatus, tuple[MemoryOp, HistoryOp, ChangeKind]] = {
    MemoryStatus.SOFT_DELETED: (MemoryOp.DELETE, HistoryOp.DELETE, ChangeKind.SOFT_DELETED),
    MemoryStatus.ACTIVE: (MemoryOp.UPDATE, HistoryOp.RESTORE, ChangeKind.RESTORED),
    MemoryStatus.SUPERSEDED: (MemoryOp.UPDATE, HistoryOp.SUPERSEDE, ChangeKind.UPDATED),
    MemoryStatus.RETRACTED: (MemoryOp.UPDATE, HistoryOp.UPDATE, ChangeKind.UPDATED),
}

#: Status changes that take a memory out of use: judged as a delete (no content check).
_OUT_OF_USE = {
    MemoryStatus.SUPERSEDED: MemoryOp.DELETE,
    MemoryStatus.RETRACTED: MemoryOp.DELETE,
}
_SUCCESS = {
    MemoryOp.UPDATE: StopReason.SUCCESS_UPDATED,
    MemoryOp.DELETE: StopReason.SUCCESS_DELETED,
}

#: The reason of the ``Updates`` edge a supersede by hand writes (spec 001).
SUPERSEDED_BY_HAND = "superseded by hand"

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


class WritePipeline(Building):
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

    def judge_new(
        self, items: Sequence[tuple[Mapping[str, Any], FloatVector | None]]
    ) -> list[Decision]:
        """What :meth:`add` decides on each item's raw fields, written nowhere.

        The same cleaning, building (a long content in its parts), vectors and gate
        as :meth:`add`; the items judged together as :meth:`add_many` judges them,
        so a user's daily cap counts them in order. A refusal is recorded as
        ``add`` records it (a REFUSE row); nothing else is written.

        Trigger: a caller that must know every write of a batch is allowed before
          it writes any (a LangGraph ``batch``: review S15-R6).
        Why: written one by one, a refused item left those before it written and
          those after it dropped; the caller could not tell which.
        Outcome: one decision per item (its parts' strongest refusal, else its
          first part's answer); the caller writes the items only if all are allowed.
        """
        drafts: list[Draft] = []
        owners: list[int] = []
        decisions: dict[int, Decision] = {}
        for i, (raw, vector) in enumerate(items):
            fields, _ = clean_fields(raw)
            pieces = content_parts(fields, self.content_limit, self.splitter)
            try:
                if len(pieces) > 1:
                    built = [Draft(self.build_fields({**fields, "content": p})) for p in pieces]
                else:
                    node = self.build_fields(fields)
                    built = [Draft(node, vector, supplied=vector is not None)]
            except ValidationFailed as exc:
                answer = self.invalid(MemoryOp.STORE, exc, fields=fields)
                decisions[i] = Decision(answer.stop_reason, answer.detector, answer.reason)
                continue
            drafts += built
            owners += [i] * len(built)
        judged = self.judge_many(MemoryOp.STORE, self.vectored(drafts)) if drafts else []
        parts: dict[int, list[Decision]] = {}
        for owner, decision in zip(owners, judged, strict=True):
            parts.setdefault(owner, []).append(decision)
        for i, mine in parts.items():
            refused = [d for d in mine if not d.allowed]
            decisions[i] = strongest(refused) if refused else mine[0]
        refusals = [decisions[i] for i in parts if not decisions[i].allowed]
        if refusals:
            self.refuse_all(MemoryOp.STORE, refusals)
        return [decisions[i] for i in range(len(items))]

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
        now = self.now()
        try:
            node = self.updated_node(old, raw, now)
        except ValidationFailed as exc:
            return self.invalid(MemoryOp.UPDATE, exc, memory_id=memory_id)
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

    def updated_node(self, old: MemoryNode, raw: Mapping[str, Any], now: str) -> MemoryNode:
        """``old`` with the (cleaned) changes ``raw``; raises :class:`ValidationFailed`
        for a field no update may change or a value the node cannot hold."""
        unknown = sorted(set(raw) - UPDATABLE_FIELDS)
        if unknown:
            raise ValidationFailed(
                f"cannot update field(s): {', '.join(unknown)}",
                errors=tuple((f, "not an updatable field") for f in unknown),
            )
        data = old.model_dump()
        data.update(raw)
        data["updated_at"] = now
        if "content" in raw:
            data["content"] = self.clean(str(raw["content"]))
            if "summary" not in raw:
                data["summary"] = derived_summary(str(raw["content"]))
        try:
            return MemoryNode.model_validate(data)
        except ValidationError as exc:
            raise validation_failed(exc) from exc

    def judge_update(self, old: MemoryNode, changes: MemoryPatch) -> Decision:
        """What :meth:`update` decides on ``changes`` to ``old``, written nowhere but a
        refusal (recorded as ``update`` records it; see :meth:`judge_new`)."""
        raw, _removed = clean_fields(changes.changes())
        try:
            node = self.updated_node(old, raw, self.now())
        except ValidationFailed as exc:
            refused = self.invalid(MemoryOp.UPDATE, exc, memory_id=old.memory_id)
            return Decision(refused.stop_reason, refused.detector, refused.reason)
        decision = self.judged(MemoryOp.UPDATE, node)[1]
        if not decision.allowed:
            self.refuse(MemoryOp.UPDATE, decision, memory_id=old.memory_id)
        return decision

    def transition(
        self, node: MemoryNode, status: MemoryStatus, *, thread_id: str = "default"
    ) -> WriteResult:
        """A status change (soft delete, restore, supersede, retract), gated like any write.

        A soft delete sets ``purge_at`` ``purge_after`` from now (restorable until
        then); a restore clears it.
        """
        return self._status(node, status, thread_id, None)

    def supersede(
        self, node: MemoryNode, by: str | None, *, thread_id: str = "default"
    ) -> WriteResult:
        """``node`` superseded (spec 001), with the ``Updates`` edge from memory ``by`` to it
        in the same transaction (``None``: the edge is there already)."""
        return self._status(node, MemoryStatus.SUPERSEDED, thread_id, by)

    def _status(
        self, node: MemoryNode, status: MemoryStatus, thread_id: str, by: str | None
    ) -> WriteResult:
        """:meth:`transition` / :meth:`supersede`: the new status, and ``by``'s edge.

        Trigger: a retract or supersede of a memory whose content today's gate refuses
          (stored under older weights, an operator's OpenGate, an import).
        Why: judged as an UPDATE of that content, it was refused, so the memory the user
          said was wrong stayed active and served; and the supersede's edge, written first
          in its own transaction, stayed behind the refusal (review S12-R3).
        Outcome: taking a memory out of use (superseded, retracted) is judged as a delete
          is — never refused for its content — and answers SUCCESS_UPDATED; a restore is
          still judged on its content; edge and status commit together or not at all.
        """
        op, history_op, kind = STATUS_CHANGES[status]
        changes: dict[str, Any] = {"status": status}
        if status is MemoryStatus.SOFT_DELETED:
            changes["purge_at"] = format_timestamp(self.clock() + self.purge_after)
        elif status is MemoryStatus.ACTIVE:
            changes["purge_at"] = None
        now = self.now()
        new = node.model_copy(update={**changes, "updated_at": now})
        judged_as = _OUT_OF_USE.get(status, op)
        _, decision = self.judged(judged_as, new)
        if not decision.allowed:
            return self.refuse(op, decision, memory_id=node.memory_id)
        if judged_as is not op:
            decision = replace(decision, stop_reason=_SUCCESS[op])
        builder = self.builder(now, thread_id)
        write = builder.transitioned(node, new, decision, history_op, kind)
        if by is not None:
            edge = MemoryEdge(
                edge_id=new_id("edge"),
                orchestrator_id=self.orchestrator,
                from_memory_id=by,
                to_memory_id=node.memory_id,
                edge_type=EdgeType.UPDATES,
                weight=1.0,
                reason=SUPERSEDED_BY_HAND,
                created_at=now,
            )
            write = builder.combined([write, builder.linked(edge)])
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
        self,
        from_id: str,
        to_id: str,
        edge_type: EdgeType | str,
        *,
        judged_as: str | None = None,
        **options: Unpack[LinkOptions],
    ) -> WriteResult:
        """A typed edge between two memories the caller has loaded (scope checked there).

        A bad edge and a duplicate (from, to, type) are refusals, recorded. ``judged_as``:
        the from-memory's category, under which the reason's words are judged (else the
        stand-in of :data:`REASON_FIELDS`).
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
        #          is recorded against the from-memory like any refused write. A link
        #          without a reason is asked about as its type's name, so that the
        #          gate's policy still decides (memory switched off: POLICY_DISABLED,
        #          review S14-R6). The words are judged under the from-memory's own
        #          category: under a contract without the stand-in (19.0.0 has no
        #          KNOWLEDGE) the allowlist answered first and masked what the words
        #          say — an SSN or an injection as a reason was stored (session 14).
        if isinstance(self.gate, FieldGate):
            said = edge.reason or f"{edge.edge_type.value} link"
            decision = self.gate.check_fields(
                MemoryOp.STORE, reason_fields(said, judged_as), agent_id=None
            )
            if not decision.allowed and words_judged(decision) is not None:
                return self.refuse(MemoryOp.STORE, decision, memory_id=from_id)
        write = self.builder(now, thread_id).linked(edge)
        return self.commit(
            write,
            WriteResult(StopReason.SUCCESS_STORED, memory_id=from_id, edge_id=edge.edge_id),
        )
