"""Tamper evidence for content: an edited memory row and a rolled-back database are caught.

The hash chain covers history events; each write's event carries the digest of
the row it stored, ``audit verify`` re-hashes the live rows against it and
compares the chain's head with the anchor file kept outside the database.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.lifecycle.audit import AuditReport, verify_rows
from memvault.store.base import row_digest
from tests.conftest import StepClock
from tests.helpers import update_fields
from tests.integration.lifecycle.conftest import open_engine, remember


def _write_history(home: Path, clock: StepClock) -> tuple[Path, list[str]]:
    """Memories through every kind of audited write; the chain and rows verify."""
    with open_engine(home, clock) as engine:
        a = remember(engine, "Prefers tea in the afternoon")
        b = remember(engine, "Prefers short answers")
        c = remember(engine, "The billing service deploys on Tuesdays")
        update_fields(engine, a, content="Prefers green tea in the afternoon").raise_for_status()
        engine.delete(b).raise_for_status()
        engine.restore(b).raise_for_status()
        engine.retract(c).raise_for_status()
        report = engine.verify_audit()
        assert report.ok, report
        assert report.rows_checked == 3 and report.rows_unverified == 0
        assert report.anchor_checked is True
        (event,) = [e for e in engine.history(a) if e.op.value == "UPDATE"]
        assert event.detail["digest"] == row_digest(engine.get(a).node)
        assert engine.layout is not None
        return engine.layout.db_path, [a, b, c]


def _sql(db: Path, statement: str, *args: object) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(statement, args)
        conn.commit()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("content", "Prefers coffee in the afternoon"),
        ("key", "forged_key"),
        ("value", "forged"),
        ("type", "Decision"),
        ("category", "KNOWLEDGE"),
        ("status", "superseded"),
    ],
)
def test_an_edited_memory_row_is_caught(
    home: Path, clock: StepClock, column: str, value: str
) -> None:
    db, (a, _, _) = _write_history(home, clock)
    _sql(db, f"UPDATE memories SET {column} = ? WHERE memory_id = ?", value, a)
    with open_engine(home, clock) as engine:
        report = engine.verify_audit()
    assert report.ok is False
    assert report.broken is not None and report.broken.memory_id == a
    assert "no longer matches the digest" in report.broken.reason


def test_an_edited_row_fails_the_cli_and_names_the_memory(home: Path, clock: StepClock) -> None:
    db, (_, b, _) = _write_history(home, clock)
    _sql(db, "UPDATE memories SET content = 'Prefers long answers' WHERE memory_id = ?", b)
    result = CliRunner().invoke(
        app, ["--home", str(home), "-o", "acme", "audit", "verify", "--json"]
    )
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["first_broken"]["memory_id"] == b


def test_a_restored_old_copy_of_the_database_is_caught(home: Path, clock: StepClock) -> None:
    with open_engine(home, clock) as engine:
        remember(engine, "Prefers tea in the afternoon")
        assert engine.layout is not None
        db = engine.layout.db_path
    backup = home / "backup.db"
    shutil.copyfile(db, backup)  # closed engine: the WAL was checkpointed into the file
    with open_engine(home, clock) as engine:
        remember(engine, "Prefers short answers")
        assert engine.verify_audit().ok
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copyfile(backup, db)
    with open_engine(home, clock) as engine:
        report = engine.verify_audit()
    assert report.ok is False and report.broken is not None
    assert "behind its anchor" in report.broken.reason
    assert report.events == 1


def test_audit_anchor_exports_the_head(home: Path, clock: StepClock, tmp_path: Path) -> None:
    _write_history(home, clock)
    out = tmp_path / "anchor-copy.json"
    result = CliRunner().invoke(
        app, ["--home", str(home), "-o", "acme", "audit", "anchor", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    exported = json.loads(out.read_text())
    with open_engine(home, clock) as engine:
        report = engine.verify_audit()
    assert exported == json.loads(result.stdout)
    assert (exported["history_count"], exported["last_hash"]) == (report.events, report.head_hash)


def test_rows_without_a_digest_are_counted_not_failed(home: Path, clock: StepClock) -> None:
    """Rows whose events carry no digest (written before digests) are unverified, not broken."""
    with open_engine(home, clock) as engine:
        remember(engine, "Prefers tea in the afternoon")
        remember(engine, "Prefers short answers")
        events = engine.store.history(engine.orchestrator, limit=1000)
        nodes = engine.list_memories()
    # The same events as a database from before digests recorded them.
    old = [replace(e, detail={k: v for k, v in e.detail.items() if k != "digest"}) for e in events]
    chain = AuditReport(True, len(old), "head")
    report = verify_rows(old, nodes, chain)
    assert report.ok and (report.rows_checked, report.rows_unverified) == (0, 2)
    assert verify_rows(events, nodes, chain).rows_checked == 2
