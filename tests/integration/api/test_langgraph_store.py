"""The LangGraph adapter through LangGraph's own store API (and inside a compiled graph)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

import anyio
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError

from memvault.engine import MemoryEngine
from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore

NS = ("acme", "billing", "dana")
TEA = {
    "content": "Dana prefers tea over coffee",
    "type": "Preference",
    "category": "PREFERENCE",
    "source_kind": "USER_EXPLICIT",
}


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = MemvaultStore(tmp_path, orchestrators=["acme", "globex"])
    yield s
    s.close()


def test_put_get_update_delete(store: MemvaultStore, tmp_path: Path) -> None:
    assert isinstance(store, BaseStore)
    store.put(NS, "drink", TEA)
    item = store.get(NS, "drink")
    assert item is not None and item.value == TEA and item.namespace == NS
    store.put(NS, "drink", {**TEA, "content": "Dana prefers green tea"})
    updated = store.get(NS, "drink")
    assert updated is not None and updated.value["content"] == "Dana prefers green tea"
    assert updated.updated_at >= item.updated_at
    assert store.get(("acme", "billing", "someone-else"), "drink") is None
    assert store.get(("globex", "billing", "dana"), "drink") is None
    store.delete(NS, "drink")
    assert store.get(NS, "drink") is None
    with MemoryEngine.open(tmp_path, "acme") as engine:
        nodes = engine.list_memories({"status": ["soft_deleted"]})
    assert [(n.key, n.user_id, n.project_id, n.agent_id) for n in nodes] == [
        ("drink", "dana", "billing", "langgraph")
    ]


def test_global_tier_and_defaults(store: MemvaultStore) -> None:
    store.put(("acme",), "fiscal_year", {"text": "The fiscal year starts in April"})
    item = store.get(("acme", "global"), "fiscal_year")
    assert item is not None and item.namespace == ("acme", "global")
    assert store.get(("acme", "billing"), "fiscal_year") is None


def test_puts_pass_the_write_gate(store: MemvaultStore) -> None:
    with pytest.raises(WriteRefusedError) as info:
        store.put(NS, "bad", {**TEA, "type": "Fakt"})
    assert info.value.stop_reason.value == "SCHEMA_INVALID"
    assert store.get(NS, "bad") is None


def test_search_and_list_namespaces(store: MemvaultStore) -> None:
    store.put(NS, "drink", TEA)
    store.put(("acme", "billing"), "deploy", {"content": "Deploys happen on Tuesdays"})
    store.put(("acme", "search"), "owner", {"content": "The search team owns indexing"})
    hits = store.search(("acme",), query="what does Dana drink", limit=5)
    assert hits and hits[0].key == "drink" and hits[0].score is not None
    billing = store.search(("acme", "billing"), limit=10)
    assert {h.key for h in billing} == {"drink", "deploy"}
    assert [h.key for h in store.search(("acme",), filter={"type": "Preference"})] == ["drink"]
    assert store.list_namespaces(prefix=("acme",)) == [
        ("acme", "billing"),
        ("acme", "billing", "dana"),
        ("acme", "search"),
    ]
    assert store.list_namespaces(max_depth=2) == [("acme", "billing"), ("acme", "search")]
    assert store.list_namespaces(suffix=("dana",)) == [("acme", "billing", "dana")]
    with pytest.raises(InvalidNamespaceError):
        store.put(("initech", "x"), "k", {"content": "no"})
    with pytest.raises(InvalidNamespaceError):
        store.put(("acme", "a", "b", "c"), "k", {"content": "too deep"})


def test_async_api(store: MemvaultStore) -> None:
    async def run() -> Any:
        await store.aput(NS, "drink", TEA)
        return await store.aget(NS, "drink")

    item = anyio.run(run)
    assert item is not None and item.value["content"] == TEA["content"]


class State(TypedDict):
    user: str
    answer: str


def test_inside_a_compiled_graph(store: MemvaultStore) -> None:
    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        store.put(
            ("acme", "global", state["user"]),
            "tone",
            {
                "content": f"{state['user']} prefers concise answers",
                "type": "Preference",
                "category": "PREFERENCE",
                "source_kind": "USER_EXPLICIT",
            },
        )
        return {}

    def recall(state: State, *, store: BaseStore) -> dict[str, Any]:
        hits = store.search(("acme", "global", state["user"]), query="concise answers")
        return {"answer": hits[0].value["content"] if hits else ""}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=store)
    result = graph.invoke({"user": "dana", "answer": ""})
    assert result["answer"] == "dana prefers concise answers"
