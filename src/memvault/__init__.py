"""memvault — a governed long-term memory engine for LLM agents.

The public API is small and curated (``__all__`` is checked by a test)::

    from memvault import MemoryEngine
    with MemoryEngine.open(home, "acme") as engine:
        engine.add("Prefers concise answers", type="Preference",
                   category="PREFERENCE", source_kind="USER_EXPLICIT")
        engine.search("how should answers look?")
"""

from memvault.engine import AsyncMemoryEngine, MemoryEngine, NewMemory, OpenGate, WriteGate
from memvault.errors import (
    ConfigError,
    DuplicateEdgeError,
    EmbedderError,
    MemoryNotFoundError,
    MemvaultError,
    MigrationError,
    ScopeViolationError,
    StoreError,
    StoreUnavailableError,
    UnsafePathError,
    ValidationFailed,
    WriteRefusedError,
)
from memvault.model import (
    CapturedBy,
    ChangeKind,
    Decision,
    EdgeType,
    HistoryOp,
    MemoryEdge,
    MemoryNode,
    MemoryOp,
    MemoryStatus,
    MemoryType,
    Source,
    SourceKind,
    SourceType,
    Span,
    StopReason,
    TTLClass,
)
from memvault.results import EngineStats, MemoryView, SearchHit, SearchResults, WriteResult
from memvault.store import HistoryEvent, InMemoryStore, NodeFilter, SQLiteStore, Store

__version__ = "0.1.0"

__all__ = [
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
]
