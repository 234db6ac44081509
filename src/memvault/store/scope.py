"""Whose memories a read may see inside one orchestrator: the user scope.

An orchestrator (the tenant) serves many users. A read that builds context for
a user's turn or answers a user's query sees that user's memories and the
shared ones (``user_id IS NULL``) — never another user's. The scope is a
:class:`~memvault.store.base.NodeFilter` condition (``visible_to``), so every
backend applies it inside its query like any other filter.

Three readers, each named:

- a user id (``"alice"``): ``user_id = 'alice' OR user_id IS NULL``;
- ``None`` (no user known): shared memories only — what a forgotten argument gets;
- :data:`ALL_USERS`: no user condition, the orchestrator-wide view; an explicit
  choice for administrators (the inspector, ``--all-users``, a key with the
  ``all_users`` permission), never a default.

>>> visible_to("alice"), visible_to(None), visible_to(ALL_USERS)
(('alice',), (), None)
>>> can_see("alice", None), can_see("alice", "bob"), can_see(ALL_USERS, "bob")
(True, False, True)
"""

from __future__ import annotations

import enum
import hashlib
from typing import Final, TypeAlias

from memvault.errors import ValidationFailed
from memvault.store.base import NodeFilter

__all__ = [
    "ALL_USERS",
    "AllUsers",
    "UserScope",
    "can_see",
    "reader_key",
    "same_owner",
    "scoped",
    "visible_to",
]


class AllUsers(enum.Enum):
    """The type of :data:`ALL_USERS` (a one-member enum, so it type-checks as a literal)."""

    ALL_USERS = "all_users"

    def __repr__(self) -> str:
        return "ALL_USERS"


#: The orchestrator-wide view: every user's memories (administrators only).
ALL_USERS: Final = AllUsers.ALL_USERS

#: Whom a read serves: a user id, ``None`` (shared memories only) or :data:`ALL_USERS`.
UserScope: TypeAlias = str | AllUsers | None


def visible_to(reader: UserScope) -> tuple[str, ...] | None:
    """The ``NodeFilter.visible_to`` value of ``reader`` (``None``: no condition).

    >>> visible_to("dana")
    ('dana',)
    """
    if reader is ALL_USERS:
        return None
    if reader is None:
        return ()
    if not isinstance(reader, str) or not reader.strip() or len(reader) > 256:
        raise ValidationFailed(
            f"invalid user {reader!r}",
            errors=(("user", "a non-empty user id of at most 256 characters"),),
            hint="pass the user id, None for shared memories only, or ALL_USERS",
        )
    return (reader.strip(),)  # 'dana ' is 'dana' (model/validation.clean_user_id)


def scoped(filters: NodeFilter, reader: UserScope) -> NodeFilter:
    """``filters`` narrowed to what ``reader`` may see (never widened).

    A filter that is already scoped keeps the intersection of both scopes, so
    a caller's own ``visible_to`` cannot reach past the reader's.

    >>> scoped(NodeFilter(), "alice").visible_to
    ('alice',)
    >>> scoped(NodeFilter(visible_to="bob"), "alice").visible_to
    ()
    >>> scoped(NodeFilter(visible_to="bob"), ALL_USERS).visible_to
    ('bob',)
    """
    users = visible_to(reader)
    if users is None:
        return filters
    if filters.visible_to is not None:
        users = tuple(sorted(set(users) & set(filters.visible_to)))
    return filters.model_copy(update={"visible_to": users})


def can_see(reader: UserScope, owner: str | None) -> bool:
    """Whether ``reader`` may see a memory whose ``user_id`` is ``owner``.

    For reads by id (a memory named in a request, the far end of an edge);
    filtered reads carry the same rule into the store's query.
    """
    users = visible_to(reader)
    return users is None or owner is None or owner in users


def reader_key(reader: UserScope) -> str:
    """A file-name-safe key per reader (bulletin caches and files are kept per reader).

    >>> reader_key(None), reader_key(ALL_USERS), reader_key("alice")[:2]
    ('shared', 'all', 'u-')
    """
    users = visible_to(reader)
    if users is None:
        return "all"
    if not users:
        return "shared"
    return "u-" + hashlib.sha256(users[0].encode()).hexdigest()[:24]


def same_owner(user_id: str | None, project_id: str | None = None) -> NodeFilter:
    """The memories a write owned by ``user_id`` may be resolved or related against.

    Trigger: a write looks for its neighbours (duplicate, update, RelatedTo).
    Why: ``NodeFilter(user_id=None)`` has no user condition, so a statement with
    no user would match — and could merge into, supersede or link to — another
    user's memory.
    Outcome: a user's write meets that user's memories only; a write with no
    user meets shared (user-less) memories only.

    >>> same_owner("dana").user_id, same_owner("dana").visible_to
    ('dana', None)
    >>> same_owner(None).user_id, same_owner(None).visible_to
    (None, ())
    """
    if user_id is None:
        return NodeFilter(visible_to=(), project_id=project_id)
    return NodeFilter(user_id=user_id, project_id=project_id)
