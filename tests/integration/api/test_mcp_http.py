"""MCP over streamable HTTP, mounted by the API server, authenticated by API keys."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.integration.api.conftest import Live


async def _run(url: str, key: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        seen["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
        stored = await session.call_tool(
            "memory_store",
            {
                "content": "The billing service deploys on Tuesdays",
                "category": "DECISION",
                "type": "Decision",
                "source_kind": "SYSTEM_KNOWN",
                "project": "billing",
            },
        )
        assert not stored.is_error, stored.content
        seen["stored"] = stored.structured_content or json.loads(stored.content[0].text)
        query = await session.call_tool("memory_query", {"query": "billing deploys Tuesdays"})
        seen["query"] = query.structured_content or json.loads(query.content[0].text)
        newer = await session.call_tool(
            "memory_store",
            {
                "content": "The billing service deploys on Wednesdays",
                "category": "DECISION",
                "type": "Decision",
                "source_kind": "SYSTEM_KNOWN",
                "project": "billing",
            },
        )
        newer_id = (newer.structured_content or json.loads(newer.content[0].text))["memory_id"]
        superseded = await session.call_tool(
            "memory_supersede", {"id": seen["stored"]["memory_id"], "by": newer_id}
        )
        seen["superseded"] = superseded.structured_content or json.loads(superseded.content[0].text)
        retracted = await session.call_tool("memory_retract", {"memory_id": newer_id})
        seen["retracted"] = retracted.structured_content or json.loads(retracted.content[0].text)
        seen["newer"] = newer_id
    return seen


def test_mcp_tools_act_for_the_key(live: Live) -> None:
    seen = anyio.run(_run, live.url, live.keys["writer"])
    assert seen["tools"] == [
        "memory_bulletin",
        "memory_forget",
        "memory_query",
        "memory_retract",
        "memory_store",
        "memory_supersede",
    ]
    memory_id = seen["stored"]["memory_id"]
    assert [b["id"] for b in seen["query"]["results"]][:1] == [memory_id]
    assert seen["superseded"]["stop_reason"] == "SUCCESS_UPDATED"
    assert seen["retracted"]["stop_reason"] == "SUCCESS_UPDATED"
    with live.client("writer") as client:
        node = client.get(f"/v1/memories/{memory_id}").json()
        newer = client.get(f"/v1/memories/{seen['newer']}").json()
    assert node["agent_id"] == "writer" and node["orchestrator_id"] == "acme"
    assert node["status"] == "superseded" and newer["status"] == "retracted"
    with live.client("other") as client:
        assert client.get(f"/v1/memories/{memory_id}").status_code == 404


def test_mcp_endpoint_requires_a_key(live: Live) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(base_url=live.url) as client:
        response = client.post("/mcp", json=body, headers=accept)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        bad = {**accept, "Authorization": "Bearer mvk_000000000000_" + "y" * 43}
        assert client.post("/mcp", json=body, headers=bad).status_code == 401


def _initialize(client: httpx.Client, key: str) -> str:
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    response = client.post("/mcp", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def test_a_session_is_bound_to_the_key_that_opened_it(live: Live) -> None:
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(base_url=live.url, timeout=30) as client:
        session = _initialize(client, live.keys["writer"])

        def call(key: str, sid: str = session) -> httpx.Response:
            headers = {**accept, "Authorization": f"Bearer {key}", "mcp-session-id": sid}
            return client.post("/mcp", json=listing, headers=headers)

        assert call(live.keys["writer"]).status_code == 200
        # Another tenant's key, and another agent of the same tenant: not their session.
        for other in ("other", "reader"):
            stolen = call(live.keys[other])
            assert stolen.status_code == 404, stolen.text
            assert stolen.json()["detail"] == "no such MCP session"
        assert call(live.keys["writer"], "0" * 32).status_code == 404
        assert call(live.keys["writer"]).status_code == 200  # the owner is unaffected
    rows = live.control.keys.access_events("globex")
    assert "session_key_mismatch" in [r["event"] for r in rows]


def test_unknown_categories_are_errors_on_http_reads(live: Live) -> None:
    with live.client("writer") as client:
        listed = client.get("/v1/memories", params={"category": "PREFERENCES_TYPO"})
        assert listed.status_code == 422, listed.text
        assert listed.json()["errors"][0]["field"] == "query.category.0"
        query = client.post("/v1/query", json={"query": "tea", "categories": ["NOPE"]})
        assert query.status_code == 422, query.text
        search = client.post("/v1/search", json={"query": "tea", "categories": ["NOPE"]})
        assert search.status_code == 422, search.text
        assert client.get("/v1/memories", params={"category": "TODO"}).status_code == 200


async def _tool_list(url: str, key: str) -> list[Any]:
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return list((await session.list_tools()).tools)


def test_every_mcp_read_tool_reads_as_a_named_user(live: Live) -> None:
    """A read is answered only inside the scope the key can list: every read tool takes the
    user it reads as (``user_id``), and none reads a memory by id without it."""
    tools = anyio.run(_tool_list, live.url, live.keys["writer"])
    reads = [t for t in tools if t.annotations is not None and t.annotations.read_only_hint]
    assert {t.name for t in reads} == {"memory_query", "memory_bulletin"}
    for tool in reads:
        properties = tool.input_schema.get("properties", {})
        assert "user_id" in properties, tool.name
    by_id = [t for t in tools if "memory_id" in t.input_schema.get("properties", {})]
    assert by_id and all(t.annotations and not t.annotations.read_only_hint for t in by_id)


async def _writes(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[bool]:
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return [not (await session.call_tool(name, args)).is_error for name, args in calls]


def test_mcp_writes_by_id_keep_the_scope_of_reads(live: Live) -> None:
    """memory_forget/_retract/_supersede (review R1): an unbound key changes a user's memory
    only naming that user; a key bound to a user never changes a shared memory."""
    from memvault.access import Principal
    from tests.helpers import add_fields

    seed = live.control.engine(Principal("acme", "seed", "k-seed", all_users=True))
    pref = {"type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"}
    made = {}
    for name, user in (("bob", "bob"), ("shared", None), ("carol", "carol")):
        result = add_fields(
            seed, f"{name} keeps the green folder for the MCP review", **pref, user_id=user
        )
        assert result.ok and result.memory_id
        made[name] = result.memory_id
    bound, _ = live.control.keys.create("acme", "carol-app", user="carol")
    unbound = anyio.run(
        _writes,
        live.url,
        live.keys["writer"],
        [
            ("memory_forget", {"memory_id": made["bob"]}),
            ("memory_retract", {"memory_id": made["bob"], "user_id": "carol"}),
            ("memory_supersede", {"memory_id": made["bob"], "by": made["shared"]}),
            ("memory_retract", {"memory_id": made["bob"], "user_id": "bob"}),
        ],
    )
    assert unbound == [False, False, False, True]
    as_carol = anyio.run(
        _writes,
        live.url,
        bound,
        [
            ("memory_forget", {"memory_id": made["shared"]}),
            ("memory_retract", {"memory_id": made["shared"]}),
            ("memory_supersede", {"memory_id": made["carol"], "by": made["shared"]}),
            ("memory_forget", {"memory_id": made["carol"]}),
        ],
    )
    assert as_carol == [False, False, False, True]
    assert seed.get(made["shared"]).node.status.value == "active"
