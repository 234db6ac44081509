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
    return seen


def test_mcp_tools_act_for_the_key(live: Live) -> None:
    seen = anyio.run(_run, live.url, live.keys["writer"])
    assert seen["tools"] == ["memory_bulletin", "memory_forget", "memory_query", "memory_store"]
    memory_id = seen["stored"]["memory_id"]
    assert [b["id"] for b in seen["query"]["results"]][:1] == [memory_id]
    with live.client("writer") as client:
        node = client.get(f"/v1/memories/{memory_id}").json()
    assert node["agent_id"] == "writer" and node["orchestrator_id"] == "acme"
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
