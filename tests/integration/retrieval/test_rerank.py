"""The default preset's second stage (issue 17): a question naming a time favours
memories stored in that time, and ranking reads no node beyond the final top k."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memvault.embed.minilm import MiniLMEmbedder
from memvault.engine import MemoryEngine, OpenGate
from memvault.retrieval.rerank import RERANKERS, RerankInput, rerank_features
from memvault.store.base import RankFields
from tests.helpers import add_fields


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2023, 5, 2, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def dated(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[MemoryEngine, dict[str, str]]]:
    clock = _Clock()
    home = tmp_path_factory.mktemp("rerank")
    fields: dict[str, Any] = {"type": "Event", "category": "EVENT", "source_kind": "USER_EXPLICIT"}
    ids: dict[str, str] = {}
    with MemoryEngine.open(
        home, "acme", gate=OpenGate(), embedder=MiniLMEmbedder().load(), clock=clock
    ) as e:
        for month, text in (
            (5, "Maria: we had dinner with my aunt at the harbour restaurant"),
            (8, "Maria: we had dinner with my old roommate at the harbour restaurant"),
            (11, "Maria: we had dinner with the volunteers at the harbour restaurant"),
        ):
            clock.now = datetime(2023, month, 3, 19, 0, tzinfo=UTC)
            r = add_fields(e, text, actor_id="Maria", conversation_id=f"c{month}", **fields)
            assert r.ok and r.memory_id, r
            ids[str(month)] = r.memory_id
        clock.now = datetime(2023, 12, 1, tzinfo=UTC)
        yield e, ids


@pytest.mark.parametrize(
    ("question", "month"),
    [
        ("Who did Maria have dinner with on August 3, 2023?", "8"),
        ("Who did Maria have dinner with in November 2023?", "11"),
        ("Who did Maria have dinner with in May 2023?", "5"),
    ],
)
def test_the_named_time_wins(
    dated: tuple[MemoryEngine, dict[str, str]], question: str, month: str
) -> None:
    engine, ids = dated
    hits = engine.search(question, top_k=3).hits
    assert hits[0].node.memory_id == ids[month], [h.node.content for h in hits]


def test_no_node_beyond_the_top_k_is_read(
    dated: tuple[MemoryEngine, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = dated
    asked: list[int] = []
    real = engine.store.get_nodes

    def counting(orchestrator_id: str, memory_ids: Any) -> Any:
        asked.append(len(list(memory_ids)))
        return real(orchestrator_id, memory_ids)

    monkeypatch.setattr(engine.store, "get_nodes", counting)
    engine.search("Who did Maria have dinner with?", top_k=1)
    assert asked and max(asked) <= 1, asked


def test_neighbours_lend_their_evidence() -> None:
    """Without write-path links (an older store): a candidate whose conversation
    neighbour (stored minutes apart) is a strong match carries that neighbour's
    probability as a feature; one a month apart has no neighbour and counts as its own."""
    f = {
        "a": RankFields("a", None, 50, 1.0, "", "2023-01-01T10:00:00.000000Z", "c"),
        "b": RankFields("b", None, 50, 1.0, "", "2023-01-01T10:02:00.000000Z", "c"),
        "c": RankFields("c", None, 50, 1.0, "", "2023-02-01T10:00:00.000000Z", "c"),
    }
    fused = [("a", 0.9), ("b", 0.2), ("c", 0.2)]
    given = RerankInput(
        fused, [("a", 5.0)], [("a", 0.6), ("b", 0.3), ("c", 0.3)], f, "q", datetime.now(UTC)
    )
    ids, rows = rerank_features(given, pool=3)
    column = dict(zip(ids, rows[:, 9], strict=True))
    assert column["b"] == pytest.approx(0.9)
    assert column["c"] == pytest.approx(0.2)
    assert "all-MiniLM-L6-v2" in RERANKERS


def test_linked_neighbours_are_the_write_paths_not_the_clocks() -> None:
    """With links, the neighbours are the linked memories that are candidates:
    "c" (a month later, linked to "a") gets a's evidence, "b" (minutes after "a",
    not linked) gets none from it; a link to a non-candidate counts 0."""
    f = {
        "a": RankFields("a", None, 50, 1.0, "", "2023-01-01T10:00:00.000000Z", "c"),
        "b": RankFields("b", None, 50, 1.0, "", "2023-01-01T10:02:00.000000Z", "c"),
        "c": RankFields("c", None, 50, 1.0, "", "2023-02-01T10:00:00.000000Z", "c"),
    }
    links = {"a": ["c"], "c": ["a"], "b": ["hidden"], "hidden": ["b"]}
    asked: list[list[str]] = []

    def linked(ids: Any) -> dict[str, list[str]]:
        asked.append(list(ids))
        return {m: links[m] for m in ids if m in links}

    fused = [("a", 0.9), ("b", 0.2), ("c", 0.2)]
    given = RerankInput(
        fused, [("a", 5.0)], [("a", 0.6), ("b", 0.3), ("c", 0.3)], f, "q", datetime.now(UTC)
    )
    ids, rows = rerank_features(given, pool=3, linked=linked)
    column = dict(zip(ids, rows[:, 9], strict=True))
    assert column == {"a": pytest.approx(0.2), "c": pytest.approx(0.9), "b": 0.0}
    assert asked == [ids]


def test_a_conversation_link_is_only_returned_between_visible_memories(tmp_path: Path) -> None:
    """Two people in one conversation: Bo's turn links to Ann's (consecutive), but
    Bo's own search never receives an edge that names Ann's memory."""
    turn: dict[str, Any] = {"type": "Event", "category": "EVENT", "source_kind": "USER_EXPLICIT"}
    with MemoryEngine.open(
        tmp_path, "acme", gate=OpenGate(), embedder=MiniLMEmbedder().load()
    ) as e:
        ann = add_fields(
            e, "Ann: I moved to Lyon for a new job.", user_id="ann", conversation_id="c1", **turn
        )
        bo = add_fields(
            e, "Bo: Lyon has great food markets.", user_id="bo", conversation_id="c1", **turn
        )
        assert ann.ok and bo.ok
        linked = e.get(bo.memory_id or "").edges
        assert [(x.to_memory_id, x.reason) for x in linked] == [
            (ann.memory_id, "follows in conversation")
        ]
        everyone = e.search("Lyon markets", top_k=5)
        assert any(x.to_memory_id == ann.memory_id for x in everyone.edges)
        own = e.search("Lyon markets", top_k=5, filters={"user_id": "bo"})
        assert [h.node.memory_id for h in own.hits] == [bo.memory_id]
        assert all(ann.memory_id not in (x.from_memory_id, x.to_memory_id) for x in own.edges)


def test_unknown_fields_never_fail(tmp_path: Path) -> None:
    ids, rows = rerank_features(
        RerankInput([("x", 0.5)], None, None, {}, "in May 2023", datetime.now(UTC)), pool=5
    )
    assert ids == ["x"] and rows.shape == (1, 13)
