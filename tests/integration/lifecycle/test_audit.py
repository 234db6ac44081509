"""Audit verify catches an edited row, a deleted row and a deleted last row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.conftest import StepClock
from tests.helpers import add_fields, update_fields
from tests.integration.lifecycle.conftest import open_engine, remember


def _populate(home: Path, clock: StepClock) -> Path:
    with open_engine(home, clock) as engine:
        a = remember(engine, "Prefers tea")
        b = remember(engine, "Prefers short answers")
        update_fields(engine, a, importance=70).raise_for_status()
        engine.link(a, b, "RelatedTo").raise_for_status()
        engine.delete(b).raise_for_status()
        add_fields(engine, "x", type="nope", category="PREFERENCE", source_kind="USER_EXPLICIT")
        report = engine.verify_audit()
        assert report.ok and report.events == 6, report
        assert engine.layout is not None
        return engine.layout.db_path


def _tamper(db: Path, sql: str) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


def _verify(home: Path, clock: StepClock) -> dict[str, object]:
    with open_engine(home, clock) as engine:
        return engine.verify_audit().to_json()


@pytest.mark.parametrize(
    ("sql", "position", "why"),
    [
        ('UPDATE history SET detail = \'{"fields": ["content"]}\' WHERE seq = 3', 3, "edited"),
        ("UPDATE history SET at = '2020-01-01T00:00:00.000000Z' WHERE seq = 1", 1, "edited"),
        ("UPDATE history SET actor = 'mallory' WHERE seq = 6", 6, "edited"),
        ("DELETE FROM history WHERE seq = 2", 2, "removed"),
        ("DELETE FROM history WHERE seq = 1", 1, "removed"),
        ("DELETE FROM history WHERE seq = 6", 6, "removed"),
    ],
)
def test_verify_finds_the_first_broken_row(
    home: Path, clock: StepClock, sql: str, position: int, why: str
) -> None:
    db = _populate(home, clock)
    _tamper(db, sql)
    report = _verify(home, clock)
    assert report["ok"] is False
    broken = report["first_broken"]
    assert isinstance(broken, dict)
    assert broken["position"] == position
    assert why in broken["reason"]


def test_rehashing_an_edited_row_still_breaks_the_next_link(home: Path, clock: StepClock) -> None:
    db = _populate(home, clock)
    # Change the first hex digit (whatever it was: a hash may already start with 'f').
    flip = "CASE substr(hash, 1, 1) WHEN 'f' THEN 'e' ELSE 'f' END"
    _tamper(db, f"UPDATE history SET hash = {flip} || substr(hash, 2) WHERE seq = 2")
    broken = _verify(home, clock)["first_broken"]
    assert isinstance(broken, dict) and broken["position"] == 2


def test_unreadable_row_is_reported_not_raised(home: Path, clock: StepClock) -> None:
    db = _populate(home, clock)
    _tamper(db, "UPDATE history SET detail = 'not json' WHERE seq = 2")
    report = _verify(home, clock)
    assert report["ok"] is False


def test_purge_and_refusals_keep_the_chain_valid(home: Path, clock: StepClock) -> None:
    _populate(home, clock)
    with open_engine(home, clock) as engine:
        engine.forget_user("u1")
        assert engine.verify_audit().ok
