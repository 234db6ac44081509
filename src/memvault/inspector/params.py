"""Query and form parameters, checked with messages a person can act on.

>>> integer({"page": "2"}, "page", 1, 10, 1)
2
>>> integer({"page": "x"}, "page", 1, 10, 1)
Traceback (most recent call last):
...
memvault.inspector.web.PageError: page must be a whole number from 1 to 10, not 'x'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memvault.inspector.web import PageError

__all__ = ["choice", "choices", "integer", "number", "text"]


def _bad(message: str) -> PageError:
    return PageError(422, "Bad parameter", message)


def text(params: Mapping[str, str], name: str, *, max_len: int = 128) -> str | None:
    """A trimmed text parameter (``None`` when absent or blank)."""
    value = (params.get(name) or "").strip()
    if not value:
        return None
    if len(value) > max_len:
        raise _bad(f"{name} is longer than {max_len} characters")
    if any(ord(c) < 32 and c not in "\t\n\r" for c in value):
        raise _bad(f"{name} contains control characters")
    return value


def integer(params: Mapping[str, str], name: str, lo: int, hi: int, default: int | None) -> Any:
    """A whole number in ``lo..hi`` (``default`` when absent)."""
    return _bounded(params, name, int, lo, hi, "a whole number", default)


def number(params: Mapping[str, str], name: str, lo: float, hi: float) -> float | None:
    """A decimal number in ``lo..hi`` (``None`` when absent)."""
    value: float | None = _bounded(params, name, float, lo, hi, "a number", None)
    return value


def _bounded(
    params: Mapping[str, str],
    name: str,
    parse: Callable[[str], Any],
    lo: float,
    hi: float,
    what: str,
    default: Any,
) -> Any:
    """``parse`` of the parameter, within ``lo..hi`` (``default`` when absent)."""
    raw = (params.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = parse(raw)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise _bad(f"{name} must be {what} from {lo} to {hi}, not {raw[:40]!r}")
    return value


def choice(params: Mapping[str, str], name: str, allowed: Iterable[str]) -> str | None:
    """One of ``allowed`` (``None`` when absent)."""
    value = (params.get(name) or "").strip()
    if not value:
        return None
    options = list(allowed)
    if value not in options:
        raise _bad(f"{name} must be one of {', '.join(options)}, not {value[:40]!r}")
    return value


def choices(values: list[str], name: str, allowed: Iterable[str]) -> list[str]:
    """Several of ``allowed`` (from a repeated parameter); blanks ignored."""
    options = list(allowed)
    picked = [v.strip() for v in values if v.strip()]
    wrong = [v for v in picked if v not in options]
    if wrong:
        raise _bad(f"{name} must be among {', '.join(options)}, not {wrong[0][:40]!r}")
    return picked
