"""A shared-only key's audit page: the scope in the store's query, keyset paging (S10-R10).

83e598a kept a key bound to no user (without --all-users) to the events it may read
by id, but filtered the orchestrator's events in Python after ``OFFSET`` chunks: each
chunk re-read every row before it (15k / 30k / 60k events: 1.0 / 3.0 / 9.8 s CPU for
one page of 25). The store now applies the user scope in its query and pages by keyset
(``after`` the last event read). These tests hold the pages to what the old filter
returned, on every store, and check that no event is read twice.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import Grant, MemoryEngine, NewMemory, _audit
from memvault.model.enums import HistoryOp
from memvault.store.base import HistoryEvent
from memvault.store.scope import UserScope, can_see
from tests.integration.caller.conftest import add_preference
from tests.integration.context.conftest import BACKENDS, engine_on


@pytest.fixture(params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    yield from engine_on(request.param, tmp_path)


def _old_page(
    engine: MemoryEngine,
    reader: UserScope,
    limit: int,
    offset: int,
    ops: list[HistoryOp] | None = None,
) -> list[HistoryEvent]:
    """What 83e598a's filter kept: every event newest first, those of no memory or of a
    stored memory ``reader`` may see, naming no memory it may not see; then the page."""
    events = engine.store.history(engine.orchestrator, newest_first=True, limit=10**6, ops=ops)
    named = {e.memory_id for e in events if e.memory_id}
    named |= {p for e in events for p in _audit._pointers(e)}
    owners = {n.memory_id: n.user_id for n in engine.store.get_nodes("acme", sorted(named))}

    def seen(memory_id: str) -> bool:
        return memory_id in owners and can_see(reader, owners[memory_id])

    kept = [
        e
        for e in events
        if (e.memory_id is None or seen(e.memory_id)) and all(map(seen, _audit._pointers(e)))
    ]
    return kept[offset : offset + limit]


def _history_of_every_kind(engine: MemoryEngine) -> None:
    """Shared, Alice's and Bob's memories interleaved; refusals; links to a shared and to
    Bob's memory; a soft-deleted shared memory; Carol's memories purged (erasure)."""
    shared = []
    for i in range(6):
        shared.append(add_preference(engine, f"The team prefers meeting room {i}.", None))
        add_preference(engine, f"Alice prefers green tea number {i}.", "alice")
        bob = add_preference(engine, f"Bob prefers black coffee number {i}.", "bob")
        add_preference(engine, f"Carol prefers hot chocolate number {i}.", "carol")
        refused = engine.add(
            NewMemory(
                content=f"My SSN is 078-05-112{i}.",
                type="Fact",
                category="PROFILE",
                source_kind="USER_EXPLICIT",
                user_id="bob",
            )
        )
        assert not refused.ok
        if i % 2:
            assert engine.link(shared[-1], bob, "RelatedTo").ok  # names Bob's memory
        else:
            assert engine.link(shared[-1], shared[0], "RelatedTo").ok or i == 0
    assert engine.delete(shared[1]).ok
    engine.forget_user("carol")


@pytest.mark.parametrize("reader", [None, "alice"])
def test_pages_equal_the_old_filter_on_every_store(
    engine: MemoryEngine, reader: UserScope, monkeypatch: pytest.MonkeyPatch
) -> None:
    _history_of_every_kind(engine)
    monkeypatch.setattr(_audit, "AUDIT_CHUNK", 4)  # pages cross many keyset chunks
    key = engine.as_caller(Grant("svc"))
    everything = _old_page(engine, reader, 10**6, 0)
    ops_seen = {e.op for e in everything}
    assert {HistoryOp.CREATE, HistoryOp.REFUSE, HistoryOp.LINK, HistoryOp.DELETE} <= ops_seen
    assert len(everything) < len(engine.store.history("acme", limit=10**6))  # some were left out
    for limit, offset in itertools.product([1, 3, 7, 25], [0, 1, 5, 13, 40]):
        page = key.audit_events(limit=limit, offset=offset, user=reader)
        assert page == _old_page(engine, reader, limit, offset), (limit, offset)
    for ops in ([HistoryOp.REFUSE], [HistoryOp.CREATE, HistoryOp.LINK]):
        page = key.audit_events(limit=9, offset=2, ops=ops, user=reader)
        assert page == _old_page(engine, reader, 9, 2, ops), ops


def test_each_event_is_read_once_and_a_sparse_key_reads_only_its_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic cost: the rows the store returns, summed over the façade's reads."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        engine.add_many(
            [
                {
                    "content": f"Unit {i} ships build {i * 7919} to region {i % 13}.",
                    "type": "Fact",
                    "category": "KNOWLEDGE",
                    "source_kind": "USER_EXPLICIT",
                    "user_id": f"u{i % 50}",
                }
                for i in range(3_000)
            ]
        )
        returned: list[str] = []
        calls = 0
        original = engine.store.history

        def counting(*args: Any, **options: Any) -> list[HistoryEvent]:
            nonlocal calls
            calls += 1
            found = original(*args, **options)
            assert options.get("offset", 0) == 0  # keyset pages, no OFFSET re-reads
            returned.extend(e.event_id for e in found)
            return found

        monkeypatch.setattr(engine.store, "history", counting)
        key = engine.as_caller(Grant("svc"))
        assert key.audit_events(limit=25) == []  # no shared memory, no refusal
        assert (calls, returned) == (1, [])  # the other users' 3,000 events never leave the store
        shared = [add_preference(engine, f"The team prefers room {i}.", None) for i in range(30)]
        for i in range(1, 30):  # each link names another shared memory: kept
            assert engine.link(shared[i], shared[i - 1], "RelatedTo").ok
        monkeypatch.setattr(_audit, "AUDIT_CHUNK", 7)
        calls, returned = 0, []
        page = key.audit_events(limit=20, offset=30)
        assert len(page) == 20
        assert len(returned) == len(set(returned)) == 50  # each event once, none past the page
        assert calls == 8  # ceil(50 / 7) keyset chunks
