"""The engine façade on real SQLite files."""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memvault import (
    AsyncMemoryEngine,
    MemoryEngine,
    MemoryNotFoundError,
    NewMemory,
    StopReason,
    ValidationFailed,
    WriteRefusedError,
)
from memvault.engine import Grant, WriteResult
from memvault.model import Decision, HistoryOp, MemoryNode, MemoryOp, MemoryStatus
from tests.conftest import StepClock
from tests.helpers import add_fields, update_fields

PREF: dict[str, Any] = {
    "type": "Preference",
    "category": "PREFERENCE",
    "source_kind": "USER_EXPLICIT",
}


def db_counts(engine: MemoryEngine) -> dict[str, int]:
    assert engine.layout is not None
    with sqlite3.connect(engine.layout.db_path) as conn:
        return {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("memories", "memory_edges", "memory_fts", "memory_sources")
        }


def test_add_get_search_round_trip(engine: MemoryEngine) -> None:
    r = add_fields(
        engine, "Dana prefers dark mode in every editor", user_id="dana", importance=70, **PREF
    )
    assert r.stop_reason is StopReason.SUCCESS_STORED and r.memory_id and r.revision == 1
    view = engine.get(r.memory_id)
    assert view.node.content == "Dana prefers dark mode in every editor"
    assert view.node.user_id == "dana" and view.node.importance == 70
    assert view.node.key == "dana_prefers_dark_mode_in_every_editor"
    hits = engine.search("which mode does Dana like in the editor?").hits
    assert [h.node.memory_id for h in hits] == [r.memory_id]
    assert hits[0].rank == 1


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"type": "preference"}, StopReason.SCHEMA_INVALID),
        ({"source_kind": "USER"}, StopReason.SCHEMA_INVALID),
        ({"importance": 101}, StopReason.BOUNDS_EXCEEDED),
        ({"confidence": -1}, StopReason.BOUNDS_EXCEEDED),
        ({"key": "k" * 129}, StopReason.BOUNDS_EXCEEDED),
        ({"unknown_field": 1}, StopReason.SCHEMA_INVALID),
        ({"ttl_class": "FOREVER"}, StopReason.SCHEMA_INVALID),
    ],
)
def test_invalid_add_writes_no_memory(
    engine: MemoryEngine, fields: dict[str, Any], reason: StopReason
) -> None:
    r = add_fields(engine, "something to remember", **{**PREF, **fields})
    assert r.stop_reason is reason
    assert r.memory_id is None and r.errors
    assert db_counts(engine) == {
        "memories": 0,
        "memory_edges": 0,
        "memory_fts": 0,
        "memory_sources": 0,
    }
    # the refusal is audited, without content
    refusals = [e for e in engine.store.history("acme") if e.op is HistoryOp.REFUSE]
    assert len(refusals) == 1 and refusals[0].stop_reason is reason
    assert "something" not in str(refusals[0].detail)
    with pytest.raises(WriteRefusedError):
        r.raise_for_status()


def test_update_delete_restore_and_history(engine: MemoryEngine) -> None:
    mid = add_fields(engine, "Build with make release", **PREF).memory_id
    assert mid
    r = update_fields(engine, mid, content="Build with make dist", importance=80)
    assert r.stop_reason is StopReason.SUCCESS_UPDATED
    node = engine.get(mid).node
    assert node.content == "Build with make dist" and node.summary == "Build with make dist"
    assert node.updated_at > node.created_at
    assert update_fields(engine, mid, importance=500).stop_reason is StopReason.BOUNDS_EXCEEDED
    assert update_fields(engine, mid, created_at="x").stop_reason is StopReason.SCHEMA_INVALID
    assert (
        update_fields(engine, mid, orchestrator_id="other").stop_reason is StopReason.SCHEMA_INVALID
    )
    assert engine.get(mid).node.importance == 80

    assert engine.delete(mid).stop_reason is StopReason.SUCCESS_DELETED
    with pytest.raises(MemoryNotFoundError):
        engine.get(mid)
    assert engine.search("make dist").hits == ()
    assert engine.list_memories() == []
    deleted = engine.get(mid, include_deleted=True).node
    assert deleted.status is MemoryStatus.SOFT_DELETED and deleted.purge_at
    assert engine.restore(mid).stop_reason is StopReason.SUCCESS_UPDATED
    assert engine.get(mid).node.status is MemoryStatus.ACTIVE
    ops = [e.op for e in engine.history(mid)]
    assert ops == [
        HistoryOp.CREATE,
        HistoryOp.UPDATE,
        HistoryOp.REFUSE,
        HistoryOp.REFUSE,
        HistoryOp.REFUSE,
        HistoryOp.DELETE,
        HistoryOp.RESTORE,
    ]
    changes = engine.store.changes_since("acme", 0)
    assert [c.kind.value for c in changes] == ["created", "updated", "soft_deleted", "restored"]


def test_link_rules(engine: MemoryEngine) -> None:
    a = add_fields(
        engine,
        "We chose PostgreSQL",
        type="Decision",
        category="PROJECT_CONFIG",
        source_kind="SYSTEM_KNOWN",
    ).memory_id
    b = add_fields(
        engine,
        "Migrate the data",
        type="Todo",
        category="PROJECT_CONFIG",
        source_kind="SYSTEM_KNOWN",
    ).memory_id
    assert a and b
    r = engine.link(b, a, "PartOf", weight=0.8, reason="implements")
    assert r.ok and r.edge_id
    dup = engine.link(b, a, "PartOf")
    assert dup.stop_reason is StopReason.SCHEMA_INVALID
    assert engine.link(b, a, "partof").stop_reason is StopReason.SCHEMA_INVALID
    assert engine.link(a, b, "RelatedTo", weight=2).stop_reason is StopReason.BOUNDS_EXCEEDED
    assert engine.link(a, a, "RelatedTo").stop_reason is StopReason.SCHEMA_INVALID
    with pytest.raises(MemoryNotFoundError):
        engine.link(a, "mem_missing", "RelatedTo")
    edges = engine.get(a).edges
    assert [(e.from_memory_id, e.edge_type.value, e.weight) for e in edges] == [(b, "PartOf", 0.8)]


def test_list_filters_and_unknown_filter_keys(engine: MemoryEngine) -> None:
    add_fields(engine, "alpha", user_id="u1", importance=10, **PREF)
    add_fields(engine, "beta", user_id="u2", importance=90, project_id="p1", **PREF)
    assert [n.content for n in engine.list_memories({"user_id": "u2"})] == ["beta"]
    assert [n.content for n in engine.list_memories({"importance_min": 50})] == ["beta"]
    assert [n.content for n in engine.list_memories({"project_id": "p1"})] == ["beta"]
    filtered = engine.search("alpha", filters={"user_id": "u2"}).hits
    assert all(h.node.user_id == "u2" for h in filtered)
    assert "alpha" not in [h.node.content for h in filtered]
    with pytest.raises(ValidationFailed, match=r"filters\.colour"):
        engine.list_memories({"colour": "red"})
    with pytest.raises(ValidationFailed):
        engine.search("alpha", top_k=0)


@pytest.mark.parametrize("query", ["", " ", "\n\t ", "\x00"])
def test_an_empty_or_blank_query_is_refused_not_answered(engine: MemoryEngine, query: str) -> None:
    engine.add(NewMemory(content="alpha", **PREF))
    with pytest.raises(ValidationFailed) as caught:
        engine.search(query)
    assert caught.value.stop_reason is StopReason.SCHEMA_INVALID
    assert caught.value.errors[0][0] == "query"
    with pytest.raises(ValidationFailed, match="query"):
        engine.memory_query(agent="planner", query=query)
    assert [h.node.content for h in engine.search(" alpha ").hits] == ["alpha"]


def test_source_paths_are_canonical_and_confined(engine: MemoryEngine, tmp_path: Path) -> None:
    assert engine.layout is not None
    doc = engine.layout.root / "docs" / "guide.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("x")
    link = engine.layout.root / "alias.md"
    link.symlink_to(doc)
    r = add_fields(
        engine,
        "From the guide",
        type="Fact",
        category="PROJECT_CONFIG",
        source_kind="CITED_SOURCE",
        source_type="ingest_file",
        source_path=str(link),
        source_ref="doc:abc#chunk:1",
    )
    assert r.ok and r.memory_id
    assert engine.get(r.memory_id).node.source.source_path == str(doc.resolve())
    outside = tmp_path / "outside.md"
    outside.write_text("x")
    for bad in ("docs/guide.md", str(outside), str(engine.layout.root / ".." / "x.md")):
        refused = add_fields(
            engine,
            "From elsewhere",
            type="Fact",
            category="PROJECT_CONFIG",
            source_kind="CITED_SOURCE",
            source_path=bad,
            source_ref="doc:abc#chunk:2",
        )
        assert refused.stop_reason is StopReason.SCHEMA_INVALID, bad
    assert len(engine.list_memories()) == 1


def test_gate_seam_refuses_and_fails_closed(tmp_path: Path) -> None:
    class Refuse:
        def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
            return Decision(StopReason.FORBIDDEN_CATEGORY, detector="test", reason="no")

    class Broken:
        def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
            raise RuntimeError("boom")

    for gate, reason in (
        (Refuse(), StopReason.FORBIDDEN_CATEGORY),
        (Broken(), StopReason.INTERNAL_INCONSISTENCY),
    ):
        with MemoryEngine.open(tmp_path / type(gate).__name__, "acme", gate=gate) as e:
            r = add_fields(e, "secret stuff", **PREF)
            assert r.stop_reason is reason and r.memory_id is None
            assert e.stats().to_json()["memories"]["total"] == 0


def test_store_failure_is_internal_inconsistency(engine: MemoryEngine) -> None:
    assert engine.layout is not None
    mid = add_fields(engine, "kept", **PREF).memory_id
    engine.store.close()  # the store is gone: writes must fail closed, not raise
    r = add_fields(engine, "lost", **PREF)
    assert r.stop_reason is StopReason.INTERNAL_INCONSISTENCY
    fresh = MemoryEngine.open(engine.layout.home, "acme")
    assert [n.memory_id for n in fresh.list_memories()] == [mid]
    fresh.close()


def test_orchestrators_are_isolated_and_attempts_logged(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a = MemoryEngine.open(home, "tenant-a", agent_id="agent-1")
    b = MemoryEngine.open(home, "tenant-b", agent_id="agent-2")
    mid = add_fields(a, "tenant A's roadmap lives in Notion", **PREF).memory_id
    other = add_fields(a, "tenant A's second memory", **PREF).memory_id
    assert mid and other
    with pytest.raises(MemoryNotFoundError):
        b.get(mid)
    with pytest.raises(MemoryNotFoundError):
        update_fields(b, mid, content="hijacked")
    with pytest.raises(MemoryNotFoundError):
        b.delete(mid)
    with pytest.raises(MemoryNotFoundError):
        b.restore(mid)
    with pytest.raises(MemoryNotFoundError):
        b.link(mid, other, "RelatedTo")
    with pytest.raises(MemoryNotFoundError):
        b.history(mid)
    assert b.search("roadmap Notion").hits == ()
    assert b.list_memories() == []
    assert a.get(mid).node.content == "tenant A's roadmap lives in Notion"
    assert b.log is not None
    misses = [r for r in b.log.read() if r["event"] == "scope_miss"]
    assert [r["operation"] for r in misses] == [
        "get",
        "update",
        "delete",
        "restore",
        "link",
        "history",
    ]
    assert all(r["orchestrator"] == "tenant-b" and r["agent"] == "agent-2" for r in misses)
    assert a.layout and b.layout and a.layout.db_path != b.layout.db_path
    a.close()
    b.close()


def test_runtime_layout_created(engine: MemoryEngine) -> None:
    layout = engine.layout
    assert layout is not None
    for d in (
        layout.ingest_dir,
        layout.processed_dir,
        layout.rejected_dir,
        layout.bulletins_dir,
        layout.log_path.parent,
    ):
        assert d.is_dir()
    assert layout.db_path.is_file()


def test_async_engine_shares_the_sync_logic(tmp_path: Path) -> None:
    async def scenario() -> tuple[StopReason, int]:
        engine = await AsyncMemoryEngine.open(tmp_path, "acme", clock=StepClock())
        async with engine:
            results = await asyncio.gather(
                *(engine.add(NewMemory(content=f"async memory {i}", **PREF)) for i in range(10))
            )
            hits = await engine.search("async memory", top_k=20)
            bad = await engine.new_memory(
                {
                    "content": "x",
                    "type": "nope",
                    "category": "PREFERENCE",
                    "source_kind": "USER_EXPLICIT",
                }
            )
            assert all(r.ok for r in results)
            return bad.stop_reason, len(hits.hits)

    reason, n = asyncio.run(scenario())
    assert reason is StopReason.SCHEMA_INVALID and n == 10


def test_async_engine_has_every_public_method_of_the_sync_one(tmp_path: Path) -> None:
    """README: AsyncMemoryEngine has the same methods, as coroutines (derived, not kept)."""
    sync = {"open"} | {  # open is a classmethod on both
        name
        for name, member in inspect.getmembers(MemoryEngine, inspect.isfunction)
        if not name.startswith("_")
    }
    aio = {
        name
        for name, member in inspect.getmembers(AsyncMemoryEngine)
        if not name.startswith("_") and inspect.iscoroutinefunction(member)
    }
    assert sync == aio, (sorted(sync - aio), sorted(aio - sync))
    assert {"memory_query", "bulletin", "for_message", "delta_header", "add_many"} <= aio

    async def scenario() -> tuple[str, int, list[dict[str, Any]]]:
        async with await AsyncMemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
            await engine.add(NewMemory(content="Dana prefers tea", user_id="dana", **PREF))
            result = await engine.memory_query(agent="supervisor", query="tea")
            header = await engine.delta_header("default", user="dana")
            exported = await engine.export_user("dana")
            return result.to_json()["status"], header.revision, exported

    status, revision, exported = asyncio.run(scenario())
    assert status == "ok" and revision == 1
    assert exported[0]["record"] == "export" and exported[-1]["record"] == "summary"


def test_typed_add_and_update(tmp_path: Path) -> None:
    from memvault.engine import MemoryPatch, NewMemory

    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        spec = NewMemory(
            content="Dana prefers tea",
            type="Preference",
            category="PREFERENCE",
            source_kind="USER_EXPLICIT",
            importance=70,
            user_id="dana",
        )
        added = engine.add(spec)
        assert added.ok and added.memory_id
        node = engine.get(added.memory_id).node
        assert (node.importance, node.user_id) == (70, "dana")
        updated = engine.update(added.memory_id, MemoryPatch(importance=20, pinned=True))
        assert updated.ok
        node = engine.get(added.memory_id).node
        assert (node.importance, node.pinned) == (20, True)
        history = [e.detail.get("fields") for e in engine.history(added.memory_id)]
        assert ["importance", "pinned"] in history


def test_keyword_add_is_a_deprecated_shim_with_the_same_results(tmp_path: Path) -> None:
    """``add(text, **fields)`` warns and answers what the typed path answers."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        with pytest.warns(DeprecationWarning, match="pass a NewMemory"):
            kept = engine.add("Dana prefers tea", **PREF)
        with pytest.warns(DeprecationWarning):
            bad = engine.add("x", **{**PREF, "type": "Fakt"})
        parsed = engine.new_memory({"content": "x", **PREF, "type": "Fakt"})
        assert kept.ok and engine.get(str(kept.memory_id)).node.content == "Dana prefers tea"
        assert isinstance(parsed, WriteResult)
        assert bad.stop_reason is parsed.stop_reason is StopReason.SCHEMA_INVALID
        assert bad.errors == parsed.errors and ("type", bad.errors[0][1]) == bad.errors[0]
        refusals = engine.audit_events(ops=[HistoryOp.REFUSE])
        assert len(refusals) == 2  # the typed parse records its refusal like add did
        caller = engine.as_caller(Grant("planner", frozenset({"PREFERENCE"})))
        with pytest.warns(DeprecationWarning):
            assert caller.add("Dana prefers jazz", **PREF).ok
        mid = str(kept.memory_id)
        with pytest.warns(DeprecationWarning, match="pass a MemoryPatch"):
            assert engine.update(mid, importance=80).ok
        with pytest.warns(DeprecationWarning):
            refused = engine.update(mid, colour="red")
        patched = engine.memory_patch(mid, {"colour": "red"})
        assert isinstance(patched, WriteResult) and patched.errors == refused.errors
        assert refused.stop_reason is StopReason.SCHEMA_INVALID and refused.memory_id == mid
        with pytest.warns(DeprecationWarning):
            assert caller.update(mid, pinned=True).ok
        assert engine.get(mid).node.importance == 80 and engine.get(mid).node.pinned
