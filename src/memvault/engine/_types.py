"""What the engine takes in: new memories, patches, the write-gate seam, the clock.

Defined by the write pipeline (:mod:`memvault.write.spec`); re-exported here.
"""

from __future__ import annotations

from typing import ParamSpec, TypeVar

from memvault.write.spec import (
    PURGE_AFTER,
    UPDATABLE_FIELDS,
    Clock,
    MemoryPatch,
    NewMemory,
    OpenGate,
    WriteGate,
)

__all__ = [
    "PURGE_AFTER",
    "UPDATABLE_FIELDS",
    "Clock",
    "MemoryPatch",
    "NewMemory",
    "OpenGate",
    "P",
    "T",
    "WriteGate",
]

P = ParamSpec("P")
T = TypeVar("T")
