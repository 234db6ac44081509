"""Storage: the narrow :class:`Store` protocol and its backends."""

import importlib
from typing import TYPE_CHECKING, Any

from memvault.store.base import (
    ChangeEntry,
    ChangeRecord,
    HistoryEvent,
    IngestRecord,
    NodeFilter,
    Store,
    StoreCounts,
    TextHit,
    WriteSet,
)
from memvault.store.scope import ALL_USERS, UserScope

# Trigger: any ``memvault.store.*`` import (NodeFilter for the CLI's filter
# options) ran this file, which opened the SQLite backend's modules and numpy.
# Outcome: the backends resolve on first access (PEP 562).
if TYPE_CHECKING:
    from memvault.store.memory import InMemoryStore
    from memvault.store.sqlite import SQLiteStore

_LAZY = {"InMemoryStore": "memvault.store.memory", "SQLiteStore": "memvault.store.sqlite"}


def __getattr__(name: str) -> Any:
    """Import a backend on first access (PEP 562).

    >>> import memvault.store
    >>> memvault.store.InMemoryStore.__name__
    'InMemoryStore'
    """
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memvault.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ALL_USERS",
    "ChangeEntry",
    "ChangeRecord",
    "HistoryEvent",
    "InMemoryStore",
    "IngestRecord",
    "NodeFilter",
    "SQLiteStore",
    "Store",
    "StoreCounts",
    "TextHit",
    "UserScope",
    "WriteSet",
]
