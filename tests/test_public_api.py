"""The curated public API: ``__all__`` is exactly what we mean to export."""

from __future__ import annotations

import memvault

EXPECTED = {
    "ALL_USERS",
    "AsyncMemoryEngine",
    "CapturedBy",
    "ChangeKind",
    "ConfigError",
    "Decision",
    "DuplicateEdgeError",
    "EdgeType",
    "EmbedderError",
    "EngineStats",
    "HistoryEvent",
    "HistoryOp",
    "InMemoryStore",
    "MemoryEdge",
    "MemoryEngine",
    "MemoryNode",
    "MemoryNotFoundError",
    "MemoryOp",
    "MemoryStatus",
    "MemoryType",
    "MemoryView",
    "MemvaultError",
    "MigrationError",
    "NewMemory",
    "NodeFilter",
    "OpenGate",
    "SQLiteStore",
    "ScopeViolationError",
    "SearchHit",
    "SearchResults",
    "Source",
    "SourceKind",
    "SourceType",
    "Span",
    "StopReason",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "TTLClass",
    "UnsafePathError",
    "ValidationFailed",
    "WriteGate",
    "WriteRefusedError",
    "WriteResult",
    "__version__",
}


def test_all_is_curated() -> None:
    assert set(memvault.__all__) == EXPECTED
    assert len(memvault.__all__) == len(set(memvault.__all__))


def test_every_exported_name_exists_and_is_documented() -> None:
    for name in memvault.__all__:
        obj = getattr(memvault, name)
        if name != "__version__" and callable(obj):
            assert obj.__doc__, f"{name} has no docstring"


def test_errors_share_one_root() -> None:
    for name in memvault.__all__:
        obj = getattr(memvault, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, memvault.MemvaultError), name
