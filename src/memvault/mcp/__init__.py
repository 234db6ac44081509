"""memvault's MCP server: ``memory_query``, ``memory_store``, ``memory_forget``.

Run it on stdio with ``memvault mcp``; ``memvault serve`` also mounts it over
streamable HTTP at ``/mcp`` (API key required). See ``docs/mcp.md``.
"""

from memvault.mcp.server import build_server
from memvault.mcp.transports import HttpEndpoint, http_endpoint, run_stdio

__all__ = ["HttpEndpoint", "build_server", "http_endpoint", "run_stdio"]
