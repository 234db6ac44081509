"""Failures recover (issue 20): a failed COMMIT, a read-only file, a full disk.

Real files throughout: a deferred foreign-key violation makes SQLite's COMMIT
itself fail; ``chattr +i`` makes the database file read-only even for root; a
small tmpfs fills up. Each failure is "store unavailable" (exit 4 / HTTP 503,
no memory id), and the same open store takes writes again once the cause goes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from memvault.access import AccessControl
from memvault.api import create_app
from memvault.cli import app
from memvault.config import load_config
from memvault.engine import MemoryEngine, OpenGate
from memvault.errors import StoreError, StoreUnavailableError
from memvault.model.enums import StopReason
from memvault.store.base import NodeFilter, WriteSet
from memvault.store.sqlite import SQLiteStore
from tests.helpers import add_fields
from tests.integration.api.conftest import serve_in_thread

FIELDS = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
ADD = ["--type", "Fact", "--category", "KNOWLEDGE", "--source-kind", "SYSTEM_KNOWN", "--json"]


def test_failed_commit_rolls_back_and_the_writer_works_again(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "memory.db")
    engine = MemoryEngine(store, "acme", gate=OpenGate(), embedder=None)
    first = add_fields(engine, "The build runs on two cores", **FIELDS)
    assert first.ok
    assert store._writer is not None
    source = store.get_nodes("acme", [str(first.memory_id)])[0].source
    # Trigger a failure at COMMIT itself: a provenance row of a memory that does
    # not exist, with foreign keys deferred to the end of the transaction.
    store._writer.execute("PRAGMA defer_foreign_keys = ON")
    orphan = WriteSet(
        "acme",
        "2026-01-01T00:00:00.000000Z",
        extra_sources=(("mem_does_not_exist", source),),
    )
    with pytest.raises(StoreError, match="FOREIGN KEY"):
        store.apply(orphan)
    assert not store._writer.in_transaction  # rolled back, not left open
    second = add_fields(engine, "The deploy runs at noon", **FIELDS)
    assert second.ok, second  # the same writer takes the next write
    assert store.count_nodes("acme", NodeFilter()) == 2
    store.close()


def _chattr(flag: str, path: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0


def test_read_only_file_is_unavailable_and_recovers(tmp_path: Path) -> None:
    runner = CliRunner()
    home = tmp_path / "home"
    with MemoryEngine.open(home, "acme", gate=OpenGate(), embedder=None) as engine:
        assert add_fields(engine, "written before", **FIELDS).ok
    db = home / "acme" / "memory" / "memory.db"
    if not _chattr("+i", db):
        pytest.skip("chattr +i is not available here")
    try:
        # a process that opens the store while the file is read-only
        engine = MemoryEngine.open(home, "acme", gate=OpenGate(), embedder=None)
        failed = add_fields(engine, "written while read-only", **FIELDS)
        assert failed.stop_reason is StopReason.INTERNAL_INCONSISTENCY
        assert failed.store_unavailable and failed.memory_id is None
        assert failed.to_json()["memory_available"] is False
        result = runner.invoke(app, ["--home", str(home), "-o", "acme", "add", "x y", *ADD])
        assert result.exit_code == 4, result.stdout
    finally:
        _chattr("-i", db)
    recovered = add_fields(engine, "written after the permission came back", **FIELDS)
    assert recovered.ok, recovered  # the same open engine, no restart
    assert next(n.content for n in engine.list(limit=10)).startswith("written after")
    engine.close()


def test_an_unavailable_store_is_said_so_for_a_users_write_too(tmp_path: Path) -> None:
    """Before, the governance gate's count of the user's writes today (entitlement
    caps) read the unavailable store first: the write was answered "gate raised"
    (HTTP 500, CLI exit 1) instead of store unavailable (503, exit 4)."""
    engine = MemoryEngine.open(tmp_path / "home", "acme", embedder="hashing")
    engine.store.close()  # every call on the store now raises StoreUnavailableError
    for user in (None, "dana"):
        failed = add_fields(engine, "Dana prefers tea over coffee", **FIELDS, user_id=user)
        assert failed.stop_reason is StopReason.INTERNAL_INCONSISTENCY
        assert failed.store_unavailable and failed.memory_id is None, (user, failed)
        assert failed.detector != "gate"
    engine.close()


def test_a_capture_on_an_unavailable_store_says_so(tmp_path: Path) -> None:
    """Before, each candidate of the turn was reported rejected INTERNAL_INCONSISTENCY
    with no reason (HTTP 200, CLI exit 0): nothing was stored, and nothing said the
    store was down. Now the call raises StoreUnavailableError like every other engine
    call on it (HTTP 503, CLI exit 4, the agent's controller: unavailable)."""
    engine = MemoryEngine.open(tmp_path / "home", "acme", embedder="hashing")
    engine.store.close()
    with pytest.raises(StoreUnavailableError):
        engine.capture_message({"text": "I prefer green tea over coffee.", "user_id": "dana"})
    engine.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    # Unbuffered, and the suppression outside the file: a buffered writer keeps the
    # bytes that did not fit and raises ENOSPC again when it is closed.
    with contextlib.suppress(OSError), filler.open("wb", buffering=0) as fh:
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    with contextlib.suppress(OSError), filler.open("ab", buffering=0) as fh:  # the last block
        for _ in range(64):
            fh.write(b"\0" * 512)
            fh.flush()
    probe = disk / "probe"
    with pytest.raises(OSError) as full:
        probe.write_bytes(b"\0" * 8192)
    assert full.value.errno == errno.ENOSPC
    probe.unlink(missing_ok=True)
    return filler


def test_full_disk_is_503_and_exit_4_and_recovers(small_disk: Path) -> None:
    home = small_disk / "home"
    config = load_config(home, environ={})
    control = AccessControl(home, config)
    token, _ = control.keys.create("acme", "writer")
    server, thread, sock, url = serve_in_thread(create_app(control))
    body = {"content": "", **FIELDS}
    try:
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as http:
            ok = http.post("/v1/memories", json={**body, "content": "The build uses ruff"})
            assert ok.status_code == 201, ok.text
            filler = _fill(small_disk)
            statuses = []
            for i in range(3):
                big = f"Fact {i} written on a full disk " + "z" * 900
                refused = http.post("/v1/memories", json={**body, "content": big})
                statuses.append(refused.status_code)
                assert refused.status_code == 503, refused.text
                problem = refused.json()
                assert problem.get("memory_id") is None and "Traceback" not in refused.text
            result = CliRunner().invoke(
                app,
                ["--home", str(home), "-o", "acme", "add", "The disk is full " + "q" * 900, *ADD],
            )
            assert result.exit_code == 4, result.stdout
            filler.unlink()
            again = http.post("/v1/memories", json={**body, "content": "The disk has room again"})
            assert again.status_code == 201, again.text
            listed = http.get("/v1/memories").json()
            contents = sorted(m["content"] for m in listed["memories"])
            assert contents == ["The build uses ruff", "The disk has room again"]
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
