"""What a caller may do: the one place every call of its façade is authorised.

:class:`CallerRules` holds a caller's engine and grant and decides each call
(:meth:`CallerRules.authorize`: read-only grant, category allowlist, calls
that span every category; :meth:`CallerRules.reader`: whose memories a read
serves), refusing through the ``on_deny`` hook. :class:`~memvault.engine._caller.Caller`
is the façade built on it: the engine's typed methods, each one call here and
one run of the engine method as the caller's agent.

>>> import tempfile
>>> from memvault.engine import Grant, MemoryEngine
>>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
>>> rules = CallerRules(engine, Grant("viewer", read_only=True))
>>> rules.authorize("search")
>>> rules.authorize("add", write=True)
Traceback (most recent call last):
...
memvault.errors.AccessDeniedError: the key of agent 'viewer' is read-only
>>> engine.close()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from memvault.context.query import expand_categories
from memvault.engine._grant import _MESSAGES, CallerGrant, DenyHook
from memvault.errors import AccessDeniedError, MemoryNotFoundError, ValidationFailed
from memvault.lifecycle.consent import ProposalError
from memvault.model.node import MemoryNode
from memvault.model.validation import clean_user_id
from memvault.store.base import NodeFilter
from memvault.store.scope import ALL_USERS, UserScope, can_see, scoped

if TYPE_CHECKING:
    from memvault.engine._sync import MemoryEngine

__all__ = ["CallerRules"]

T = TypeVar("T")


class CallerRules:
    """A caller's engine and grant, and the rules every call of its façade passes."""

    __slots__ = ("_engine", "_on_deny", "grant")

    def __init__(
        self, engine: MemoryEngine, grant: CallerGrant, *, on_deny: DenyHook | None = None
    ) -> None:
        self._engine = engine
        self.grant = grant
        self._on_deny = on_deny

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
        if isinstance(user, str):
            user = clean_user_id(user, "user")  # 'dana ' is 'dana'
        bound = self.grant.user
        if bound is not None:
            if user is ALL_USERS or user not in (None, bound):
                self._refuse("other_user", operation)
            return bound
        if user is ALL_USERS and not self.grant.all_users:
            self._refuse("all_users", operation)
        return user

    def by_id_reader(self, user: UserScope = None, operation: str = "read") -> UserScope:
        """Whose memories a read by id may answer: the scope the caller can list.

        Trigger: a read that names a memory (``get``, ``history``, one memory's
        audit events, the memories and edges around it).
        Why: a listing of a key bound to no user holds shared memories only unless
          it names a user, but a read by id answered any user's memory to it.
        Outcome: as :meth:`reader` — a bound grant reads as its user, an unbound one
          as the user it names (none: shared memories only) — except that a grant
          with ``all_users`` naming no user reads the orchestrator-wide view, as its
          listings do. A memory outside the scope is answered like an unknown id.
        """
        if user is None and self.grant.user is None and self.grant.all_users:
            return ALL_USERS
        return self.reader(user, operation)

    def _own(self, user_id: Any, operation: str) -> Any:
        """The user a write of a bound grant belongs to: its own (another is refused)."""
        if isinstance(user_id, str):
            user_id = clean_user_id(user_id)  # 'dana ' is 'dana'
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

    def by_id_writer(self, user: UserScope = None, operation: str = "update") -> UserScope:
        """Whose memories a write by id may change: the scope of :meth:`by_id_reader`.

        Trigger: a write that names a stored memory (update, retract, delete,
          restore, supersede, link).
        Why: a key bound to no user lists shared memories only unless it names a
          user, yet it could rewrite any user's memory by id.
        Outcome: the reader scope of the same call; a grant bound to a user is
          further kept off shared memories (:meth:`_node`, ``write=True``).
        """
        return self.by_id_reader(user, operation)

    def _updatable(self, memory_id: str, category: str | None, user: UserScope = None) -> None:
        """The caller may write, the memory is in its categories and its scope (``user``:
        :meth:`by_id_writer`), and so is its new category."""
        self.authorize("update", write=True)
        node = self._node(memory_id, "update", reader=self.by_id_writer(user, "update"), write=True)
        self.authorize("update", write=True, categories=[node.category, category])

    def _write_on(
        self,
        operation: str,
        memory_ids: Sequence[str],
        *,
        include_deleted: bool = False,
        user: UserScope = None,
    ) -> None:
        """A write that changes stored memories: writable, and each in the caller's
        categories and its scope (``user``: :meth:`by_id_writer`)."""
        self.authorize(operation, write=True)
        writer = self.by_id_writer(user, operation)
        for memory_id in memory_ids:
            node = self._node(
                memory_id, operation, include_deleted=include_deleted, reader=writer, write=True
            )
            self.authorize(operation, write=True, categories=[node.category])

    def _readable(self, node: MemoryNode, reader: UserScope) -> bool:
        granted = self.grant.categories
        if granted is not None and node.category.upper() not in granted:
            return False
        return can_see(reader, node.user_id)

    def _for_user(
        self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments of a bound grant's call, acting for the grant's user only."""
        if name == "capture_message" and (args or "message" in kwargs):
            # the message by position or by keyword: either way it is the grant's user's
            message = args[0] if args else kwargs.pop("message")
            data = dict(message) if isinstance(message, Mapping) else message.model_dump()
            data["user_id"] = self._own(data.get("user_id"), name)
            args = (data, *args[1:])
        elif name in ("capture_workflow_output", "capture_diagnostics", "proposals"):
            kwargs["user_id"] = self._own(kwargs.get("user_id"), name)
        elif name in ("export_user", "forget_user"):
            owner = args[0] if args else kwargs.pop("user_id", None)
            args = (self._own(owner, name), *args[1:])
        return args, kwargs

    def _node(
        self,
        memory_id: str,
        operation: str,
        *,
        include_deleted: bool = False,
        reader: UserScope = ALL_USERS,
        write: bool = False,
    ) -> MemoryNode:
        """The memory ``memory_id`` if ``reader`` may see it (a grant bound to a user:
        never beyond that user); else :class:`MemoryNotFoundError`, logged as a scope miss.

        Reads pass :meth:`by_id_reader`'s scope, writes :meth:`by_id_writer`'s with
        ``write=True``: a grant bound to a user may not change a shared memory.
        """
        node = self._run(
            self._engine.core.load, memory_id, operation, include_deleted=include_deleted
        )
        if not self._in_scope(reader, node.user_id, write=write):
            # Another user's memory is answered like an unknown id (never confirmed),
            # and the attempt is logged like any scope miss.
            self._scope_miss(operation, memory_id=memory_id[:128])
            raise MemoryNotFoundError(memory_id, self._engine.orchestrator)
        return node

    def _in_scope(self, reader: UserScope, owner: str | None, *, write: bool) -> bool:
        """Whether a caller acting as ``reader`` may see (``write``: change) what ``owner``
        owns — a memory, or a consent proposal (:meth:`_decides`)."""
        bound = self.grant.user
        return not (
            not can_see(reader, owner)
            or (bound is not None and not can_see(bound, owner))
            # Trigger: a key bound to a user writes a shared memory (user_id null).
            # Why: every user's bulletin and query show it (cross-user poisoning);
            #   shared memories are changed by unbound keys, --all-users keys or the CLI.
            # Outcome: not found, like a write on another user's memory.
            or (write and bound is not None and owner is None)
        )

    def _scope_miss(self, operation: str, **named: str) -> None:
        self._engine.core.log_event("warning", "scope_miss", operation=operation, **named)

    def _decides(self, proposal_id: str, operation: str, user: UserScope = None) -> None:
        """A consent decision (confirm, reject) on a proposal in the caller's scope.

        Trigger: ``confirm_proposal`` / ``reject_proposal`` name a proposal by id.
        Why: a key bound to no user lists the user-less proposals only unless it
          names a user, yet it could confirm or reject any user's proposal by id
          (and a confirmation writes that user's memory).
        Outcome: the scope of a write by id (:meth:`by_id_writer`): a grant bound to
          a user decides its user's proposals only; an unbound key those of the user
          it names (none: user-less proposals; ``all_users`` naming none: every
          user's). A proposal outside it is answered like an unknown id
          (:class:`ProposalError` "does not exist", HTTP 404), logged as a scope miss.
        """
        self.authorize("proposals", write=True, spans_all=True)
        writer = self.by_id_writer(user, operation)
        core = self._engine.core
        found = core.store.proposals(core.orchestrator, proposal_id=proposal_id, limit=1)
        if found and not self._in_scope(writer, found[0].user_id, write=True):
            self._scope_miss(operation, proposal_id=proposal_id[:128])
            raise ProposalError(proposal_id, "does not exist in this orchestrator")
