"""The inspector's plumbing: templates, the signed-in viewer, forms, errors as pages.

Every page handler is a plain function ``(ctx) -> Response`` run in a worker
thread by :func:`page`, which resolves the session, checks the CSRF token of
every POST, and turns every failure into an HTML page with a clear message and
the right status — 401 (sign in), 403, 404, 422 (bad parameters), 503 (memory
unavailable) — never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from memvault.access import AccessControl, Principal
from memvault.errors import (
    AccessDeniedError,
    ConfigError,
    MemoryNotFoundError,
    MemvaultError,
    StoreError,
    ValidationFailed,
)
from memvault.inspector.sessions import COOKIE, Session, SessionStore, cookie_header
from memvault.inspector.source import MemorySource
from memvault.lifecycle.consent import ProposalError

__all__ = ["WRITE", "Ctx", "Handler", "Inspector", "PageError", "page", "render"]

_log = logging.getLogger("memvault.inspector")

#: Pages may load scripts, styles and images from memvault only (no CDN, no inline script).
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
        "form-action 'self'; base-uri 'none'; object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

NAV = (
    ("memories", "/", "Memories"),
    ("graph", "/graph", "Graph"),
    ("timeline", "/timeline", "Timeline"),
    ("refusals", "/refusals", "Refusals"),
    ("consent", "/consent", "Consent"),
    ("bulletin", "/bulletin", "Bulletin"),
    ("ingest", "/ingest", "Ingest"),
    ("audit", "/audit", "Audit"),
)

_env = Environment(
    loader=PackageLoader("memvault.inspector", "templates"),
    autoescape=select_autoescape(("html",), default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _query(base: Mapping[str, Any], **changes: Any) -> str:
    merged = {**base, **changes}
    kept = [(k, v) for k, v in merged.items() if v not in (None, "", [], ())]
    flat = [(k, x) for k, v in kept for x in (v if isinstance(v, list | tuple) else [v])]
    return "?" + urlencode(flat) if flat else "?"


def memory_url(memory_id: str, user: str | None = None, **extra: Any) -> str:
    """A memory's page, read as ``user``: the user of the page that links to it.

    Trigger: every link to a memory (memories, graph, bulletin, consent, timeline).
    Why: a key bound to no user reads a memory by id only as the user it names
      (engine ``Caller.by_id_reader``), as its listings do.
    Outcome: ``/memory/<id>?user=<page's user>`` (no user: as the key lists).

    >>> memory_url("m 1", "dana", done="updated")
    '/memory/m%201?user=dana&done=updated'
    """
    return f"/memory/{quote(str(memory_id), safe='')}" + _query({"user": user, **extra}).rstrip("?")


_env.globals["NAV"] = NAV
_env.globals["memory_url"] = memory_url
_env.filters["q"] = lambda s: quote(str(s), safe="")
_env.globals["query"] = _query


class PageError(Exception):
    """A failure shown to the user as a page: status, title, message."""

    def __init__(self, status: int, title: str, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.title = title
        self.message = message
        self.hint = hint


class SignInRequired(Exception):
    """No live session: the browser goes to the sign-in page."""


@dataclass(frozen=True)
class Inspector:
    """What every page needs: the API's access control and the live sessions."""

    control: AccessControl
    sessions: SessionStore = field(default_factory=SessionStore)


@dataclass
class Ctx:
    """One request of a signed-in viewer: parameters, form, principal and the adapter."""

    request: Request
    session: Session
    principal: Principal
    source: MemorySource
    form: dict[str, str]

    @property
    def params(self) -> QueryParams:
        return self.request.query_params

    def render(self, template: str, code: int = 200, **values: Any) -> HTMLResponse:
        return render(template, self.request, code=code, ctx=self, **values)


def render(
    template: str, request: Request, *, code: int = 200, ctx: Ctx | None = None, **values: Any
) -> HTMLResponse:
    """Render a template with the viewer, the CSRF token and the current path."""
    html = _env.get_template(template).render(
        principal=ctx.principal if ctx else None,
        csrf=ctx.session.csrf if ctx else "",
        path=request.url.path,
        **values,
    )
    return HTMLResponse(html, status_code=code)


def secure(request: Request, response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def is_https(request: Request) -> bool:
    return request.url.scheme == "https"


def parse_form(body: bytes) -> dict[str, str]:
    """An urlencoded form body, first value of each field (bad UTF-8 is a 422 page)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise PageError(422, "Invalid form", "the form is not valid UTF-8") from None
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}


def _error_page(request: Request, exc: PageError, ctx: Ctx | None) -> HTMLResponse:
    return render(
        "error.html",
        request,
        code=exc.status,
        ctx=ctx,
        title=exc.title,
        message=exc.message,
        hint=exc.hint,
    )


def _as_page_error(request: Request, exc: Exception, ctx: Ctx | None) -> PageError:
    if isinstance(exc, PageError):
        return exc
    if isinstance(exc, MemoryNotFoundError):
        if ctx is not None:
            ctx.source.control.scope_miss(ctx.principal, ctx.source.route, exc.memory_id)
        return PageError(404, "Not found", f"There is no memory {exc.memory_id!r} here.")
    if isinstance(exc, AccessDeniedError):
        return PageError(403, "Not allowed", exc.message)
    if isinstance(exc, ValidationFailed):
        fields = "; ".join(f"{f}: {m}" for f, m in exc.errors)
        return PageError(
            422,
            f"Invalid input ({exc.stop_reason.value})",
            exc.message + (f" — {fields}" if fields and fields not in exc.message else ""),
        )
    if isinstance(exc, StoreError):  # missing, corrupt, locked, not the store it claims
        return PageError(503, "Memory is unavailable", exc.message, hint=exc.hint or "")
    if isinstance(exc, ProposalError):
        missing = "does not exist" in exc.problem
        return PageError(404 if missing else 409, "Proposal", exc.message)
    if isinstance(exc, ConfigError):
        return PageError(422, "Invalid input", exc.message, hint=exc.hint or "")
    if isinstance(exc, MemvaultError):
        return PageError(422, "Refused", exc.message, hint=exc.hint or "")
    _log.exception("inspector page failed: %s %s", request.method, request.url.path)
    return PageError(500, "Something went wrong", f"unexpected {type(exc).__name__}")


def _signin_redirect(request: Request) -> Response:
    target = request.url.path
    if request.url.query:
        target += "?" + request.url.query
    where = "/signin" if target == "/" else f"/signin?next={quote(target, safe='')}"
    response = RedirectResponse(where, status_code=303)
    response.headers["set-cookie"] = cookie_header(COOKIE, "", secure=is_https(request), max_age=0)
    return response


def _resolve(request: Request, form: dict[str, str], *, write: bool) -> Ctx:
    inspector: Inspector = request.app.state.inspector
    session = inspector.sessions.get(request.cookies.get(COOKIE))
    if session is None:
        raise SignInRequired
    principal = inspector.control.authenticate(session.token)
    if principal is None:  # the key was revoked since sign-in
        inspector.sessions.end(session.session_id)
        raise SignInRequired
    route = f"inspector {request.method} {request.url.path}"
    ctx = Ctx(request, session, principal, MemorySource(inspector.control, principal, route), form)
    if request.method == "POST" and not inspector.sessions.csrf_ok(session, form.get("csrf")):
        inspector.control.keys.record_access("csrf_rejected", principal=principal, route=route)
        raise PageError(
            403,
            "Form expired",
            "This form's security token is missing or wrong; nothing was changed.",
            hint="reload the page and submit it again",
        )
    if write:
        ctx.source.require_write()
    return ctx


Handler = Callable[[Ctx], Response]

#: ``page(..., **WRITE)``: a form that writes (POST, refused to read-only keys).
WRITE: dict[str, Any] = {"methods": ("POST",), "write": True}


def page(
    path: str, handler: Handler, *, methods: tuple[str, ...] = ("GET",), write: bool = False
) -> Route:
    """A route whose handler runs with a signed-in viewer and renders errors as pages."""

    async def endpoint(request: Request) -> Response:
        ctx: Ctx | None = None
        try:
            form = parse_form(await request.body()) if request.method == "POST" else {}

            def run() -> Response:
                nonlocal ctx
                ctx = _resolve(request, form, write=write)
                return handler(ctx)

            response = await run_in_threadpool(run)
        except SignInRequired:
            response = _signin_redirect(request)
        except Exception as exc:
            response = _error_page(request, _as_page_error(request, exc, ctx), ctx)
        return secure(request, response)

    return Route(path, endpoint, methods=list(methods), include_in_schema=False)


def redirect(url: str) -> RedirectResponse:
    """After a POST: see the result with a GET (303)."""
    return RedirectResponse(url, status_code=303)
