"""Turning validation problems into memvault errors; canonical source paths."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator, StringConstraints, ValidationError

from memvault.model.enums import StopReason

__all__ = [
    "BLANK_QUERY",
    "USER_ID_RULE",
    "VISIBLE_PATTERN",
    "NameRule",
    "UserId",
    "canonical_source_path",
    "clean_user_id",
    "is_blank",
    "is_bounds_error",
    "require_query",
    "require_text",
    "to_validation_failed",
]


@dataclass(frozen=True, slots=True)
class NameRule:
    """A name that must match ``pattern`` before it is used (a path part, an SQL identifier, an id).

    Calling the rule returns the name unchanged, or raises what ``refuse`` builds
    from it: each kind of name keeps its own error and hint, the check is one.
    The whole name must match (``fullmatch``): a ``$``-anchored pattern alone
    also matches before a final line break, and ``"acme\\n"`` is not ``"acme"``.

    >>> word = NameRule(re.compile(r"^[a-z]{1,8}$"), lambda n: ValueError(f"not a word: {n!r}"))
    >>> word("acme")
    'acme'
    >>> word("Acme!")
    Traceback (most recent call last):
    ...
    ValueError: not a word: 'Acme!'
    >>> word("acme\\n")
    Traceback (most recent call last):
    ...
    ValueError: not a word: 'acme\\n'
    """

    pattern: re.Pattern[str]
    refuse: Callable[[object], Exception]

    def __call__(self, name: object) -> str:
        if not isinstance(name, str) or not self.pattern.fullmatch(name):
            raise self.refuse(name)
        return name


#: Text holding at least one visible character (not empty, not only blanks or
#: control characters): a memory's content, a search query.
VISIBLE_PATTERN = r"[^\s\x00-\x1f\x7f]"
_VISIBLE = re.compile(VISIBLE_PATTERN)
#: Why a blank query is refused, as every edge says it.
BLANK_QUERY = "must hold a visible character (an empty or blank query asks for nothing)"

#: pydantic error types that mean "a bound was exceeded", not "wrong shape".
_BOUNDS_TYPES = frozenset(
    {
        "string_too_long",
        "too_long",
        "less_than",
        "less_than_equal",
        "greater_than",
        "greater_than_equal",
    }
)


def is_bounds_error(error_type: str) -> bool:
    return error_type in _BOUNDS_TYPES


def to_validation_failed(exc: ValidationError, prefix: str = "") -> Exception:
    """Map a pydantic ``ValidationError`` to :class:`memvault.errors.ValidationFailed`.

    The stop reason is BOUNDS_EXCEEDED only when every problem is a bound;
    any shape problem (wrong enum, missing field, wrong type) makes it
    SCHEMA_INVALID, which has the higher priority in contract §7.
    """
    from memvault.errors import ValidationFailed

    pairs: list[tuple[str, str]] = []
    kinds: list[str] = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        path = f"{prefix}{loc}" if prefix and loc else (loc or prefix.rstrip("."))
        pairs.append((path, err["msg"]))
        kinds.append(str(err["type"]))
    reason = (
        StopReason.BOUNDS_EXCEEDED
        if kinds and all(is_bounds_error(k) for k in kinds)
        else StopReason.SCHEMA_INVALID
    )
    first = f"{pairs[0][0]}: {pairs[0][1]}" if pairs else "invalid value"
    more = f" (+{len(pairs) - 1} more)" if len(pairs) > 1 else ""
    return ValidationFailed(f"{first}{more}", stop_reason=reason, errors=pairs)


def is_blank(text: str) -> bool:
    """Whether ``text`` holds no visible character.

    >>> is_blank(" \\t\\n"), is_blank("tea")
    (True, False)
    """
    return _VISIBLE.search(text) is None


def require_text(value: object, field: str, *, why: str, hint: str) -> str:
    """``value`` when it is text holding a visible character; else :class:`ValidationFailed`.

    One rule for every input that must say something (a query, a transcript
    turn, a task id): SCHEMA_INVALID naming ``field``, ``why`` as the field's
    problem and ``hint`` as what to do (CLI exit 2, HTTP 422, MCP tool error).

    >>> require_text("t1", "task", why="names no task", hint="name the task")
    't1'
    >>> require_text(" ", "task", why="names no task", hint="name the task")
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: task is empty or blank
    """
    from memvault.errors import ValidationFailed

    if isinstance(value, str) and not is_blank(value):
        return value
    raise ValidationFailed(
        f"{field} is empty or blank" if isinstance(value, str) else f"{field} must be text",
        stop_reason=StopReason.SCHEMA_INVALID,
        errors=((field, why),),
        hint=hint,
    )


def require_query(query: object, field: str = "query") -> str:
    """``query`` when it holds a visible character; else :class:`ValidationFailed`.

    Trigger: ``search ""`` answered with memories (a vector for nothing matches
    anything), on the CLI, over HTTP and in the library.
    Why: an empty query is a mistake (a lost argument, an unset variable), not
    a request; listing memories is ``list`` / ``GET /v1/memories``.
    Outcome: SCHEMA_INVALID naming the field (CLI exit 2, HTTP 422).

    >>> require_query("tea")
    'tea'
    >>> require_query("  ")
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: query is empty or blank
    """
    return require_text(
        query,
        field,
        why=BLANK_QUERY,
        hint="give the words to recall; to see memories without a query, list them",
    )


#: What a user id must be, as every entry point says it.
USER_ID_RULE = "1-128 characters once surrounding whitespace is trimmed ('alice ' is 'alice')"


def _trimmed(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


#: A user id in a pydantic model (``NewMemory.user_id``): trimmed, then checked.
UserId = Annotated[str, BeforeValidator(_trimmed), StringConstraints(min_length=1, max_length=128)]


def clean_user_id(value: object, field: str = "user_id") -> str:
    """``value`` without its surrounding whitespace, if that leaves a user id.

    Trigger: ``"alice "`` (a pasted id, a padded form field) named a second user
        beside ``"alice"``: their memories were written and read apart.
    Why: no one means a different person by a trailing space.
    Outcome: every entry point (library, HTTP, MCP, CLI, keys) trims a user id;
        one empty after trimming or longer than 128 characters is SCHEMA_INVALID
        naming ``field`` (the CLI also refuses control characters).

    >>> clean_user_id(" alice ")
    'alice'
    >>> clean_user_id("   ")
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: user_id is not a user id: '   '
    """
    from memvault.errors import ValidationFailed

    trimmed = value.strip() if isinstance(value, str) else ""
    if trimmed and len(trimmed) <= 128:
        return trimmed
    raise ValidationFailed(
        f"{field} is not a user id: {value!r}",
        stop_reason=StopReason.SCHEMA_INVALID,
        errors=((field, USER_ID_RULE),),
        hint="give the user's id (1-128 characters)",
    )


def canonical_source_path(path: str | os.PathLike[str], allowed_roots: Iterable[Path]) -> str:
    """Return the absolute canonical form of ``path`` (symlinks resolved).

    Raises :class:`memvault.errors.UnsafePathError` when ``path`` is relative or
    its canonical form lies outside every allowed root (also canonicalised).

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> canonical_source_path(root / "a" / ".." / "b.md", [root]) == str((root / "b.md").resolve())
    True
    """
    from memvault.errors import UnsafePathError

    raw = os.fspath(path)
    if "\x00" in raw:
        raise UnsafePathError(raw, "NUL byte in path")
    if not os.path.isabs(raw):
        raise UnsafePathError(raw, "path is relative")
    resolved = Path(raw).resolve(strict=False)
    for root in allowed_roots:
        real_root = Path(root).resolve(strict=False)
        if resolved == real_root or resolved.is_relative_to(real_root):
            return str(resolved)
    raise UnsafePathError(raw, "path escapes the orchestrator's workspace")
