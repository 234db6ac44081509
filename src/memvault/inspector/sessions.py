"""Inspector sign-in sessions: a pasted API key behind an opaque, HttpOnly cookie.

The browser holds only a random session id (cookie ``mv_session``: ``HttpOnly``,
``SameSite=Strict``, ``Secure`` over https); the key stays in this process's
memory and is verified again on every request, so a revoked key signs its
sessions out at once. Each session has its own CSRF token, which every form
carries and every POST must echo. Sessions end on sign-out, after
:data:`IDLE_SECONDS` without a request, or :data:`MAX_AGE_SECONDS` after sign-in;
at most :data:`MAX_SESSIONS` live at once (the oldest goes first).

>>> store = SessionStore()
>>> s = store.create("mvk_x", now=0.0)
>>> store.get(s.session_id, now=10.0) is s, store.csrf_ok(s, s.csrf), store.csrf_ok(s, "x")
(True, True, False)
>>> store.get(s.session_id, now=10.0 + IDLE_SECONDS + 1) is None
True
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

__all__ = [
    "COOKIE",
    "IDLE_SECONDS",
    "MAX_AGE_SECONDS",
    "MAX_SESSIONS",
    "SIGNIN_COOKIE",
    "Session",
    "SessionStore",
    "cookie_header",
]

COOKIE = "mv_session"
SIGNIN_COOKIE = "mv_signin"  # the sign-in form's own CSRF nonce (before any session)
IDLE_SECONDS = 8 * 3600
MAX_AGE_SECONDS = 24 * 3600
MAX_SESSIONS = 1000


@dataclass(slots=True)
class Session:
    """One signed-in browser: its id, the key it pasted, its CSRF token."""

    session_id: str
    token: str
    csrf: str
    created: float
    seen: float


class SessionStore:
    """Live sessions in this process (a restart signs everyone out). Thread-safe."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, token: str, *, now: float | None = None) -> Session:
        at = time.monotonic() if now is None else now
        session = Session(secrets.token_urlsafe(32), token, secrets.token_urlsafe(32), at, at)
        with self._lock:
            self._sessions[session.session_id] = session
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return session

    def get(self, session_id: str | None, *, now: float | None = None) -> Session | None:
        """The live session with this id (its idle clock restarts), else ``None``."""
        if not session_id:
            return None
        at = time.monotonic() if now is None else now
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return None
            if at - session.seen > IDLE_SECONDS or at - session.created > MAX_AGE_SECONDS:
                del self._sessions[session_id]
                return None
            session.seen = at
            self._sessions.move_to_end(session_id)
            return session

    def end(self, session_id: str | None) -> None:
        with self._lock:
            self._sessions.pop(session_id or "", None)

    def __len__(self) -> int:
        return len(self._sessions)

    @staticmethod
    def csrf_ok(session: Session, sent: str | None) -> bool:
        """Constant-time check of a form's CSRF token against the session's."""
        return bool(sent) and hmac.compare_digest(session.csrf.encode(), (sent or "").encode())


def cookie_header(
    name: str, value: str, *, secure: bool, path: str = "/", max_age: int | None = None
) -> str:
    """A ``Set-Cookie`` value that is always ``HttpOnly`` and ``SameSite=Strict``.

    >>> cookie_header("mv_session", "abc", secure=True)
    'mv_session=abc; Path=/; HttpOnly; SameSite=Strict; Secure'
    """
    parts = [f"{name}={value}", f"Path={path}", "HttpOnly", "SameSite=Strict"]
    if max_age is not None:
        parts.insert(2, f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)
