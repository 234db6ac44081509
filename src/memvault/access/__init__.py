"""Who may touch memory over the network: API keys, principals, allowlists.

Shared by the HTTP API, the MCP server and the adapters so that every network
interface enforces the same rules (DESIGN §3): a request's orchestrator and
agent come from its key, an agent's category allowlist applies to every
operation, and every denial is audited.
"""

from memvault.access.control import AccessControl, EngineOpener
from memvault.access.keys import KEY_FILE_NAME, ApiKey, KeyStore, Principal, normalise_categories

__all__ = [
    "KEY_FILE_NAME",
    "AccessControl",
    "ApiKey",
    "EngineOpener",
    "KeyStore",
    "Principal",
    "normalise_categories",
]
