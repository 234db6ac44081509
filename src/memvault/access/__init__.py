"""Who may touch memory over the network: API keys, principals, allowlists.

Shared by the HTTP API, the MCP server and the adapters so that every network
interface enforces the same rules (DESIGN §3): a request's orchestrator and
agent come from its key, an agent's category allowlist applies to every
operation, and every denial is audited.

>>> import memvault.access
>>> memvault.access.AccessControl.__name__
'AccessControl'
"""

from typing import TYPE_CHECKING

from memvault._lazy import lazy_getattr
from memvault.access.keys import KEY_FILE_NAME, ApiKey, KeyStore, Principal, normalise_categories

# Trigger: ``memvault keys …`` (and ``--help``) needs the key store only, but this
# file imported the access control and with it the whole engine.
# Outcome: AccessControl and EngineOpener resolve on first access (PEP 562).
if TYPE_CHECKING:
    from memvault.access.control import AccessControl, EngineOpener


__getattr__ = lazy_getattr(
    __name__,
    {"AccessControl": "memvault.access.control", "EngineOpener": "memvault.access.control"},
    globals(),
)


__all__ = [
    "KEY_FILE_NAME",
    "AccessControl",
    "ApiKey",
    "EngineOpener",
    "KeyStore",
    "Principal",
    "normalise_categories",
]
