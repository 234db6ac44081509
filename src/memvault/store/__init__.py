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
from memvault.store.sqlite import SQLiteStore

__all__ = [
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
    "WriteSet",
]
