"""Storage: the narrow :class:`Store` protocol and its backends."""

from typing import TYPE_CHECKING

from memvault._lazy import lazy_getattr
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


#: Import a backend on first access (``memvault.store.SQLiteStore``).
__getattr__ = lazy_getattr(__name__, _LAZY, globals())


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
