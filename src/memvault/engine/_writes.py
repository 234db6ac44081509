"""The writer: every write of an engine (add, update, delete, restore, supersede,
retract, link, bulk add), each through the one write pipeline."""

from __future__ import annotations

import contextlib
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from typing_extensions import Unpack

from memvault.embed.base import FloatVector
from memvault.engine._core import EngineCore, _unpack
from memvault.errors import DuplicateEdgeError, StaleWriteError, ValidationFailed
from memvault.lifecycle.importing import (
    ImportReport,
    held_memories,
    read_export,
    without_held,
)
from memvault.lifecycle.proposals import ProposalResult
from memvault.model.enums import EdgeType, MemoryOp, MemoryStatus, StopReason
from memvault.model.node import MemoryNode
from memvault.policy.contract import load_contract
from memvault.results import WriteResult
from memvault.store.base import IndexText
from memvault.write.precomputed import checked_vector
from memvault.write.spec import LinkOptions, MemoryPatch, NewMemory

__all__ = ["KEYWORD_ADD_DEPRECATED", "KEYWORD_UPDATE_DEPRECATED", "Writer"]

#: What ``add(content, **fields)`` warns (the typed call is ``add(NewMemory(...))``).
#: How many times a write by id is tried on a fresh read when another write changed
#: the memory between its read and its commit (:class:`StaleWriteError`).
FRESH_READS = 3

KEYWORD_ADD_DEPRECATED = (
    "add(content, **fields) is deprecated: pass a NewMemory "
    "(engine.new_memory(fields) turns raw fields into one, or into the refusal add answers)"
)
#: What ``update(memory_id, **changes)`` warns (the typed call passes a ``MemoryPatch``).
KEYWORD_UPDATE_DEPRECATED = (
    "update(memory_id, **changes) is deprecated: pass a MemoryPatch "
    "(engine.memory_patch(memory_id, changes) turns raw changes into one, or into the refusal)"
)

#: ``propose(content, kind=, user_id=, **fields)`` — queue a memory for the user's consent.
ProposeFn = Callable[..., ProposalResult]


class Writer:
    """Every write of one engine; consent-gated adds are queued through ``propose``."""

    def __init__(self, core: EngineCore, propose: ProposeFn) -> None:
        self.core = core
        self.propose = propose

    def new_memory(self, fields: Mapping[str, Any]) -> NewMemory | WriteResult:
        """The typed :class:`~memvault.engine.NewMemory` of raw ``add`` fields
        (``content`` included) — or, when none can be built, the refusal ``add``
        answers: SCHEMA_INVALID with the fields in ``errors`` (unless the gate
        ranks the text higher, contract §7), recorded like every refusal.

        Edges (CLI, HTTP, MCP) parse with it, then call :meth:`add` with the value:
        bad input is a result, never an exception.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine, NewMemory
        >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme")
        >>> e.new_memory({"content": "x", "type": "fact"}).stop_reason
        <StopReason.SCHEMA_INVALID: 'SCHEMA_INVALID'>
        >>> spec = e.new_memory({"content": "Prefers tea", "type": "Preference",
        ...                      "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"})
        >>> e.add(spec).stop_reason
        <StopReason.SUCCESS_STORED: 'SUCCESS_STORED'>
        >>> e.close()
        """
        given = dict(fields)
        if given.get("ttl_class") is None:
            # Trigger: raw fields without a TTL class (CLI, MCP, library).
            # Why: NewMemory's default (LONG) is not allowed for every category
            #      (TODO and REMINDER); each edge used to fill the contract's
            #      default itself — MCP and HTTP did, the CLI did not.
            # Outcome: the longest TTL class the contract allows for the category.
            category = str(given.get("category") or "").strip().upper()
            rule = load_contract(self.core.contract).category(category)
            given.pop("ttl_class", None)
            if rule is not None:
                given["ttl_class"] = rule.default_ttl.value
        try:
            return self.core.writes.parse_new(given)
        except ValidationFailed as exc:
            cleaned, _ = self.core.writes.strip_controls(fields)
            return self.core.writes.invalid(MemoryOp.STORE, exc, fields=cleaned)

    def add(
        self,
        /,
        memory: NewMemory | str,
        *,
        thread_id: str = "default",
        index_text: IndexText | None = None,
        vector: FloatVector | Sequence[float] | None = None,
        vector_model: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a new memory. Returns a :class:`WriteResult`; never raises for bad input.

        ``memory`` is a typed :class:`~memvault.engine.NewMemory` (every field in
        one value; :meth:`new_memory` builds one from raw fields). The text with
        its fields as keywords (``add("…", type=…, category=…)``) still works
        but is deprecated (:class:`DeprecationWarning`).

        ``vector``: the content's document vector, when the caller already has
        one (the gate and the stored embedding reuse it), with ``vector_model``
        the id of the model that made it: both are checked against this
        engine's embedder (its ``model_id`` and dimension), else SCHEMA_INVALID.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine, NewMemory
        >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme")
        >>> e.add(NewMemory(content="Prefers tea", type="Preference", category="PREFERENCE",
        ...                 source_kind="USER_EXPLICIT")).stop_reason
        <StopReason.SUCCESS_STORED: 'SUCCESS_STORED'>
        >>> e.close()
        """
        if fields or not isinstance(memory, NewMemory):
            warnings.warn(KEYWORD_ADD_DEPRECATED, DeprecationWarning, stacklevel=2)
        content, fields = _unpack(memory, fields)
        if vector is not None:
            try:
                vector = checked_vector(vector, vector_model, self.core.embedder)
            except ValidationFailed as exc:
                return self.core.writes.invalid(
                    MemoryOp.STORE, exc, fields={"content": content, **fields}
                )
        elif vector_model is not None:
            return self.core.writes.invalid(
                MemoryOp.STORE,
                ValidationFailed("vector_model without a vector", errors=(("vector", "missing"),)),
                fields={"content": content, **fields},
            )
        result = self.core.writes.add(
            {"content": content, **fields},
            thread_id=thread_id,
            index_text=index_text,
            vector=vector,
        )
        return self._queue_for_consent(result, content, fields)

    def _queue_for_consent(
        self, result: WriteResult, content: str, fields: dict[str, Any]
    ) -> WriteResult:
        """A consent-gated add becomes a proposal (never a silent loss).

        When the only objection is the user's missing consent (``add --key
        city``, as capture's "I live in Porto"), the write is queued for the
        user to confirm and the result carries its ``proposal_id`` (stop reason
        still ``MISSING_EXPLICIT_CONSENT``: nothing is stored yet).
        """
        if (
            result.stop_reason is not StopReason.MISSING_EXPLICIT_CONSENT
            or result.detector != "consent"
            or fields.get("proposal")
        ):
            return result
        rest = dict(fields)
        user_id = rest.pop("user_id", None)
        queued = self.propose(content, kind="profile_field", user_id=user_id, **rest)
        if queued.proposal_id is None:
            return result
        return replace(
            result,
            proposal_id=queued.proposal_id,
            reason=f"{result.reason}; queued for the user's consent ({queued.proposal_id})",
        )

    def memory_patch(self, memory_id: str, changes: Mapping[str, Any]) -> MemoryPatch | WriteResult:
        """The typed :class:`~memvault.engine.MemoryPatch` of raw ``update`` changes — or,
        when none can be built (an unknown field, a value of the wrong kind), the
        refusal ``update`` answers for them, recorded like every refusal.

        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        self.core.load(memory_id, "update")
        try:
            return self.core.writes.parse_patch(changes)
        except ValidationFailed as exc:
            return self.core.writes.invalid(MemoryOp.UPDATE, exc, memory_id=memory_id)

    def update(
        self,
        /,
        memory_id: str,
        patch: MemoryPatch | None = None,
        *,
        thread_id: str = "default",
        **changes: Any,
    ) -> WriteResult:
        """Change fields of an active memory with a typed ``patch``
        (:meth:`memory_patch` builds one from raw changes).

        Keyword changes (``update(id, importance=80)``) still work but are
        deprecated (:class:`DeprecationWarning`); unknown fields are SCHEMA_INVALID.
        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        if changes:
            warnings.warn(KEYWORD_UPDATE_DEPRECATED, DeprecationWarning, stacklevel=2)
        if patch is not None:
            changes = {**patch.changes(), **changes}
        return self._on_fresh_read(
            memory_id,
            "update",
            lambda old: self.core.writes.update(old, changes, thread_id=thread_id),
        )

    def delete(
        self, memory_id: str, *, thread_id: str = "default", idempotent: bool = False
    ) -> WriteResult:
        """Soft-delete: hidden from every read path, restorable until ``purge_at``.

        ``idempotent``: a memory that is already soft-deleted succeeds again
        without a write (else it is not found, like every read of it).
        """
        return self._on_fresh_read(
            memory_id,
            "delete",
            lambda node: self.core.writes.delete(node, thread_id=thread_id),
            include_deleted=idempotent,
        )

    def restore(self, memory_id: str, *, thread_id: str = "default") -> WriteResult:
        """Bring a soft-deleted memory back to ``active`` (a no-op if it is not deleted)."""
        return self._on_fresh_read(
            memory_id,
            "restore",
            lambda node: self.core.writes.restore(node, thread_id=thread_id),
            include_deleted=True,
        )

    def supersede(self, memory_id: str, *, by: str, thread_id: str = "default") -> WriteResult:
        """Mark a memory superseded by a newer one (spec 001): an ``Updates`` edge from
        ``by`` to it and its status ``superseded``, in one transaction — kept and
        explainable, never deleted; never refused for its content (a delete is not).

        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        old = self.core.load(memory_id, "supersede")
        new = self.core.load(by, "supersede")
        problem = _manual_problem(old, new)
        if problem:
            return WriteResult(StopReason.SCHEMA_INVALID, memory_id=memory_id, reason=problem)
        # the edge and the status in one transaction (review S12-R3); an Updates edge
        # capture or an earlier call already wrote is not written twice
        known = any(
            e.edge_type is EdgeType.UPDATES
            and e.from_memory_id == new.memory_id
            and e.to_memory_id == old.memory_id
            for e in self.core.store.edges_of(self.core.orchestrator, [old.memory_id])
        )
        edge_from = None if known else new.memory_id
        return self._on_fresh_read(
            memory_id,
            "supersede",
            lambda node: self.core.writes.supersede(node, edge_from, thread_id=thread_id),
            first=old,
        )

    def retract(self, memory_id: str, *, thread_id: str = "default") -> WriteResult:
        """Retract a memory that was wrong (spec 001): status ``retracted``, audited, kept.

        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        node = self.core.load(memory_id, "retract")
        problem = _manual_problem(node)
        if problem:
            return WriteResult(StopReason.SCHEMA_INVALID, memory_id=memory_id, reason=problem)
        return self._on_fresh_read(
            memory_id,
            "retract",
            lambda n: self.core.writes.transition(n, MemoryStatus.RETRACTED, thread_id=thread_id),
            first=node,
        )

    def _on_fresh_read(
        self,
        memory_id: str,
        op: str,
        write: Callable[[MemoryNode], WriteResult],
        *,
        include_deleted: bool = False,
        first: MemoryNode | None = None,
    ) -> WriteResult:
        """``write`` of the stored memory, read again when another write changed it first.

        Trigger: a write by id reads the memory, is judged (ms), then commits; the
        store refuses the commit when the row changed meanwhile (StaleWriteError).
        Why: the first writer wins — an update in flight must not undo a delete or
          write back a memory ``forget_user`` erased (review S11-R4).
        Outcome: up to :data:`FRESH_READS` tries, each on a fresh read; a memory
          deleted or erased meanwhile is then not found (MemoryNotFoundError).
        """
        node = first or self.core.load(memory_id, op, include_deleted=include_deleted)
        for attempt in range(FRESH_READS):
            try:
                return write(node)
            except StaleWriteError:
                if attempt == FRESH_READS - 1:
                    raise
            node = self.core.load(memory_id, op, include_deleted=include_deleted)
        raise AssertionError("unreachable")

    def link(
        self, /, from_id: str, to_id: str, edge_type: EdgeType | str, **options: Unpack[LinkOptions]
    ) -> WriteResult:
        """Add a typed edge between two active memories of this orchestrator."""
        source = self.core.load(from_id, "link")
        self.core.load(to_id, "link")
        category = getattr(source.category, "value", source.category)
        return self.core.writes.link(from_id, to_id, edge_type, judged_as=str(category), **options)

    def add_many(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        index_texts: Sequence[IndexText | None] | None = None,
        thread_id: str = "default",
    ) -> list[WriteResult]:
        """Store many memories in ONE transaction (bulk loads, benchmarks, ingestion).

        Each item holds ``add``'s fields including ``content``, and optionally
        ``vector`` + ``vector_model`` (checked as in :meth:`add`). Items refused by
        validation or the gate are reported and skipped; the rest commit
        together, embedded in batches (precomputed vectors are not re-embedded).
        """
        extras_in = list(index_texts) if index_texts is not None else [None] * len(items)
        if len(extras_in) != len(items):
            raise ValidationFailed(
                "index_texts must match items", errors=(("index_texts", "length"),)
            )
        fields: list[Mapping[str, Any]] = []
        vectors: list[FloatVector | None] = []
        refused: dict[int, WriteResult] = {}
        for i, item in enumerate(items):
            rest = dict(item)
            vector, model = rest.pop("vector", None), rest.pop("vector_model", None)
            fields.append(rest)
            vectors.append(None)
            if vector is None and model is None:
                continue
            try:
                if vector is None:
                    raise ValidationFailed(
                        "vector_model without a vector", errors=(("vector", "missing"),)
                    )
                vectors[-1] = checked_vector(vector, model, self.core.embedder)
            except ValidationFailed as exc:
                refused[i] = self.core.writes.invalid(MemoryOp.STORE, exc, fields=rest)
        positions = [i for i in range(len(items)) if i not in refused]
        written = self.core.writes.add_many(
            [(fields[i], extras_in[i]) for i in positions],
            thread_id=thread_id,
            vectors=[vectors[i] for i in positions],
        )
        results = dict(refused)
        results.update(zip(positions, written, strict=True))
        return [results[i] for i in range(len(items))]

    def import_user(
        self, lines: Iterable[str], *, user_id: str | None = None, agent_id: str | None = None
    ) -> ImportReport:
        """Write back what :meth:`export_user` wrote (``memvault import``), through the pipeline.

        The whole file is checked first (a bad line: ValidationFailed, nothing
        stored). The user's active memories are then written in ONE transaction
        (:meth:`add_many`: each judged by the gate again, each with a new id) and
        the edges between two imported memories linked between the new ids. A
        memory the user already holds is not written again (``memory:already_held``
        in ``skipped``; its edges linked to it): a second import writes nothing.
        ``user_id`` imports them as another user than the export's, ``agent_id`` as
        written by that agent (a caller's façade passes its own: the file's agents are
        not the caller's).

        >>> import json, tempfile
        >>> from memvault.engine import MemoryEngine, NewMemory
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None) as old:
        ...     _ = old.add(NewMemory(content="Prefers tea", type="Preference",
        ...                           category="PREFERENCE", source_kind="USER_EXPLICIT",
        ...                           user_id="dana"))
        ...     lines = [json.dumps(r) for r in old.export_user("dana")]
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "globex", embedder=None) as new:
        ...     report = new.import_user(lines)
        ...     (report.stored, [n.content for n in new.list_memories({"user_id": "dana"})])
        (1, ['Prefers tea'])
        """
        found = read_export(lines, user_id=user_id, agent_id=agent_id)
        # idempotent: what the user already holds is not written again (review S17-R1)
        held = held_memories(self.core.store, self.core.orchestrator, found.user_id)
        found, ids = without_held(found, held)
        results = self.add_many(found.memories) if found.memories else []
        ids.update(
            (old, str(r.memory_id))
            for old, r in zip(found.old_ids, results, strict=True)
            if r.ok and r.memory_id
        )
        linked = 0
        for a, b, edge_type, weight, reason in found.edges:
            if a in ids and b in ids:
                with contextlib.suppress(DuplicateEdgeError):  # already linked (a re-import)
                    linked += self.link(ids[a], ids[b], edge_type, weight=weight, reason=reason).ok
        return ImportReport(
            user_id=found.user_id,
            memories=len(results),
            stored=sum(r.ok for r in results),
            by_stop_reason=dict(Counter(r.stop_reason.value for r in results)),
            ids=ids,
            edges_linked=linked,
            edges_skipped=len(found.edges) - linked,
            skipped=found.skipped,
        )


def _manual_problem(node: MemoryNode, by: MemoryNode | None = None) -> str:
    """Why a manual supersede/retract cannot apply ("" when it can)."""
    if node.status is not MemoryStatus.ACTIVE:
        return f"{node.memory_id} is {node.status.value}, not active"
    if by is not None and by.memory_id == node.memory_id:
        return "a memory cannot supersede itself"
    if by is not None and by.status is not MemoryStatus.ACTIVE:
        return f"{by.memory_id} is {by.status.value}, not active"
    return ""
