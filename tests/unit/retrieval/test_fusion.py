"""Fusion and ranking are pure functions: property tests (STYLE principle 9)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memvault.model import EdgeType
from memvault.retrieval.config import PRESETS, Modifiers, RetrievalConfig, preset
from memvault.retrieval.fusion import minmax_fuse, rrf_fuse
from memvault.retrieval.hybrid import apply_modifiers
from tests.helpers import make_edge, make_node

ids = st.sampled_from([f"m{i}" for i in range(12)])
ranking = st.lists(st.tuples(ids, st.floats(0, 100, allow_nan=False)), max_size=12)
rankings = st.lists(ranking, min_size=1, max_size=3)


def _ordered(ranking: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return sorted(ranking, key=lambda p: -p[1])


@given(rankings, st.floats(1, 100))
def test_rrf_sorted_deterministic_and_complete(rs: list[list[tuple[str, float]]], k: float) -> None:
    rs = [_ordered(r) for r in rs]
    fused = rrf_fuse(rs, k=k)
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
    assert fused == rrf_fuse(rs, k=k)
    assert {m for m, _ in fused} == {m for r in rs for m, _ in r}
    for (a, sa), (b, sb) in itertools.pairwise(fused):
        assert sa > sb or (sa == sb and a < b)  # ties broken by id


@given(rankings, st.integers(0, 2), st.floats(1.1, 5))
def test_rrf_weight_is_monotone(rs: list[list[tuple[str, float]]], leg: int, factor: float) -> None:
    rs = [_ordered(r) for r in rs]
    if leg >= len(rs) or not rs[leg]:
        return
    base = dict(rrf_fuse(rs, k=60))
    weights = [1.0] * len(rs)
    weights[leg] = factor
    boosted = dict(rrf_fuse(rs, k=60, weights=weights))
    for memory_id, _ in rs[leg]:
        assert boosted[memory_id] > base[memory_id]
    for memory_id, score in base.items():
        assert boosted[memory_id] >= score


@given(rankings)
def test_minmax_sorted_and_bounded(rs: list[list[tuple[str, float]]]) -> None:
    fused = minmax_fuse(rs)
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= len(rs) + 1e-9 for s in scores)
    assert fused == minmax_fuse(rs)


def test_rrf_known_values_and_errors() -> None:
    fused = rrf_fuse([[("a", 5), ("b", 4)], [("b", 0.9), ("c", 0.1)]], k=60)
    assert [m for m, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    with pytest.raises(ValueError):
        rrf_fuse([[("a", 1)]], k=0)
    with pytest.raises(ValueError):
        rrf_fuse([[("a", 1)]], weights=[1, 2])
    assert rrf_fuse([[("a", 1)], [("b", 1)]], weights=[1, 0]) == [("a", 1 / 61)]


NOW = datetime(2026, 1, 2, tzinfo=UTC)


def test_modifiers_are_neutral_for_a_plain_memory_and_explained() -> None:
    n = make_node(
        memory_id="x", importance=50, confidence=1.0, updated_at="2026-01-02T00:00:00.000000Z"
    )
    [(memory_id, score, parts)] = apply_modifiers([("x", 0.5)], {"x": n}, [], Modifiers(), NOW)
    assert memory_id == "x" and score == pytest.approx(1.0)
    assert parts["importance"] == parts["confidence"] == parts["contradiction"] == 1.0


def test_modifiers_order_importance_confidence_contradiction() -> None:
    ts = "2026-01-02T00:00:00.000000Z"
    high = make_node(memory_id="hi", importance=90, updated_at=ts)
    low = make_node(memory_id="lo", importance=10, updated_at=ts)
    unsure = make_node(memory_id="un", confidence=0.2, updated_at=ts)
    nodes = {n.memory_id: n for n in (high, low, unsure)}
    out = apply_modifiers([("lo", 1.0), ("un", 1.0), ("hi", 1.0)], nodes, [], Modifiers(), NOW)
    assert out[0][0] == "hi"
    contested = make_edge(high, low, edge_type=EdgeType.CONTRADICTS)
    with_conflict = dict(
        (m, s) for m, s, _ in apply_modifiers([("hi", 1.0)], nodes, [contested], Modifiers(), NOW)
    )
    assert with_conflict["hi"] < dict((m, s) for m, s, _ in out)["hi"]
    old = make_node(memory_id="old", updated_at="2025-01-01T00:00:00.000000Z")
    new = make_node(memory_id="new", updated_at=ts)
    aged = apply_modifiers(
        [("old", 1.0), ("new", 1.0)], {"old": old, "new": new}, [], Modifiers(), NOW
    )
    assert [m for m, _, _ in aged] == ["new", "old"]


def test_presets_are_valid_and_spec_matches_the_spec() -> None:
    spec = preset("spec")
    assert (spec.top_k_vector, spec.top_k_text, spec.rrf_k, spec.top_n) == (50, 50, 60.0, 20)
    assert spec.fusion == "rrf"
    assert not preset("text").uses_vector and not preset("vector").uses_text
    assert set(PRESETS) >= {"default", "spec", "text", "vector"}
    with pytest.raises(KeyError, match="unknown retrieval preset"):
        preset("nope")
    with pytest.raises(ValueError):
        RetrievalConfig(column_weights={"content": -1.0})


def test_actor_match_boost_lifts_the_named_actor_only() -> None:
    ts = "2026-01-02T00:00:00.000000Z"
    said = make_node(memory_id="said", actor_id="Caroline", updated_at=ts)
    other = make_node(memory_id="other", actor_id="Melanie", updated_at=ts)
    opaque = make_node(memory_id="opaque", actor_id="u_123", updated_at=ts)
    nodes = {n.memory_id: n for n in (said, other, opaque)}
    fused = [("other", 1.0), ("opaque", 1.0), ("said", 0.8)]
    boosted = Modifiers(actor_match_boost=0.5)
    out = apply_modifiers(fused, nodes, [], boosted, NOW, "What did Caroline paint in 123?")
    assert [m for m, _, _ in out] == ["said", "opaque", "other"]
    assert out[0][2]["actor"] == 1.5 and "actor" not in out[1][2]
    # Off by default, and a query naming nobody changes nothing.
    plain = apply_modifiers(fused, nodes, [], Modifiers(), NOW, "What did Caroline paint?")
    assert [m for m, _, _ in plain][-1] == "said"
    nobody = apply_modifiers(fused, nodes, [], boosted, NOW, "what was painted?")
    assert [m for m, _, _ in nobody][-1] == "said"


def test_default_preset_boosts_actors_and_baselines_do_not() -> None:
    # the default weighs the actor match inside its calibrated probability
    assert preset("default").fusion == "calibrated"
    assert preset("default").modifiers.actor_match_boost == 0
    assert preset("minmax").modifiers.actor_match_boost > 0
    assert preset("spec").modifiers.actor_match_boost == 0
    assert preset("text").modifiers.actor_match_boost == 0
