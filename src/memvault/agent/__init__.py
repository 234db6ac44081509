"""The reference agent: a LangGraph graph where memory is advisory by construction.

See :mod:`memvault.agent.graph` for the flow and ``docs/agent.md`` for the CLI.
Importing this package needs ``langgraph`` (``pip install "memvault[langgraph]"``)
only when a graph is built.
"""

from __future__ import annotations

from memvault.agent.graph import (
    MEMORY_NODES,
    NODE_NAMES,
    TASK_NODES,
    AgentState,
    MemoryReadNode,
    MemoryWriteNode,
    ModelCallNode,
    build_graph,
    node_functions,
)
from memvault.agent.model import (
    ModelBoundary,
    ModelError,
    OfflineResponder,
    OpenAICompatibleModel,
)
from memvault.agent.runtime import (
    AgentRuntime,
    Channel,
    Envelope,
    MemoryMode,
    TurnResult,
    controller_factory,
    parse_script,
    sqlite_checkpointer,
)

__all__ = [
    "MEMORY_NODES",
    "NODE_NAMES",
    "TASK_NODES",
    "AgentRuntime",
    "AgentState",
    "Channel",
    "Envelope",
    "MemoryMode",
    "MemoryReadNode",
    "MemoryWriteNode",
    "ModelBoundary",
    "ModelCallNode",
    "ModelError",
    "OfflineResponder",
    "OpenAICompatibleModel",
    "TurnResult",
    "build_graph",
    "controller_factory",
    "node_functions",
    "parse_script",
    "sqlite_checkpointer",
]
