"""The HTTP API: a thin FastAPI skin over the engine, authenticated by API keys.

``create_app(control)`` builds the application; ``memvault serve`` runs it with
uvicorn. See ``docs/http-api.md``.
"""

from memvault.api.app import McpMount, create_app

__all__ = ["McpMount", "create_app"]
