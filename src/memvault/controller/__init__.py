"""The memory controller: the only door from an agent graph to memory (DESIGN §3).

``read``/``write`` take a request carrying ``authorized``, a reason, the
orchestrator and the agent, and return a response with a status (``ok``,
``unauthorized``, ``unavailable``, ``failed``) — they never raise.

>>> from memvault.controller import DisabledMemoryController, MemoryWriteRequest
>>> DisabledMemoryController("acme").write(MemoryWriteRequest(
...     authorized=False, reason="", orchestrator="acme", agent="a",
...     kind="message", payload={"text": "hi"})).status.value
'unauthorized'
"""

from __future__ import annotations

from memvault.controller import types
from memvault.controller.base import GuardedController, MemoryController
from memvault.controller.engine_backed import EngineMemoryController
from memvault.controller.simple import DisabledMemoryController, InMemoryController

# The requests, responses and statuses: re-exported as types.py lists them (once).
from memvault.controller.types import *  # noqa: F403

__all__ = [
    "DisabledMemoryController",
    "EngineMemoryController",
    "GuardedController",
    "InMemoryController",
    "MemoryController",
    *types.__all__,
]
