"""The façade: :class:`MemoryEngine` (sync) and :class:`AsyncMemoryEngine`.

Interfaces (CLI, HTTP, MCP, agent) call only this module. The engine is bound
to one orchestrator; every store call carries that orchestrator, so no call
through an engine can see another tenant's rows.

>>> import tempfile
>>> from memvault.engine import MemoryEngine, NewMemory
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as engine:
...     r = engine.add(NewMemory(content="Prefers concise answers", type="Preference",
...                    category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="u1"))
...     [h.node.memory_id == r.memory_id for h in engine.search("concise").hits]
[True]
"""

from __future__ import annotations

# Trigger: ``from memvault.engine import NodeFilter`` (the CLI's option lists, an
# edge's types) imported the whole engine — the gate's detectors and weights,
# numpy, the stores, context, ingest — and ``memvault --help`` took 4.3 s.
# Why: edges import the façade only (tests/test_architecture.py), so the façade
# must not cost what the caller does not use.
# Outcome: each public name is imported on first access (PEP 562), as in
# ``memvault/__init__``; type checkers see the real imports below.
from typing import TYPE_CHECKING

from memvault._lazy import lazy_getattr

if TYPE_CHECKING:
    from memvault.context import AgentAllowlist, ContextRequest, TaskRef
    from memvault.context.query import MemoryQuery, QueryFilters, QueryResult
    from memvault.engine._aio import AsyncMemoryEngine
    from memvault.engine._caller import Caller, CallerGrant, Grant
    from memvault.engine._sync import MemoryEngine
    from memvault.engine._types import Clock, MemoryPatch, NewMemory, OpenGate, WriteGate
    from memvault.extract.base import Role
    from memvault.ingest.context import IngestDisabledError
    from memvault.ingest.report import IngestReport
    from memvault.ingest.watch import watch
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

#: public name -> (module that defines it, its name there): the defining module,
#: never a package whose attribute a submodule of the same name could shadow
#: (``memvault.ingest.watch`` is a module and a function).
_LAZY: dict[str, tuple[str, str]] = {
    "ALL_USERS": ("memvault.store.scope", "ALL_USERS"),
    "AgentAllowlist": ("memvault.policy.allowlist", "AgentAllowlist"),
    "AsyncMemoryEngine": ("memvault.engine._aio", "AsyncMemoryEngine"),
    "CATEGORY_ALIASES": ("memvault.policy.allowlist", "ALIASES"),
    "Caller": ("memvault.engine._caller", "Caller"),
    "CallerGrant": ("memvault.engine._caller", "CallerGrant"),
    "CaptureResult": ("memvault.write.report", "CaptureResult"),
    "Clock": ("memvault.engine._types", "Clock"),
    "ContextRequest": ("memvault.context.tiers", "ContextRequest"),
    "DEFAULT_CONTRACT_VERSION": ("memvault.policy.contract", "DEFAULT_CONTRACT_VERSION"),
    "EngineStats": ("memvault.results", "EngineStats"),
    "Grant": ("memvault.engine._caller", "Grant"),
    "IngestDisabledError": ("memvault.ingest.context", "IngestDisabledError"),
    "IngestReport": ("memvault.ingest.report", "IngestReport"),
    "MemoryEngine": ("memvault.engine._sync", "MemoryEngine"),
    "MemoryPatch": ("memvault.engine._types", "MemoryPatch"),
    "MemoryQuery": ("memvault.context.query", "MemoryQuery"),
    "MemoryView": ("memvault.results", "MemoryView"),
    "NewMemory": ("memvault.engine._types", "NewMemory"),
    "NodeFilter": ("memvault.store.base", "NodeFilter"),
    "OpenGate": ("memvault.engine._types", "OpenGate"),
    "PolicyGate": ("memvault.policy.write_gate", "PolicyGate"),
    "ProposalError": ("memvault.lifecycle.consent", "ProposalError"),
    "ProposalStatus": ("memvault.store.records", "ProposalStatus"),
    "QueryFilters": ("memvault.context.query", "QueryFilters"),
    "QueryResult": ("memvault.context.query", "QueryResult"),
    "RetrievalConfig": ("memvault.retrieval.config", "RetrievalConfig"),
    "Role": ("memvault.extract.base", "Role"),
    "RuntimeLayout": ("memvault.layout", "RuntimeLayout"),
    "SearchHit": ("memvault.results", "SearchHit"),
    "SearchResults": ("memvault.results", "SearchResults"),
    "TaskRef": ("memvault.context.tiers", "TaskRef"),
    "UserScope": ("memvault.store.scope", "UserScope"),
    "WriteGate": ("memvault.engine._types", "WriteGate"),
    "WriteResult": ("memvault.results", "WriteResult"),
    "consent_links": ("memvault.lifecycle.proposals", "consent_links"),
    "format_timestamp": ("memvault.model.clock", "format_timestamp"),
    "history_json": ("memvault.results", "history_json"),
    "load_contract": ("memvault.policy.contract", "load_contract"),
    "new_id": ("memvault.model.clock", "new_id"),
    "postgres_checkpointer": ("memvault.store.factory", "postgres_checkpointer"),
    "proposal_json": ("memvault.lifecycle.proposals", "proposal_json"),
    "watch": ("memvault.ingest.watch", "watch"),
}


#: Import a public name's module on first access (``memvault.engine.NodeFilter``).
__getattr__ = lazy_getattr(__name__, _LAZY, globals())


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
    "MemoryQuery",
    "MemoryView",
    "NewMemory",
    "NodeFilter",
    "OpenGate",
    "PolicyGate",
    "ProposalError",
    "ProposalStatus",
    "QueryFilters",
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
