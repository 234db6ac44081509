"""Names a package exports but imports on first access (PEP 562), written once.

``memvault``, ``memvault.engine`` (and its ``tools``), ``memvault.access``,
``memvault.store`` and ``memvault.write`` keep ``import`` cheap (``memvault --help``
must not load the engine, numpy or the gate's weights): each maps its public names
to the module that defines them and sets its ``__getattr__`` with :func:`lazy_getattr`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(
    package: str, names: Mapping[str, str | tuple[str, str]], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` importing ``names[name]`` on first access.

    A value is the defining module (the attribute has the same name) or
    ``(module, attribute)``; the value found is kept in ``namespace`` (the
    package's ``globals()``), so later accesses do not come back here.

    >>> ns: dict[str, Any] = {}
    >>> get = lazy_getattr("pkg", {"sqrt": "math", "root": ("math", "sqrt")}, ns)
    >>> get("root")(9.0), sorted(ns)
    (3.0, ['root'])
    >>> get("nope")
    Traceback (most recent call last):
    ...
    AttributeError: module 'pkg' has no attribute 'nope'
    """

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = (where, name) if isinstance(where, str) else where
        value = getattr(importlib.import_module(module), attribute)
        namespace[name] = value
        return value

    return __getattr__
