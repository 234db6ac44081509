"""Storage: the narrow :class:`Store` protocol and its backends."""

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
from memvault.store.memory import InMemoryStore
from memvault.store.scope import ALL_USERS, UserScope
from memvault.store.sqlite import SQLiteStore

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
