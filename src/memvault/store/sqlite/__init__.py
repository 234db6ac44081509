"""SQLite backend (the embedded default)."""

from memvault.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
