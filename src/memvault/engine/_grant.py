"""Who calls the engine and under which rule: the grant, and the rule of each engine
method the caller's façade forwards (:class:`~memvault.engine._caller.Caller`).

>>> Grant("planner", frozenset({"TODO"})).read_only
False
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from memvault.engine._caller import Caller

__all__ = ["CallerGrant", "DenyHook", "Grant"]

P = ParamSpec("P")
R = TypeVar("R")


class CallerGrant(Protocol):
    """Who calls and what they may do (``access.Principal`` is one)."""

    @property
    def agent(self) -> str: ...

    @property
    def categories(self) -> frozenset[str] | None: ...

    @property
    def read_only(self) -> bool: ...

    @property
    def user(self) -> str | None: ...

    @property
    def all_users(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Grant:
    """A plain grant: an agent, its categories (``None`` = all), read-only or not.

    ``user`` binds the grant to one user: every read is theirs and shared
    memories, every write theirs (store/scope.py). ``all_users`` lets it ask for
    the orchestrator-wide view (:data:`~memvault.store.scope.ALL_USERS`).
    """

    agent: str
    categories: frozenset[str] | None = None
    read_only: bool = False
    user: str | None = None
    all_users: bool = False


#: ``on_deny(grant, reason, operation, categories)`` — audit a denial before it is raised.
DenyHook = Callable[[CallerGrant, str, str, tuple[str, ...]], None]

_MESSAGES = {
    "read_only": "the key of agent {agent!r} is read-only",
    "agent_mismatch": "the agent comes from the key ({agent!r}); {op} may not name another",
    "category_not_allowed": "agent {agent!r} may not use categor{plural} {cats}",
    "category_allowlist": "{op} spans every category; the key of agent {agent!r} is "
    "limited to {limited}",
    "other_user": "the key of agent {agent!r} is bound to user {user!r}; {op} for another "
    "user is not allowed",
    "all_users": "the key of agent {agent!r} may not see every user's memories ({op}); "
    "create it with --all-users",
    "user_bound": "the key of agent {agent!r} is bound to user {user!r}; {op} is not "
    "available to it",
}

#: Forwarded engine methods a grant bound to a user may still call: each acts for
#: the user it is given, which :meth:`Caller._for_user` forces to the grant's own.
#: Any other forwarded method is refused to a bound grant (fail closed).
_BOUND_FORWARDS = frozenset(
    {
        "capture_message",
        "capture_workflow_output",
        "capture_diagnostics",
        "proposals",
        "export_user",
        "forget_user",
        "flush_context_events",
    }
)


#: Never handed to a caller: they would change who it acts as.
_WITHHELD = frozenset({"acting", "as_caller"})


class _Forward(Generic[P, R]):
    """An engine method a caller reaches under one rule, typed as the engine's method.

    ``write``: it needs a writable grant; ``spans_all``: it touches categories it
    cannot name up front, so a category-limited grant is refused; ``operation``:
    what a denial calls it. Run by :meth:`Caller._forwarded`.
    """

    def __init__(
        self,
        method: Callable[Concatenate[Any, P], R],
        *,
        write: bool,
        spans_all: bool,
        operation: str = "",
    ) -> None:
        self.method = method
        self.name = method.__name__
        self.write = write
        self.spans_all = spans_all
        self.operation = operation or self.name

    @overload
    def __get__(self, caller: None, owner: type[Any]) -> _Forward[P, R]: ...

    @overload
    def __get__(self, caller: Caller, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, caller: Caller | None, owner: type[Any]) -> Any:
        if caller is None:
            return self
        return caller._forwarded(self.name, self.write, self.spans_all, self.operation)


def _writes_all(method: Callable[Concatenate[Any, P], R], operation: str = "") -> _Forward[P, R]:
    """The rule of most forwards: a write that spans every category (capture, ingest,
    proposals, lifecycle), refused to a read-only or category-limited grant."""
    return _Forward(method, write=True, spans_all=True, operation=operation)
