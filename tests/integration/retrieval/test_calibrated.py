"""Scores that mean something (issue 17): the default preset's scores are
calibrated probabilities of relevance, comparable across queries, so the
spec's absolute threshold (0.65) drops an unrelated query's hits entirely."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memvault.embed.minilm import MiniLMEmbedder
from memvault.engine import MemoryEngine, OpenGate
from tests.helpers import add_fields

MEMORIES = [
    "Tom hates YAML and writes every config in TOML.",
    "Dana prefers green tea over coffee in the morning.",
    "The staging database runs PostgreSQL 16 on two cores.",
    "Ana adopted a grey kitten named Pixel last spring.",
    "Ben is training for the Porto marathon in October.",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryEngine]:
    home = tmp_path_factory.mktemp("calibrated")
    with MemoryEngine.open(home, "acme", gate=OpenGate(), embedder=MiniLMEmbedder().load()) as e:
        for text in MEMORIES:
            r = add_fields(e, text, type="Fact", category="FACT", source_kind="USER_EXPLICIT")
            assert r.ok, r
        yield e


def _query(engine: MemoryEngine, query: str) -> list[tuple[str, float]]:
    result = engine.memory_query(
        agent="supervisor", query=query, threshold=0.65, top_k=5, **{"return": "full"}
    )
    return [(i.node.content, i.score) for i in result.items]


def test_an_unrelated_query_gets_nothing(engine: MemoryEngine) -> None:
    assert _query(engine, "quantum chromodynamics lattice gauge") == []
    assert _query(engine, "what is the boiling point of mercury") == []
    # the best hit of an unrelated query is not a confident 1.0 any more
    hits = engine.search("quantum chromodynamics lattice gauge", top_k=3).hits
    assert all(h.score < 0.3 for h in hits), [(h.node.content, h.score) for h in hits]


def test_a_related_query_passes_the_threshold(engine: MemoryEngine) -> None:
    got = _query(engine, "Which config format does Tom hate?")
    assert got and got[0][0].startswith("Tom hates YAML"), got
    tea = _query(engine, "What does Dana drink in the morning?")
    assert tea and tea[0][0].startswith("Dana prefers green tea"), tea


def test_scores_are_comparable_across_queries(engine: MemoryEngine) -> None:
    good = engine.search("Tom hates YAML configs", top_k=1).hits[0].score
    weak = engine.search("configuration languages", top_k=1).hits[0].score
    unrelated = engine.search("quantum chromodynamics lattice gauge", top_k=1).hits
    assert good > weak
    assert not unrelated or unrelated[0].score < weak
