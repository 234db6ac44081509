"""What an agent sees (DESIGN §6): bulletin, delta header, tiers, memory.query.

Everything here reads through the :class:`~memvault.store.base.Store`
protocol and a recall callable handed in by the engine, so it works on every
backend and follows whatever retrieval the engine uses.
"""

from __future__ import annotations

from memvault.context.bulletin import (
    PRIORITY_SECTIONS,
    SECTIONS,
    Bulletin,
    BulletinConfig,
    BulletinLine,
    Truncation,
    build_bulletin,
)
from memvault.context.delta import DeltaBullet, DeltaHeader, delta_header
from memvault.context.keeper import BulletinKeeper, KeeperPerReader
from memvault.context.message import MessageContext
from memvault.context.query import (
    CategoryMode,
    EventBuffer,
    MemoryQuery,
    QueryFilters,
    QueryItem,
    QueryResult,
    memory_query,
    run_query,
)
from memvault.context.render import estimate_tokens, quote
from memvault.context.tiers import (
    ContextAssembler,
    ContextItem,
    ContextPackage,
    ContextRequest,
    GlobalMemory,
    ProjectMemory,
    TaskMemory,
    TaskRef,
)
from memvault.policy.allowlist import AgentAllowlist

__all__ = [
    "PRIORITY_SECTIONS",
    "SECTIONS",
    "AgentAllowlist",
    "Bulletin",
    "BulletinConfig",
    "BulletinKeeper",
    "BulletinLine",
    "CategoryMode",
    "ContextAssembler",
    "ContextItem",
    "ContextPackage",
    "ContextRequest",
    "DeltaBullet",
    "DeltaHeader",
    "EventBuffer",
    "GlobalMemory",
    "KeeperPerReader",
    "MemoryQuery",
    "MessageContext",
    "ProjectMemory",
    "QueryFilters",
    "QueryItem",
    "QueryResult",
    "TaskMemory",
    "TaskRef",
    "Truncation",
    "build_bulletin",
    "delta_header",
    "estimate_tokens",
    "memory_query",
    "quote",
    "run_query",
]
