"""Issue 22's search shortcuts change no answer.

- The default search reads ranking fields only for the candidates its rerank
  looks at (the best 100; twice as many when the query names a time): the
  same hits and scores as with every memory's fields at hand.
- ``best_first`` orders as ``sorted`` by (score descending, id), ties included.
- The text leg's per-slot sum over a reused array gives the sort's sums.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memvault.embed.minilm import MiniLMEmbedder
from memvault.engine import MemoryEngine, OpenGate
from memvault.store.ordering import best_first
from memvault.store.sqlite.textindex import _Scratch, _sum_by_slot

NAMES = ("Maria", "John", "Ana", "Wei")
WORDS = "dinner harbour garden piano budget otter lantern hike tea museum".split()


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2023, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryEngine]:
    """360 memories over six months: shared words (many text ties), four actors,
    conversations, and vectors clustered so that the two legs overlap in part."""
    rng = random.Random(7)
    vectors = np.random.default_rng(7)
    centres = vectors.standard_normal((6, 384)).astype(np.float32)
    clock = _Clock()
    home: Path = tmp_path_factory.mktemp("shortcuts")
    model = MiniLMEmbedder().load()
    with MemoryEngine.open(home, "acme", gate=OpenGate(), embedder=model, clock=clock) as e:
        for month in range(1, 7):
            clock.now = datetime(2023, month, 10, 12, 0, tzinfo=UTC)
            items: list[dict[str, Any]] = []
            for i in range(60):
                name = NAMES[i % len(NAMES)]
                words = " ".join(rng.sample(WORDS, 3))
                vector = centres[i % 6] + 0.8 * vectors.standard_normal(384).astype(np.float32)
                items.append(
                    {
                        "content": f"{name}: we talked about {words} at the {rng.choice(WORDS)}",
                        "type": "Event",
                        "category": "EVENT",
                        "source_kind": "USER_EXPLICIT",
                        "actor_id": name,
                        "conversation_id": f"c{month}-{i % 5}",
                        "vector": vector / np.linalg.norm(vector),
                        "vector_model": model.model_id,
                    }
                )
            assert all(r.ok for r in e.add_many(items))
        clock.now = datetime(2023, 7, 1, tzinfo=UTC)
        yield e


QUESTIONS = [
    "What did Maria say about the harbour dinner?",
    "Who talked about the piano in March 2023?",
    "What did John say about tea last month?",
    "otter lantern museum",
    "budget hike garden",
]


def _query_vector(i: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    v = np.random.default_rng(100 + i).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def test_the_ranking_fields_read_change_no_answer(
    engine: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = engine.store
    everyone = [n.memory_id for n in engine.list_memories(limit=1000)]
    assert len(everyone) == 360
    asked: list[int] = []
    real = store.rank_fields

    def counted(orchestrator_id: str, memory_ids: Any) -> Any:
        ids = list(memory_ids)
        asked.append(len(ids))
        return real(orchestrator_id, ids)

    def every_memory(orchestrator_id: str, memory_ids: Any) -> Any:
        return real(orchestrator_id, everyone)

    for i, question in enumerate(QUESTIONS):
        vector = _query_vector(i)
        for top_k in (10, 30):
            monkeypatch.setattr(store, "rank_fields", counted)
            asked.clear()
            got = engine.search(question, top_k=top_k, query_vector=vector, explain=True)
            monkeypatch.setattr(store, "rank_fields", every_memory)
            want = engine.search(question, top_k=top_k, query_vector=vector, explain=True)
            assert [(h.node.memory_id, h.score) for h in got.hits] == [
                (h.node.memory_id, h.score) for h in want.hits
            ], question
            assert [h.explain for h in got.hits] == [h.explain for h in want.hits]
            assert len(got.hits) == top_k
            if top_k == 10:  # the shortcut holds: fewer fields when the query names no time
                names_time = "2023" in question or "last month" in question
                assert max(asked) > 100 if names_time else max(asked) <= 100, (question, asked)


def test_best_first_is_the_sort_by_score_then_id() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        n = rng.randint(0, 40)
        ids = list(dict.fromkeys(f"m{rng.randint(0, 60):02d}" for _ in range(n)))
        pool = [0.5, 0.25, 1.0, -0.0, 0.0, float("inf"), -float("inf"), rng.random()]
        scores = [rng.choice(pool) for _ in ids]
        if rng.random() < 0.3:
            scores.sort(reverse=True)
        want = sorted(zip(ids, scores, strict=True), key=lambda p: (-p[1], p[0]))
        got = best_first(ids, np.array(scores, dtype=np.float64))
        assert [m for m, _ in got] == [m for m, _ in want], (ids, scores)
        assert [s for _, s in got] == [s for _, s in want]


def test_best_first_puts_nan_last_by_id() -> None:
    got = best_first(["c", "a", "b", "d"], np.array([np.nan, 1.0, np.nan, 1.0]))
    assert [m for m, _ in got] == ["a", "d", "b", "c"]


def test_the_text_legs_sum_equals_a_sort_of_the_postings() -> None:
    rng = np.random.default_rng(11)
    scratch = _Scratch()
    for trial in range(400):
        n = int(rng.integers(1, 2000))
        slots = [
            np.sort(rng.choice(n, int(rng.integers(0, n + 1)), replace=False)).astype(np.int64)
            for _ in range(int(rng.integers(2, 5)))
        ]
        scores = [rng.random(s.size) * 3 for s in slots]
        want: dict[int, float] = {}
        for phrase_slots, phrase_scores in zip(slots, scores, strict=True):
            for slot, score in zip(phrase_slots.tolist(), phrase_scores.tolist(), strict=True):
                want[slot] = want.get(slot, 0.0) + score  # phrase order, as FTS5 adds them
        cand, total = _sum_by_slot(slots, scores, n, scratch if trial % 2 else None)
        assert cand.tolist() == sorted(want)
        assert total.tolist() == [want[s] for s in sorted(want)]
        assert not scratch.acc.any() and not scratch.hit.any()  # left zeroed
