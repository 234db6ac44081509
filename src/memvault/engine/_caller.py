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
>>> from memvault.engine import MemoryEngine
>>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
>>> planner = engine.as_caller(Grant("planner", frozenset({"TODO"})))
>>> planner.add("Write the tests", type="Todo", category="TODO", ttl_class="MEDIUM",
...             source_kind="USER_EXPLICIT").ok
True
>>> planner.add("Prefers tea", type="Preference", category="PREFERENCE",
...             source_kind="USER_EXPLICIT")
Traceback (most recent call last):
...
memvault.errors.AccessDeniedError: agent 'planner' may not use category PREFERENCE
>>> engine.close()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memvault.engine._base import _unpack
from memvault.errors import AccessDeniedError
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryNode
from memvault.results import MemoryView, SearchResults, WriteResult
from memvault.store.base import HistoryEvent, NodeFilter
from memvault.write.spec import MemoryPatch, NewMemory

if TYPE_CHECKING:
    from memvault.engine._sync import MemoryEngine

    # Type checkers see every engine method on the façade (it forwards them).
    _Face = MemoryEngine
else:
    _Face = object

__all__ = ["Caller", "CallerGrant", "DenyHook", "Grant"]


class CallerGrant(Protocol):
    """Who calls and what they may do (``access.Principal`` is one)."""

    @property
    def agent(self) -> str: ...

    @property
    def categories(self) -> frozenset[str] | None: ...

    @property
    def read_only(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Grant:
    """A plain grant: an agent, its categories (``None`` = all), read-only or not."""

    agent: str
    categories: frozenset[str] | None = None
    read_only: bool = False


#: ``on_deny(grant, reason, operation, categories)`` — audit a denial before it is raised.
DenyHook = Callable[[CallerGrant, str, str, tuple[str, ...]], None]

_MESSAGES = {
    "read_only": "the key of agent {agent!r} is read-only",
    "category_not_allowed": "agent {agent!r} may not use categor{plural} {cats}",
    "category_allowlist": "{op} spans every category; the key of agent {agent!r} is "
    "limited to {limited}",
}


class Caller(_Face):
    """The engine's typed methods for one caller, each authorised in :meth:`authorize`."""

    def __init__(
        self, engine: MemoryEngine, grant: CallerGrant, *, on_deny: DenyHook | None = None
    ) -> None:
        self.engine = engine
        self.grant = grant
        self.on_deny = on_deny

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
        if self.on_deny is not None:
            self.on_deny(grant, reason, operation, refused)
        detail = _MESSAGES[reason].format(
            agent=grant.agent,
            plural="y" if len(refused) == 1 else "ies",
            cats=", ".join(refused),
            op=operation,
            limited=", ".join(sorted(grant.categories or ())),
        )
        raise AccessDeniedError(grant.agent, reason, categories=refused, detail=detail)

    def _held(self, filters: NodeFilter | Mapping[str, Any] | None) -> NodeFilter:
        """The caller's filters, held to its categories (asked ones checked)."""
        flt = self.engine._filters(filters)
        if flt.category is not None:
            self.authorize("read", categories=flt.category)
        elif self.grant.categories is not None:
            flt = flt.model_copy(update={"category": tuple(sorted(self.grant.categories))})
        return flt

    # -- writes ------------------------------------------------------------------

    def add(self, content: str | NewMemory, **fields: Any) -> WriteResult:
        """:meth:`MemoryEngine.add` as this caller (its agent is the memory's agent)."""
        content, fields = _unpack(content, fields)
        self.authorize("add", write=True, categories=[fields.get("category")])
        with self.engine.acting(self.grant.agent):
            return self.engine.add(content, **{**fields, "agent_id": self.grant.agent})

    def update(
        self, memory_id: str, patch: MemoryPatch | None = None, **changes: Any
    ) -> WriteResult:
        """:meth:`MemoryEngine.update` of a memory in the caller's categories."""
        if patch is not None:
            changes = {**patch.changes(), **changes}
        self.authorize("update", write=True)
        node = self._node(memory_id, "update")
        self.authorize("update", write=True, categories=[node.category, changes.get("category")])
        with self.engine.acting(self.grant.agent):
            return self.engine.update(memory_id, **changes)

    def delete(self, memory_id: str, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.delete` of a memory in the caller's categories."""
        self.authorize("delete", write=True)
        self.authorize("delete", write=True, categories=[self._node(memory_id, "delete").category])
        with self.engine.acting(self.grant.agent):
            return self.engine.delete(memory_id, **options)

    def restore(self, memory_id: str, **options: Any) -> WriteResult:
        """:meth:`MemoryEngine.restore` of a memory in the caller's categories."""
        self.authorize("restore", write=True)
        node = self._node(memory_id, "restore", include_deleted=True)
        self.authorize("restore", write=True, categories=[node.category])
        with self.engine.acting(self.grant.agent):
            return self.engine.restore(memory_id, **options)

    def link(
        self, from_id: str, to_id: str, edge_type: EdgeType | str, **options: Any
    ) -> WriteResult:
        """:meth:`MemoryEngine.link` between two memories in the caller's categories."""
        self.authorize("link", write=True)
        cats = [self._node(from_id, "link").category, self._node(to_id, "link").category]
        self.authorize("link", write=True, categories=cats)
        with self.engine.acting(self.grant.agent):
            return self.engine.link(from_id, to_id, edge_type, **options)

    # -- reads -------------------------------------------------------------------

    def get(self, memory_id: str, *, include_deleted: bool = False) -> MemoryView:
        """:meth:`MemoryEngine.get`, for a memory in the caller's categories."""
        with self.engine.acting(self.grant.agent):
            view = self.engine.get(memory_id, include_deleted=include_deleted)
        self.authorize("get", categories=[view.node.category])
        return view

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """:meth:`MemoryEngine.history` of a memory in the caller's categories."""
        node = self._node(memory_id, "history", include_deleted=True)
        self.authorize("history", categories=[node.category])
        with self.engine.acting(self.grant.agent):
            return self.engine.history(memory_id)

    def search(
        self, query: str, *, filters: NodeFilter | Mapping[str, Any] | None = None, **options: Any
    ) -> SearchResults:
        """:meth:`MemoryEngine.search` within the caller's categories."""
        flt = self._held(filters)
        with self.engine.acting(self.grant.agent):
            return self.engine.search(query, filters=flt, **options)

    def list_memories(
        self, filters: NodeFilter | Mapping[str, Any] | None = None, **options: Any
    ) -> list[MemoryNode]:
        """:meth:`MemoryEngine.list_memories` within the caller's categories."""
        flt = self._held(filters)
        with self.engine.acting(self.grant.agent):
            return self.engine.list_memories(flt, **options)

    # -- everything else ----------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        """Any other engine attribute; a method runs as the caller's agent.

        Trigger: interfaces still reach engine methods the façade does not type
        yet (bulletin, capture, ingest, proposals — their edges authorise them).
        Why: one engine per orchestrator, no copies; the agent must still be right.
        Outcome: the engine's attribute, methods wrapped in :meth:`MemoryEngine.acting`.
        """
        value = getattr(self.engine, name)
        if not callable(value) or name.startswith("_"):
            return value

        def as_caller(*args: Any, **kwargs: Any) -> Any:
            with self.engine.acting(self.grant.agent):
                return value(*args, **kwargs)

        return as_caller

    def _node(self, memory_id: str, operation: str, *, include_deleted: bool = False) -> MemoryNode:
        with self.engine.acting(self.grant.agent):
            return self.engine._load(memory_id, operation, include_deleted=include_deleted)
