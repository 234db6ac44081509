"""Writes by id follow the same user scope as reads (review R1, session 9); a key bound
to a user may not change shared memories.

An unbound key without ``--all-users`` lists shared memories only, yet it could
update, retract and delete any user's memory by id; a key bound to Alice (``--user
alice``: "write only theirs") could rewrite or delete a shared memory every user's
bulletin shows.
"""

from __future__ import annotations

import tempfile
from typing import Any

import pytest

from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import AccessDeniedError, MemoryNotFoundError
from memvault.results import WriteResult
from memvault.write.spec import MemoryPatch


@pytest.fixture
def engine():  # type: ignore[no-untyped-def]
    e = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
    yield e
    e.close()


def _add(engine: MemoryEngine, user: str | None, text: str) -> str:
    memory = NewMemory(
        content=text,
        type="Preference",
        category="PREFERENCE",
        source_kind="USER_EXPLICIT",
        user_id=user,
    )
    result = engine.add(memory)
    assert result.ok
    return str(result.memory_id)


def test_an_unbound_key_cannot_write_a_users_memory_it_cannot_list(engine: MemoryEngine) -> None:
    bob = _add(engine, "bob", "Bob prefers the narwhal colour scheme")
    svc = engine.as_caller(Grant("svc"))
    assert bob not in {n.memory_id for n in svc.list_memories({})}
    for write in (lambda: svc.retract(bob), lambda: svc.delete(bob)):
        with pytest.raises((MemoryNotFoundError, AccessDeniedError)):
            write()
    assert engine.get(bob).node.status.value == "active"


def test_a_key_bound_to_a_user_cannot_rewrite_or_delete_a_shared_memory(
    engine: MemoryEngine,
) -> None:
    shared = _add(engine, None, "The colour scheme review is on Fridays")
    alice = engine.as_caller(Grant("alice", user="alice"))
    with pytest.raises((MemoryNotFoundError, AccessDeniedError)):
        alice.memory_patch(shared, {"content": "The review is cancelled, tell everyone"})
    with pytest.raises((MemoryNotFoundError, AccessDeniedError)):
        alice.delete(shared)
    assert engine.get(shared).node.content == "The colour scheme review is on Fridays"


def test_an_unbound_key_writes_a_users_memory_naming_that_user(engine: MemoryEngine) -> None:
    dana = _add(engine, "dana", "Dana prefers the lamp by the window")
    eli = _add(engine, "eli", "Eli prefers the lamp by the door")
    shared = _add(engine, None, "The lamp review is on Fridays")
    misses: list[str] = []
    svc = engine.as_caller(Grant("svc"), on_deny=lambda g, r, op, c: misses.append(r))
    patch = svc.memory_patch(dana, {"importance": 70}, user="dana")
    assert not isinstance(patch, WriteResult)
    assert svc.update(dana, patch, user="dana").ok
    assert engine.get(dana).node.importance == 70
    with pytest.raises(MemoryNotFoundError):  # named the wrong user: Eli's is not Dana's
        svc.retract(eli, user="dana")
    with pytest.raises(MemoryNotFoundError):  # both ends of a link in the scope
        svc.link(dana, eli, "RelatedTo", user="dana")
    with pytest.raises(MemoryNotFoundError):
        svc.supersede(eli, by=dana, user="dana")
    assert svc.link(dana, shared, "RelatedTo", user="dana").ok
    assert svc.update(shared, svc_patch(svc, shared)).ok  # shared: naming no user
    assert svc.delete(dana, user="dana").ok
    assert svc.restore(dana, user="dana").ok
    assert engine.get(eli).node.status.value == "active"
    assert svc.retract(dana, user="dana").ok


def svc_patch(caller: Any, memory_id: str) -> MemoryPatch:
    patch = caller.memory_patch(memory_id, {"importance": 61})
    assert isinstance(patch, MemoryPatch)
    return patch


def test_an_all_users_key_writes_every_users_memory(engine: MemoryEngine) -> None:
    eli = _add(engine, "eli", "Eli prefers the lamp by the door")
    shared = _add(engine, None, "The lamp review is on Fridays")
    admin = engine.as_caller(Grant("admin", all_users=True))
    assert admin.retract(eli).ok
    assert admin.delete(shared).ok
    frank = _add(engine, "frank", "Frank prefers the lamp by the stairs")
    with pytest.raises(MemoryNotFoundError):  # naming a user narrows it to theirs
        admin.delete(frank, user="dana")
    assert admin.restore(shared, user="dana").ok  # theirs and shared ones


def test_a_bound_key_writes_its_own_users_memories_only(engine: MemoryEngine) -> None:
    alice_id = _add(engine, "alice", "Alice prefers green tea")
    bob = _add(engine, "bob", "Bob prefers the narwhal colour scheme")
    shared = _add(engine, None, "The colour scheme review is on Fridays")
    alice = engine.as_caller(Grant("alice", user="alice"))
    assert alice.get(shared).node.user_id is None  # it still READS shared memories
    for write in (
        lambda: alice.retract(shared),
        lambda: alice.restore(shared),
        lambda: alice.supersede(shared, by=alice_id),
        lambda: alice.supersede(alice_id, by=shared),
        lambda: alice.link(alice_id, shared, "RelatedTo"),
        lambda: alice.retract(bob),
        lambda: alice.retract(bob, user="bob"),
        lambda: alice.update(shared, MemoryPatch(importance=10)),
    ):
        with pytest.raises((MemoryNotFoundError, AccessDeniedError)):
            write()
    assert alice.retract(alice_id).ok
    assert engine.get(bob).node.status.value == "active"
    assert engine.get(shared).node.status.value == "active"
    assert engine.history(shared)[-1].op != "LINK"


def test_history_leaves_out_events_naming_a_memory_outside_the_scope(
    engine: MemoryEngine,
) -> None:
    shared = _add(engine, None, "The colour scheme review is on Fridays")
    bob = _add(engine, "bob", "Bob prefers the narwhal colour scheme")
    alice_id = _add(engine, "alice", "Alice prefers green tea")
    assert engine.link(shared, bob, "RelatedTo").ok
    assert engine.link(shared, alice_id, "RelatedTo").ok
    linked = {e.detail.get("to") for e in engine.history(shared) if e.op.value == "LINK"}
    assert linked == {bob, alice_id}

    def links(events: Any) -> set[Any]:
        return {e.detail.get("to") for e in events if e.op.value == "LINK"}

    alice = engine.as_caller(Grant("alice", user="alice"))
    assert links(alice.history(shared)) == {alice_id}  # Bob's id is never shown
    assert links(alice.audit_events(memory_id=shared)) == {alice_id}
    svc = engine.as_caller(Grant("svc"))
    assert links(svc.history(shared)) == set()  # shared memories only
    assert links(svc.history(shared, user="bob")) == {bob}
    assert links(engine.as_caller(Grant("admin", all_users=True)).history(shared)) == linked
