"""The store anchor file: atomic, validated, only moving forward, identity checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memvault.errors import AnchorError, StoreIdentityError, StoreUnavailableError
from memvault.store.anchor import (
    ANCHOR_NAME,
    StoreAnchor,
    advance_anchor,
    check_identity,
    new_anchor,
    read_anchor,
    write_anchor,
)

AT = "2026-01-01T00:00:00.000000Z"


def test_round_trip_and_exact_fields(tmp_path: Path) -> None:
    path = tmp_path / ANCHOR_NAME
    anchor = new_anchor("acme", AT).advanced(revision=4, history_count=9, last_hash="ab" * 32)
    write_anchor(path, anchor)
    assert read_anchor(path) == anchor
    data = json.loads(path.read_text())
    assert set(data) == {
        "orchestrator_id",
        "store_uuid",
        "created_at",
        "revision",
        "history_count",
        "last_hash",
    }
    assert data["revision"] == 4 and data["history_count"] == 9
    # the temporary file was renamed away, nothing else is left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [ANCHOR_NAME]


def test_missing_file_is_none(tmp_path: Path) -> None:
    assert read_anchor(tmp_path / ANCHOR_NAME) is None


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{not json",
        b"\xff\xfe",
        b"[]",
        b'{"orchestrator_id": "acme"}',
        json.dumps(
            {
                "orchestrator_id": "acme",
                "store_uuid": "u",
                "created_at": AT,
                "revision": -1,
                "history_count": 0,
                "last_hash": "0" * 64,
            }
        ).encode(),
        json.dumps(
            {
                "orchestrator_id": "acme",
                "store_uuid": "u",
                "created_at": AT,
                "revision": 0,
                "history_count": 0,
                "last_hash": "nothex",
            }
        ).encode(),
    ],
)
def test_damaged_anchor_is_an_error_not_absent(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / ANCHOR_NAME
    path.write_bytes(body)
    with pytest.raises(AnchorError):
        read_anchor(path)


def test_unwritable_directory_is_an_anchor_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(AnchorError):
        write_anchor(blocker / ANCHOR_NAME, new_anchor("acme", AT))


def test_advance_never_moves_back(tmp_path: Path) -> None:
    path = tmp_path / ANCHOR_NAME
    base = new_anchor("acme", AT)
    later = base.advanced(revision=5, history_count=7, last_hash="c" * 64)
    earlier = base.advanced(revision=4, history_count=6, last_hash="d" * 64)
    assert advance_anchor(path, later) == later
    assert advance_anchor(path, earlier) == later
    assert read_anchor(path) == later
    # a new identity (a re-created store) replaces the old record
    other = new_anchor("acme", AT)
    assert advance_anchor(path, other) == other


def test_advance_from_many_processes_keeps_the_latest(tmp_path: Path) -> None:
    path = tmp_path / ANCHOR_NAME
    base = new_anchor("acme", AT, store_uuid="u" * 32)
    write_anchor(path, base)
    script = (
        "import sys\n"
        "from memvault.store.anchor import advance_anchor, StoreAnchor\n"
        "path, start = sys.argv[1], int(sys.argv[2])\n"
        "for n in range(start, 200, 4):\n"
        f"    advance_anchor(path, StoreAnchor('acme', {'u' * 32!r}, {AT!r}, n, n, 'e' * 64))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), str(i)]) for i in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    final = read_anchor(path)
    assert final is not None and final.revision == 199 and final.history_count == 199
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".{ANCHOR_NAME}.lock", ANCHOR_NAME]


def test_identity_checks() -> None:
    anchor = new_anchor("acme", AT)
    check_identity(None, None, "memory.db")  # nothing recorded: nothing to compare
    check_identity(anchor, anchor.advanced(revision=1, history_count=1, last_hash="f" * 64), "x")
    with pytest.raises(StoreIdentityError, match="holds no memory store") as missing:
        check_identity(anchor, None, "memory.db")
    assert isinstance(missing.value, StoreUnavailableError)
    with pytest.raises(StoreIdentityError, match="not the store"):
        check_identity(anchor, new_anchor("acme", AT), "memory.db")
    with pytest.raises(StoreIdentityError, match="not the store"):
        check_identity(anchor, StoreAnchor("other", anchor.store_uuid, AT), "memory.db")


def test_behind_means_rolled_back() -> None:
    anchor = new_anchor("acme", AT).advanced(revision=3, history_count=10, last_hash="1" * 64)
    assert anchor.advanced(revision=3, history_count=9, last_hash="2" * 64).is_behind(anchor)
    assert anchor.advanced(revision=2, history_count=10, last_hash="2" * 64).is_behind(anchor)
    assert not anchor.is_behind(anchor)


def test_keeper_writes_behind_and_readers_see_the_newest_head(tmp_path: Path) -> None:
    """ADR 0007: committed() returns before the fsync; the newest head always lands, a
    reader in this process waits for it, heads handed over out of order never move back."""
    import threading

    from memvault.store.anchor import AnchorKeeper

    path = tmp_path / ANCHOR_NAME
    keeper = AnchorKeeper()
    identity = new_anchor("acme", AT)
    keeper.keep(identity, path)
    workers = [
        threading.Thread(
            target=lambda start=start: [
                keeper.committed("acme", revision=n, history_count=n, last_hash="a" * 64)
                for n in range(start, 120, 3)
            ]
        )
        for start in range(3)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    keeper.committed("acme", revision=5, history_count=5, last_hash="b" * 64)  # an old head
    got = read_anchor(path)  # waits for the writer thread
    assert got is not None and (got.revision, got.history_count) == (119, 119)
    assert got.store_uuid == identity.store_uuid
    assert keeper.last_error is None
    keeper.close()
    keeper.committed("acme", revision=121, history_count=121, last_hash="c" * 64)
    after_close = read_anchor(path)  # written inline once closed
    assert after_close is not None and after_close.revision == 121


def test_keeper_reports_a_failed_write_and_its_thread_ends_when_idle(tmp_path: Path) -> None:
    import time

    from memvault.store.anchor import AnchorKeeper

    keeper = AnchorKeeper()
    keeper.idle_seconds = 0.05
    path = tmp_path / "d" / ANCHOR_NAME
    keeper.keep(new_anchor("acme", AT), path)
    (tmp_path / "d").rename(tmp_path / "elsewhere")
    (tmp_path / "d").write_text("a file where the folder was")
    keeper.committed("acme", revision=1, history_count=1, last_hash="a" * 64)  # never raises
    assert keeper.last_error is not None and "cannot" in keeper.last_error
    deadline = time.monotonic() + 5
    while keeper._thread is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert keeper._thread is None  # idle: no thread left behind
    (tmp_path / "d").unlink()
    (tmp_path / "elsewhere").rename(tmp_path / "d")
    keeper.committed("acme", revision=2, history_count=2, last_hash="a" * 64)  # a new thread
    assert keeper.last_error is None
    got = read_anchor(path)
    assert got is not None and got.revision == 2
    keeper.close()
