"""Review S17-R3 (session 16's open item): ingest and the per-user daily cap.

A file whose memories the per-user daily cap refused (ENTITLEMENT_CAP: "too many
today", nothing about the file) was decided by it: all refused, the file went to
``rejected/`` with ALL_CANDIDATES_REFUSED and its hash was recorded — dropped again the
next day it was a *duplicate* of the rejected one and its memories never got in; a file
partly over the cap was ``processed`` with the rest refused, lost the same way. The cap
is a question of when, not of what: the file waits (pending, nothing of it written) for
a pass that can take it whole, as a file the gate could not judge waits (S16-R7).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault.engine import MemoryEngine
from memvault.policy.candidate import Caps
from tests.conftest import StepClock

CAP = Caps().per_user_daily
assert CAP is not None

NOTES = """---
user_id: dana
---
Dana deploys the billing service on Fridays.

Dana keeps the staging database on Postgres 16.
"""


def _fill(engine: MemoryEngine, user: str, n: int) -> None:
    """``n`` memories of ``user`` written today."""
    results = engine.add_many(
        [
            {
                "content": f"Project unit {i} ships build number {i * 7919} to region {i % 13}.",
                "type": "Fact",
                "category": "KNOWLEDGE",
                "source_kind": "USER_EXPLICIT",
                "user_id": user,
            }
            for i in range(n)
        ]
    )
    assert all(r.ok for r in results)


def _pass(home: Path, clock: StepClock) -> tuple[dict[str, Any], int]:
    with MemoryEngine.open(home, "acme", embedder="hashing", clock=clock) as engine:
        report = engine.ingest_pending(settle_seconds=0).to_json()
        return report, engine.count_memories({"user_id": "dana"})


def test_a_file_over_the_daily_cap_waits_for_the_next_day(tmp_path: Path) -> None:
    clock = StepClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing", clock=clock) as engine:
        drop = engine.layout.ensure().ingest_dir
        _fill(engine, "dana", CAP - 1)  # room for one memory today; the file has two
    (drop / "notes.md").write_text(NOTES, encoding="utf-8")
    report, count = _pass(tmp_path, clock)
    assert count == CAP - 1  # nothing of the file written today
    assert report["rejected"] == [] and report["processed"] == []
    assert report["pending"] == ["notes.md"] and (drop / "notes.md").exists()
    clock.now += timedelta(days=1)
    report, count = _pass(tmp_path, clock)
    assert [p["file"] for p in report["processed"]] == ["notes.md"]
    assert count == CAP + 1  # both memories of the file, the next day


def test_a_file_within_the_cap_is_ingested_and_other_users_are_not_held(tmp_path: Path) -> None:
    """Near misses: room for the whole file; the cap of another user than the file's."""
    clock = StepClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    with MemoryEngine.open(tmp_path, "acme", embedder="hashing", clock=clock) as engine:
        drop = engine.layout.ensure().ingest_dir
        _fill(engine, "dana", CAP - 2)
        _fill(engine, "eli", CAP)
    (drop / "notes.md").write_text(NOTES, encoding="utf-8")
    report, count = _pass(tmp_path, clock)
    assert [p["file"] for p in report["processed"]] == ["notes.md"]
    assert count == CAP
