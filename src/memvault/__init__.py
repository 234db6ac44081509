"""memvault — a governed long-term memory engine for LLM agents.

The public API is small and curated (``__all__`` is checked by a test)::

    from memvault import MemoryEngine, NewMemory
    with MemoryEngine.open(home, "acme") as engine:
        engine.add(NewMemory(content="Prefers concise answers", type="Preference",
                             category="PREFERENCE", source_kind="USER_EXPLICIT"))
        engine.search("how should answers look?")
"""

# Trigger: ``import memvault`` used to import the whole engine (policy
# detectors, context, ingest, asyncio…: ~0.6 s) even for a caller that only
# wants an embedder or one error class.
# Why: cold start of the default embedder must stay under 1 s.
# Outcome: the public names resolve on first access (PEP 562); type checkers
# and IDEs still see the real imports below.
from typing import TYPE_CHECKING

from memvault._lazy import lazy_getattr

if TYPE_CHECKING:
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
    from memvault.store import (
        ALL_USERS,
        HistoryEvent,
        InMemoryStore,
        NodeFilter,
        SQLiteStore,
        Store,
    )

#: public name -> module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "ALL_USERS": "memvault.store",
    "AsyncMemoryEngine": "memvault.engine",
    "CapturedBy": "memvault.model",
    "ChangeKind": "memvault.model",
    "ConfigError": "memvault.errors",
    "Decision": "memvault.model",
    "DuplicateEdgeError": "memvault.errors",
    "EdgeType": "memvault.model",
    "EmbedderError": "memvault.errors",
    "EngineStats": "memvault.results",
    "HistoryEvent": "memvault.store",
    "HistoryOp": "memvault.model",
    "InMemoryStore": "memvault.store",
    "MemoryEdge": "memvault.model",
    "MemoryEngine": "memvault.engine",
    "MemoryNode": "memvault.model",
    "MemoryNotFoundError": "memvault.errors",
    "MemoryOp": "memvault.model",
    "MemoryStatus": "memvault.model",
    "MemoryType": "memvault.model",
    "MemoryView": "memvault.results",
    "MemvaultError": "memvault.errors",
    "MigrationError": "memvault.errors",
    "NewMemory": "memvault.engine",
    "NodeFilter": "memvault.store",
    "OpenGate": "memvault.engine",
    "SQLiteStore": "memvault.store",
    "ScopeViolationError": "memvault.errors",
    "SearchHit": "memvault.results",
    "SearchResults": "memvault.results",
    "Source": "memvault.model",
    "SourceKind": "memvault.model",
    "SourceType": "memvault.model",
    "Span": "memvault.model",
    "StopReason": "memvault.model",
    "Store": "memvault.store",
    "StoreError": "memvault.errors",
    "StoreUnavailableError": "memvault.errors",
    "TTLClass": "memvault.model",
    "UnsafePathError": "memvault.errors",
    "ValidationFailed": "memvault.errors",
    "WriteGate": "memvault.engine",
    "WriteRefusedError": "memvault.errors",
    "WriteResult": "memvault.results",
}


#: Import a public name's module on first access (``memvault.MemvaultError``).
__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
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
]
