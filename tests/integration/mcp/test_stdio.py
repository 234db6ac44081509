"""The MCP server through a real MCP client session over stdio (``memvault mcp`` subprocess)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memvault.access import KeyStore
from memvault.engine import MemoryEngine
from memvault.policy.contract import load_contract


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
        seen["bullets"] = _data(
            await session.call_tool("memory_query", {"q": "tea", "k": 3, "user": "dana"})
        )
        seen["full"] = _data(
            await session.call_tool(
                "memory_query",
                {"query": "afternoon tea", "return": "full", "top_k": 2, "user_id": "dana"},
            )
        )
        seen["refused"] = await session.call_tool(
            "memory_store", {"content": "x", "category": "PREFERENCE", "type": "Fakt"}
        )
        seen["two_contents"] = await session.call_tool(
            "memory_store",
            {"content": "Dana plays chess", "text": "Dana plays poker", "category": "KNOWLEDGE"},
        )
        seen["two_users"] = await session.call_tool(
            "memory_query", {"query": "tea", "user_id": "erin", "user": "dana"}
        )
        seen["same_twice"] = await session.call_tool(
            "memory_query", {"query": "tea", "q": "tea", "user": "dana"}
        )
        seen["chess"] = _data(
            await session.call_tool("memory_query", {"query": "chess poker", "user": "dana"})
        )
        seen["blank"] = await session.call_tool("memory_query", {"q": " \n "})
        seen["empty"] = await session.call_tool("memory_query", {"query": ""})
        seen["bulletin"] = _data(await session.call_tool("memory_bulletin", {"user": "dana"}))
        seen["other"] = _data(await session.call_tool("memory_bulletin", {"user": "erin"}))
        seen["everyone"] = await session.call_tool("memory_bulletin", {"all_users": True})
        memory_id = seen["stored"]["memory_id"]
        seen["forgot"] = _data(
            await session.call_tool("memory_forget", {"id": memory_id, "user": "dana"})
        )
        seen["forgot_again"] = _data(
            await session.call_tool("memory_forget", {"memory_id": memory_id, "user_id": "dana"})
        )
        seen["forgot_unknown"] = await session.call_tool(
            "memory_forget", {"memory_id": "mem_000000000000ffffffffffffffff"}
        )
        seen["after"] = _data(
            await session.call_tool("memory_query", {"query": "tea", "user": "dana"})
        )
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
    # Dana's bulletin cites her memory; Erin's never does; every user's needs the permission.
    assert seen["stored"]["memory_id"] in seen["bulletin"]["text"]
    assert seen["stored"]["memory_id"] not in seen["other"]["text"]
    assert seen["everyone"].is_error and "every user" in _text(seen["everyone"])
    assert "allowlist" not in _text(seen["everyone"])
    assert seen["refused"].is_error and "SCHEMA_INVALID" in _text(seen["refused"])
    # Two names of one argument with different values: an error naming both, nothing
    # stored or answered (before, one value was silently dropped: "Dana plays poker" was
    # lost, and the query answered for one of the two users).
    for refused, names in (("two_contents", "'content' and 'text'"), ("two_users", "'user_id'")):
        assert seen[refused].is_error and names in _text(seen[refused]), _text(seen[refused])
    assert "'user'" in _text(seen["two_users"])
    assert not [r for r in seen["chess"]["results"] if "chess" in r["text"] or "poker" in r["text"]]
    assert not seen["same_twice"].is_error  # the same value under two names is one argument
    assert seen["blank"].is_error and "visible character" in _text(seen["blank"])
    # "" gets the same validation error as a blank query, not pydantic's wording
    assert seen["empty"].is_error and "visible character" in _text(seen["empty"])
    assert "at least 1 character" not in _text(seen["empty"])
    assert seen["forgot"]["stop_reason"] == "SUCCESS_DELETED"
    # Idempotent: forgetting an already-forgotten memory succeeds again, writing nothing.
    assert seen["forgot_again"]["stop_reason"] == "SUCCESS_DELETED"
    assert seen["forgot_unknown"].is_error and "no memory" in _text(seen["forgot_unknown"])
    assert seen["after"]["results"] == []
    rows = KeyStore.for_home(tmp_path).access_events("acme")
    # the refused all-users bulletin, then the unknown id
    assert [r["event"] for r in rows] == ["access_denied", "scope_miss"]
    assert rows[0]["detail"]["reason"] == "all_users"


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


#: One benign memory per contract 19.1.0 category, with the type it naturally has.
EVERY_CATEGORY = {
    "PREFERENCE": ("Preference", "Dana wants replies that open with the verdict"),
    "WORKFLOW_DEFAULT": ("Preference", "Run the linter before every commit"),
    "PROJECT_CONFIG": ("Fact", "The main branch of the billing repo is called trunk"),
    "CONSTRAINT": ("Preference", "Keep the monthly cloud budget under 500 euros"),
    "REMINDER": ("Todo", "Remind me to renew the TLS certificate on Friday"),
    "KNOWLEDGE": ("Fact", "The billing service is written in Go"),
    "EVENT": ("Event", "The warehouse audit takes place on the third of March"),
    "DECISION": ("Decision", "We decided to move the API from REST to gRPC"),
    "GOAL": ("Goal", "Bring the nightly export under forty minutes"),
    "TODO": ("Todo", "Draft the retry budget for the shipment webhook"),
    "PROCEDURE": ("Procedure", "To release: bump the version, update the changelog, tag"),
}


async def _every_category_run(home: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {"stored": {}}
    async with (
        stdio_client(_params(home, "--agent", "assistant")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        seen["schemas"] = {t.name: t.input_schema for t in (await session.list_tools()).tools}
        for category, (kind, content) in EVERY_CATEGORY.items():
            result = await session.call_tool(
                "memory_store", {"content": content, "category": category, "type": kind}
            )
            seen["stored"][category] = (result.is_error, _text(result))
        seen["short_todo"] = _data(
            await session.call_tool(
                "memory_store",
                {"text": "Call the bank", "category": "TODO", "type": "Todo", "ttl": "SHORT"},
            )
        )
        seen["long_todo"] = await session.call_tool(
            "memory_store",
            {"text": "Call the dentist", "category": "TODO", "type": "Todo", "ttl_class": "LONG"},
        )
        seen["unknown_read"] = await session.call_tool(
            "memory_query", {"q": "tests", "categories": ["TODOS_TYPO"]}
        )
        seen["alias_read"] = _data(
            await session.call_tool("memory_query", {"q": "retry budget", "category": "tasks"})
        )
    return seen


@pytest.fixture(scope="module")
def every_category(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    home = tmp_path_factory.mktemp("mcp-every-category")
    return home, anyio.run(_every_category_run, home)


def test_every_category_stores_over_stdio(every_category: tuple[Path, dict[str, Any]]) -> None:
    tmp_path, seen = every_category
    refused = {c: text for c, (error, text) in seen["stored"].items() if error}
    assert refused == {}
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        ttl = {n.category: n.ttl_class.value for n in engine.list_memories(limit=100)}
    # The TTL class defaults per category from the contract: TODO and REMINDER are
    # never LONG-lived, the rest get their longest allowed class.
    contract = load_contract("19.1.0")
    assert ttl["TODO"] in {"SHORT", "MEDIUM"} and ttl["REMINDER"] in {"SHORT", "MEDIUM"}
    for category in EVERY_CATEGORY:
        assert category in ttl
        if category != "TODO":
            assert ttl[category] == contract.categories[category].default_ttl.value
    assert seen["short_todo"]["stop_reason"] == "SUCCESS_STORED"
    assert seen["long_todo"].is_error and "TTL_NOT_ALLOWED" in _text(seen["long_todo"])
    assert seen["unknown_read"].is_error and "TODOS_TYPO" in _text(seen["unknown_read"])
    assert [r["category"] for r in seen["alias_read"]["results"]][:1] == ["TODO"]


def test_input_schemas_advertise_every_accepted_name(
    every_category: tuple[Path, dict[str, Any]],
) -> None:
    _, seen = every_category
    query = seen["schemas"]["memory_query"]
    for name in ("query", "q", "text", "question", "top_k", "k", "limit", "category", "return"):
        assert name in query["properties"], name
    # A schema-validating client accepts the aliases and still insists on a query.
    jsonschema.validate({"q": "tea", "k": 3}, query)
    jsonschema.validate({"query": "tea"}, query)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"k": 3}, query)
    store = seen["schemas"]["memory_store"]
    assert {"ttl_class", "ttl", "text", "memory_type"} <= set(store["properties"])
    assert store["properties"]["ttl_class"]["anyOf"][0]["enum"] == ["SHORT", "MEDIUM", "LONG"]
    jsonschema.validate({"text": "x", "category": "TODO"}, store)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"text": "x"}, store)
    forget = seen["schemas"]["memory_forget"]
    jsonschema.validate({"id": "mem_1"}, forget)


async def _bound_run(home: Path) -> dict[str, Any]:
    """Bob's memory stored by an unbound server; then a server bound to Alice reads."""
    pref = {"category": "PREFERENCE", "type": "Preference"}
    async with (
        stdio_client(_params(home, "--agent", "assistant")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        bob = _data(
            await session.call_tool(
                "memory_store",
                {**pref, "content": "Bob keeps his bicycle in the basement", "user_id": "bob"},
            )
        )
    seen: dict[str, Any] = {"bob": bob}
    async with (
        stdio_client(_params(home, "--agent", "assistant", "--user", "alice")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        seen["stored"] = _data(
            await session.call_tool(
                "memory_store", {**pref, "content": "Alice keeps her bicycle in the hallway"}
            )
        )
        seen["query"] = _data(
            await session.call_tool("memory_query", {"query": "bicycle basement", "top_k": 10})
        )
        seen["bulletin"] = _data(await session.call_tool("memory_bulletin", {}))
        seen["other"] = await session.call_tool("memory_bulletin", {"user_id": "bob"})
        seen["forget_bob"] = await session.call_tool("memory_forget", {"id": bob["memory_id"]})
    return seen


def test_a_server_bound_to_a_user_never_reaches_another_users_memory(tmp_path: Path) -> None:
    seen = anyio.run(_bound_run, tmp_path)
    bob = seen["bob"]["memory_id"]
    assert bob not in {r["id"] for r in seen["query"]["results"]}
    assert seen["stored"]["memory_id"] in {r["id"] for r in seen["query"]["results"]}
    assert bob not in seen["bulletin"]["text"]
    assert seen["other"].is_error and "bound to user 'alice'" in _text(seen["other"])
    # the hint fits the refusal (before: "ask for a key whose allowlist covers this category")
    assert "allowlist" not in _text(seen["other"]) and "own user" in _text(seen["other"])
    assert seen["forget_bob"].is_error and "no memory" in _text(seen["forget_bob"])
