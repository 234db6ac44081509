"""The MCP server through a real MCP client session over stdio (``memvault mcp`` subprocess)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from memvault.access import KeyStore


def _params(home: Path, *args: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMVAULT__")}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvault", "--home", str(home), "--orchestrator", "acme", "mcp", *args],
        env=env,
    )


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


async def _session_run(home: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with (
        stdio_client(_params(home, "--agent", "assistant")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        seen["tools"] = tools
        stored = await session.call_tool(
            "memory_store",
            {
                "text": "Dana prefers tea over coffee in the afternoon",  # alias of content
                "category": "PREFERENCE",
                "memory_type": "Preference",  # alias of type
                "user": "dana",  # alias of user_id
            },
        )
        seen["stored"] = _data(stored)
        seen["bullets"] = _data(await session.call_tool("memory_query", {"q": "tea", "k": 3}))
        seen["full"] = _data(
            await session.call_tool(
                "memory_query", {"query": "afternoon tea", "return": "full", "top_k": 2}
            )
        )
        seen["refused"] = await session.call_tool(
            "memory_store", {"content": "x", "category": "PREFERENCE", "type": "Fakt"}
        )
        seen["bulletin"] = _data(await session.call_tool("memory_bulletin", {}))
        memory_id = seen["stored"]["memory_id"]
        seen["forgot"] = _data(await session.call_tool("memory_forget", {"id": memory_id}))
        seen["forgot_again"] = await session.call_tool("memory_forget", {"memory_id": memory_id})
        seen["after"] = _data(await session.call_tool("memory_query", {"query": "tea"}))
    return seen


def test_tools_over_stdio(tmp_path: Path) -> None:
    seen = anyio.run(_session_run, tmp_path)
    tools = seen["tools"]
    assert {"memory_query", "memory_store", "memory_forget", "memory_bulletin"} <= set(tools)
    assert tools["memory_bulletin"].annotations.read_only_hint is True
    assert tools["memory_query"].annotations.read_only_hint is True
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert tools["memory_store"].annotations.destructive_hint is False
    assert "query" in tools["memory_query"].input_schema["properties"]
    assert seen["stored"]["stop_reason"] == "SUCCESS_STORED"
    bullet = seen["bullets"]["results"][0]
    assert bullet["id"] == seen["stored"]["memory_id"] and seen["bullets"]["agent"] == "assistant"
    assert bullet["text"].startswith("[PREFERENCE]") and "tea" in bullet["text"]
    assert seen["full"]["results"][0]["source"]["sourceKind"] == "USER_EXPLICIT"
    assert "revision" in seen["bulletin"]
    assert seen["refused"].is_error and "SCHEMA_INVALID" in _text(seen["refused"])
    assert seen["forgot"]["stop_reason"] == "SUCCESS_DELETED"
    assert seen["forgot_again"].is_error and "no memory" in _text(seen["forgot_again"])
    assert seen["after"]["results"] == []
    rows = KeyStore.for_home(tmp_path).access_events("acme")
    assert [r["event"] for r in rows] == ["scope_miss"]


async def _restricted_run(home: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    args = ("--agent", "planner", "--categories", "TODO", "--read-only")
    async with (
        stdio_client(_params(home, *args)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        seen["denied_query"] = await session.call_tool(
            "memory_query", {"query": "tea", "categories": ["PREFERENCE"]}
        )
        seen["denied_store"] = await session.call_tool(
            "memory_store", {"content": "Write tests", "category": "TODO", "type": "Todo"}
        )
        seen["allowed"] = _data(
            await session.call_tool("memory_query", {"query": "tests", "categories": "TODO"})
        )
        seen["bulletin"] = await session.call_tool("memory_bulletin", {})
    return seen


def test_allowlist_and_read_only_over_stdio(tmp_path: Path) -> None:
    seen = anyio.run(_restricted_run, tmp_path)
    assert seen["denied_query"].is_error and "PREFERENCE" in _text(seen["denied_query"])
    assert seen["denied_store"].is_error and "read-only" in _text(seen["denied_store"])
    assert seen["allowed"]["results"] == []
    assert seen["bulletin"].is_error and "spans every category" in _text(seen["bulletin"])
