"""MemoryController contract: authorisation, tenancy, never raising (INV 1, 2, 6, 10, 11)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memvault.context import AgentAllowlist
from memvault.controller import (
    ControllerStatus,
    DisabledMemoryController,
    EngineMemoryController,
    GuardedController,
    InMemoryController,
    MemoryController,
    MemoryReadRequest,
    MemoryWriteRequest,
)
from memvault.embed import HashingEmbedder
from memvault.engine import MemoryEngine
from memvault.layout import RuntimeLayout


def read(orchestrator: str = "acme", *, authorized: bool = True, **kw: object) -> MemoryReadRequest:
    fields: dict[str, object] = {
        "query": "which tea does Dana like",
        "purpose": "message",
        "user": "dana",
    }
    fields.update(kw)
    return MemoryReadRequest(
        authorized=authorized,
        reason="context_enrichment",
        orchestrator=orchestrator,
        agent="assistant",
        **fields,  # type: ignore[arg-type]
    )


def write(orchestrator: str = "acme", *, authorized: bool = True) -> MemoryWriteRequest:
    return MemoryWriteRequest(
        authorized=authorized,
        reason="transcript_capture",
        orchestrator=orchestrator,
        agent="assistant",
        kind="message",
        payload={"text": "I prefer green tea over coffee", "user": "dana"},
    )


@pytest.fixture
def engine_controller(tmp_path: Path) -> Iterator[EngineMemoryController]:
    c = EngineMemoryController.for_home(tmp_path, "acme", embedder=HashingEmbedder())
    yield c
    c.close()


def _all(tmp_path: Path) -> list[GuardedController]:
    return [
        InMemoryController("acme"),
        DisabledMemoryController("acme"),
        EngineMemoryController.for_home(tmp_path, "acme", embedder=HashingEmbedder()),
    ]


def test_every_controller_satisfies_the_protocol(tmp_path: Path) -> None:
    for c in _all(tmp_path):
        assert isinstance(c, MemoryController)
        c.close()


def test_unauthorized_read_and_write_are_blocked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for c in _all(tmp_path):
        with caplog.at_level(logging.WARNING, "memvault.controller"):
            r = c.read(read(authorized=False))
            w = c.write(write(authorized=False))
        assert r.status is ControllerStatus.UNAUTHORIZED, type(c)
        assert w.status is ControllerStatus.UNAUTHORIZED, type(c)
        assert r.stop_reason == w.stop_reason == "UNAUTHORIZED"
        assert not r.recall and not w.memory_ids
        c.close()
    assert "memory_read_denied" in caplog.text and "memory_write_denied" in caplog.text


def test_unauthorized_touches_nothing(tmp_path: Path) -> None:
    memory = InMemoryController("acme")
    memory.write(write(authorized=False))
    memory.read(read(authorized=False))
    assert memory.calls == [] and memory.facts == []  # refused before the implementation

    c = EngineMemoryController.for_home(tmp_path, "acme", embedder=HashingEmbedder())
    c.write(write(authorized=False))
    c.close()
    with MemoryEngine.open(tmp_path, "acme", embedder=HashingEmbedder()) as engine:
        assert engine.list_memories() == []


def test_authorized_write_then_read_round_trips(
    engine_controller: EngineMemoryController,
) -> None:
    w = engine_controller.write(write())
    assert w.status is ControllerStatus.OK and w.stop_reason == "SUCCESS_STORED"
    assert w.outcomes == ("stored",) and len(w.memory_ids) == 1
    r = engine_controller.read(read(thread_id="acme:http:dana"))
    assert r.status is ControllerStatus.OK
    assert w.memory_ids[0] in r.memory_ids
    assert "Dana prefers green tea" in r.context
    assert r.recall[0].source["sourceType"] == "channel_transcript"


def test_cross_orchestrator_request_is_denied_and_logged(
    engine_controller: EngineMemoryController, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    engine_controller.write(write())
    with caplog.at_level(logging.WARNING, "memvault.controller"):
        r = engine_controller.read(read("beta"))
        w = engine_controller.write(write("beta"))
    assert r.status is w.status is ControllerStatus.UNAUTHORIZED
    assert not r.recall and "cross-orchestrator" in r.detail
    assert "cross-orchestrator read denied" in caplog.text
    assert "asked_by=beta" in caplog.text
    audit = RuntimeLayout.for_orchestrator(tmp_path, "acme").log_path.read_text("utf-8")
    denials = [json.loads(ln) for ln in audit.splitlines() if "_denied" in ln]
    assert [(d["event"], d["asked_by"], d["level"]) for d in denials] == [
        ("memory_read_denied", "beta", "warning"),
        ("memory_write_denied", "beta", "warning"),
    ]


def test_disabled_controller_answers_unavailable() -> None:
    c = DisabledMemoryController("acme")
    assert c.read(read()).status is ControllerStatus.UNAVAILABLE
    assert c.write(write()).status is ControllerStatus.UNAVAILABLE


@pytest.mark.parametrize(
    ("fail", "status"),
    [("unavailable", ControllerStatus.UNAVAILABLE), ("failed", ControllerStatus.FAILED)],
)
def test_injected_failures_become_responses(
    fail: str, status: ControllerStatus, caplog: pytest.LogCaptureFixture
) -> None:
    c = InMemoryController("acme", fail=fail)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, "memvault.controller"):
        assert c.read(read()).status is status
        assert c.write(write()).status is status
    assert f"memory_read_{status.value}" in caplog.text


# -- a broken store: corrupt, missing, locked, disk error -------------------------------


def _corrupt(home: Path) -> None:
    db = home / "acme" / "memory" / "memory.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database\x00" * 100)


def _missing(home: Path) -> None:
    home.parent.mkdir(parents=True, exist_ok=True)
    home.write_text("a file where the home directory should be")


BREAKERS: dict[str, Callable[[Path], None]] = {"corrupt": _corrupt, "missing": _missing}


@pytest.mark.parametrize("breaker", sorted(BREAKERS))
def test_broken_store_is_unavailable_never_raised(tmp_path: Path, breaker: str) -> None:
    home = tmp_path / "home"
    BREAKERS[breaker](home)
    c = EngineMemoryController.for_home(home, "acme", embedder=HashingEmbedder())
    r, w = c.read(read()), c.write(write())
    assert r.status is w.status is ControllerStatus.UNAVAILABLE
    assert not c.available
    c.close()


def test_locked_store_does_not_block(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=HashingEmbedder()) as engine:
        db = engine.layout.db_path if engine.layout else None
    assert db is not None
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE IF NOT EXISTS _lock_probe (x)")  # takes the exclusive lock
    try:
        c = EngineMemoryController.for_home(
            tmp_path, "acme", embedder=HashingEmbedder(), deadline_s=0.5
        )
        assert c.read(read()).status is ControllerStatus.UNAVAILABLE
        assert c.write(write()).status is ControllerStatus.UNAVAILABLE
        c.close()
    finally:
        holder.rollback() if holder.in_transaction else None
        holder.close()


def test_disk_error_is_unavailable(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def failing_disk() -> MemoryEngine:
        raise sqlite3.OperationalError("disk I/O error")

    c = EngineMemoryController("acme", failing_disk)
    with caplog.at_level(logging.ERROR, "memvault.controller"):
        assert c.read(read()).status is ControllerStatus.UNAVAILABLE
    assert "disk I/O error" in caplog.text
    c.close()


def test_agent_allowlist_is_enforced_by_the_controller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    allow = AgentAllowlist.from_mapping(
        {"planner": ["TODO", "DECISION"], "assistant": ["PREFERENCE"]}
    )
    c = EngineMemoryController.for_home(
        tmp_path, "acme", embedder=HashingEmbedder(), allowlist=allow
    )
    assert c.write(write()).status is ControllerStatus.OK
    ok = c.read(read())
    assert ok.status is ControllerStatus.OK and "Dana prefers green tea" in ok.context
    assert "<memory-bulletin" not in ok.context  # limited agents get recall, not the bulletin
    planner = MemoryReadRequest(
        authorized=True,
        reason="plan",
        orchestrator="acme",
        agent="planner",
        query="tea",
        categories=("PREFERENCE",),
    )
    with caplog.at_level(logging.WARNING, "memvault.controller"):
        refused = c.read(planner)
    assert refused.status is ControllerStatus.UNAUTHORIZED and refused.stop_reason
    assert not refused.recall and "memory_read_refused" in caplog.text
    c.close()
