"""SQLite-only behaviour: pragmas, migrations, fault injection, concurrency."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from memvault.errors import MigrationError, StoreUnavailableError
from memvault.model import ChangeKind
from memvault.store import ChangeEntry, NodeFilter, SQLiteStore, WriteSet
from memvault.store.sqlite import writes as sqlite_writes
from memvault.store.sqlite.schema import MIGRATIONS
from tests.helpers import make_edge, make_node, ts

TABLES = {
    "memories",
    "memory_edges",
    "memory_sources",
    "memory_embeddings",
    "memory_fts",
    "history",
    "change_log",
    "thread_revision",
    "thread_seen",
    "events",
    "ingest_files",
    "proposals",
    "schema_version",
    "embedding_cache",
}


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path)


def test_schema_pragmas_and_versions(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = SQLiteStore(db)
    conn = store._writer
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert names >= TABLES
    assert store.schema_versions() == [v for v, _, _ in MIGRATIONS]
    store.close()
    # reopening applies nothing twice
    again = SQLiteStore(db)
    assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
    again.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    SQLiteStore(db).close()
    with raw(db) as conn:
        conn.execute("INSERT INTO schema_version VALUES (999, 'future', 'x')")
    with pytest.raises(MigrationError):
        SQLiteStore(db)


def test_corrupt_file_is_unavailable(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailableError):
        SQLiteStore(db)


def test_exception_mid_write_leaves_no_row_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "memory.db"
    store = SQLiteStore(db)
    a, b = make_node(content="canary-alpha"), make_node(content="canary-beta")

    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("injected fault after nodes, edges and FTS rows were written")

    # Trigger the fault after nodes, sources, FTS rows and edges are in the transaction.
    monkeypatch.setattr(sqlite_writes, "insert_events", explode)
    with pytest.raises(RuntimeError, match="injected"):
        store.apply(
            WriteSet(
                "acme",
                ts(1),
                nodes=(a, b),
                edges=(make_edge(a, b),),
                changes=(ChangeEntry(a.memory_id, ChangeKind.CREATED),),
            )
        )
    store.close()
    with raw(db) as conn:
        for table in (
            "memories",
            "memory_edges",
            "memory_sources",
            "history",
            "change_log",
            "thread_revision",
        ):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        assert conn.execute("SELECT count(*) FROM memory_fts").fetchone()[0] == 0
        hits = conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'canary'")
        assert hits.fetchone()[0] == 0


def test_readers_keep_reading_while_a_writer_holds_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "memory.db")
    node = make_node(content="visible before the long write")
    store.apply(WriteSet("acme", ts(1), nodes=(node,)))
    entered, release = threading.Event(), threading.Event()
    original = sqlite_writes.insert_events

    def slow_events(conn: sqlite3.Connection, orch: str, events: object) -> None:
        entered.set()
        assert release.wait(10)
        original(conn, orch, events)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite_writes, "insert_events", slow_events)
    writer = threading.Thread(
        target=store.apply,
        args=(WriteSet("acme", ts(2), nodes=(make_node(content="written later"),)),),
    )
    writer.start()
    assert entered.wait(10)
    reads: list[int] = []

    def read() -> None:
        reads.append(len(store.list_nodes("acme", NodeFilter(), limit=10)))

    readers = [threading.Thread(target=read) for _ in range(4)]
    for t in readers:
        t.start()
    for t in readers:
        t.join(10)
    assert reads == [1, 1, 1, 1]  # not blocked, and not seeing the uncommitted node
    release.set()
    writer.join(10)
    assert len(store.list_nodes("acme", NodeFilter(), limit=10)) == 2
    store.close()


def test_many_threads_writing_lose_nothing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "memory.db")
    errors: list[BaseException] = []
    per_thread, threads = 25, 8

    def work(t: int) -> None:
        try:
            for i in range(per_thread):
                n = make_node(content=f"thread {t} item {i}")
                store.apply(
                    WriteSet(
                        "acme",
                        ts(i),
                        nodes=(n,),
                        changes=(ChangeEntry(n.memory_id, ChangeKind.CREATED),),
                    )
                )
                store.list_nodes("acme", NodeFilter(), limit=5)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(60)
    assert errors == []
    counts = store.counts("acme")
    assert counts.total == per_thread * threads
    assert counts.revision == per_thread * threads
    store.close()


def test_two_store_objects_on_one_file_interleave(tmp_path: Path) -> None:
    """Two writers (as two processes would be) never surface 'database is locked'."""
    db = tmp_path / "memory.db"
    s1, s2 = SQLiteStore(db), SQLiteStore(db)
    errors: list[BaseException] = []

    def work(store: SQLiteStore) -> None:
        try:
            for _ in range(30):
                store.apply(WriteSet("acme", ts(1), nodes=(make_node(),)))
        except BaseException as exc:
            errors.append(exc)

    ts_ = [threading.Thread(target=work, args=(s,)) for s in (s1, s2)]
    for t in ts_:
        t.start()
    for t in ts_:
        t.join(60)
    assert errors == []
    assert s1.counts("acme").total == 60
    s1.close()
    s2.close()


def test_hydrated_nodes_are_reused_only_while_their_row_is_unchanged(tmp_path: Path) -> None:
    from tests.helpers import make_node as _make_node
    from tests.helpers import ts as _ts

    store = SQLiteStore(tmp_path / "m.db")
    node = _make_node("acme")
    store.apply(WriteSet("acme", _ts(1), nodes=(node,)))
    first = store.get_nodes("acme", [node.memory_id])[0]
    assert store.get_nodes("acme", [node.memory_id])[0] is first  # same row: same object
    changed = first.model_copy(update={"importance": 90, "updated_at": _ts(2)})
    store.apply(WriteSet("acme", _ts(2), nodes=(changed,)))
    again = store.get_nodes("acme", [node.memory_id])[0]
    assert again is not first and again.importance == 90
    store.close()


def test_conversation_and_audit_op_lookups_use_their_indexes(tmp_path: Path) -> None:
    """The derived index text's per-write conversation listing and the Refusals page's
    audit-by-op read are index lookups, not scans (migration 5)."""
    from memvault.model import HistoryOp
    from memvault.store import sql as shared_sql
    from memvault.store.sqlite import queries as q

    store = SQLiteStore(tmp_path / "memory.db")
    conn = store._writer
    sql, params = shared_sql.list_nodes_query(
        "acme", NodeFilter(conversation_id="c1"), 10, 0, select=q.SELECT_NODE, mark="?"
    )
    plan = " ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
    assert "memories_conversation" in plan, plan
    plan = " ".join(
        r[3]
        for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM history WHERE orchestrator_id = ? AND op IN (?) "
            "ORDER BY seq DESC LIMIT 25",
            ["acme", HistoryOp.REFUSE.value],
        )
    )
    assert "history_op" in plan, plan
    store.close()


def test_a_key_lookup_uses_its_index(tmp_path: Path) -> None:
    """``NodeFilter(key=…)`` (the LangGraph adapter's get/put) reads the rows of that key
    through ``memories_key``, not by scanning the orchestrator's rows (migration 8)."""
    from memvault.store import sql as shared_sql
    from memvault.store.sqlite import queries as q

    store = SQLiteStore(tmp_path / "memory.db")
    sql, params = shared_sql.list_nodes_query(
        "acme", NodeFilter(key="drink", visible_to=("dana",)), 10, 0, select=q.SELECT_NODE, mark="?"
    )
    plan = " ".join(r[3] for r in store._writer.execute(f"EXPLAIN QUERY PLAN {sql}", params))
    assert "memories_key" in plan, plan
    store.close()


def test_the_audit_chain_head_is_one_index_probe_not_a_scan(tmp_path: Path) -> None:
    """Every write with events reads its tenant's last history row twice (the next
    ``prev_hash``, the ``audit_head``): through ``history_seq`` (migration 9), newest
    first, with no sort of every row of the tenant (a bulk load was quadratic)."""
    from memvault.lifecycle.audit import verify_chain
    from memvault.model import HistoryOp
    from memvault.store import HistoryEvent
    from memvault.store.sqlite import queries as q

    store = SQLiteStore(tmp_path / "memory.db")
    for i in range(3):
        for orch in ("acme", "zeta"):  # interleaved tenants: each chain has its own head
            event = HistoryEvent(f"e{orch}{i}", orch, HistoryOp.REFUSE, ts(i))
            store.apply(WriteSet(orch, "t", events=(event,)))
    conn = store._writer
    plan = " ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {q.HISTORY_HEAD}", ["acme"]))
    assert "history_seq" in plan and "TEMP B-TREE" not in plan, plan
    for orch in ("acme", "zeta"):
        last = conn.execute("SELECT hash FROM history WHERE event_id = ?", [f"e{orch}2"]).fetchone()
        assert conn.execute(q.HISTORY_HEAD, [orch]).fetchone()[0] == last[0]
        assert store.audit_head(orch).hash == last[0]
        report = verify_chain(store.history(orch), store.audit_head(orch))
        assert report.ok and report.events == 3, report
    store.close()


def test_a_version_4_file_is_upgraded_in_place(tmp_path: Path) -> None:
    """A database written before migration 5 gains its indexes on open, rows untouched."""
    db = tmp_path / "memory.db"
    store = SQLiteStore(db)
    store.apply(WriteSet("acme", ts(1), nodes=(make_node(conversation_id="c1"),)))
    store.close()
    with raw(db) as conn:
        conn.execute("DROP INDEX memories_conversation")
        conn.execute("DROP INDEX history_op")
        conn.execute("DELETE FROM schema_version WHERE version = 5")
    again = SQLiteStore(db)
    assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
    names = {r[0] for r in again._writer.execute("SELECT name FROM sqlite_master")}
    assert {"memories_conversation", "history_op"} <= names
    assert len(again.list_nodes("acme", NodeFilter(conversation_id="c1"), limit=5)) == 1
    again.close()


def test_a_version_5_file_keeps_seen_marks_per_reader(tmp_path: Path) -> None:
    """Migration 6: marks move to ``thread_seen`` (per reader); the head row stays."""
    db = tmp_path / "memory.db"
    store = SQLiteStore(db)
    store.apply(WriteSet("acme", ts(1), nodes=(make_node(),)))
    store.close()
    with raw(db) as conn:
        conn.execute("DROP TABLE thread_seen")
        conn.execute("DELETE FROM schema_version WHERE version = 6")
        conn.execute("INSERT INTO thread_revision VALUES ('acme', 'team-chat', 1)")  # old mark
    again = SQLiteStore(db)
    assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
    assert again.revision("acme") == 1
    rows = again._writer.execute("SELECT thread_id FROM thread_revision").fetchall()
    assert [tuple(r) for r in rows] == [("*",)]  # the old reader-less mark is gone, the head kept
    assert again.thread_seen("acme", "team-chat", reader="u-al") is None
    again.mark_thread_seen("acme", "team-chat", 1, reader="u-al")
    assert again.thread_seen("acme", "team-chat", reader="u-al") == 1
    again.close()


def _fts_rows(conn: sqlite3.Connection, memory_id: str) -> list[tuple[int, str]]:
    return [
        (int(r[0]), str(r[1]))
        for r in conn.execute(
            "SELECT rowid, content FROM memory_fts WHERE memory_id = ?", (memory_id,)
        )
    ]


def test_an_update_finds_the_full_text_row_by_rowid_not_by_a_scan(tmp_path: Path) -> None:
    """Migration 7: an update (a merge touch, a status change) of a stored memory
    replaces its one full-text row through ``memory_fts_rows``; no statement looks the
    UNINDEXED ``memory_id`` up in ``memory_fts`` (a scan of the whole index)."""
    store = SQLiteStore(tmp_path / "memory.db")
    node, other = make_node(content="deploys run on fridays"), make_node()
    store.apply(WriteSet("acme", ts(1), nodes=(node, other)))
    conn = store._writer
    assert conn is not None
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    changed = node.model_copy(update={"content": "deploys run on mondays", "updated_at": ts(2)})
    store.apply(WriteSet("acme", ts(2), nodes=(changed,)))
    conn.set_trace_callback(None)
    scans = [s for s in statements if "memory_fts WHERE memory_id" in s]
    assert not scans, scans
    rows = _fts_rows(conn, node.memory_id)
    assert [text for _, text in rows] == ["deploys run on mondays"]
    mapped = [
        tuple(r)
        for r in conn.execute("SELECT memory_id, fts_rowid FROM memory_fts_rows ORDER BY memory_id")
    ]
    assert mapped == sorted(
        [(node.memory_id, rows[0][0]), (other.memory_id, _fts_rows(conn, other.memory_id)[0][0])]
    )
    assert [h.memory_id for h in store.search_text("acme", ["mondays"], NodeFilter(), limit=5)] == [
        node.memory_id
    ]
    assert not store.search_text("acme", ["fridays"], NodeFilter(), limit=5)
    store.close()


def test_a_version_6_file_gains_its_full_text_row_map(tmp_path: Path) -> None:
    """A database written before migration 7 maps every full-text row on open; an
    update then replaces the row it maps (and a row it lacks is still found)."""
    db = tmp_path / "memory.db"
    store = SQLiteStore(db)
    nodes = [make_node(content=f"service {i} runs nightly") for i in range(3)]
    store.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    store.close()
    with raw(db) as conn:
        conn.execute("DROP TABLE memory_fts_rows")
        conn.execute("DELETE FROM schema_version WHERE version = 7")
    again = SQLiteStore(db)
    assert again.schema_versions() == [v for v, _, _ in MIGRATIONS]
    conn = again._writer
    assert conn is not None
    assert conn.execute("SELECT count(*) FROM memory_fts_rows").fetchone()[0] == 3
    conn.execute("DELETE FROM memory_fts_rows WHERE memory_id = ?", (nodes[1].memory_id,))
    for i, node in enumerate(nodes[:2]):
        changed = node.model_copy(update={"content": f"service {i} runs weekly"})
        again.apply(WriteSet("acme", ts(2), nodes=(changed,)))
        assert [t for _, t in _fts_rows(conn, node.memory_id)] == [f"service {i} runs weekly"]
    assert conn.execute("SELECT count(*) FROM memory_fts").fetchone()[0] == 3
    again.close()
