"""After purge the canary text is gone from memory.db, memory.db-wal and FTS shadow tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memvault.engine import ALL_USERS
from memvault.model import ChangeKind
from tests.conftest import StepClock
from tests.helpers import update_fields
from tests.integration.lifecycle.conftest import DAY, open_engine, remember

CANARY = "zqxcanary7f3a"
CANARY_SUMMARY = "Pqcanarysummary"


def _raw_hits(db: Path, needle: str) -> dict[str, int]:
    """Occurrences of ``needle`` in the raw bytes of the database and its WAL."""
    hits = {}
    for suffix in ("", "-wal"):
        path = Path(str(db) + suffix)
        hits[path.name] = path.read_bytes().count(needle.encode()) if path.exists() else 0
    return hits


def _shadow_hits(db: Path, needle: str) -> int:
    """Rows of the FTS5 shadow tables whose bytes contain ``needle``."""
    conn = sqlite3.connect(db)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'memory_fts_%'"
            )
        ]
        total = 0
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {table}"):
                blob = b"".join(
                    v if isinstance(v, bytes) else str(v).encode() for v in row if v is not None
                )
                total += blob.count(needle.encode())
        return total
    finally:
        conn.close()


def test_purged_canary_leaves_no_bytes_behind(home: Path, clock: StepClock) -> None:
    engine = open_engine(home, clock)
    db = engine.layout.db_path if engine.layout else Path()
    try:
        for i in range(120):
            remember(engine, f"Ordinary preference number {i} about tea and coffee", importance=90)
        canary = remember(
            engine,
            f"The staging bucket is called {CANARY}",
            summary=f"{CANARY_SUMMARY} {CANARY}",
            key=f"secret_{CANARY}",
            value=CANARY,
            importance=5,
        )
        other = remember(engine, "Prefers green tea", importance=90)
        engine.link(canary, other, "RelatedTo", reason="related").raise_for_status()
        update_fields(engine, canary, importance=4).raise_for_status()
        assert sum(_raw_hits(db, CANARY).values()) > 0  # the test can see it before
        assert _shadow_hits(db, CANARY) > 0
        clock.now += 61 * DAY
        assert [t.memory_id for t in engine.run_lifecycle().soft_deleted] == [canary]
        clock.now += 31 * DAY
        assert [t.memory_id for t in engine.run_lifecycle().purged] == [canary]
        # the delta header shows the purge once, without text
        purge = [c for c in engine.store.changes_since("acme", 0) if c.memory_id == canary]
        assert purge[-1].kind is ChangeKind.DELETED and purge[-1].summary == ""
        assert _raw_hits(db, CANARY) == {"memory.db": 0, "memory.db-wal": 0}
        assert _raw_hits(db, CANARY_SUMMARY) == {"memory.db": 0, "memory.db-wal": 0}
        assert _shadow_hits(db, CANARY) == 0
        assert engine.store.edges_of("acme", [other]) == []
        assert engine.verify_audit().ok
        # the rest is intact and still recalled
        assert [h.node.memory_id for h in engine.search("green tea", top_k=1).hits] == [other]
    finally:
        engine.close()
    assert _raw_hits(db, CANARY) == {"memory.db": 0, "memory.db-wal": 0}
    conn = sqlite3.connect(db)
    try:
        for table in ("memories", "memory_sources", "memory_edges", "memory_embeddings"):
            column = "from_memory_id" if table == "memory_edges" else "memory_id"
            count = conn.execute(
                f"SELECT count(*) FROM {table} WHERE {column} = ?", (canary,)
            ).fetchone()[0]
            assert count == 0, table
    finally:
        conn.close()


def test_purge_drops_materialised_bulletins(home: Path, clock: StepClock) -> None:
    engine = open_engine(home, clock)
    try:
        if not hasattr(engine, "bulletin") or engine.layout is None:
            pytest.skip("no materialised bulletins in this build")
        canary = remember(engine, f"Prefers the {CANARY} editor theme", importance=95)
        remember(engine, "Prefers green tea", importance=90, user_id="u2")
        assert CANARY in engine.bulletin(user="u1").text
        assert CANARY in engine.bulletin(user=ALL_USERS).text
        bulletins = engine.layout.bulletins_dir
        assert any(CANARY in p.read_text() for p in bulletins.rglob("*.json"))
        assert engine.forget_user("u1").purged_ids == (canary,)
        assert not any(CANARY in p.read_text() for p in bulletins.rglob("*.json"))
        assert CANARY not in engine.bulletin(user="u1").text
    finally:
        engine.close()
