"""The LangGraph adapter through LangGraph's own store API (and inside a compiled graph).

Each test states one behaviour LangGraph users rely on; memvault's deliberate
differences (the write gate, soft deletes) are tested as such.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypedDict

import anyio
import pytest
from langchain_core.embeddings import Embeddings
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp, SearchOp

from memvault.engine import MemoryEngine
from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore
from tests.helpers import add_fields

TEA = {
    "content": "Dana prefers tea over coffee",
    "type": "Preference",
    "category": "PREFERENCE",
    "source_kind": "USER_EXPLICIT",
}


class LetterCounts(Embeddings):
    """A caller's own embedder: counts of a..z (deterministic, no model)."""

    def __init__(self) -> None:
        self.calls = 0

    def _one(self, text: str) -> list[float]:
        self.calls += 1
        return [float(text.lower().count(chr(ord("a") + i))) for i in range(26)]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = MemvaultStore(tmp_path, orchestrator="acme")
    yield s
    s.close()


@pytest.fixture
def indexed(tmp_path: Path) -> Any:
    embed = LetterCounts()
    s = MemvaultStore(tmp_path, index={"dims": 26, "embed": embed, "fields": ["title", "body"]})
    yield s
    s.close()


def test_put_get_update_delete(store: MemvaultStore, tmp_path: Path) -> None:
    ns = ("billing", "dana")
    assert isinstance(store, BaseStore)
    store.put(ns, "drink", TEA)
    item = store.get(ns, "drink")
    assert item is not None and item.value == TEA and item.namespace == ns
    store.put(ns, "drink", {**TEA, "content": "Dana prefers green tea"})
    updated = store.get(ns, "drink")
    assert updated is not None and updated.value["content"] == "Dana prefers green tea"
    assert updated.updated_at >= item.updated_at and updated.created_at == item.created_at
    assert store.get(("billing", "someone-else"), "drink") is None
    store.delete(ns, "drink")
    assert store.get(ns, "drink") is None
    with MemoryEngine.open(tmp_path, "acme") as engine:
        nodes = engine.list_memories({"status": ["soft_deleted"]})
    # memvault's delete is a soft delete: the memory is still there, restorable.
    assert [(n.key, n.type.value, n.category, n.agent_id) for n in nodes] == [
        ("drink", "Preference", "PREFERENCE", "langgraph")
    ]


@pytest.mark.parametrize("key", ["", " ", "\t"])
def test_a_put_under_an_empty_key_is_refused_not_lost(store: MemvaultStore, key: str) -> None:
    # "" was memvault's "no key": the put returned and the item was never found again
    with pytest.raises(WriteRefusedError, match="SCHEMA_INVALID: key is required"):
        store.put(("prefs", "u1"), key, {"text": "Prefers tea in the afternoon"})
    assert store.get(("prefs", "u1"), key) is None
    assert store.search(("prefs",)) == []
    store.put(("prefs", "u1"), "tea", {"text": "Prefers tea in the afternoon"})
    assert store.get(("prefs", "u1"), "tea") is not None


@pytest.mark.parametrize(
    "namespace",
    [("solo",), ("a%b",), ("star*",), ("user_1",), ("users", "alice\n"), tuple("abcdefg")],
)
def test_any_namespace_round_trips_literally(store: MemvaultStore, namespace: Any) -> None:
    store.put(namespace, "k", {"v": 1})
    item = store.get(namespace, "k")
    assert item is not None and item.namespace == namespace
    assert [i.namespace for i in store.search(namespace)] == [namespace]
    assert store.list_namespaces(prefix=namespace) == [namespace]


def test_labels_are_literal_not_patterns(store: MemvaultStore) -> None:
    for namespace in [("a%b",), ("axxb",), ("star*",), ("starX",), ("foo",), ("foobar",)]:
        store.put(namespace, "k", {"v": 1})
    assert {i.namespace for i in store.search(("a%b",))} == {("a%b",)}
    assert {i.namespace for i in store.search(("star*",))} == {("star*",)}
    assert {i.namespace for i in store.search(("foo",))} == {("foo",)}
    assert store.search(("fo",)) == []


def test_empty_prefix_searches_everything(store: MemvaultStore) -> None:
    for namespace in [("a",), ("b", "c"), ("d", "e", "f", "g")]:
        store.put(namespace, "k", {"v": 1})
    assert {i.namespace for i in store.search(())} == {("a",), ("b", "c"), ("d", "e", "f", "g")}
    found = store.batch([SearchOp(())])[0]
    assert isinstance(found, list) and len(found) == 3


def test_list_namespaces_wildcards_depth_and_pages(store: MemvaultStore) -> None:
    for namespace in [("uid", "users", "alice"), ("uid", "users", "malice"), ("uid", "a", "b")]:
        store.put(namespace, "k", {"v": 1})
    assert store.list_namespaces(suffix=("alice",)) == [("uid", "users", "alice")]
    assert store.list_namespaces(prefix=("uid", "*", "alice")) == [("uid", "users", "alice")]
    assert store.list_namespaces(max_depth=2) == [("uid", "a"), ("uid", "users")]
    assert store.list_namespaces(limit=1, offset=1) == [("uid", "users", "alice")]


def test_every_filter_operator(store: MemvaultStore) -> None:
    for i, price in enumerate([5, 10, 20]):
        store.put(("items",), f"i{i}", {"price": price, "meta": {"level-1": "x" if i else "y"}})

    def keys(spec: dict[str, Any]) -> set[str]:
        return {i.key for i in store.search(("items",), filter=spec)}

    assert keys({"price": 10}) == {"i1"}
    assert keys({"price": {"$eq": 10}}) == {"i1"}
    assert keys({"price": {"$ne": 10}}) == {"i0", "i2"}
    assert keys({"price": {"$gt": 10}}) == {"i2"}
    assert keys({"price": {"$gte": 10}}) == {"i1", "i2"}
    assert keys({"price": {"$lt": 10}}) == {"i0"}
    assert keys({"price": {"$lte": 10}}) == {"i0", "i1"}
    assert keys({"price": {"$gt": 4, "$lt": 20}}) == {"i0", "i1"}
    assert keys({"meta.level-1": "y"}) == {"i0"}
    assert keys({"price": {"$lt": float("inf")}}) == {"i0", "i1", "i2"}
    assert keys({"price": {"$eq": float("nan")}}) == set()


def test_unknown_operator_or_bad_key_is_an_error(store: MemvaultStore) -> None:
    store.put(("items",), "i", {"price": 5})
    with pytest.raises(ValueError, match=r"\$regex"):
        store.search(("items",), filter={"price": {"$regex": "5"}})
    with pytest.raises(ValueError, match="Invalid filter key"):
        store.search(("items",), filter={"price') OR 1=1 --": 5})


def test_invalid_label_rejects_the_whole_batch(store: MemvaultStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("valid",), "k", {"v": 1}), PutOp(("foo.bar",), "k", {"v": 2})])
    assert store.get(("valid",), "k") is None


def test_a_value_that_is_not_json_rejects_the_whole_batch(store: MemvaultStore) -> None:
    """Before, a value holding an object JSON cannot hold (a datetime, a set) was stored
    as its ``str()`` — ``get`` gave back another value than the one put, silently —
    and the batch's other puts were written."""
    from datetime import UTC, datetime

    bad = {"content": "Dana's last login", "at": datetime(2026, 11, 26, tzinfo=UTC)}
    with pytest.raises(TypeError, match=r"'login'.*not JSON"):
        store.batch([PutOp(("valid",), "k", {"v": 1}), PutOp(("users",), "login", bad)])
    assert store.get(("valid",), "k") is None
    assert store.get(("users",), "login") is None
    with pytest.raises(TypeError, match="not JSON"):
        store.put(("users",), "tags", {"tags": {"a", "b"}})


def test_the_callers_embedder_and_fields_are_used(indexed: MemvaultStore) -> None:
    embed = indexed.embeddings
    assert isinstance(embed, LetterCounts)
    indexed.put(("docs",), "zebra", {"title": "zany zebra", "body": "", "tag": "qqqq"})
    indexed.put(("docs",), "dogs", {"title": "something about dogs", "tag": "zzzz"})
    before = embed.calls
    hits = indexed.search(("docs",), query="zany zebra")
    assert embed.calls > before  # the query went through the caller's embedder
    assert [h.key for h in hits] == ["zebra", "dogs"]
    # The score is the cosine similarity of the query and the indexed fields.
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    expected = _cosine(embed._one("zany zebra"), embed._one("something about dogs"))
    assert hits[1].score == pytest.approx(expected, abs=1e-4)


def test_scores_are_similarities_not_per_query_ranks(indexed: MemvaultStore) -> None:
    indexed.put(("docs",), "a", {"title": "aaaa"})
    unrelated = indexed.search(("docs",), query="zzzz")
    # An unrelated query's best (only) hit is not scored 1.0.
    assert len(unrelated) == 1 and unrelated[0].score == pytest.approx(0.0, abs=1e-6)


def test_per_item_index_fields_and_index_false(indexed: MemvaultStore) -> None:
    indexed.put(("docs",), "tagged", {"title": "bbbb", "tag": "cccc"}, index=["tag"])
    indexed.put(("docs",), "hidden", {"title": "cccc"}, index=False)
    hits = indexed.search(("docs",), query="cccc")
    assert [(h.key, h.score is not None) for h in hits] == [("tagged", True), ("hidden", False)]
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert [h.key for h in indexed.search(("docs",), query="cccc", limit=1)] == ["tagged"]


def test_puts_pass_the_write_gate(store: MemvaultStore) -> None:
    with pytest.raises(WriteRefusedError) as info:
        store.put(("ops",), "key", {"content": "The deploy key is AKIAIOSFODNN7EXAMPLE"})
    assert info.value.stop_reason.value == "FORBIDDEN_CATEGORY"
    assert store.get(("ops",), "key") is None


def test_memvault_fields_only_when_valid(store: MemvaultStore, tmp_path: Path) -> None:
    store.put(("n",), "note", {"content": "Standup is at nine", "type": "note", "importance": 90})
    item = store.get(("n",), "note")
    assert item is not None and item.value["type"] == "note"  # the application's own data
    with MemoryEngine.open(tmp_path, "acme") as engine:
        (node,) = engine.list_memories()
    assert (node.type.value, node.importance) == ("Fact", 90)


def test_memories_not_written_by_the_adapter_are_visible(
    store: MemvaultStore, tmp_path: Path
) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        add_fields(
            engine,
            "The staging cluster rotates its certificates on Tuesdays",
            type="Fact",
            category="KNOWLEDGE",
            source_kind="SYSTEM_KNOWN",
            project_id="finance",
        ).raise_for_status()
    (item,) = store.search(())
    assert item.namespace == ("acme", "finance")
    assert item.value["content"] == "The staging cluster rotates its certificates on Tuesdays"


def test_async_api(store: MemvaultStore) -> None:
    async def run() -> Any:
        await store.aput(("billing", "dana"), "drink", TEA)
        return await store.aget(("billing", "dana"), "drink")

    item = anyio.run(run)
    assert item is not None and item.value["content"] == TEA["content"]


class State(TypedDict):
    user: str
    answer: str


def test_inside_a_compiled_graph(store: MemvaultStore) -> None:
    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        store.put(
            (state["user"], "preferences"),
            "tone",
            {
                "content": f"{state['user']} wants replies that open with the verdict",
                "type": "Preference",
                "category": "PREFERENCE",
                "source_kind": "USER_EXPLICIT",
            },
        )
        return {}

    def recall(state: State, *, store: BaseStore) -> dict[str, Any]:
        hits = store.search((state["user"],), query="replies that open with the verdict")
        return {"answer": hits[0].value["content"] if hits else ""}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=store)
    result = graph.invoke({"user": "dana", "answer": ""})
    assert result["answer"] == "dana wants replies that open with the verdict"


class CountedBatches(LetterCounts):
    """LetterCounts that records each ``embed_documents`` call's size."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(len(texts))
        return super().embed_documents(texts)


def test_a_batch_of_new_items_is_embedded_in_one_call(tmp_path: Path) -> None:
    embed = CountedBatches()
    s = MemvaultStore(tmp_path, index={"dims": 26, "embed": embed, "fields": ["title"]})
    try:
        s.put(("docs",), "first", {"title": "aaaa"})  # a single put: the engine embeds it
        embed.batches.clear()
        titles = {"b": "bbbb", "c": "cccc", "d": "dddd bbbb", "first": "eeee"}
        s.batch(
            [
                *(PutOp(("docs",), key, {"title": t}) for key, t in titles.items()),
                PutOp(("docs",), "c", None),  # deleted again within the batch
            ]
        )
        # one call for the three new items ("first" is an update: the engine embeds it)
        assert embed.batches[0] == 3
        assert sum(embed.batches) == 4
        hits = s.search(("docs",), query="bbbb")
        assert [h.key for h in hits][:2] == ["b", "d"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        expected = _cosine(embed._one("bbbb"), embed._one("dddd bbbb"))
        assert hits[1].score == pytest.approx(expected, abs=1e-4)
        assert s.get(("docs",), "c") is None and s.get(("docs",), "first").value == {
            "title": "eeee"
        }
    finally:
        s.close()


def test_a_users_store_sees_theirs_and_shared_items_never_another_users(tmp_path: Path) -> None:
    """``user=`` holds reads to that user's and shared memories (store/scope.py)."""
    note = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
    shared = MemvaultStore(tmp_path, orchestrator="acme")
    alice = MemvaultStore(tmp_path, orchestrator="acme", user="alice")
    bob = MemvaultStore(tmp_path, orchestrator="acme", user="bob")
    try:
        shared.put(("team",), "rota", {**note, "content": "The on-call rota changes on Mondays"})
        alice.put(("notes",), "desk", {**note, "content": "Alice sits by the north window"})
        bob.put(("notes",), "desk", {**note, "content": "Bob sits by the loading dock"})
        seen = {i.value["content"] for i in alice.search((), limit=50)}
        assert seen == {"The on-call rota changes on Mondays", "Alice sits by the north window"}
        hits = alice.search(("notes",), query="loading dock", limit=10)
        assert all("Bob" not in i.value["content"] for i in hits)
        assert alice.get(("notes",), "desk").value["content"].startswith("Alice")  # type: ignore[union-attr]
        # A user's put of a shared item's key writes their own; the shared one is untouched.
        alice.put(("team",), "rota", {**note, "content": "Alice swaps to Tuesdays"})
        assert shared.get(("team",), "rota").value["content"].endswith("Mondays")  # type: ignore[union-attr]
        assert bob.get(("team",), "rota").value["content"].endswith("Mondays")  # type: ignore[union-attr]
    finally:
        for s in (shared, alice, bob):
            s.close()
