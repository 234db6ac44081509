"""The memory model: enums, nodes, edges, provenance, decisions."""

from memvault.model.decision import Decision, Span
from memvault.model.enums import (
    STOP_PRIORITY,
    CapturedBy,
    ChangeKind,
    EdgeType,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    MemoryType,
    SourceKind,
    SourceType,
    StopReason,
    TTLClass,
)
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.model.validation import canonical_source_path, to_validation_failed

__all__ = [
    "STOP_PRIORITY",
    "CapturedBy",
    "ChangeKind",
    "Decision",
    "EdgeType",
    "HistoryOp",
    "MemoryEdge",
    "MemoryNode",
    "MemoryOp",
    "MemoryStatus",
    "MemoryType",
    "Source",
    "SourceKind",
    "SourceType",
    "Span",
    "StopReason",
    "TTLClass",
    "canonical_source_path",
    "to_validation_failed",
]
