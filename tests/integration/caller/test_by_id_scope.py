"""Reads by id on the caller's façade: answered only inside the scope the grant can list.

A grant bound to no user lists shared memories only unless it names a user; so ``get``,
``history``, one memory's ``audit_events``, ``get_nodes`` and ``edges_of`` read as the user
it names (``user=``), a grant with ``all_users`` reads every user's when it names none,
and a grant bound to a user reads as that user (naming another is refused).
"""

from __future__ import annotations

import pytest

from memvault.engine import ALL_USERS, Grant, MemoryEngine
from memvault.errors import AccessDeniedError, MemoryNotFoundError
from tests.helpers import add_fields
from tests.integration.caller.conftest import PREF


@pytest.fixture
def seeded(engine: MemoryEngine) -> dict[str, str]:
    ids = {}
    for name, user in (("dana", "dana"), ("eli", "eli"), ("shared", None)):
        result = add_fields(engine, f"{name} prefers the lamp by the window", **PREF, user_id=user)
        assert result.ok and result.memory_id
        ids[name] = result.memory_id
    assert engine.link(ids["dana"], ids["eli"], "RelatedTo").ok
    assert engine.link(ids["dana"], ids["shared"], "RelatedTo").ok
    return ids


def test_an_unbound_grant_reads_by_id_as_the_user_it_names(
    engine: MemoryEngine, seeded: dict[str, str]
) -> None:
    denied: list[str] = []
    svc = engine.as_caller(Grant("svc"), on_deny=lambda g, r, op, c: denied.append(r))
    dana, eli, shared = seeded["dana"], seeded["eli"], seeded["shared"]
    for read in (
        lambda **kw: svc.get(dana, **kw),
        lambda **kw: svc.history(dana, **kw),
        lambda **kw: svc.audit_events(memory_id=dana, **kw),
    ):
        with pytest.raises(MemoryNotFoundError):
            read()  # naming no user: shared memories only
        with pytest.raises(MemoryNotFoundError):
            read(user="eli")
        assert read(user="dana")  # Dana's reader lists Dana's memories
        with pytest.raises(AccessDeniedError):
            read(user=ALL_USERS)  # the orchestrator-wide view is a permission
    assert denied == ["all_users"] * 3
    assert svc.get(shared).node.memory_id == shared
    # The edges of Dana's memory, read as Dana: to shared ones, not to Eli's.
    assert {e.to_memory_id for e in svc.get(dana, user="dana").edges} == {shared}
    assert {n.memory_id for n in svc.get_nodes([dana, eli, shared])} == {shared}
    assert {n.memory_id for n in svc.get_nodes([dana, eli, shared], user="eli")} == {eli, shared}
    assert svc.edges_of([dana]) == []
    assert {e.to_memory_id for e in svc.edges_of([dana], user="dana")} == {shared}
    assert engine.log is not None  # each refused read by id is logged as a scope miss
    logged = engine.log.path.read_text(encoding="utf-8")
    assert logged.count('"scope_miss"') >= 6 and dana in logged


def test_a_grant_with_all_users_reads_every_users_memory_by_id(
    engine: MemoryEngine, seeded: dict[str, str]
) -> None:
    admin = engine.as_caller(Grant("admin", all_users=True))
    assert admin.get(seeded["eli"]).node.user_id == "eli"
    assert {e.to_memory_id for e in admin.get(seeded["dana"]).edges} == {
        seeded["eli"],
        seeded["shared"],
    }
    with pytest.raises(MemoryNotFoundError):
        admin.get(seeded["eli"], user="dana")  # naming a user narrows it to theirs


def test_a_bound_grant_reads_by_id_as_its_own_user_only(
    engine: MemoryEngine, seeded: dict[str, str]
) -> None:
    dana = engine.as_caller(Grant("dana-app", user="dana"))
    assert dana.get(seeded["dana"]).node.user_id == "dana"
    assert dana.get(seeded["dana"], user="dana").node.user_id == "dana"
    with pytest.raises(MemoryNotFoundError):
        dana.get(seeded["eli"])
    with pytest.raises(AccessDeniedError):
        dana.get(seeded["eli"], user="eli")
