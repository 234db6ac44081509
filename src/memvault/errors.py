"""memvault's one exception tree.

Every error memvault raises on purpose derives from :class:`MemvaultError` and
carries the data a caller needs plus a ``hint`` saying what to do about it::

    MemvaultError
    ├── ConfigError                 bad home, orchestrator name, or option
    ├── ValidationFailed            a value broke the schema or a bound
    │   └── UnsafePathError         a sourcePath that is relative or escapes the workspace
    ├── MemoryNotFoundError         not in *this* orchestrator (other tenants look the same)
    ├── DuplicateEdgeError          (from, to, type) already linked
    ├── WriteRefusedError           a write's stop reason was not a success (raise_for_status)
    ├── AccessDeniedError           a key's agent may not touch this category, or may not write
    ├── StoreError                  the store could not do what was asked
    │   ├── StoreUnavailableError   database missing, corrupt, locked or unreadable
    │   │   ├── StoreMissingError   no store for this orchestrator (and none was to be created)
    │   │   ├── StoreIdentityError  the database is not the store its anchor file describes
    │   │   └── AnchorError         the anchor file beside the database is unreadable or unwritable
    │   ├── ScopeViolationError     a write set mixing orchestrators (fails closed)
    │   └── MigrationError          schema newer than this code, or a migration failed
    ├── EmbedderError               an embedding backend could not embed
    └── WeightsError                learned-layer weights missing, broken or not the recorded ones

Library code never raises bare ``ValueError``/``RuntimeError`` for these cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memvault.model.enums import StopReason

__all__ = [
    "AccessDeniedError",
    "AnchorError",
    "ConfigError",
    "DuplicateEdgeError",
    "EmbedderError",
    "MemoryNotFoundError",
    "MemvaultError",
    "MigrationError",
    "ProposalDecidedError",
    "ScopeViolationError",
    "StaleWriteError",
    "StoreError",
    "StoreIdentityError",
    "StoreMissingError",
    "StoreUnavailableError",
    "UnsafePathError",
    "ValidationFailed",
    "WeightsError",
    "WriteRefusedError",
]


class MemvaultError(Exception):
    """Root of every memvault error. ``hint`` says what the caller can do."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        return self.message


class ConfigError(MemvaultError):
    """A configuration value (home, orchestrator name, option) is invalid."""


class ValidationFailed(MemvaultError):
    """A value broke the schema or a bound.

    ``stop_reason`` is SCHEMA_INVALID or BOUNDS_EXCEEDED; ``errors`` lists
    ``(field path, message)`` pairs.
    """

    def __init__(
        self,
        message: str,
        *,
        stop_reason: StopReason = StopReason.SCHEMA_INVALID,
        errors: Sequence[tuple[str, str]] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.stop_reason = stop_reason
        self.errors = tuple(errors)


class UnsafePathError(ValidationFailed):
    """A ``sourcePath`` is relative, or resolves outside every allowed root."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"unsafe source path {path!r}: {reason}",
            errors=(("source.source_path", reason),),
            hint="give an absolute path inside the orchestrator's workspace",
        )
        self.path = path
        self.reason = reason


class MemoryNotFoundError(MemvaultError):
    """No memory with this id in this orchestrator.

    A memory that exists in another orchestrator is answered exactly the same
    way, so ids never leak across tenants.
    """

    def __init__(self, memory_id: str, orchestrator_id: str) -> None:
        super().__init__(
            f"memory {memory_id!r} not found in orchestrator {orchestrator_id!r}",
            hint="check the id with `memvault list`",
        )
        self.memory_id = memory_id
        self.orchestrator_id = orchestrator_id


class DuplicateEdgeError(MemvaultError):
    """An edge with the same (from, to, type) already exists."""

    def __init__(self, from_id: str, to_id: str, edge_type: str) -> None:
        super().__init__(f"edge {from_id} -[{edge_type}]-> {to_id} already exists")
        self.from_id = from_id
        self.to_id = to_id
        self.edge_type = edge_type


class WriteRefusedError(MemvaultError):
    """Raised by ``WriteResult.raise_for_status()`` when a write did not succeed."""

    def __init__(self, stop_reason: StopReason, reason: str, detail: Any = None) -> None:
        super().__init__(f"{stop_reason.value}: {reason}")
        self.stop_reason = stop_reason
        self.reason = reason
        self.detail = detail


#: What to do about each refusal of :class:`AccessDeniedError` (its ``reason``).
_ACCESS_HINTS = {
    "read_only": "use a writable key",
    "category_not_allowed": "ask for a key whose allowlist covers this category",
    "category_allowlist": "this needs a key without a category allowlist",
    "other_user": "act for the key's own user, or use a key of the other user",
    "all_users": "name one user, or use a key created with --all-users",
    "user_bound": "use a key that is not bound to one user",
    "agent_mismatch": "leave the agent out: it comes from the key",
}


class AccessDeniedError(MemvaultError):
    """An API key's agent asked for something its grant does not allow.

    ``reason`` is ``category_not_allowed`` (``categories`` lists the refused
    ones), ``read_only`` (a read-only key tried to write), or another grant rule
    (``other_user``, ``all_users``, ``user_bound``, ``category_allowlist``,
    ``agent_mismatch``); the hint says what to do about that one. The memory's
    orchestrator is the caller's own, so this is a 403, never a tenant leak.

    >>> AccessDeniedError("assistant", "all_users").hint
    'name one user, or use a key created with --all-users'
    """

    def __init__(
        self, agent: str, reason: str, *, categories: Sequence[str] = (), detail: str = ""
    ) -> None:
        super().__init__(
            detail or f"agent {agent!r} is not allowed: {reason}",
            hint=_ACCESS_HINTS.get(
                reason, "ask for a key whose allowlist covers this category, or a writable key"
            ),
        )
        self.agent = agent
        self.reason = reason
        self.categories = tuple(categories)


class StoreError(MemvaultError):
    """The store could not complete an operation."""


class StoreUnavailableError(StoreError):
    """The database is missing, corrupt, locked or unreadable."""

    hint = "check the file and its permissions; the agent keeps running without memory"


class StoreMissingError(StoreUnavailableError):
    """No memory store exists for this orchestrator, and the caller did not ask to create one.

    ``known`` lists the orchestrators that do exist under the same home, so a
    mistyped name is answered with the right one instead of an empty store.
    """

    def __init__(self, orchestrator: str | None, where: str, known: Sequence[str] = ()) -> None:
        existing = ", ".join(known) if known else "none"
        if orchestrator is None:
            message = f"no memory store at {where}"
        else:
            message = (
                f"no memory store for orchestrator {orchestrator!r} at {where} "
                f"(existing orchestrators: {existing})"
            )
        super().__init__(message, hint="check -o/--orchestrator, or create it with `memvault init`")
        self.orchestrator = orchestrator
        self.where = where
        self.known = tuple(known)


class StoreIdentityError(StoreUnavailableError):
    """The database is missing, empty or another store's, according to its anchor file."""


class AnchorError(StoreUnavailableError):
    """The store's anchor file could not be read, parsed or written."""

    hint = "check the permissions of <home>/<orchestrator>/memory/memory.anchor.json"


class ScopeViolationError(StoreError):
    """A write tried to touch rows of another orchestrator. Nothing was written."""

    def __init__(self, expected: str, found: str) -> None:
        super().__init__(f"write for orchestrator {expected!r} carried rows of {found!r}")
        self.expected = expected
        self.found = found


class ProposalDecidedError(StoreError):
    """A write decided a proposal that was no longer pending. Nothing was written.

    Two decisions on one proposal raced (two confirmations, a confirmation and a
    rejection, an erasure): the first one committed stands.
    """

    def __init__(self, proposal_id: str) -> None:
        super().__init__(f"proposal {proposal_id!r} was already decided")
        self.proposal_id = proposal_id


class StaleWriteError(StoreError):
    """A memory the write read changed or went away before it committed. Nothing was written.

    A write built from a copy it read (a TTL sweep's soft delete, a purge of what was
    due) names that copy in ``WriteSet.expected``; another write committed first.
    """

    def __init__(self, memory_id: str) -> None:
        super().__init__(f"memory {memory_id!r} changed since this write read it")
        self.memory_id = memory_id


class MigrationError(StoreError):
    """The schema is newer than this code knows, or a migration failed."""


class EmbedderError(MemvaultError):
    """An embedding backend failed (missing model, bad weights, remote error)."""


class WeightsError(MemvaultError):
    """A learned layer's weight file is missing, unreadable or not the recorded one."""

    hint = (
        "reinstall memvault, or rebuild the weights with `memvault policy train` "
        "and record the new sha256"
    )
