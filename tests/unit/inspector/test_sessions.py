"""Inspector sessions: expiry, the session cap, sign-out, CSRF tokens, cookie flags."""

from __future__ import annotations

from memvault.inspector.sessions import (
    IDLE_SECONDS,
    MAX_AGE_SECONDS,
    MAX_SESSIONS,
    SessionStore,
    cookie_header,
)


def test_idle_and_absolute_expiry() -> None:
    store = SessionStore()
    s = store.create("mvk_a", now=0.0)
    # kept alive by use, but never past the absolute age
    at = 0.0
    while at + IDLE_SECONDS / 2 < MAX_AGE_SECONDS:
        at += IDLE_SECONDS / 2
        assert store.get(s.session_id, now=at) is s
    assert store.get(s.session_id, now=MAX_AGE_SECONDS + 1) is None
    assert len(store) == 0


def test_the_oldest_session_goes_first_when_full() -> None:
    store = SessionStore()
    first = store.create("mvk_first", now=0.0)
    others = [store.create(f"mvk_{i}", now=1.0) for i in range(MAX_SESSIONS)]
    assert len(store) == MAX_SESSIONS
    assert store.get(first.session_id, now=2.0) is None
    assert store.get(others[-1].session_id, now=2.0) is others[-1]


def test_sign_out_and_tokens() -> None:
    store = SessionStore()
    a, b = store.create("mvk_a"), store.create("mvk_a")
    assert a.session_id != b.session_id and a.csrf != b.csrf  # a token per session
    assert not SessionStore.csrf_ok(a, b.csrf) and not SessionStore.csrf_ok(a, None)
    store.end(a.session_id)
    assert store.get(a.session_id) is None and store.get(b.session_id) is b
    assert store.get(None) is None and store.get("") is None


def test_cookie_flags() -> None:
    plain = cookie_header("mv_session", "x", secure=False)
    assert plain == "mv_session=x; Path=/; HttpOnly; SameSite=Strict"
    gone = cookie_header("mv_session", "", secure=True, max_age=0)
    assert gone == "mv_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure"
