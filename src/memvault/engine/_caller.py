"""One façade per caller: the engine as one agent with one grant sees it.

:meth:`MemoryEngine.as_caller` returns a :class:`Caller` with the engine's
typed methods. Every call is authorised in ONE place, :meth:`Caller.authorize`
(read-only grant, category allowlist, calls that span every category), runs
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
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from memvault import context as ctx
from memvault.context.query import MemoryQuery, QueryResult, expand_categories
from memvault.engine._capture import CaptureOps
from memvault.engine._context import ContextOps
from memvault.engine._core import _unpack
from memvault.engine._grant import (
    _BOUND_FORWARDS,
    _MESSAGES,
    _WITHHELD,
    CallerGrant,
    DenyHook,
    Grant,
    _Forward,
)
from memvault.engine._lifecycle import LifecycleOps
from memvault.engine._reads import Reader
from memvault.engine._writes import KEYWORD_ADD_DEPRECATED, KEYWORD_UPDATE_DEPRECATED
from memvault.errors import AccessDeniedError, MemoryNotFoundError, ValidationFailed
from memvault.layout import RuntimeLayout
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.results import MemoryView, SearchResults, WriteResult
from memvault.store.base import HistoryEvent, NodeFilter
from memvault.store.records import AuditHead
from memvault.store.scope import ALL_USERS, UserScope, can_see, scoped
from memvault.write import CapturePipeline
from memvault.write.spec import MemoryPatch, NewMemory

if TYPE_CHECKING:
    from memvault.engine._sync import MemoryEngine

__all__ = ["Caller", "CallerGrant", "DenyHook", "Grant"]

#: ``add``'s keywords besides the memory (how to write it, not what).
_ADD_OPTIONS = frozenset({"thread_id", "index_text", "vector", "vector_model"})

T = TypeVar("T")


class Caller:
    """The engine's typed methods for one caller, each authorised in :meth:`authorize`.

    Nothing else of the engine is reachable through it: no store, no core, no
    settings — only the methods (written here, or an engine method under its
    rule, :class:`_Forward`) and two read-only attributes, :attr:`orchestrator`
    and :attr:`categories`; any other name raises :class:`AttributeError`.
    Type checkers see exactly this surface (it is not typed as the engine).
    """

    __slots__ = ("_engine", "_on_deny", "grant")

    def __init__(
        self, engine: MemoryEngine, grant: CallerGrant, *, on_deny: DenyHook | None = None
    ) -> None:
        self._engine = engine
        self.grant = grant
        self._on_deny = on_deny

    @property
    def orchestrator(self) -> str:
        """The orchestrator this caller's engine serves."""
        return self._engine.orchestrator

    @property
    def categories(self) -> frozenset[str]:
        """The categories the engine's contract names (not the grant's: see ``grant``)."""
        return self._engine.categories

    # -- the one place -----------------------------------------------------------

    def authorize(
        self,
        operation: str,
        *,
        write: bool = False,
        categories: Iterable[str | None] = (),
        spans_all: bool = False,
    ) -> None:
        """Allow the call or raise :class:`AccessDeniedError` (audited through ``on_deny``).

        ``write``: needs a writable grant; ``categories``: each must be granted;
        ``spans_all``: the call touches categories it cannot name up front
        (bulletin, capture, ingest), so a category-limited grant is refused.
        """
        grant = self.grant
        reason = ""
        refused: tuple[str, ...] = ()
        if write and grant.read_only:
            reason = "read_only"
        elif spans_all and grant.categories is not None:
            reason = "category_allowlist"
        elif grant.categories is not None:
            refused = tuple(
                sorted({c.upper() for c in categories if c and c.upper() not in grant.categories})
            )
            reason = "category_not_allowed" if refused else ""
        if not reason:
            return
        self._refuse(reason, operation, refused)

    def _same_agent(self, named: object, operation: str) -> None:
        """A request may name no agent or the caller's own; another is refused.

        Trigger: a body's ``agent_id`` (a memory) or ``agent`` (memory.query).
        Why: the agent comes from the key; acting as another agent is forbidden,
        not silently rewritten (every edge answers it the same way).
        Outcome: ``agent_mismatch`` (HTTP 403 ``agent-mismatch``), audited.
        """
        if named not in (None, self.grant.agent):
            self._refuse("agent_mismatch", operation)

    def _refuse(self, reason: str, operation: str, refused: tuple[str, ...] = ()) -> NoReturn:
        grant = self.grant
        if self._on_deny is not None:
            self._on_deny(grant, reason, operation, refused)
        detail = _MESSAGES[reason].format(
            agent=grant.agent,
            plural="y" if len(refused) == 1 else "ies",
            cats=", ".join(refused),
            op=operation,
            limited=", ".join(sorted(grant.categories or ())),
            user=grant.user,
        )
        raise AccessDeniedError(grant.agent, reason, categories=refused, detail=detail)

    # -- whose memories (store/scope.py) ----------------------------------------------

    def reader(self, user: UserScope = None, operation: str = "read") -> UserScope:
        """Whom a read serves: the grant's user when it is bound to one, else ``user``.

        Trigger: every read that builds context or answers a query (bulletin, delta
        header, for_message, memory.query) and every read of a bound grant.
        Why: a user's turn never sees another user's memories, and the
        orchestrator-wide view is a named permission, never a default.
        Outcome: a bound grant reads as its user (naming another user, or
        :data:`ALL_USERS`, is refused and audited); an unbound grant reads as the
        user it names (``None``: shared memories only) and sees every user's only
        with ``all_users`` granted (``memvault keys create --all-users``).
        """
        bound = self.grant.user
        if bound is not None:
            if user is ALL_USERS or user not in (None, bound):
                self._refuse("other_user", operation)
            return bound
        if user is ALL_USERS and not self.grant.all_users:
            self._refuse("all_users", operation)
        return user

    def _own(self, user_id: Any, operation: str) -> Any:
        """The user a write of a bound grant belongs to: its own (another is refused)."""
        bound = self.grant.user
        if bound is None:
            return user_id
        if user_id not in (None, bound):
            self._refuse("other_user", operation)
        return bound

    def known(self, categories: Iterable[str], field: str = "category") -> None:
        """Raise :class:`ValidationFailed` for a category the engine's contract does not name.

        Trigger: a read asks for a category no memory can have (a typo, a made-up name).
        Why: an empty success would read as "nothing stored" — the caller must learn
             that the name is wrong.
        Outcome: SCHEMA_INVALID naming the unknown categories and the known ones.
        """
        known = self._engine.categories
        unknown = sorted({c for c in categories if c and not expand_categories([c]) <= known})
        if unknown:
            raise ValidationFailed(
                f"unknown category: {', '.join(unknown)}",
                errors=tuple((field, f"unknown category {c!r}") for c in unknown),
                hint=f"use one of {', '.join(sorted(known))} (or an alias such as 'tasks')",
            )

    def _held(self, filters: NodeFilter | Mapping[str, Any] | None) -> NodeFilter:
        """The caller's filters, held to its categories (asked ones checked) and its user."""
        flt = self._engine.core.filters(filters)
        if flt.category is not None:
            self.known(flt.category)
            self.authorize("read", categories=flt.category)
        elif self.grant.categories is not None:
            flt = flt.model_copy(update={"category": self._granted("read")})
        bound = self.grant.user
        if bound is not None:
            flt = scoped(flt, bound)
        elif not self.grant.all_users and flt.user_id is None and flt.visible_to is None:
            # Trigger: a key bound to no user, without --all-users, lists or searches
            #   naming no user (neither ``user_id`` nor a ``visible_to`` scope).
            # Why: such a key reads as the user it names (``reader``); naming none
            #   listed every user's memories while the bulletin and query of the
            #   same key saw shared ones only.
            # Outcome: shared memories only, as its other reads.
            flt = scoped(flt, None)
        return flt

    def _granted(self, operation: str) -> tuple[str, ...]:
        """The grant's categories, sorted; a grant of none may read nothing (fail closed).

        Trigger: a key's categories and the configured allowlist may not intersect.
        Why: an empty category filter would read as "no filter" — every category.
        Outcome: refused, as a call that spans every category is.
        """
        granted = tuple(sorted(self.grant.categories or ()))
        if not granted:
            self.authorize(operation, spans_all=True)
        return granted

    def _run(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with self._engine.acting(self.grant.agent):
            return method(*args, **kwargs)

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

    def memory_patch(self, memory_id: str, changes: Mapping[str, Any]) -> MemoryPatch | WriteResult:
        """:meth:`MemoryEngine.memory_patch` of a memory in the caller's categories."""
        self._updatable(memory_id, changes.get("category"))
        return self._run(self._engine.memory_patch, memory_id, changes)

    def update(
        self, memory_id: str, patch: MemoryPatch | None = None, **changes: Any
    ) -> WriteResult:
        """:meth:`MemoryEngine.update` of a memory in the caller's categories."""
        if changes:
            warnings.warn(KEYWORD_UPDATE_DEPRECATED, DeprecationWarning, stacklevel=2)
            parsed = self.memory_patch(memory_id, {**(patch.changes() if patch else {}), **changes})
            if isinstance(parsed, WriteResult):
                return parsed
            patch = parsed
        patch = patch or MemoryPatch()
        self._updatable(memory_id, patch.category)
        return self._run(self._engine.update, memory_id, patch)

    def _updatable(self, memory_id: str, category: str | None) -> None:
        """The caller may write, the memory is in its categories, and so is its new one."""
        self.authorize("update", write=True)
        node = self._node(memory_id, "update")
        self.authorize("update", write=True, categories=[node.category, category])

    def _write_on(
        self, operation: str, memory_ids: Sequence[str], *, include_deleted: bool = False
    ) -> None:
        """A write that changes stored memories: writable, and each in the caller's categories."""
        self.authorize(operation, write=True)
        for memory_id in memory_ids:
            node = self._node(memory_id, operation, include_deleted=include_deleted)
            self.authorize(operation, write=True, categories=[node.category])

    def delete(self, memory_id: str, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.delete` of a memory in the caller's categories."""
        self._write_on("delete", [memory_id], include_deleted=bool(options.get("idempotent")))
        return self._run(self._engine.delete, memory_id, **options)

    def restore(self, memory_id: str, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.restore` of a memory in the caller's categories."""
        self._write_on("restore", [memory_id], include_deleted=True)
        return self._run(self._engine.restore, memory_id, **options)

    def supersede(self, memory_id: str, *, by: str, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.supersede`: both memories in the caller's categories."""
        self._write_on("supersede", [memory_id, by])
        return self._run(self._engine.supersede, memory_id, by=by, **options)

    def retract(self, memory_id: str, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.retract` of a memory in the caller's categories."""
        self._write_on("retract", [memory_id])
        return self._run(self._engine.retract, memory_id, **options)

    def link(
        self, from_id: str, to_id: str, edge_type: EdgeType | str, **options: Any
    ) -> WriteResult:
        """:meth:`MemoryEngine.link` between two memories in the caller's categories."""
        self._write_on("link", [from_id, to_id])
        return self._run(self._engine.link, from_id, to_id, edge_type, **options)

    # -- reads -------------------------------------------------------------------

    def get(self, memory_id: str, *, include_deleted: bool = False) -> MemoryView:
        """:meth:`MemoryEngine.get`, for a memory in the caller's categories (and user)."""
        if self.grant.user is not None:
            self._node(memory_id, "get", include_deleted=include_deleted)
        view = self._run(self._engine.get, memory_id, include_deleted=include_deleted)
        self.authorize("get", categories=[view.node.category])
        return view

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """:meth:`MemoryEngine.history` of a memory in the caller's categories."""
        node = self._node(memory_id, "history", include_deleted=True)
        self.authorize("history", categories=[node.category])
        return self._run(self._engine.history, memory_id)

    def audit_events(self, *, memory_id: str | None = None, **options: Any) -> list[HistoryEvent]:
        """:meth:`MemoryEngine.audit_events`: one memory's in the caller's categories, or all
        of them for a grant without a category allowlist."""
        if memory_id is None:
            self.authorize("audit events", spans_all=True)
            if self.grant.user is not None:
                self._refuse("user_bound", "audit events")
        else:
            node = self._node(memory_id, "audit events", include_deleted=True)
            self.authorize("audit events", categories=[node.category])
        return self._run(self._engine.audit_events, memory_id=memory_id, **options)

    def search(
        self, query: str, *, filters: NodeFilter | Mapping[str, Any] | None = None, **options: Any
    ) -> SearchResults:
        """:meth:`MemoryEngine.search` within the caller's categories."""
        return self._run(self._engine.search, query, filters=self._held(filters), **options)

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

    def _readable(self, node: MemoryNode) -> bool:
        granted = self.grant.categories
        if granted is not None and node.category.upper() not in granted:
            return False
        bound = self.grant.user
        return bound is None or can_see(bound, node.user_id)

    def get_nodes(self, memory_ids: Sequence[str]) -> builtins.list[MemoryNode]:
        """The memories with these ids (any status) that the grant may read: in its
        categories and, for a grant bound to a user, that user's or shared ones.
        Others are left out, as unknown ids are (never confirmed)."""
        engine = self._engine
        found = self._run(engine.store.get_nodes, engine.orchestrator, list(memory_ids))
        return [n for n in found if self._readable(n)]

    def edges_of(self, memory_ids: Sequence[str]) -> builtins.list[MemoryEdge]:
        """The edges of those of these memories the grant may read, between two memories
        it may read (an edge to a memory it may not read is left out)."""
        engine = self._engine
        mine = {n.memory_id for n in self.get_nodes(memory_ids)}
        if not mine:
            return []
        edges = self._run(engine.store.edges_of, engine.orchestrator, sorted(mine))
        ends = {e.from_memory_id for e in edges} | {e.to_memory_id for e in edges}
        readable = mine | {n.memory_id for n in self.get_nodes(sorted(ends - mine))}
        return [e for e in edges if {e.from_memory_id, e.to_memory_id} <= readable]

    def audit_head(self) -> AuditHead:
        """The head of the audit chain (events, hash): spans every category and user."""
        self.authorize("audit", spans_all=True)
        if self.grant.user is not None:
            self._refuse("user_bound", "audit")
        return self._engine.store.audit_head(self._engine.orchestrator)

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

    # -- every other engine method, under its rule ---------------------------------

    stats = _Forward(LifecycleOps.stats, write=False, spans_all=False)
    flush_context_events = _Forward(ContextOps.flush_context_events, write=False, spans_all=False)
    proposals = _Forward(LifecycleOps.proposals, write=False, spans_all=True)
    export_user = _Forward(LifecycleOps.export_user, write=False, spans_all=True)
    verify_audit = _Forward(LifecycleOps.verify_audit, write=False, spans_all=True)
    audit_anchor = _Forward(LifecycleOps.audit_anchor, write=False, spans_all=True)
    capture_message = _Forward(
        CaptureOps.capture_message, write=True, spans_all=True, operation="capture"
    )
    capture_workflow_output = _Forward(
        CapturePipeline.capture_workflow_output, write=True, spans_all=True, operation="capture"
    )
    capture_diagnostics = _Forward(
        CapturePipeline.capture_diagnostics, write=True, spans_all=True, operation="capture"
    )
    ingest_pending = _Forward(
        LifecycleOps.ingest_pending, write=True, spans_all=True, operation="ingest"
    )
    propose = _Forward(LifecycleOps.propose, write=True, spans_all=True, operation="proposals")
    propose_insights = _Forward(
        LifecycleOps.propose_insights, write=True, spans_all=True, operation="proposals"
    )
    confirm_proposal = _Forward(
        LifecycleOps.confirm_proposal, write=True, spans_all=True, operation="proposals"
    )
    reject_proposal = _Forward(
        LifecycleOps.reject_proposal, write=True, spans_all=True, operation="proposals"
    )
    run_lifecycle = _Forward(LifecycleOps.run_lifecycle, write=True, spans_all=True)
    consolidate = _Forward(LifecycleOps.consolidate, write=True, spans_all=True)
    forget_user = _Forward(LifecycleOps.forget_user, write=True, spans_all=True)
    record_event = _Forward(LifecycleOps.record_event, write=True, spans_all=True)
    backfill_embeddings = _Forward(Reader.backfill_embeddings, write=True, spans_all=True)

    def _forwarded(
        self, name: str, write: bool, spans_all: bool, operation: str
    ) -> Callable[..., Any]:
        """The engine method ``name``, authorised by its rule and run as the caller's agent."""
        method = getattr(self._engine, name)
        bound = self.grant.user is not None

        def as_caller(*args: Any, **kwargs: Any) -> Any:
            self.authorize(operation, write=write, spans_all=spans_all)
            if bound:
                # Trigger: a grant bound to one user reaches an engine method without
                #          a user scope of its own.
                # Why: it could read or write another user's memories (store/scope.py).
                # Outcome: refused unless it acts for one user, then for the grant's.
                if name not in _BOUND_FORWARDS:
                    self._refuse("user_bound", name)
                args, kwargs = self._for_user(name, args, kwargs)
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

    def _for_user(
        self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments of a bound grant's call, acting for the grant's user only."""
        if name == "capture_message" and args:
            message = args[0]
            data = dict(message) if isinstance(message, Mapping) else message.model_dump()
            data["user_id"] = self._own(data.get("user_id"), name)
            args = (data, *args[1:])
        elif name in ("capture_workflow_output", "capture_diagnostics", "proposals"):
            kwargs["user_id"] = self._own(kwargs.get("user_id"), name)
        elif name in ("export_user", "forget_user"):
            owner = args[0] if args else kwargs.pop("user_id", None)
            args = (self._own(owner, name), *args[1:])
        elif name in ("confirm_proposal", "reject_proposal"):
            wanted = args[0] if args else kwargs.get("proposal_id")
            mine = self._run(self._engine.proposals, user_id=self.grant.user)
            if not any(p.proposal_id == wanted for p in mine):
                self._refuse("other_user", name)
        return args, kwargs

    def _node(self, memory_id: str, operation: str, *, include_deleted: bool = False) -> MemoryNode:
        node = self._run(
            self._engine.core.load, memory_id, operation, include_deleted=include_deleted
        )
        bound = self.grant.user
        if bound is not None and not can_see(bound, node.user_id):
            # Another user's memory is answered like an unknown id (never confirmed),
            # and the attempt is logged like any scope miss.
            self._engine.core.log_event(
                "warning", "scope_miss", operation=operation, memory_id=memory_id[:128]
            )
            raise MemoryNotFoundError(memory_id, self._engine.orchestrator)
        return node
