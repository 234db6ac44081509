"""One façade per caller: the engine as one agent with one grant sees it.

:meth:`MemoryEngine.as_caller` returns a :class:`Caller` with the engine's
typed methods. Every call is authorised in ONE place, :meth:`Caller.authorize`
(read-only grant, category allowlist, calls that span every category; the
rules live in :mod:`memvault.engine._rules`), runs
as the caller's agent (:meth:`MemoryEngine.acting` — no copy of the engine),
and forces the caller's agent onto what it writes. A denial raises
:class:`~memvault.errors.AccessDeniedError` after the ``on_deny`` hook has
audited it. Interfaces (HTTP routes, MCP tools, adapters) parse, make one
call on the façade and map the result.

>>> import tempfile
>>> from memvault.engine import MemoryEngine, NewMemory
>>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
>>> planner = engine.as_caller(Grant("planner", frozenset({"TODO"})))
>>> planner.add(NewMemory(content="Write the tests", type="Todo", category="TODO",
...                       ttl_class="MEDIUM", source_kind="USER_EXPLICIT")).ok
True
>>> planner.add(NewMemory(content="Prefers tea", type="Preference", category="PREFERENCE",
...                       source_kind="USER_EXPLICIT"))
Traceback (most recent call last):
...
memvault.errors.AccessDeniedError: agent 'planner' may not use category PREFERENCE
>>> engine.close()
"""

from __future__ import annotations

import builtins
import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memvault import context as ctx
from memvault.context.query import MemoryQuery, QueryResult, expand_categories
from memvault.embed.base import FloatVector
from memvault.engine._args import check_call, checked_method
from memvault.engine._audit import CallerReads
from memvault.engine._capture import CaptureOps
from memvault.engine._context import ContextOps
from memvault.engine._core import _unpack
from memvault.engine._grant import (
    _BOUND_FORWARDS,
    _WITHHELD,
    CallerGrant,
    DenyHook,
    Grant,
    _Forward,
    _writes_all,
)
from memvault.engine._lifecycle import LifecycleOps
from memvault.engine._reads import Reader
from memvault.engine._writes import KEYWORD_ADD_DEPRECATED, KEYWORD_UPDATE_DEPRECATED
from memvault.errors import ValidationFailed
from memvault.layout import RuntimeLayout
from memvault.lifecycle.importing import ImportReport
from memvault.lifecycle.proposals import ProposalResult
from memvault.model.decision import Decision
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.results import MemoryView, SearchResults, WriteResult
from memvault.store.base import NodeFilter
from memvault.store.records import Proposal
from memvault.store.scope import ALL_USERS, UserScope
from memvault.write import CapturePipeline
from memvault.write.precomputed import agreeing_vector, checked_vector
from memvault.write.spec import MemoryPatch, NewMemory

__all__ = ["Caller", "CallerGrant", "DenyHook", "Grant"]


#: ``add``'s keywords besides the memory (how to write it, not what).
_ADD_OPTIONS = frozenset({"thread_id", "index_text", "vector", "vector_model"})


def _searcher(held: NodeFilter) -> UserScope:
    """The reader a search's held filters name: the memories at the far end of its
    hits' edges are held to the same users (an exact ``user_id``, or the one user of
    ``visible_to``; several or none named: shared only; no condition: everyone)."""
    if held.visible_to is None and held.user_id is None:
        return ALL_USERS
    users = set(held.visible_to or ()) | (
        {held.user_id} if isinstance(held.user_id, str) else set()
    )
    return next(iter(users)) if len(users) == 1 else None


class Caller(CallerReads):
    """The engine's typed methods for one caller, each authorised in :meth:`authorize`.

    Nothing else of the engine is reachable through it: no store, no core, no
    settings — only the methods (written here, or an engine method under its
    rule, :class:`_Forward`) and two read-only attributes, :attr:`orchestrator`
    and :attr:`categories`; any other name raises :class:`AttributeError`.
    Type checkers see exactly this surface (it is not typed as the engine).
    Every call is authorised by the rules of :class:`CallerRules`.
    """

    __slots__ = ()

    @property
    def orchestrator(self) -> str:
        """The orchestrator this caller's engine serves."""
        return self._engine.orchestrator

    @property
    def categories(self) -> frozenset[str]:
        """The categories the engine's contract names (not the grant's: see ``grant``)."""
        return self._engine.categories

    # -- writes ------------------------------------------------------------------

    def new_memory(self, fields: Mapping[str, Any]) -> NewMemory | WriteResult:
        """:meth:`MemoryEngine.new_memory` as this caller (a refusal is recorded: a write)."""
        self.authorize("add", write=True, categories=[fields.get("category")])
        return self._run(self._engine.new_memory, fields)

    def add(self, memory: NewMemory | str, /, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.add` as this caller (its agent is the memory's agent)."""
        fields = {k: v for k, v in options.items() if k not in _ADD_OPTIONS}
        if fields or not isinstance(memory, NewMemory):
            warnings.warn(KEYWORD_ADD_DEPRECATED, DeprecationWarning, stacklevel=2)
            content, fields = _unpack(memory, fields)
            parsed = self.new_memory({"content": content, **fields})
            if isinstance(parsed, WriteResult):
                return parsed
            memory = parsed
        self.authorize("add", write=True, categories=[memory.category])
        self._same_agent(memory.agent_id, "add")
        own: dict[str, Any] = {"agent_id": self.grant.agent}
        if self.grant.user is not None:
            own["user_id"] = self._own(memory.user_id, "add")
        typed = {k: v for k, v in options.items() if k in _ADD_OPTIONS}
        return self._run(self._engine.add, memory.model_copy(update=own), **typed)

    def agreeing_vector(
        self, content: str, vector: Sequence[float], vector_model: str | None
    ) -> FloatVector:
        """A vector from outside the process, checked to be this engine's vector of ``content``.

        Returns the engine's own vector of ``content`` (what is then judged and
        stored); raises :class:`~memvault.errors.ValidationFailed` (SCHEMA_INVALID)
        when the given one is of another model, size, or text
        (:func:`~memvault.write.precomputed.agreeing_vector`). The network edges call
        it before :meth:`add`, so a harmless text's vector cannot carry a refused
        text past the gate's learned heads.
        """
        return agreeing_vector(vector, vector_model, self._engine.embedder, content)

    def judge_new(
        self,
        memories: Sequence[NewMemory],
        /,
        *,
        vectors: Sequence[tuple[Sequence[float], str | None] | None] | None = None,
    ) -> builtins.list[Decision]:
        """What :meth:`add` decides on each memory — its building, vector and gate, as
        this caller's agent — with nothing written but each refusal's record (the REFUSE
        row ``add`` writes). The memories are judged together, as :meth:`add_many`
        judges them (a user's daily cap counts them in order); ``vectors``: each one's
        ``(vector, vector_model)`` or ``None`` — one :meth:`add` would refuse (another
        model, size) raises :class:`~memvault.errors.ValidationFailed` here.

        Trigger: a caller that must know all of a batch is allowed before it writes any
          (a LangGraph ``batch``, review S15-R6).
        Why: written one by one, a refused item left the ones before it written.
        Outcome: one decision per memory; a refused one names its stop reason.
        """
        self.authorize("add", write=True, categories=[m.category for m in memories])
        given = builtins.list(vectors) if vectors is not None else [None] * len(memories)
        if len(given) != len(memories):
            raise ValueError("vectors must match memories")
        own: dict[str, Any] = {"agent_id": self.grant.agent}
        items: builtins.list[tuple[dict[str, Any], FloatVector | None]] = []
        for memory, pair in zip(memories, given, strict=True):
            self._same_agent(memory.agent_id, "add")
            if self.grant.user is not None:
                own["user_id"] = self._own(memory.user_id, "add")
            content, fields = _unpack(memory.model_copy(update=own), {})
            vector = None
            if pair is not None:
                vector = checked_vector(pair[0], pair[1], self._engine.embedder)
            items.append(({"content": content, **fields}, vector))
        return self._run(self._engine.core.writes.judge_new, items)

    def judge_update(
        self, memory_id: str, patch: MemoryPatch, *, user: UserScope = None
    ) -> Decision:
        """What :meth:`update` decides on ``patch`` (its building, vector and gate), with
        nothing written but a refusal's record (as :meth:`judge_new`)."""
        self._updatable(memory_id, patch.category, user)
        old = self._engine.core.load(memory_id, "update")
        return self._run(self._engine.core.writes.judge_update, old, patch)

    def add_many(self, items: Sequence[Mapping[str, Any]], **options: Any) -> list[WriteResult]:
        """:meth:`MemoryEngine.add_many`, every item in the caller's categories and agent."""
        cats = [str(i.get("category") or "") for i in items]
        self.authorize("add_many", write=True, categories=cats)
        for item in items:
            self._same_agent(item.get("agent_id"), "add_many")
        mine = [{**i, "agent_id": self.grant.agent} for i in items]
        if self.grant.user is not None:
            mine = [{**i, "user_id": self._own(i.get("user_id"), "add_many")} for i in mine]
        return self._run(self._engine.add_many, mine, **options)

    def memory_patch(
        self, memory_id: str, changes: Mapping[str, Any], *, user: UserScope = None
    ) -> MemoryPatch | WriteResult:
        """:meth:`MemoryEngine.memory_patch` of a memory in the caller's categories and
        in the scope of ``user`` (:meth:`by_id_writer`; as :meth:`update`)."""
        self._updatable(memory_id, changes.get("category"), user)
        return self._run(self._engine.memory_patch, memory_id, changes)

    def update(
        self,
        memory_id: str,
        patch: MemoryPatch | None = None,
        *,
        user: UserScope = None,
        **changes: Any,
    ) -> WriteResult:
        """:meth:`MemoryEngine.update` of a memory in the caller's categories, in the
        scope of the user it acts as (``user``; :meth:`by_id_writer`): a key bound to no
        user changes shared memories unless it names the memory's user (every user's with
        ``all_users``); a key bound to a user changes that user's memories only.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine, NewMemory
        >>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
        >>> mid = engine.add(NewMemory(content="Prefers tea", type="Preference",
        ...     category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana")).memory_id
        >>> key = engine.as_caller(Grant("svc"))
        >>> key.retract(mid, user="dana").ok
        True
        >>> key.delete(mid)  # naming no user: shared memories only
        Traceback (most recent call last):
        ...
        memvault.errors.MemoryNotFoundError: memory '...' not found in orchestrator 'acme'
        >>> engine.close()
        """
        if changes:
            warnings.warn(KEYWORD_UPDATE_DEPRECATED, DeprecationWarning, stacklevel=2)
            parsed = self.memory_patch(
                memory_id, {**(patch.changes() if patch else {}), **changes}, user=user
            )
            if isinstance(parsed, WriteResult):
                return parsed
            patch = parsed
        patch = patch or MemoryPatch()
        self._updatable(memory_id, patch.category, user)
        return self._run(self._engine.update, memory_id, patch)

    def delete(self, memory_id: str, *, user: UserScope = None, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.delete` of a memory in the caller's categories and scope
        (``user``, as :meth:`update`)."""
        idempotent = bool(options.get("idempotent"))
        self._write_on("delete", [memory_id], include_deleted=idempotent, user=user)
        return self._run(self._engine.delete, memory_id, **options)

    def restore(self, memory_id: str, *, user: UserScope = None, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.restore` of a memory in the caller's categories and scope
        (``user``, as :meth:`update`)."""
        self._write_on("restore", [memory_id], include_deleted=True, user=user)
        return self._run(self._engine.restore, memory_id, **options)

    def supersede(
        self, memory_id: str, *, by: str, user: UserScope = None, **options: Any
    ) -> WriteResult:
        """:meth:`MemoryEngine.supersede`: both memories in the caller's categories and
        scope (``user``, as :meth:`update`)."""
        self._write_on("supersede", [memory_id, by], user=user)
        return self._run(self._engine.supersede, memory_id, by=by, **options)

    def retract(self, memory_id: str, *, user: UserScope = None, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.retract` of a memory in the caller's categories and scope
        (``user``, as :meth:`update`)."""
        self._write_on("retract", [memory_id], user=user)
        return self._run(self._engine.retract, memory_id, **options)

    def link(
        self,
        from_id: str,
        to_id: str,
        edge_type: EdgeType | str,
        *,
        user: UserScope = None,
        **options: Any,
    ) -> WriteResult:
        """:meth:`MemoryEngine.link` between two memories in the caller's categories and
        scope (``user``, as :meth:`update`)."""
        self._write_on("link", [from_id, to_id], user=user)
        return self._run(self._engine.link, from_id, to_id, edge_type, **options)

    # -- reads -------------------------------------------------------------------

    def get(
        self, memory_id: str, *, include_deleted: bool = False, user: UserScope = None
    ) -> MemoryView:
        """:meth:`MemoryEngine.get`, for a memory the caller may list: in its categories
        and in the scope of the user it reads as (``user``; :meth:`by_id_reader`).

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine, NewMemory
        >>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
        >>> mid = engine.add(NewMemory(content="Prefers tea", type="Preference",
        ...     category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana")).memory_id
        >>> key = engine.as_caller(Grant("viewer", read_only=True))
        >>> key.get(mid, user="dana").node.user_id
        'dana'
        >>> key.get(mid)  # naming no user: shared memories only
        Traceback (most recent call last):
        ...
        memvault.errors.MemoryNotFoundError: memory '...' not found in orchestrator 'acme'
        >>> engine.close()
        """
        reader = self.by_id_reader(user, "get")
        self._node(memory_id, "get", include_deleted=include_deleted, reader=reader)
        view = self._run(self._engine.get, memory_id, include_deleted=include_deleted)
        self.authorize("get", categories=[view.node.category])
        return replace(view, edges=self._readable_edges(view.edges, {memory_id}, reader))

    def search(
        self, query: str, *, filters: NodeFilter | Mapping[str, Any] | None = None, **options: Any
    ) -> SearchResults:
        """:meth:`MemoryEngine.search` within the caller's categories."""
        held = self._held(filters)
        found = self._run(self._engine.search, query, filters=held, **options)
        hits = {h.node.memory_id for h in found.hits}
        return replace(found, edges=self._readable_edges(found.edges, hits, _searcher(held)))

    def list_memories(
        self, filters: NodeFilter | Mapping[str, Any] | None = None, **options: Any
    ) -> list[MemoryNode]:
        """:meth:`MemoryEngine.list_memories` within the caller's categories."""
        return self._run(self._engine.list_memories, self._held(filters), **options)

    list = list_memories

    def count_memories(self, filters: NodeFilter | Mapping[str, Any] | None = None) -> int:
        """:meth:`MemoryEngine.count_memories` within the caller's categories."""
        return self._run(self._engine.count_memories, self._held(filters))

    def memory_query(
        self,
        request: MemoryQuery | Mapping[str, Any] | None = None,
        *,
        user: UserScope = None,
        **fields: Any,
    ) -> QueryResult:
        """:meth:`MemoryEngine.memory_query` as this caller's agent, in its categories,
        for its user (:meth:`reader`).

        Asked categories (contract names or aliases such as ``tasks``) must be
        known and granted; none asked means the grant's own.
        """
        reader = self.reader(user, "memory.query")
        if isinstance(request, MemoryQuery):
            asked_request: dict[str, Any] = request.model_dump(by_alias=True, exclude_unset=True)
        else:
            asked_request = dict(request or {})
        asked_request.update(fields)
        self._same_agent(asked_request.get("agent"), "memory.query")
        raw = asked_request.get("categories")
        if not (
            raw is None
            or isinstance(raw, str)
            or (
                isinstance(raw, list | tuple | set | frozenset)
                and all(c is None or isinstance(c, str) for c in raw)
            )
        ):
            # Trigger: ``categories=5`` or ``[3]`` (the engine's MemoryQuery would refuse
            #   them, but this façade reads them first). Why: a TypeError/AttributeError
            #   escaped instead of the library's error. Outcome: SCHEMA_INVALID, as the engine.
            raise ValidationFailed(
                "categories: give category names (text) or one name",
                errors=(("categories", "a list of category names"),),
            )
        asked = [raw] if isinstance(raw, str) else [c for c in (raw or ()) if c]
        self.known(asked, "categories")
        if self.grant.categories is None:
            categories: list[str] | None = asked or None
        elif asked:
            self.authorize("memory.query", categories=expand_categories(asked))
            categories = asked
        else:
            categories = list(self._granted("memory.query"))
        asked_request.update(agent=self.grant.agent, categories=categories)
        query = {k: v for k, v in asked_request.items() if v is not None}
        return self._run(self._engine.memory_query, query, user=reader)

    def revision(self) -> int:
        """The orchestrator's store revision (a counter of writes; no content).

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
        >>> engine.as_caller(Grant("viewer", read_only=True)).revision()
        0
        >>> engine.close()
        """
        return self._engine.store.revision(self._engine.orchestrator)

    def get_nodes(
        self, memory_ids: Sequence[str], *, user: UserScope = None
    ) -> builtins.list[MemoryNode]:
        """The memories with these ids (any status) that the caller may list: in its
        categories and in the scope of the user it reads as (``user``, as :meth:`get`).
        Others are left out, as unknown ids are (never confirmed)."""
        return self._nodes_for(memory_ids, self.by_id_reader(user, "get"))

    def edges_of(
        self, memory_ids: Sequence[str], *, user: UserScope = None
    ) -> builtins.list[MemoryEdge]:
        """The edges of those of these memories the caller may list (as :meth:`get_nodes`),
        between two memories it may list (an edge to one it may not is left out)."""
        engine = self._engine
        reader = self.by_id_reader(user, "get")
        mine = {n.memory_id for n in self._nodes_for(memory_ids, reader)}
        if not mine:
            return []
        edges = self._run(engine.store.edges_of, engine.orchestrator, sorted(mine))
        return builtins.list(self._readable_edges(edges, mine, reader))

    def ingest_layout(self) -> RuntimeLayout | None:
        """Where the drop folder and its manifests are (``None``: an in-memory engine).

        Ingest spans every category, so a category-limited grant is refused."""
        self.authorize("ingest", spans_all=True)
        return self._engine.layout

    # -- context: each for one user (store/scope.py) -----------------------------

    def bulletin(
        self, *, user: UserScope = None, query: str | None = None, reuse: bool = True
    ) -> ctx.Bulletin:
        """:meth:`MemoryEngine.bulletin` for the caller's user (it spans every category)."""
        self.authorize("the bulletin", spans_all=True)
        reader = self.reader(user, "the bulletin")
        return self._run(self._engine.bulletin, user=reader, query=query, reuse=reuse)

    def delta_header(
        self, thread_id: str, *, user: UserScope = None, advance: bool = True
    ) -> ctx.DeltaHeader | None:
        """:meth:`MemoryEngine.delta_header` for the caller's user."""
        self.authorize("the delta header", spans_all=True)
        reader = self.reader(user, "the delta header")
        return self._run(self._engine.delta_header, thread_id, user=reader, advance=advance)

    def for_message(
        self, thread_id: str, *, user: UserScope = None, query: str | None = None
    ) -> ctx.MessageContext:
        """:meth:`MemoryEngine.for_message` for the caller's user."""
        self.authorize("the bulletin", spans_all=True)
        reader = self.reader(user, "the bulletin")
        return self._run(self._engine.for_message, thread_id, user=reader, query=query)

    def context_assembler(self, *, max_project_items: int = 1000) -> ctx.ContextAssembler:
        """:meth:`MemoryEngine.context_assembler` (it spans every category and user)."""
        self.authorize("context_assembler", spans_all=True)
        if self.grant.user is not None:
            self._refuse("user_bound", "context_assembler")
        return self._run(self._engine.context_assembler, max_project_items=max_project_items)

    # -- consent decisions (by id: the scope of a write by id) ----------------------

    def confirm_proposal(
        self, proposal_id: str, *, thread_id: str = "default", user: UserScope = None
    ) -> WriteResult:
        """:meth:`MemoryEngine.confirm_proposal` as this caller, on a proposal in the scope
        of the user it acts as (``user``; :meth:`_decides`): a key bound to no user
        confirms the proposals of the user it names (none: user-less ones only)."""
        self._decides(proposal_id, "confirm_proposal", user)
        return self._run(self._engine.confirm_proposal, proposal_id, thread_id=thread_id)

    def reject_proposal(self, proposal_id: str, *, user: UserScope = None) -> Proposal:
        """:meth:`MemoryEngine.reject_proposal` as this caller, on a proposal in the scope
        of the user it acts as (``user``; as :meth:`confirm_proposal`)."""
        self._decides(proposal_id, "reject_proposal", user)
        return self._run(self._engine.reject_proposal, proposal_id)

    # -- writes of a file's or a proposal's memories, as the caller's agent ---------

    def import_user(self, lines: Iterable[str], *, user_id: str | None = None) -> ImportReport:
        """:meth:`MemoryEngine.import_user` (a write spanning every category, refused to a
        key bound to a user), every memory written as the caller's agent.

        Trigger: an export file names the agents that wrote its memories.
        Why: the façade forces the caller's agent onto what it writes (``add``);
          an import stored the file's agents ("planner") under another agent's key.
        Outcome: written as the caller's agent, whatever the file names (the local
          CLI's ``memvault import`` keeps them).
        """
        forward = self._forwarded("import_user", True, True, "import")
        result: ImportReport = forward(lines, user_id=user_id, agent_id=self.grant.agent)
        return result

    def propose(
        self, /, content: str, *, kind: str = "insight", user_id: str | None = None, **fields: Any
    ) -> ProposalResult:
        """:meth:`MemoryEngine.propose` as this caller: naming another agent
        (``agent_id``) is refused (``agent_mismatch``), as :meth:`add` refuses it —
        a confirmation would store the memory as that agent."""
        self.authorize("proposals", write=True, spans_all=True)
        self._same_agent(fields.get("agent_id"), "proposals")
        forward = self._forwarded("propose", True, True, "proposals")
        result: ProposalResult = forward(content, kind=kind, user_id=user_id, **fields)
        return result

    # -- every other engine method, under its rule ---------------------------------

    stats = _Forward(LifecycleOps.stats, write=False, spans_all=False)
    flush_context_events = _Forward(ContextOps.flush_context_events, write=False, spans_all=False)
    proposals = _Forward(LifecycleOps.proposals, write=False, spans_all=True)
    export_user = _Forward(LifecycleOps.export_user, write=False, spans_all=True)
    verify_audit = _Forward(LifecycleOps.verify_audit, write=False, spans_all=True)
    audit_anchor = _Forward(LifecycleOps.audit_anchor, write=False, spans_all=True)
    capture_message = _writes_all(CaptureOps.capture_message, "capture")
    capture_workflow_output = _writes_all(CapturePipeline.capture_workflow_output, "capture")
    capture_diagnostics = _writes_all(CapturePipeline.capture_diagnostics, "capture")
    ingest_pending = _writes_all(LifecycleOps.ingest_pending, "ingest")
    propose_insights = _writes_all(LifecycleOps.propose_insights, "proposals")
    run_lifecycle = _writes_all(LifecycleOps.run_lifecycle)
    consolidate = _writes_all(LifecycleOps.consolidate)
    forget_user = _writes_all(LifecycleOps.forget_user)
    record_event = _writes_all(LifecycleOps.record_event)
    backfill_embeddings = _writes_all(Reader.backfill_embeddings)

    def _forwarded(
        self, name: str, write: bool, spans_all: bool, operation: str
    ) -> Callable[..., Any]:
        """The engine method ``name``, authorised by its rule and run as the caller's agent."""
        method = getattr(self._engine, name)
        bound = self.grant.user is not None

        def as_caller(*args: Any, **kwargs: Any) -> Any:
            self.authorize(operation, write=write, spans_all=spans_all)
            # Trigger: a grant bound to one user reaches an engine method without
            #          a user scope of its own.
            # Why: it could read or write another user's memories (store/scope.py).
            # Outcome: refused unless it acts for one user, then for the grant's.
            if bound and name not in _BOUND_FORWARDS:
                self._refuse("user_bound", name)
            # the engine method's own signature: after the grant's rules (a refused
            # caller learns nothing of the arguments), before _for_user reads them
            check_call(getattr(type(self._engine), name), args, kwargs)
            if bound:
                args, kwargs = self._for_user(name, args, kwargs)
            elif name == "proposals" and not self.grant.all_users and not kwargs.get("user_id"):
                # Trigger: a key bound to no user, without --all-users, lists consent
                #   proposals naming no user.
                # Why: it reads as the user it names (``reader``); naming none listed
                #   every user's proposals (their inferred personal data) while its
                #   memory listings and bulletins held shared ones only.
                # Outcome: the user-less proposals only (the store filters by equality,
                #   so the few proposals of a consent queue are narrowed here).
                found = self._run(method, *args, **kwargs)
                return [p for p in found if p.user_id is None]
            return self._run(method, *args, **kwargs)

        return as_caller

    if not TYPE_CHECKING:  # type checkers see the declared surface only

        def __getattr__(self, name: str) -> Any:
            """Any engine method not declared above, as a spanning write (fail closed);
            no other engine attribute (AttributeError).

            Trigger: the engine gains a method the façade does not declare yet.
            Why: every call must still be authorised in one place, and fail closed.
            Outcome: it needs a writable grant without a category allowlist.
            """
            if name in _WITHHELD or name.startswith("_"):
                raise AttributeError(f"{name!r} is not available on a caller's façade")
            value = getattr(self._engine, name)
            if not callable(value) or isinstance(value, type):
                # Trigger: a non-method attribute (store, core, layout, config …).
                # Why: it would hand the caller the engine's objects, read without any grant.
                # Outcome: absent, exactly as an unknown name is.
                raise AttributeError(f"{name!r} is not available on a caller's façade")
            return self._forwarded(name, True, True, name)


# Trigger: a caller's façade method is called with a wrong type (``get(5)``,
#   ``list_memories(limit="5")``).
# Why: it failed deep inside with a TypeError or AttributeError, not as bad input.
# Outcome: every public method written above (or in CallerReads) checks its arguments
#   against its own signature first (engine/_args.py, the one place), as the engine's
#   methods do; the checked method is set on Caller, whose surface it is.
for _name, _function in list({**vars(CallerReads), **vars(Caller)}.items()):
    if not _name.startswith("_") and inspect.isfunction(_function):
        setattr(Caller, _name, checked_method(_function))
