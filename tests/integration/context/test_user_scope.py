"""User-scoped reads: a user's turn never sees another user's memory (store/scope.py).

One orchestrator serves Alice and Bob. Everything that builds context for a
turn or answers a query — bulletin (with and without a query), delta header,
for_message, memory.query, the conflicts section, the cached and last-good
bulletin — sees the reader's memories and shared (``user_id`` NULL) ones, on
every backend: the in-memory reference, SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault.context.delta import WINDOW
from memvault.engine import ALL_USERS, MemoryEngine
from memvault.errors import ValidationFailed
from memvault.layout import RuntimeLayout
from memvault.model import EdgeType, MemoryEdge
from memvault.store import NodeFilter, SQLiteStore, WriteSet
from memvault.store.scope import reader_key
from tests.integration.context.conftest import BACKENDS, backend_store, engine_on, make_engine, put


@pytest.fixture(params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    yield from engine_on(request.param, tmp_path)


def seed(engine: MemoryEngine) -> dict[str, str]:
    """Two users' memories of every bulletin section, and shared ones."""
    ids: dict[str, str] = {}
    for who in ("alice", "bob"):
        tag = "quokka" if who == "alice" else "narwhal"
        ids[f"{who}_pref"] = put(
            engine, f"Prefers the {tag} theme", "Preference", category="PREFERENCE", user_id=who
        )
        ids[f"{who}_goal"] = put(engine, f"Finish the {tag} migration", "Goal", user_id=who)
        ids[f"{who}_fact"] = put(engine, f"The {tag} server runs in Oslo", "Fact", user_id=who)
        ids[f"{who}_pin"] = put(
            engine, f"Pinned {tag} reminder", "Todo", user_id=who, pinned=True, importance=99
        )
    ids["shared_fact"] = put(engine, "The office closes at six", "Fact")
    ids["shared_goal"] = put(engine, "Release the handbook", "Goal")
    return ids


def owned(ids: dict[str, str], *who: str) -> set[str]:
    return {v for k, v in ids.items() if k.split("_")[0] in who}


def test_bulletin_holds_each_user_to_their_own_and_shared(engine: MemoryEngine) -> None:
    ids = seed(engine)
    alice = set(engine.bulletin(user="alice").memory_ids)
    bob = set(engine.bulletin(user="bob").memory_ids)
    assert alice == owned(ids, "alice", "shared")
    assert bob == owned(ids, "bob", "shared")
    assert "narwhal" not in engine.bulletin(user="alice").text
    # No user named: shared memories only; the orchestrator-wide view is asked for by name.
    assert set(engine.bulletin().memory_ids) == owned(ids, "shared")
    assert set(engine.bulletin(user=ALL_USERS).memory_ids) == set(ids.values())


def test_bulletin_with_a_query_recalls_within_the_scope(engine: MemoryEngine) -> None:
    ids = seed(engine)
    # Bob's memory is the best match for the words of Alice's message.
    b = engine.bulletin(user="alice", query="narwhal server Oslo")
    assert not set(b.memory_ids) & owned(ids, "bob"), b.text
    assert ids["alice_fact"] in b.memory_ids


def test_cached_bulletins_are_per_user(engine: MemoryEngine) -> None:
    ids = seed(engine)
    first = engine.bulletin(user="bob")  # cached at this revision
    again = engine.bulletin(user="alice")
    assert first.memory_ids != again.memory_ids
    assert not set(again.memory_ids) & owned(ids, "bob")
    assert engine.bulletin(user="bob") == first


def test_fallback_never_serves_another_users_bulletin(tmp_path: Path) -> None:
    layout = RuntimeLayout.for_orchestrator(tmp_path / "home", "acme").ensure()
    engine = make_engine(SQLiteStore(layout.db_path), layout)
    ids = seed(engine)
    engine.bulletin(user="bob")
    engine.bulletin(user=ALL_USERS)
    engine.store.close()  # every read now fails: bulletins fall back
    assert engine.bulletin(user="alice").status == "empty"
    assert engine.bulletin(user="bob").status == "last_good"
    # A new process: the fallback comes from disk, from the reader's own files.
    other = make_engine(SQLiteStore(layout.db_path), layout)
    other.store.close()
    assert other.bulletin(user="alice").status == "empty"
    assert not set(other.bulletin().memory_ids) & owned(ids, "alice", "bob")
    assert set(other.bulletin(user="bob").memory_ids) == owned(ids, "bob", "shared")


def test_conflicts_never_show_the_other_users_side(engine: MemoryEngine) -> None:
    ids = seed(engine)
    edge = MemoryEdge(
        edge_id="edge_x1",
        orchestrator_id="acme",
        from_memory_id=ids["alice_fact"],
        to_memory_id=ids["bob_fact"],
        edge_type=EdgeType.CONTRADICTS,
        weight=0.9,
        created_at="2026-01-01T00:00:01.000000Z",
    )
    engine.store.apply(WriteSet("acme", edge.created_at, edges=(edge,)))
    assert "narwhal" not in engine.bulletin(user="alice", reuse=False).text
    assert "[Contradicts]" in engine.bulletin(user=ALL_USERS, reuse=False).text


def test_delta_header_announces_only_the_readers_changes(engine: MemoryEngine) -> None:
    ids = seed(engine)
    for who in ("alice", "bob"):
        engine.delta_header(f"t-{who}", user=who)  # both threads have seen everything
    bob_new = put(engine, "Bob's narwhal password hint changed", "Fact", user_id="bob")
    shared_new = put(engine, "The handbook moved to the wiki", "Fact")
    alice = engine.delta_header("t-alice", user="alice")
    assert alice is not None
    assert [b.memory_id for b in alice.bullets] == [shared_new]
    assert "narwhal" not in alice.text
    bob = engine.delta_header("t-bob", user="bob")
    assert bob is not None and {b.memory_id for b in bob.bullets} == {bob_new, shared_new}
    # Only Bob's change since: nothing for Alice, and no user at all sees no private change.
    put(engine, "Another narwhal note", "Fact", user_id="bob")
    assert engine.delta_header("t-alice", user="alice") is None
    fresh = engine.delta_header("t-nobody")
    assert fresh is not None and not {b.memory_id for b in fresh.bullets} & owned(ids, "bob")


def test_delta_header_seen_marks_are_per_reader(engine: MemoryEngine) -> None:
    """Al reading a thread does not hide its changes from Bea (NOTE5 "left alone" 2)."""
    shared = put(engine, "The team standup moved to 9:30", "Fact")
    al = engine.delta_header("team-chat", user="al")
    assert al is not None and [b.memory_id for b in al.bullets] == [shared]
    bea = engine.delta_header("team-chat", user="bea")
    assert bea is not None and [b.memory_id for b in bea.bullets] == [shared]
    assert engine.delta_header("team-chat", user="al") is None
    assert engine.delta_header("team-chat", user="bea") is None
    nobody = engine.delta_header("team-chat")  # the shared-only reader has its own mark
    assert nobody is not None and [b.memory_id for b in nobody.bullets] == [shared]
    everyone = engine.delta_header("team-chat", user=ALL_USERS)
    assert everyone is not None and everyone.since_revision == 0


def test_forget_user_erases_their_seen_marks(engine: MemoryEngine) -> None:
    put(engine, "The team standup moved to 9:30", "Fact")
    engine.delta_header("team-chat", user="al")
    engine.delta_header("dm-al", user="al")
    engine.delta_header("team-chat", user="bea")
    report = engine.forget_user("al")
    assert report.cleaned["thread_marks"] == 2
    al, bea = reader_key("al"), reader_key("bea")
    assert engine.store.thread_seen("acme", "team-chat", reader=al) is None
    assert engine.store.thread_seen("acme", "dm-al", reader=al) is None
    assert engine.store.thread_seen("acme", "team-chat", reader=bea) is not None


def test_delta_header_counts_and_keeps_only_the_readers_changes(engine: MemoryEngine) -> None:
    """Other users' activity neither shows in ``omitted`` nor pushes the reader's
    changes out of the window (it once held the newest 64 revisions, anyone's)."""
    engine.delta_header("t-alice", user="alice")
    mine = [put(engine, f"Alice note {i}", "Fact", user_id="alice") for i in range(5)]
    for i in range(WINDOW + 6):
        put(engine, f"Bob note {i}", "Fact", user_id="bob")
    header = engine.delta_header("t-alice", user="alice")
    assert header is not None
    assert [b.memory_id for b in header.bullets] == mine[:1:-1]
    assert header.omitted == 2  # Alice's two older notes; none of Bob's writes
    for i in range(WINDOW + 6):
        put(engine, f"Bob later note {i}", "Fact", user_id="bob")
    late = put(engine, "Alice's late note", "Fact", user_id="alice")
    header = engine.delta_header("t-alice", user="alice")
    assert header is not None and [b.memory_id for b in header.bullets] == [late]
    assert header.omitted == 0


def test_for_message_is_scoped_end_to_end(engine: MemoryEngine) -> None:
    ids = seed(engine)
    message = engine.for_message("t-a", user="alice", query="narwhal migration")
    assert "narwhal" not in message.text
    assert set(message.bulletin.memory_ids) <= owned(ids, "alice", "shared")
    cited = {b.memory_id for b in message.delta.bullets} if message.delta else set()
    assert not cited & owned(ids, "bob")


def test_memory_query_answers_within_the_users_scope(engine: MemoryEngine) -> None:
    ids = seed(engine)
    alice = engine.memory_query(agent="assistant", query="narwhal theme server", user="alice")
    assert not {i.node.memory_id for i in alice.items} & owned(ids, "bob")
    # Asking for Bob by filter does not widen Alice's scope.
    asked = engine.memory_query(
        agent="assistant", query="narwhal", filters={"user_id": "bob"}, user="alice"
    )
    assert asked.items == ()
    # The request naming its user is a known user: theirs (by the filter), never others'.
    named = engine.memory_query(agent="assistant", query="theme", filters={"user_id": "bob"})
    assert {i.node.memory_id for i in named.items} <= owned(ids, "bob")
    shared = engine.memory_query(agent="assistant", query="office closes six")
    assert {i.node.memory_id for i in shared.items} == {ids["shared_fact"]}


def test_search_filter_scope_on_every_backend(engine: MemoryEngine) -> None:
    ids = seed(engine)
    for reader, expected in (("alice", ("alice", "shared")), ("bob", ("bob", "shared"))):
        flt = NodeFilter(visible_to=reader)
        listed = engine.store.list_nodes("acme", flt, limit=100)
        assert {n.memory_id for n in listed} == owned(ids, *expected)
        assert engine.store.count_nodes("acme", flt) == len(owned(ids, *expected))
        hits = engine.store.search_text("acme", ["narwhal", "quokka", "office"], flt, limit=50)
        assert {h.memory_id for h in hits} <= owned(ids, *expected)
    assert {
        n.memory_id for n in engine.store.list_nodes("acme", NodeFilter(visible_to=()), limit=100)
    } == owned(ids, "shared")


def test_a_bad_user_is_a_clear_error(engine: MemoryEngine) -> None:
    with pytest.raises(ValidationFailed):
        engine.delta_header("t1", user="  ")
    with pytest.raises(ValidationFailed):  # a caller's mistake, not a store failure
        engine.bulletin(user="")


users = st.sampled_from(["alice", "bob", "carol", None])


@pytest.mark.parametrize("kind", BACKENDS)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(owners=st.lists(users, min_size=1, max_size=8), reader=users)  # 8 lines per section
def test_no_reader_ever_sees_another_users_memory(
    tmp_path_factory: pytest.TempPathFactory,
    kind: str,
    owners: list[str | None],
    reader: str | None,
) -> None:
    """Property, on every backend: whatever the memories and the reader, every cited id
    is the reader's or shared, and nothing the reader may see is lost."""
    layout = RuntimeLayout.for_orchestrator(tmp_path_factory.mktemp("h"), "acme").ensure()
    engine = make_engine(backend_store(kind, layout), layout)
    try:
        ids = {
            put(engine, f"Note {i} about ferns", "Fact", user_id=owner): owner
            for i, owner in enumerate(owners)
        }
        visible = {i for i, owner in ids.items() if owner is None or owner == reader}
        bulletin = engine.bulletin(user=reader)
        assert set(bulletin.memory_ids) == visible  # all fit: nothing visible is lost either
        header = engine.delta_header("t", user=reader)
        assert {b.memory_id for b in header.bullets} <= visible if header else True
        found = engine.memory_query(agent="a", query="ferns", top_k=20, user=reader)
        assert {i.node.memory_id for i in found.items} <= visible
        listed = engine.store.list_nodes("acme", NodeFilter(visible_to=reader), limit=50)
        if reader is not None:
            assert {n.memory_id for n in listed} == visible
    finally:
        engine.close()
