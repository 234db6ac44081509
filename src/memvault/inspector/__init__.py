"""The memory inspector: web pages over one API key's view of memory, served by ``memvault serve``.

Sign in at ``/signin`` by pasting an API key (the same keys as the HTTP API);
the pages — Memories, a memory, Graph, Timeline, Refusals, Consent, Bulletin,
Ingest, Audit — are rendered on the server from Jinja2 templates, with a little
JavaScript and every asset (the vendored Cytoscape.js among them) served from
this package, so it works air-gapped. See ``docs/inspector.md``.

>>> import tempfile, pathlib
>>> from fastapi import FastAPI
>>> from memvault.access import AccessControl
>>> from memvault.config import load_config
>>> app = FastAPI()
>>> mount(app, AccessControl(pathlib.Path(tempfile.mkdtemp()), load_config(environ={})))
>>> "/signin" in {getattr(r, "path", "") for r in app.router.routes}
True
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memvault.access import AccessControl
from memvault.inspector import pages_governance, pages_memories
from memvault.inspector.sessions import COOKIE, SIGNIN_COOKIE, cookie_header
from memvault.inspector.web import (
    Ctx,
    Inspector,
    PageError,
    page,
    parse_form,
    redirect,
    render,
    secure,
)

__all__ = ["mount"]


def _safe_next(target: str | None) -> str:
    """Only a local path may be the target after sign-in (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target


def _signin_form(request: Request, *, status: int = 200, error: str = "") -> Response:
    nonce = secrets.token_urlsafe(24)
    response = render(
        "signin.html",
        request,
        code=status,
        nonce=nonce,
        error=error,
        next=_safe_next(request.query_params.get("next")),
    )
    response.headers["set-cookie"] = cookie_header(
        SIGNIN_COOKIE, nonce, secure=request.url.scheme == "https", path="/signin", max_age=900
    )
    return secure(request, response)


async def signin_page(request: Request) -> Response:
    return _signin_form(request)


async def signin(request: Request) -> Response:
    inspector: Inspector = request.app.state.inspector
    try:
        form = parse_form(await request.body())
    except PageError as exc:
        return _signin_form(request, status=exc.status, error=exc.message)
    nonce = request.cookies.get(SIGNIN_COOKIE, "")
    if not nonce or not secrets.compare_digest(nonce, form.get("csrf", "")):
        return _signin_form(
            request, status=403, error="The sign-in form expired; nothing was sent. Try again."
        )
    token = form.get("key", "").strip()
    from starlette.concurrency import run_in_threadpool

    principal = await run_in_threadpool(inspector.control.authenticate, token or None)
    if principal is None:
        await run_in_threadpool(inspector.control.keys.record_failed_auth, token or None)
        return _signin_form(request, status=401, error="That API key is not valid (or revoked).")
    session = inspector.sessions.create(token)
    response = RedirectResponse(_safe_next(form.get("next")), status_code=303)
    https = request.url.scheme == "https"
    response.headers.append("set-cookie", cookie_header(COOKIE, session.session_id, secure=https))
    response.headers.append(
        "set-cookie", cookie_header(SIGNIN_COOKIE, "", secure=https, path="/signin", max_age=0)
    )
    return secure(request, response)


def signout(ctx: Ctx) -> Response:
    inspector: Inspector = ctx.request.app.state.inspector
    inspector.sessions.end(ctx.session.session_id)
    response = redirect("/signin")
    response.headers["set-cookie"] = cookie_header(
        COOKIE, "", secure=ctx.request.url.scheme == "https", max_age=0
    )
    return response


def mount(app: FastAPI, control: AccessControl) -> None:
    """Serve the inspector from ``app`` (at ``/``) over ``control``'s keys and engines."""
    app.state.inspector = Inspector(control)
    routes: list[Route | Mount] = [
        Route("/signin", signin_page, methods=["GET"], include_in_schema=False),
        Route("/signin", signin, methods=["POST"], include_in_schema=False),
        page("/signout", signout, methods=("POST",)),
        *pages_memories.routes(),
        *pages_governance.routes(),
        Mount(
            "/static",
            StaticFiles(packages=[("memvault.inspector", "static")]),
            name="inspector-static",
        ),
    ]
    app.router.routes.extend(routes)
