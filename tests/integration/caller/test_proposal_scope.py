"""Consent decisions by id follow the scope of writes by id (review, session 9: "an unbound
key without --all-users may still confirm/reject ANY user's consent proposal by id").

A key bound to no user lists the user-less proposals only unless it names a user; a
confirmation writes the proposal's user's memory, so deciding a proposal is a write by id:
the user it acts as (``user``) must own it, as ``CallerRules.by_id_writer`` holds for
memories. Out of scope is answered like an unknown id.
"""

from __future__ import annotations

import pytest

from memvault.engine import Grant, MemoryEngine
from memvault.errors import AccessDeniedError
from memvault.lifecycle.consent import ProposalError
from memvault.store.records import ProposalStatus


def _propose(engine: MemoryEngine, user: str | None, text: str) -> str:
    made = engine.propose(text, user_id=user, type="Preference", category="PREFERENCE")
    assert made.proposal_id is not None, made
    return made.proposal_id


def _status(engine: MemoryEngine, proposal_id: str) -> ProposalStatus:
    return next(p.status for p in engine.proposals() if p.proposal_id == proposal_id)


def test_an_unbound_key_cannot_decide_a_users_proposal_it_cannot_list(
    engine: MemoryEngine,
) -> None:
    bob = _propose(engine, "bob", "Bob prefers the quiet carriage on trains")
    misses: list[str] = []
    svc = engine.as_caller(Grant("svc"), on_deny=lambda g, r, op, c: misses.append(r))
    assert bob not in {p.proposal_id for p in svc.proposals()}
    with pytest.raises(ProposalError, match="does not exist"):
        svc.confirm_proposal(bob)
    with pytest.raises(ProposalError, match="does not exist"):
        svc.reject_proposal(bob)
    with pytest.raises(ProposalError, match="does not exist"):  # the wrong user named
        svc.confirm_proposal(bob, user="dana")
    assert _status(engine, bob) is ProposalStatus.PENDING
    assert not engine.list_memories({"user_id": "bob"}), "nothing was written for Bob"
    assert misses == [], "a scope miss is answered like an unknown id, not a denial"


def test_an_unbound_key_decides_the_proposals_of_the_user_it_names(
    engine: MemoryEngine,
) -> None:
    yes = _propose(engine, "dana", "Dana prefers the aisle seat")
    no = _propose(engine, "dana", "Dana prefers morning flights")
    shared = _propose(engine, None, "The team prefers Thursday retros")
    svc = engine.as_caller(Grant("svc"))
    assert svc.confirm_proposal(yes, user="dana").ok
    assert svc.reject_proposal(no, user="dana").status is ProposalStatus.REJECTED
    assert [n.content for n in engine.list_memories({"user_id": "dana"})] == [
        "Dana prefers the aisle seat"
    ]
    # user-less proposals are the ones it lists without naming a user
    assert svc.confirm_proposal(shared).ok


def test_an_all_users_key_decides_any_users_proposal(engine: MemoryEngine) -> None:
    eli = _propose(engine, "eli", "Eli prefers tea over coffee")
    admin = engine.as_caller(Grant("admin", all_users=True))
    assert admin.reject_proposal(eli).status is ProposalStatus.REJECTED


def test_a_key_bound_to_a_user_decides_its_own_proposals_only(engine: MemoryEngine) -> None:
    own = _propose(engine, "alice", "Alice prefers dark mode")
    other = _propose(engine, "bob", "Bob prefers light mode")
    shared = _propose(engine, None, "Everyone prefers the new office chairs")
    alice = engine.as_caller(Grant("alice", user="alice"))
    for proposal_id in (other, shared):
        with pytest.raises(ProposalError, match="does not exist"):
            alice.confirm_proposal(proposal_id)
        with pytest.raises(ProposalError, match="does not exist"):
            alice.reject_proposal(proposal_id)
    with pytest.raises(AccessDeniedError):  # naming another user is refused outright
        alice.confirm_proposal(other, user="bob")
    assert alice.confirm_proposal(own).ok
    assert _status(engine, other) is ProposalStatus.PENDING
    assert _status(engine, shared) is ProposalStatus.PENDING


def test_an_unknown_id_and_a_read_only_key_are_answered_as_before(engine: MemoryEngine) -> None:
    svc = engine.as_caller(Grant("svc"))
    with pytest.raises(ProposalError, match="does not exist"):
        svc.confirm_proposal("prop_nope", user="dana")
    dana = _propose(engine, "dana", "Dana prefers paper tickets")
    viewer = engine.as_caller(Grant("viewer", read_only=True))
    with pytest.raises(AccessDeniedError):
        viewer.confirm_proposal(dana, user="dana")
    assert _status(engine, dana) is ProposalStatus.PENDING
