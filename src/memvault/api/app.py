"""The FastAPI application factory (STYLE principle 8: config is read here, once).

>>> import tempfile, pathlib
>>> from memvault.access import AccessControl
>>> from memvault.config import load_config
>>> app = create_app(AccessControl(pathlib.Path(tempfile.mkdtemp()), load_config(environ={})))
>>> {"/v1/health", "/v1/memories"} <= set(app.openapi()["paths"])
True
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memvault.access import AccessControl, Principal
from memvault.api.context_routes import THREAD_PATTERN
from memvault.api.context_routes import router as more_router
from memvault.api.docs import mount as _mount_docs
from memvault.api.problems import ApiProblem, problem_response, status_for
from memvault.api.routes import router
from memvault.api.schemas import CONTENT_PATTERN, TEXT_PATTERN
from memvault.errors import (
    AccessDeniedError,
    ConfigError,
    MemoryNotFoundError,
    MemvaultError,
    StaleWriteError,
    StoreUnavailableError,
    ValidationFailed,
)
from memvault.inspector import mount as mount_inspector
from memvault.model.decision import Decision
from memvault.model.enums import StopReason
from memvault.model.node import ID_PATTERN

__all__ = ["McpMount", "create_app"]


def _content_verdict(request: Request, body: Any) -> Decision | None:
    """The gate's verdict on a malformed memory's text (``None``: no text to judge)."""
    control: AccessControl | None = getattr(request.app.state, "control", None)
    if control is None or not isinstance(body, dict):
        return None
    return control.content_verdict(body)


VERSION = "0.1.0"


@dataclass(frozen=True)
class McpMount:
    """An MCP endpoint to serve beside the API (built by :mod:`memvault.mcp`)."""

    path: str
    app: ASGIApp
    lifespan: Callable[[], AbstractAsyncContextManager[None]]


class _BodyTooLarge(StarletteHTTPException):
    def __init__(self) -> None:
        super().__init__(413, "request body too large")


class BodyLimit:
    """Refuse request bodies above ``max_bytes`` with 413 (declared or streamed)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                response = problem_response(
                    413, "body-too-large", f"request body exceeds {self.max_bytes} bytes"
                )
                await response(scope, receive, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _BodyTooLarge()
            return message

        await self.app(scope, limited, send)


_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def lone_surrogate(value: Any, path: str = "body") -> str | None:
    r"""The path of the first string (or key) in ``value`` holding a lone UTF-16 surrogate.

    >>> lone_surrogate({"a": ["ok", "x\ud800"]})
    'body.a[1]'
    >>> lone_surrogate({"a": "\U0001f600"}) is None
    True
    """
    if isinstance(value, str):
        return path if any("\ud800" <= ch <= "\udfff" for ch in value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = lone_surrogate(str(key), f"{path}.<key>") or lone_surrogate(
                item, f"{path}.{key}"
            )
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = lone_surrogate(item, f"{path}[{i}]")
            if found:
                return found
    return None


class RejectLoneSurrogates:
    """Refuse JSON bodies whose strings hold lone surrogates (``"\\ud800"``) with 422.

    Trigger: JSON may escape half of a UTF-16 pair; Python decodes it into a
    ``str`` no encoder can write back.
    Why: such a string got past validation and failed deep inside (a 500
    "Exception in ASGI application" while serialising or storing it).
    Outcome: the body is checked once at the edge, only when its bytes hold such
    an escape (a cheap scan), and refused with the field's path.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        try:
            while True:
                message = await receive()
                messages.append(message)
                if message["type"] != "http.request":
                    break
                body += message.get("body", b"")
                if not message.get("more_body", False):
                    break
        except StarletteHTTPException as exc:  # BodyLimit's 413 while streaming
            slug = "body-too-large" if exc.status_code == 413 else "http-error"
            await problem_response(exc.status_code, slug, str(exc.detail))(scope, receive, send)
            return
        if _ESCAPED_SURROGATE.search(body):
            try:
                where = lone_surrogate(json.loads(body))
            except ValueError:
                where = None  # not JSON: the route's own validation answers
            if where is not None:
                response = problem_response(
                    422,
                    "invalid-request",
                    "the request is invalid",
                    errors=[{"field": where, "message": "lone UTF-16 surrogate in a string"}],
                )
                await response(scope, receive, send)
                return
        replay = iter(messages)

        async def replayed() -> Message:
            try:
                return next(replay)
            except StopIteration:
                return await receive()

        await self.app(scope, replayed, send)


def _principal(request: Request) -> Principal | None:
    return getattr(request.state, "principal", None)


def _install_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiProblem)
    async def _problem(request: Request, exc: ApiProblem) -> JSONResponse:
        return problem_response(exc.status, exc.slug, exc.detail, headers=exc.headers, **exc.extra)

    @app.exception_handler(MemoryNotFoundError)
    async def _not_found(request: Request, exc: MemoryNotFoundError) -> JSONResponse:
        principal = _principal(request)
        if principal is not None:
            control: AccessControl = request.app.state.control
            route = getattr(request.state, "route", request.url.path)
            control.scope_miss(principal, route, exc.memory_id)
        return problem_response(404, "not-found", f"no memory {exc.memory_id!r} here")

    @app.exception_handler(AccessDeniedError)
    async def _denied(request: Request, exc: AccessDeniedError) -> JSONResponse:
        return problem_response(
            403,
            exc.reason.replace("_", "-"),
            exc.message,
            agent=exc.agent,
            categories=list(exc.categories) or None,
        )

    @app.exception_handler(ValidationFailed)
    async def _invalid(request: Request, exc: ValidationFailed) -> JSONResponse:
        return problem_response(
            422,
            exc.stop_reason.value.lower().replace("_", "-"),
            exc.message,
            stop_reason=exc.stop_reason.value,
            errors=[{"field": f, "message": m} for f, m in exc.errors] or None,
        )

    @app.exception_handler(StaleWriteError)
    async def _changed(request: Request, exc: StaleWriteError) -> JSONResponse:
        return problem_response(409, "conflict", exc.message, hint=exc.hint or None)

    @app.exception_handler(StoreUnavailableError)
    async def _unavailable(request: Request, exc: StoreUnavailableError) -> JSONResponse:
        return problem_response(
            503, "memory-unavailable", exc.message, memory_available=False, hint=exc.hint or None
        )

    @app.exception_handler(ConfigError)
    async def _config(request: Request, exc: ConfigError) -> JSONResponse:
        return problem_response(422, "invalid-input", exc.message, hint=exc.hint or None)

    @app.exception_handler(MemvaultError)
    async def _memvault(request: Request, exc: MemvaultError) -> JSONResponse:
        return problem_response(422, "refused", exc.message, hint=exc.hint or None)

    @app.exception_handler(RequestValidationError)
    async def _request_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        not_json = _not_json(exc.errors())
        if not_json is not None:
            # Trigger: a body that does not parse as JSON, or one sent with another
            #          content type (so it was never read as JSON).
            # Why: the error table (docs/http-api.md, problems.py) says 400; a 422
            #      "body.11: JSON decode error" reads as a schema problem at field 11.
            # Outcome: 400 saying what is wrong with the body; nothing is stored.
            return problem_response(400, "malformed-json", not_json)
        errors = _errors(exc.errors())
        # A request the published schema rules out: its stop reason is BOUNDS_EXCEEDED
        # when only a bound was broken, else SCHEMA_INVALID (as the engine would say).
        bounds_only = all(e["type"] in _BOUND_ERRORS for e in exc.errors())
        stop = StopReason.BOUNDS_EXCEEDED if bounds_only else StopReason.SCHEMA_INVALID
        # Off the event loop: judging a long text takes a while, and every other
        # request (health included) waited for it on the loop's one thread.
        verdict = await run_in_threadpool(_content_verdict, request, exc.body)
        if verdict is not None and verdict.stop_reason.priority < stop.priority:
            # Trigger: a memory whose shape is wrong AND whose text the gate refuses.
            # Why: contract §7 — injection or forbidden content outranks SCHEMA_INVALID,
            #      as `policy check` and the library's add answer for the same input.
            # Outcome: the higher-ranked refusal, with the gate's detector.
            return problem_response(
                status_for(verdict.stop_reason),
                verdict.stop_reason.value.lower().replace("_", "-"),
                verdict.reason or "the write was refused",
                stop_reason=verdict.stop_reason.value,
                detector=verdict.detector,
                memory_id=None,
            )
        return problem_response(
            422,
            "invalid-request",
            "the request is invalid",
            stop_reason=stop.value,
            errors=errors,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        slug = {404: "no-route", 405: "method-not-allowed", 413: "body-too-large"}
        headers = dict(exc.headers) if exc.headers else {}
        if exc.status_code == 405:
            headers["Allow"] = allowed_methods(request)
        return problem_response(
            exc.status_code,
            slug.get(exc.status_code, "http-error"),
            str(exc.detail),
            headers=headers or None,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return problem_response(500, "internal-error", f"unexpected {type(exc).__name__}")


def _not_json(errors: Sequence[Any]) -> str | None:
    """Why the request body is not JSON at all (``None``: it is JSON, maybe of a wrong shape).

    >>> bad = {"type": "json_invalid", "loc": ("body", 5), "ctx": {"error": "Expecting value"}}
    >>> _not_json([bad])
    'the body is not valid JSON: Expecting value at character 5'
    >>> _not_json([{"type": "missing", "loc": ("body", "query"), "input": {}}]) is None
    True
    """
    for error in errors:
        loc = tuple(error.get("loc", ()))
        if error.get("type") == "json_invalid":
            where = f" at character {loc[1]}" if len(loc) > 1 else ""
            cause = (error.get("ctx") or {}).get("error", "JSON decode error")
            return f"the body is not valid JSON: {cause}{where}"
        if loc == ("body",) and isinstance(error.get("input"), bytes):
            return "the body was not read as JSON: send it with Content-Type: application/json"
    return None


#: What a pattern of the published schema asks for, in words (the regex is in the OpenAPI).
_PATTERN_WORDS = {
    CONTENT_PATTERN: "visible text (not blank)",
    TEXT_PATTERN: "text without control characters (tab and line breaks are fine)",
    ID_PATTERN: "an id: a letter or digit, then letters, digits, '_', '.', ':' or '-'",
    THREAD_PATTERN: "a thread id: a letter or digit, then up to 127 letters, digits, "
    "'_', '.', ':', '@' or '-'",
}


def _message(error: Any) -> str:
    """A validation error's message, a known pattern said in words instead of as a regex.

    >>> _message({"type": "string_pattern_mismatch", "msg": "…", "ctx": {"pattern": TEXT_PATTERN}})
    'should be text without control characters (tab and line breaks are fine)'
    >>> _message({"type": "missing", "msg": "Field required"})
    'Field required'
    """
    if error.get("type") == "string_pattern_mismatch":
        words = _PATTERN_WORDS.get((error.get("ctx") or {}).get("pattern", ""))
        if words is not None:
            return f"should be {words}"
    return str(error["msg"])


def _field(loc: Sequence[Any]) -> str:
    """The dotted path of a value, without pydantic's union-member tags.

    >>> _field(("body", "categories", 0, "literal['CONSTRAINT','DECISION']"))
    'body.categories.0'
    >>> _field(("body", "PREFERENCE", "type"))
    'body.PREFERENCE.type'
    """
    return ".".join(str(p) for p in loc if not (isinstance(p, str) and "[" in p))


def _errors(raw: Sequence[Any]) -> list[dict[str, str]]:
    """One entry per field: a value every member of a union refused is one error, not N.

    Trigger: ``categories: ["NOPE"]`` on /v1/query (a category or a spec alias).
    Why: pydantic reports each union member, its tag (a 33-name literal) in the path.
    Outcome: ``body.categories.0`` once, the members' messages joined by "; or ".
    """
    merged: dict[str, list[str]] = {}
    for error in raw:
        messages = merged.setdefault(_field(error["loc"]), [])
        message = _message(error)
        if message not in messages:
            messages.append(message)
    return [{"field": f, "message": "; or ".join(m)} for f, m in merged.items()]


#: Pydantic error types that are a broken bound, not a wrong shape.
_BOUND_ERRORS = frozenset(
    {
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
        "string_too_long",
        "string_too_short",
        "too_long",
        "too_short",
    }
)


def allowed_methods(request: Request) -> str:
    """The ``Allow`` header of a 405: every method some route serves at this path.

    Trigger: a method no route of this path serves (Starlette names only the
    methods of the first route whose path matched).
    Why: RFC 9110 — ``Allow`` lists what the resource supports; ``GET`` and
    ``POST /v1/memories`` are two routes of one resource.
    Outcome: the union over every route matching the path, HEAD included with GET.
    """
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        route_methods = getattr(route, "methods", None)
        if match is not Match.NONE and route_methods:
            methods |= set(route_methods)
    return ", ".join(sorted(methods))


def create_app(control: AccessControl, *, mcp: McpMount | None = None) -> FastAPI:
    """The HTTP API over ``control`` (keys, engines, allowlists), with MCP mounted if given.

    Serve it with uvicorn; ``memvault serve`` does exactly that.
    """

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Trigger: server shutdown (uvicorn re-raises SIGTERM after a graceful stop).
        # Why: engines must be closed before the process ends, not after.
        # Outcome: the MCP sessions stop first, then every opened engine is closed.
        try:
            if mcp is None:
                yield
            else:
                async with mcp.lifespan():
                    yield
        finally:
            control.close()

    app = FastAPI(
        title="memvault",
        version=VERSION,
        description="Governed long-term memory for LLM agents. Keys bind orchestrator and agent.",
        lifespan=lifespan,
        docs_url=None,  # served below from local assets
        redoc_url=None,  # its page loads a script from a CDN: gone rather than blank offline
    )
    app.state.control = control
    _mount_docs(app)
    app.include_router(router)
    app.include_router(more_router)
    if mcp is not None:
        app.router.routes.append(Route(mcp.path, endpoint=mcp.app, include_in_schema=False))
    mount_inspector(app, control)  # the web inspector at / (same keys, session cookie)
    _install_handlers(app)
    app.add_middleware(RejectLoneSurrogates)  # inside BodyLimit: reads at most the limit
    app.add_middleware(BodyLimit, max_bytes=control.config.server.max_body_bytes)
    return app
