"""Damage is detected, never papered over (issue 20): real files, real CLI, real engine.

A store records its identity inside the database and in
``memory/memory.anchor.json``. Deleting, emptying, truncating, scrambling or
swapping the database is reported as "store unavailable" (exit 4) — never a
fresh empty store — and a mistyped orchestrator names the ones that exist.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.controller.engine_backed import EngineMemoryController
from memvault.engine import MemoryEngine, OpenGate
from memvault.errors import StoreIdentityError, StoreMissingError, StoreUnavailableError
from memvault.model.enums import StopReason
from memvault.store.anchor import read_anchor
from tests.helpers import add_fields

runner = CliRunner()
FIELDS = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}


def cli(home: Path, *args: str, orchestrator: str = "acme") -> tuple[int, str, str]:
    result = runner.invoke(app, ["--home", str(home), "--orchestrator", orchestrator, *args])
    return result.exit_code, result.stdout, result.stderr


def seeded(home: Path, orchestrator: str = "acme", n: int = 5, size: int = 80) -> list[str]:
    """Write ``n`` memories through the engine; return their ids."""
    ids = []
    with MemoryEngine.open(home, orchestrator, gate=OpenGate(), embedder=None) as engine:
        for i in range(n):
            text = f"Fact {i} about the deploy pipeline of {orchestrator}. " + "x" * size
            result = add_fields(engine, text, **FIELDS)
            assert result.ok, result
            ids.append(str(result.memory_id))
    return ids


def db(home: Path, orchestrator: str = "acme") -> Path:
    return home / orchestrator / "memory" / "memory.db"


def test_anchor_follows_every_committed_write(tmp_path: Path) -> None:
    seeded(tmp_path, n=3)
    anchor = read_anchor(tmp_path / "acme" / "memory" / "memory.anchor.json")
    assert anchor is not None and anchor.orchestrator_id == "acme"
    with MemoryEngine.open(tmp_path, "acme", embedder=None, create=False) as engine:
        live = engine.store.identity("acme")
        assert live == anchor  # uuid, created_at, revision, history count, last hash
        assert anchor.revision == 3 and anchor.history_count == len(engine.store.history("acme"))
        add_fields(engine, "one more fact about the build", **FIELDS)
        after = read_anchor(tmp_path / "acme" / "memory" / "memory.anchor.json")
        assert after is not None and after.revision == 4 and after == engine.store.identity("acme")


@pytest.mark.parametrize("damage", ["deleted", "emptied", "truncated", "scrambled", "swapped"])
def test_damaged_database_is_unavailable_never_recreated(tmp_path: Path, damage: str) -> None:
    seeded(tmp_path, n=40, size=1500)
    seeded(tmp_path, "beta", n=2)
    path = db(tmp_path)
    size = path.stat().st_size
    if damage == "deleted":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    elif damage == "emptied":
        path.write_bytes(b"")
    elif damage == "truncated":
        with path.open("r+b") as fh:
            fh.truncate(size // 2)
    elif damage == "scrambled":
        rng = random.Random(20)
        with path.open("r+b") as fh:  # random bytes over the middle pages
            fh.seek(size // 3)
            fh.write(rng.randbytes(size // 3))
    else:
        shutil.copyfile(db(tmp_path, "beta"), path)

    with pytest.raises(StoreUnavailableError) as opened:
        MemoryEngine.open(tmp_path, "acme", embedder=None)  # create=True: still refused
    if damage in ("deleted", "emptied", "swapped"):
        assert isinstance(opened.value, StoreIdentityError)
    for args in (("search", "deploy pipeline", "--json"), ("init",), ("audit", "verify")):
        code, out, err = cli(tmp_path, *args)
        assert code == 4, (args, out, err)
        assert "results" not in out and len(err.strip().splitlines()) <= 2
    if damage == "deleted":
        assert not path.exists()  # nothing re-created in its place
    if damage == "emptied":
        assert path.stat().st_size == 0


def test_mistyped_orchestrator_names_the_existing_ones(tmp_path: Path) -> None:
    seeded(tmp_path, n=1)
    seeded(tmp_path, "beta", n=1)
    code, out, err = cli(tmp_path, "search", "deploy", "--json", orchestrator="acem")
    assert code == 4
    assert "'acem'" in err and "acme, beta" in err and "memvault init" in err
    code, _, err = cli(
        tmp_path,
        "add",
        "x y z",
        "--type",
        "Fact",
        "--category",
        "KNOWLEDGE",
        "--source-kind",
        "SYSTEM_KNOWN",
        orchestrator="acem",
    )
    assert code == 4
    assert not (tmp_path / "acem").exists()  # no empty store was opened
    with pytest.raises(StoreMissingError) as missing:
        MemoryEngine.open(tmp_path, "acem", embedder=None, create=False)
    assert missing.value.known == ("acme", "beta")
    # asking for it creates it
    code, out, _ = cli(tmp_path, "init", "--json", orchestrator="acem")
    assert code == 0 and json.loads(out)["orchestrator"] == "acem"
    code, _, _ = cli(tmp_path, "search", "deploy", "--json", orchestrator="acem")
    assert code == 0


def test_first_command_in_an_empty_home_creates(tmp_path: Path) -> None:
    code, _, err = cli(tmp_path, "stats", "--json")
    assert code == 0, err
    assert (tmp_path / "acme" / "memory" / "memory.anchor.json").is_file()


def test_store_from_before_anchors_is_adopted(tmp_path: Path) -> None:
    ids = seeded(tmp_path, n=2)
    anchor_file = tmp_path / "acme" / "memory" / "memory.anchor.json"
    before = read_anchor(anchor_file)
    anchor_file.unlink()
    with MemoryEngine.open(tmp_path, "acme", embedder=None, create=False) as engine:
        assert engine.get(ids[0]).node.memory_id == ids[0]
    after = read_anchor(anchor_file)
    assert before is not None and after == before  # same identity, re-anchored


def test_file_deleted_while_open_fails_every_later_write(tmp_path: Path) -> None:
    seeded(tmp_path, n=1)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, gate=OpenGate()) as engine:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db(tmp_path)}{suffix}").unlink(missing_ok=True)
        for i in range(3):
            result = add_fields(engine, f"written after the file vanished {i}", **FIELDS)
            assert result.stop_reason is StopReason.INTERNAL_INCONSISTENCY
        with pytest.raises(StoreUnavailableError, match="deleted while open"):
            engine.search("vanished")
    with pytest.raises(StoreIdentityError):
        MemoryEngine.open(tmp_path, "acme", embedder=None)


def test_agent_runs_memory_off_and_health_says_degraded(tmp_path: Path) -> None:
    from memvault.access import AccessControl
    from memvault.config import load_config
    from memvault.controller.types import MemoryReadRequest

    seeded(tmp_path, n=2)
    db(tmp_path).write_bytes(b"")
    controller = EngineMemoryController.for_home(tmp_path, "acme", embedder=None)
    try:
        response = controller.read(
            MemoryReadRequest(
                orchestrator="acme",
                agent="assistant",
                authorized=True,
                reason="test",
                query="deploy",
            )
        )
        assert response.status.value == "unavailable"
        assert controller.available is False
    finally:
        controller.close()

    control = AccessControl(tmp_path, load_config(environ={}))
    try:
        token, _ = control.keys.create("acme", "planner")
        who = control.authenticate(token)
        assert who is not None
        with pytest.raises(StoreIdentityError):
            control.engine(who)
        health = control.health()
        assert health["status"] == "degraded" and health["memory_available"] is False
        assert [d["component"] for d in health["degraded"]] == ["orchestrator:acme"]
    finally:
        control.close()


def test_a_zero_byte_file_without_anchor_is_not_a_store(tmp_path: Path) -> None:
    seeded(tmp_path, "beta", n=1)
    path = db(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    with pytest.raises(StoreMissingError):
        MemoryEngine.open(tmp_path, "acme", embedder=None, create=False)
    assert path.stat().st_size == 0
    assert os.listdir(path.parent) == ["memory.db"]


WRITER = """
import sys
from memvault.engine import MemoryEngine, NewMemory, OpenGate
engine = MemoryEngine.open(sys.argv[1], "acme", gate=OpenGate(), embedder=None)
i = 0
while True:
    engine.add(NewMemory(content=f"fact {i} written before the kill " + "w" * 300,
               type="Fact", category="KNOWLEDGE", source_kind="SYSTEM_KNOWN"))
    i += 1
"""


@pytest.mark.parametrize("damage", ["none", "deleted", "truncated"])
def test_kill_9_during_writes_then_damage(tmp_path: Path, damage: str) -> None:
    """The crash suite, extended: SIGKILL a writer, then delete or truncate its file."""
    import signal
    import subprocess
    import sys
    import time

    seeded(tmp_path, n=1)
    anchor_file = tmp_path / "acme" / "memory" / "memory.anchor.json"
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)])
    try:
        deadline = time.monotonic() + 120
        while True:
            anchor = read_anchor(anchor_file)
            if anchor is not None and anchor.revision >= 12:
                break
            assert time.monotonic() < deadline and child.poll() is None
            time.sleep(0.05)
        time.sleep(random.Random(3).random() * 0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    anchored = read_anchor(anchor_file)
    assert anchored is not None
    path = db(tmp_path)
    if damage == "none":
        with MemoryEngine.open(tmp_path, "acme", embedder=None, create=False) as engine:
            live = engine.store.identity("acme")
            # every write the anchor saw is in the file (it may be one commit behind)
            assert live is not None and live.store_uuid == anchored.store_uuid
            assert live.history_count >= anchored.history_count
            assert engine.verify_audit().ok
        return
    if damage == "deleted":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        size = path.stat().st_size
        with path.open("r+b") as fh:
            fh.truncate(max(size // 3, 1))
        Path(f"{path}-wal").unlink(missing_ok=True)
    with pytest.raises(StoreUnavailableError):
        MemoryEngine.open(tmp_path, "acme", embedder=None)
    code, out, _ = cli(tmp_path, "search", "fact", "--json")
    assert code == 4 and "results" not in out
    if damage == "deleted":
        assert not path.exists()


def test_starting_over_takes_moving_the_anchor_away(tmp_path: Path) -> None:
    seeded(tmp_path, n=2)
    db(tmp_path).unlink()
    code, _, err = cli(tmp_path, "init")
    assert code == 4 and "memory.anchor.json" in err  # the hint says how to start over
    anchor_file = tmp_path / "acme" / "memory" / "memory.anchor.json"
    anchor_file.rename(tmp_path / "old-anchor.json")
    code, _, err = cli(tmp_path, "init")
    assert code == 0, err
    new = read_anchor(anchor_file)
    old = read_anchor(tmp_path / "old-anchor.json")
    assert new is not None and old is not None and new.store_uuid != old.store_uuid


def test_health_answers_while_a_store_does_not(tmp_path: Path) -> None:
    """Before, ``/v1/health`` ran every open orchestrator's stats with no deadline: with
    the PostgreSQL server frozen (SIGSTOP; a network partition looks the same) it gave
    no answer for as long as the database gave none (>90 s measured), so a load
    balancer's or orchestrator's probe hung instead of reading "degraded". The frozen
    database is stood in for by a stats call that blocks (a partition cannot be made
    on the tests' shared server)."""
    import threading
    import time

    from memvault.access import AccessControl, Principal
    from memvault.config import load_config

    control = AccessControl(tmp_path, load_config(tmp_path, environ={}), health_deadline_s=0.5)
    release = threading.Event()
    try:
        control.engine(Principal("acme", "a", "test"))
        engine = control.opened()["acme"]
        assert control.health()["status"] == "ok"
        engine.stats = lambda: release.wait(60)  # type: ignore[method-assign]
        started = time.monotonic()
        health = control.health()
        again = control.health()  # one probe in flight per orchestrator, not one per call
        waited = time.monotonic() - started
        assert health["status"] == "degraded" and health["memory_available"] is False
        assert "no answer" in health["degraded"][0]["reason"]
        assert again["status"] == "degraded"
        assert waited < 30  # the frozen call would have held it for 60 s
        release.set()
        time.sleep(0.2)
        del engine.stats
        assert control.health()["status"] == "ok"
    finally:
        release.set()
        control.close()
