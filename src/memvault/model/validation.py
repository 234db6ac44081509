"""Turning validation problems into memvault errors; canonical source paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from memvault.model.enums import StopReason

__all__ = ["canonical_source_path", "is_bounds_error", "to_validation_failed"]

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
