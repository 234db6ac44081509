"""How the MCP server is reached: stdio (``memvault mcp``) or streamable HTTP (``serve``).

Over HTTP every request must carry ``Authorization: Bearer <API key>``; the
key's principal is put in the ASGI scope for the tools to read, so a tool
always acts for the key of the request that called it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memvault.access import AccessControl, Principal
from memvault.mcp.server import PRINCIPAL_SCOPE_KEY, build_server

__all__ = ["HttpEndpoint", "http_endpoint", "run_stdio"]


def run_stdio(control: AccessControl, principal: Principal) -> None:
    """Serve MCP on stdin/stdout for one fixed principal until the client disconnects."""
    server = build_server(control, lambda ctx: principal)
    server.run("stdio")


class _KeyAuth:
    """Bearer-key check in front of the MCP transport (401 without a live key)."""

    def __init__(self, app: ASGIApp, control: AccessControl) -> None:
        self.app = app
        self.control = control

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = ""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                header = value.decode("latin-1")
        scheme, _, token = header.partition(" ")
        principal = self.control.authenticate(token.strip() if scheme.lower() == "bearer" else None)
        if principal is None:
            body = {
                "type": "urn:memvault:problem:unauthorized",
                "title": "Unauthorized",
                "status": 401,
                "detail": "a valid API key is required: Authorization: Bearer <key>",
            }
            response = JSONResponse(
                body,
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
                media_type="application/problem+json",
            )
            await response(scope, receive, send)
            return
        scope[PRINCIPAL_SCOPE_KEY] = principal
        await self.app(scope, receive, send)


def _from_request(ctx: Context) -> Principal:
    request: Any = ctx.request_context.request
    principal = request.scope.get(PRINCIPAL_SCOPE_KEY) if request is not None else None
    if not isinstance(principal, Principal):  # pragma: no cover - _KeyAuth always sets it
        raise PermissionError("no authenticated principal for this MCP request")
    return principal


@dataclass(frozen=True)
class HttpEndpoint:
    """An ASGI app for the MCP endpoint and the lifespan that runs its sessions."""

    app: ASGIApp
    _manager: Any

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        @asynccontextmanager
        async def run() -> AsyncIterator[None]:
            async with self._manager.run():
                yield

        return run()


def http_endpoint(control: AccessControl, host: str = "127.0.0.1") -> HttpEndpoint:
    """The streamable-HTTP MCP endpoint, authenticated by API keys.

    ``host`` turns on the SDK's DNS-rebinding protection for loopback binds.
    """
    server = build_server(control, _from_request)
    server.streamable_http_app(streamable_http_path="/mcp", host=host)
    manager = server.session_manager
    return HttpEndpoint(_KeyAuth(StreamableHTTPASGIApp(manager), control), manager)
