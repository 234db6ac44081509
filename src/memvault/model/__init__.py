"""The memory model: enums, nodes, edges, provenance, decisions."""

from memvault.model import enums
from memvault.model.decision import Decision, Span

# The enums: re-exported as enums.py lists them (once).
from memvault.model.enums import *  # noqa: F403
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.model.validation import canonical_source_path, to_validation_failed

__all__ = [
    "Decision",
    "MemoryEdge",
    "MemoryNode",
    "Source",
    "Span",
    "canonical_source_path",
    "to_validation_failed",
    *enums.__all__,
]
