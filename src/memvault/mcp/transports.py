"""How the MCP server is reached: stdio (``memvault mcp``) or streamable HTTP (``serve``).

Over HTTP every request must carry ``Authorization: Bearer <API key>``; the
key's principal is put in the ASGI scope for the tools to read, so a tool
always acts for the key of the request that called it. A session is bound to
the key that opened it: a request carrying its ``mcp-session-id`` with any
other key is answered 404 (as an unknown session), so a session id is useless
to another tenant or agent.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memvault.access import AccessControl, Principal
from memvault.mcp.server import PRINCIPAL_SCOPE_KEY, build_server

__all__ = ["HttpEndpoint", "http_endpoint", "run_stdio"]


def run_stdio(control: AccessControl, principal: Principal) -> None:
    """Serve MCP on stdin/stdout for one fixed principal until the client disconnects."""
    server = build_server(control, lambda ctx: principal)
    server.run("stdio")


_SESSION_HEADER = b"mcp-session-id"
#: Sessions remembered per endpoint (oldest forgotten first; the SDK expires idle ones).
MAX_BOUND_SESSIONS = 10_000


def _problem(status: int, title: str, detail: str, **headers: str) -> JSONResponse:
    body = {
        "type": f"urn:memvault:problem:{title.lower().replace(' ', '-')}",
        "title": title,
        "status": status,
        "detail": detail,
    }
    return JSONResponse(
        body, status_code=status, headers=headers, media_type="application/problem+json"
    )


class _KeyAuth:
    """Bearer-key check in front of the MCP transport (401 without a live key).

    Also binds each session to the key that opened it (the key id the initialize
    response's ``mcp-session-id`` was issued to).
    """

    def __init__(self, app: ASGIApp, control: AccessControl) -> None:
        self.app = app
        self.control = control
        self._sessions: dict[str, str] = {}
        self._lock = threading.Lock()

    def _bind(self, session: str, key_id: str) -> None:
        with self._lock:
            self._sessions[session] = key_id
            while len(self._sessions) > MAX_BOUND_SESSIONS:
                self._sessions.pop(next(iter(self._sessions)))

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
            if token.strip():
                self.control.keys.record_failed_auth(token.strip())  # counted, bounded
            response = _problem(
                401,
                "Unauthorized",
                "a valid API key is required: Authorization: Bearer <key>",
                **{"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        session = dict(scope.get("headers", [])).get(_SESSION_HEADER, b"").decode("latin-1")
        if session:
            with self._lock:
                owner = self._sessions.get(session)
            if owner is not None and owner != principal.key_id:
                # Trigger: a session id presented with a key other than its opener's.
                # Why: a leaked or guessed session id must not carry one key's session
                #      (its state, its subscriptions) into another key's hands.
                # Outcome: 404, as for a session that does not exist; nothing runs.
                self.control.keys.record_access(
                    "session_key_mismatch", principal=principal, route="/mcp", memory_id=None
                )
                await _problem(404, "Not Found", "no such MCP session")(scope, receive, send)
                return
            if owner is None:
                await _problem(404, "Not Found", "no such MCP session")(scope, receive, send)
                return
        scope[PRINCIPAL_SCOPE_KEY] = principal

        async def bind_on_start(message: Message) -> None:
            if message["type"] == "http.response.start":
                if not session:
                    for name, value in message.get("headers", []):
                        if name.lower() == _SESSION_HEADER:
                            self._bind(value.decode("latin-1"), principal.key_id)
                elif scope["method"] == "DELETE" and 200 <= message["status"] < 300:
                    with self._lock:
                        self._sessions.pop(session, None)
            await send(message)

        await self.app(scope, receive, bind_on_start)


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
