"""The façade: :class:`MemoryEngine` (sync) and :class:`AsyncMemoryEngine`.

Interfaces (CLI, HTTP, MCP, agent) call only this module. The engine is bound
to one orchestrator; every store call carries that orchestrator, so no call
through an engine can see another tenant's rows.

>>> import tempfile
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as engine:
...     r = engine.add(NewMemory(content="Prefers concise answers", type="Preference",
...                    category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="u1"))
...     [h.node.memory_id == r.memory_id for h in engine.search("concise").hits]
[True]
"""

from __future__ import annotations

from memvault.context import AgentAllowlist, ContextRequest, TaskRef
from memvault.context.query import QueryResult
from memvault.engine._aio import AsyncMemoryEngine
from memvault.engine._caller import Caller, CallerGrant, Grant
from memvault.engine._sync import MemoryEngine
from memvault.engine._types import Clock, MemoryPatch, NewMemory, OpenGate, WriteGate
from memvault.extract.base import Role
from memvault.ingest import IngestDisabledError, IngestReport, watch
from memvault.layout import RuntimeLayout
from memvault.lifecycle.consent import ProposalError
from memvault.lifecycle.proposals import consent_links, proposal_json
from memvault.model.clock import format_timestamp, new_id
from memvault.policy.allowlist import ALIASES as CATEGORY_ALIASES
from memvault.policy.contract import DEFAULT_CONTRACT_VERSION, load_contract
from memvault.policy.write_gate import PolicyGate
from memvault.results import (
    EngineStats,
    MemoryView,
    SearchHit,
    SearchResults,
    WriteResult,
    history_json,
)
from memvault.retrieval.config import RetrievalConfig
from memvault.store.base import NodeFilter
from memvault.store.factory import postgres_checkpointer
from memvault.store.records import ProposalStatus
from memvault.store.scope import ALL_USERS, UserScope
from memvault.write import CaptureResult

__all__ = [
    "ALL_USERS",
    "CATEGORY_ALIASES",
    "DEFAULT_CONTRACT_VERSION",
    "AgentAllowlist",
    "AsyncMemoryEngine",
    "Caller",
    "CallerGrant",
    "CaptureResult",
    "Clock",
    "ContextRequest",
    "EngineStats",
    "Grant",
    "IngestDisabledError",
    "IngestReport",
    "MemoryEngine",
    "MemoryPatch",
    "MemoryView",
    "NewMemory",
    "NodeFilter",
    "OpenGate",
    "PolicyGate",
    "ProposalError",
    "ProposalStatus",
    "QueryResult",
    "RetrievalConfig",
    "Role",
    "RuntimeLayout",
    "SearchHit",
    "SearchResults",
    "TaskRef",
    "UserScope",
    "WriteGate",
    "WriteResult",
    "consent_links",
    "format_timestamp",
    "history_json",
    "load_contract",
    "new_id",
    "postgres_checkpointer",
    "proposal_json",
    "watch",
]
