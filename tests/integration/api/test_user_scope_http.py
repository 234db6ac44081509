"""User scope over HTTP: no route hands one user's memory to another (store/scope.py).

An unbound key reads as the user it names (shared memories only when it names
none); a key bound to a user reads and writes as that user on every route; the
orchestrator-wide view needs a key created with ``--all-users``.
"""

from __future__ import annotations

from typing import Any

import pytest

from memvault.access import Principal
from tests.integration.api.conftest import Live

MEMORIES = {
    "alice": ("Alice prefers the quokka colour scheme", "alice"),
    "bob": ("Bob prefers the narwhal colour scheme", "bob"),
    "shared": ("The colour scheme review is on Fridays", None),
}


@pytest.fixture(scope="module")
def ids(live: Live) -> dict[str, str]:
    for name, grant in {
        "alice": {"user": "alice"},
        "admin": {"all_users": True},
    }.items():
        live.keys[name], _ = live.control.keys.create("scoped", name, **grant)
    live.keys["svc"], _ = live.control.keys.create("scoped", "svc")
    out: dict[str, str] = {}
    with live.client("svc") as http:
        for name, (content, user) in MEMORIES.items():
            body: dict[str, Any] = {
                "content": content,
                "type": "Preference",
                "category": "PREFERENCE",
                "source_kind": "USER_EXPLICIT",
            }
            if user:
                body["user_id"] = user
            r = http.post("/v1/memories", json=body)
            assert r.status_code == 201, r.text
            out[name] = r.json()["memory_id"]
    return out


def cited(data: dict[str, Any]) -> set[str]:
    return {i for lines in data["sections"].values() for ln in lines for i in ln["memory_ids"]}


def test_unbound_key_reads_as_the_user_it_names(live: Live, ids: dict[str, str]) -> None:
    with live.client("svc") as http:
        alice = http.get("/v1/bulletin", params={"user_id": "alice", "thread_id": "t-a"}).json()
        assert cited(alice) == {ids["alice"], ids["shared"]}
        assert "narwhal" not in alice["text"]
        assert all(
            b["memory_id"] != ids["bob"] for b in (alice["delta"] or {"bullets": []})["bullets"]
        )
        assert cited(http.get("/v1/bulletin").json()) == {ids["shared"]}
        r = http.post("/v1/query", json={"query": "narwhal colour scheme", "user_id": "alice"})
        assert r.status_code == 200 and {x["id"] for x in r.json()["results"]} <= {
            ids["alice"],
            ids["shared"],
        }
        denied = http.get("/v1/bulletin", params={"all_users": "true"})
        assert denied.status_code == 403 and "every user" in denied.text
    with live.client("admin") as http:
        assert cited(http.get("/v1/bulletin", params={"all_users": "true"}).json()) == set(
            ids.values()
        )


def test_a_key_bound_to_a_user_never_reaches_another_users_memory(
    live: Live, ids: dict[str, str]
) -> None:
    bob = ids["bob"]
    with live.client("alice") as http:
        assert cited(http.get("/v1/bulletin").json()) == {ids["alice"], ids["shared"]}
        assert http.get("/v1/bulletin", params={"user_id": "bob"}).status_code == 403
        assert http.get("/v1/bulletin", params={"all_users": "true"}).status_code == 403
        assert http.get(f"/v1/memories/{bob}").status_code == 404
        assert http.get(f"/v1/memories/{bob}/history").status_code == 404
        assert http.delete(f"/v1/memories/{bob}").status_code == 404
        assert http.patch(f"/v1/memories/{bob}", json={"importance": 1}).status_code == 404
        listed = http.get("/v1/memories").json()
        assert bob not in {m["memory_id"] for m in listed["memories"]}
        found = http.post("/v1/search", json={"query": "narwhal colour scheme"}).json()
        assert found["results"] and bob not in {h["memory_id"] for h in found["results"]}
        asked = http.post("/v1/query", json={"query": "narwhal", "filters": {"user_id": "bob"}})
        assert asked.status_code == 200 and asked.json()["results"] == []
        assert http.post("/v1/query", json={"query": "x", "user_id": "bob"}).status_code == 403
        # Its writes are its user's, whatever the body says.
        r = http.post(
            "/v1/memories",
            json={
                "content": "Alice likes a quiet desk",
                "type": "Preference",
                "category": "PREFERENCE",
                "source_kind": "USER_EXPLICIT",
            },
        )
        assert r.status_code == 201
        assert http.get(f"/v1/memories/{r.json()['memory_id']}").json()["user_id"] == "alice"
        forged = http.post(
            "/v1/memories",
            json={
                "content": "Bob likes a loud desk",
                "type": "Preference",
                "category": "PREFERENCE",
                "source_kind": "USER_EXPLICIT",
                "user_id": "bob",
            },
        )
        assert forged.status_code == 403
    events = [e for e in live.control.keys.access_events("scoped") if e["agent"] == "alice"]
    assert {e["detail"].get("reason") for e in events if e["event"] == "access_denied"} >= {
        "other_user"
    }


def test_an_unbound_key_lists_and_searches_as_the_user_it_names(
    live: Live, ids: dict[str, str]
) -> None:
    """Before, a key bound to no user (no --all-users) listed and searched every
    user's memories while its bulletin and query saw shared ones only."""
    with live.client("svc") as http:
        listed = {m["memory_id"] for m in http.get("/v1/memories").json()["memories"]}
        assert ids["shared"] in listed and not listed & {ids["alice"], ids["bob"]}
        found = http.post("/v1/search", json={"query": "narwhal colour scheme"}).json()
        assert ids["bob"] not in {h["memory_id"] for h in found["results"]}
        named = http.post(
            "/v1/search", json={"query": "colour scheme", "filters": {"user_id": "alice"}}
        ).json()
        got = {h["memory_id"] for h in named["results"]}
        assert ids["alice"] in got and not got & {ids["bob"], ids["shared"]}
    with live.client("admin") as http:
        listed = {m["memory_id"] for m in http.get("/v1/memories").json()["memories"]}
        assert set(ids.values()) <= listed


def test_an_unbound_key_lists_consent_proposals_as_the_user_it_names(live: Live) -> None:
    """Before, a key bound to no user (no --all-users) that named no user got every
    user's consent proposals — their inferred personal data — from
    ``GET /v1/proposals`` (and the inspector's consent page), while its memory
    listings and bulletins held shared memories only."""
    engine = live.control.engine(Principal("scoped", "svc", "test"))
    theirs = {
        user: engine.propose(
            f"{user.title()} moved to the quokka district",
            user_id=user,
            type="Fact",
            category="KNOWLEDGE",
        ).proposal_id
        for user in ("alice", "bob")
    }
    shared = engine.propose(
        "The team moved stand-ups to the quokka room", type="Fact", category="KNOWLEDGE"
    ).proposal_id

    def listed(who: str, **params: str) -> set[str]:
        with live.client(who) as http:
            r = http.get("/v1/proposals", params=params)
            assert r.status_code == 200, r.text
            return {p["proposal_id"] for p in r.json()["proposals"]}

    assert listed("svc") == {shared}
    assert listed("svc", user_id="alice") == {theirs["alice"]}
    assert listed("alice") == {theirs["alice"]}
    assert {shared, *theirs.values()} <= listed("admin")


def test_edges_to_a_memory_the_key_may_not_read_are_left_out(
    live: Live, ids: dict[str, str]
) -> None:
    """Before, ``GET /v1/memories/{id}`` and ``POST /v1/search`` of a shared memory
    linked to Bob's listed that edge — Bob's memory id, the link's type and time — to a
    key bound to Alice (the inspector's graph already left such edges out)."""
    engine = live.control.engine(Principal("scoped", "svc", "test"))
    engine.link(ids["shared"], ids["bob"], "RelatedTo", user="bob").raise_for_status()
    with live.client("alice") as http:
        got = http.get(f"/v1/memories/{ids['shared']}").json()
        found = http.post("/v1/search", json={"query": "colour scheme review Fridays"}).json()
    assert ids["shared"] in {h["memory_id"] for h in found["results"]}
    for edges in (got["edges"], found["edges"]):
        assert ids["bob"] not in {e["to_memory_id"] for e in edges} | {
            e["from_memory_id"] for e in edges
        }
    with live.client("admin") as http:  # every user's: the edge is there
        got = http.get(f"/v1/memories/{ids['shared']}").json()
    assert ids["bob"] in {e["to_memory_id"] for e in got["edges"]}


def test_a_read_by_id_is_answered_only_inside_the_scope_the_key_can_list(
    live: Live, ids: dict[str, str]
) -> None:
    """An unbound key reads a memory by id as the user it names (shared ones when it names
    none); another user's memory is 404 and audited as a scope miss, like an unknown id."""
    alice, bob, shared = ids["alice"], ids["bob"], ids["shared"]
    with live.client("svc") as http:
        for path in (f"/v1/memories/{alice}", f"/v1/memories/{alice}/history"):
            assert http.get(path).status_code == 404  # names no user: shared ones only
            assert http.get(path, params={"user_id": "bob"}).status_code == 404
            assert http.get(path, params={"user_id": "alice"}).status_code == 200
            assert http.get(path, params={"user_id": " alice "}).status_code == 200  # trimmed
        got = http.get(f"/v1/memories/{alice}", params={"user_id": "alice"}).json()
        assert got["content"] == MEMORIES["alice"][0]
        assert http.get(f"/v1/memories/{shared}").status_code == 200
        events = http.get(f"/v1/memories/{bob}/history", params={"user_id": "bob"}).json()
        assert events["events"][0]["op"].lower() == "create"
        assert http.get(f"/v1/memories/{bob}", params={"user_id": ""}).status_code == 422
    misses = [
        e
        for e in live.control.keys.access_events("scoped")
        if e["event"] == "scope_miss" and e["memory_id"] == alice
    ]
    assert len(misses) >= 4 and {m["agent"] for m in misses} == {"svc"}
    with live.client("alice") as http:  # bound: its own and shared ones, whatever it names
        assert http.get(f"/v1/memories/{alice}").status_code == 200
        assert http.get(f"/v1/memories/{bob}").status_code == 404
        refused = http.get(f"/v1/memories/{bob}", params={"user_id": "bob"})
        assert refused.status_code == 403 and "bound to user" in refused.text
    with live.client("admin") as http:  # --all-users: every user's, as its listings
        assert http.get(f"/v1/memories/{bob}").status_code == 200
        assert http.get(f"/v1/memories/{bob}", params={"user_id": "alice"}).status_code == 404


def test_a_memorys_edges_leave_out_those_to_memories_outside_the_read_scope(
    live: Live, ids: dict[str, str]
) -> None:
    engine = live.control.engine(Principal("scoped", "svc", "internal", all_users=True))
    assert engine.link(ids["alice"], ids["bob"], "RelatedTo").ok
    assert engine.link(ids["alice"], ids["shared"], "RelatedTo").ok
    with live.client("svc") as http:
        got = http.get(f"/v1/memories/{ids['alice']}", params={"user_id": "alice"}).json()
        ends = {e["to_memory_id"] for e in got["edges"]}
        assert ends == {ids["shared"]}  # Bob's memory is not Alice's reader's to see
    with live.client("admin") as http:
        got = http.get(f"/v1/memories/{ids['alice']}").json()
        assert {e["to_memory_id"] for e in got["edges"]} == {ids["bob"], ids["shared"]}


def test_writes_by_id_keep_the_scope_of_reads(live: Live, ids: dict[str, str]) -> None:
    """Writes by id (review R1): an unbound key changes a user's memory only naming that
    user; a key bound to a user never changes another user's or a SHARED memory."""
    made: dict[str, str] = {}
    with live.client("svc") as http:
        for name, user in (("bob", "bob"), ("shared", None), ("alice", "alice")):
            body: dict[str, Any] = {
                "content": f"{name} keeps the blue folder for the write scope review",
                "type": "Preference",
                "category": "PREFERENCE",
                "source_kind": "USER_EXPLICIT",
                **({"user_id": user} if user else {}),
            }
            r = http.post("/v1/memories", json=body)
            assert r.status_code == 201, r.text
            made[name] = r.json()["memory_id"]
        bob = made["bob"]
        for r in (
            http.patch(f"/v1/memories/{bob}", json={"importance": 9}),
            http.delete(f"/v1/memories/{bob}"),
            http.post(f"/v1/memories/{bob}/retract"),
            http.post(f"/v1/memories/{bob}/supersede", json={"by": made["shared"]}),
            http.delete(f"/v1/memories/{bob}", params={"user_id": "alice"}),
        ):
            assert r.status_code == 404, r.text
        r = http.patch(f"/v1/memories/{bob}", params={"user_id": "bob"}, json={"importance": 9})
        assert r.status_code == 200, r.text
    with live.client("alice") as http:
        shared = made["shared"]
        assert http.get(f"/v1/memories/{shared}").status_code == 200  # it reads it
        for r in (
            http.patch(f"/v1/memories/{shared}", json={"content": "The review is cancelled"}),
            http.delete(f"/v1/memories/{shared}"),
            http.post(f"/v1/memories/{shared}/retract"),
            http.post(f"/v1/memories/{shared}/supersede", json={"by": made["alice"]}),
            http.post(f"/v1/memories/{made['alice']}/supersede", json={"by": shared}),
            http.post(f"/v1/memories/{bob}/retract", params={"user_id": "bob"}),
        ):
            assert r.status_code in (403, 404, 409), r.text
        assert http.post(f"/v1/memories/{made['alice']}/retract").status_code == 200
    with live.client("admin") as http:
        got = http.get(f"/v1/memories/{shared}").json()
        assert got["status"] == "active" and "blue folder" in got["content"]
        assert http.get(f"/v1/memories/{bob}").json()["importance"] == 9
        assert http.delete(f"/v1/memories/{shared}").status_code == 200  # --all-users may
