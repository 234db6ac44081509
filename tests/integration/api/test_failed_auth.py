"""Bounded abuse (issue 20): failed authentications are counted, rate-limited and capped."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memvault.access import keys as keys_module
from memvault.access.keys import KeyStore
from tests.integration.api.conftest import Live


def _stored(path: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(path) as con:
        rows = con.execute("SELECT minute, key_prefix, count FROM auth_failures").fetchall()
    return [(str(m), str(p), int(n)) for m, p, n in rows]


def test_garbage_tokens_do_not_grow_the_audit(live: Live) -> None:
    keys = live.control.keys
    before = len(keys.access_events())
    counted_before = sum(r["count"] for r in keys.failed_auth())
    tokens = ["garbage", "mvk_0123456789ab_" + "x" * 32, "Bearer", "a" * 500]
    with live.client() as http:
        for i in range(200):
            token = tokens[i % len(tokens)]
            r = http.get("/v1/whoami", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 401
    assert len(keys.access_events()) == before  # not one row per request
    rows = keys.failed_auth()
    assert sum(r["count"] for r in rows) - counted_before == 200
    prefixes = {r["key_prefix"] for r in rows}
    assert prefixes <= {"malformed", "mvk_0123456789ab"}
    assert all("x" * 20 not in r["key_prefix"] for r in rows)  # never the secret


def test_writes_are_rate_limited_and_the_table_is_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keys_module, "AUTH_FLUSH_SECONDS", 3600.0)
    monkeypatch.setattr(keys_module, "AUTH_FAILURES_MAX_ROWS", 5)
    store = KeyStore(tmp_path / "api_keys.db")
    store.list_keys()  # creates the file
    for _ in range(100):
        store.record_failed_auth("garbage")
    # one write (the first failure); the other 99 wait in memory for the next flush
    assert sum(n for _, _, n in _stored(store.path)) == 1
    for i in range(40):  # 40 distinct key ids: 40 (minute, prefix) rows before the cap
        store.record_failed_auth(f"mvk_{i:012x}_" + "s" * 24)
    store.flush_failed_auth()
    rows = _stored(store.path)
    assert len(rows) == 5  # capped: the oldest rows went first
    assert sum(r["count"] for r in store.failed_auth()) <= 100 + 40
