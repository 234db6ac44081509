"""memory.query: allowlists, filters in the store, Procedure gating, top_k, budget, events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault.context import AgentAllowlist, MemoryQuery
from memvault.engine import MemoryEngine
from memvault.errors import ValidationFailed
from memvault.model import StopReason
from tests.integration.context.conftest import open_engine, put

ALLOWLIST = AgentAllowlist.from_mapping(
    {
        "allowlists": {
            "supervisor": ["goals", "tasks", "decisions", "preferences", "knowledge"],
            "planner": ["goals", "tasks", "projects"],
            "executor": ["tasks", "procedural"],
        }
    }
)


def seed(engine: MemoryEngine) -> dict[str, str]:
    return {
        "plan": put(engine, "Deploy plan: blue green rollout", "Decision", category="DECISION"),
        "todo": put(engine, "Deploy the staging cluster", "Todo", category="TODO"),
        "pref": put(engine, "Dana prefers deploy summaries", "Preference", category="PREFERENCE"),
        "proc": put(engine, "Deploy steps: tag, build, push", "Procedure", category="PROCEDURE"),
        "u2": put(engine, "Deploy notes of another user", "Fact", user_id="u2"),
    }


def ids(result: object) -> list[str]:
    return [r["id"] for r in result.to_json()["results"]]  # type: ignore[attr-defined]


def test_bullets_shape_and_procedures_only_on_request(ctx_engine: MemoryEngine) -> None:
    s = seed(ctx_engine)
    result = ctx_engine.memory_query(agent="supervisor", query="deploy", top_k=10)
    data = result.to_json()
    assert data["status"] == "ok" and data["return"] == "bullets"
    assert s["proc"] not in ids(result)
    first = data["results"][0]
    assert set(first) == {"id", "category", "text"}
    assert first["text"].startswith(f"[{first['category']}] ")
    asked = ctx_engine.memory_query(
        agent="executor", query="deploy", categories=["procedural"], top_k=10
    )
    assert ids(asked) == [s["proc"]]


def test_disallowed_categories_are_refused_and_logged(ctx_engine: MemoryEngine) -> None:
    seed(ctx_engine)
    ctx_engine.allowlist = ALLOWLIST
    for agent, categories in [
        ("planner", ["preferences"]),
        ("planner", ["goals", "PREFERENCE"]),
        ("stylist", None),  # not in the allowlist at all: fail closed
        ("planner", ["procedural"]),
    ]:
        result = ctx_engine.memory_query(agent=agent, query="deploy", categories=categories)
        assert result.refused and result.stop_reason is StopReason.FORBIDDEN_CATEGORY
        assert result.items == () and result.to_json()["status"] == "refused"
    # a disallowed category cannot be reached through filters either
    sneaky = ctx_engine.memory_query(
        agent="planner", query="deploy", filters={"category": ["PREFERENCE"]}
    )
    assert sneaky.refused
    if ctx_engine.log is not None:
        lines = [r for r in ctx_engine.log.read() if r["event"] == "query_refused"]
        assert len(lines) == 5 and lines[0]["calling_agent"] == "planner"
    ctx_engine.flush_context_events()
    counts = {(c.op, c.status): c.count for c in ctx_engine.store.event_counts("acme")}
    assert counts[("query_refused", "skipped")] == 5


def test_allowlist_limits_what_is_recalled(ctx_engine: MemoryEngine) -> None:
    s = seed(ctx_engine)
    ctx_engine.allowlist = ALLOWLIST
    planner = ctx_engine.memory_query(agent="planner", query="deploy", top_k=10)
    assert set(ids(planner)) == {s["plan"], s["todo"]}  # projects ⊇ DECISION; tasks ⊇ TODO
    executor = ctx_engine.memory_query(agent="executor", query="deploy", top_k=10)
    assert ids(executor) == [s["todo"]]  # procedures only when asked for


def test_filters_are_applied_and_unknown_keys_fail(ctx_engine: MemoryEngine) -> None:
    s = seed(ctx_engine)
    only_u2 = ctx_engine.memory_query(
        agent="supervisor", query="deploy", filters={"user_id": "u2"}, top_k=10
    )
    assert ids(only_u2) == [s["u2"]]
    dated = ctx_engine.memory_query(
        agent="supervisor", query="deploy", filters={"updated_after": "2030-01-01"}
    )
    assert dated.items == ()
    for bad in ({"colour": "red"}, {"status": "soft_deleted"}, {"importance_min": 500}):
        with pytest.raises(ValidationFailed):
            ctx_engine.memory_query(agent="supervisor", query="deploy", filters=bad)
    with pytest.raises(ValidationFailed):
        ctx_engine.memory_query({"agent": "a", "query": "q", "unknown": 1})


def test_top_k_threshold_and_full(ctx_engine: MemoryEngine) -> None:
    seed(ctx_engine)
    two = ctx_engine.memory_query(agent="supervisor", query="deploy", top_k=2)
    assert len(two.items) == 2
    every = ctx_engine.memory_query(agent="supervisor", query="deploy rollout", threshold=0.0)
    scores = [i.score for i in every.items]
    assert len(scores) >= 2 and all(0.0 < s <= 1.0 for s in scores)
    # the threshold is absolute (scores are calibrated, not relative to the best hit)
    assert scores[0] > scores[1] + 1e-3
    cut = (scores[0] + scores[1]) / 2
    strict = ctx_engine.memory_query(agent="supervisor", query="deploy rollout", threshold=cut)
    assert len(strict.items) == sum(1 for s in scores if s >= cut) >= 1
    assert all(i.score >= cut for i in strict.items)
    assert strict.omitted["threshold"] == len(scores) - len(strict.items)
    full = ctx_engine.memory_query(
        MemoryQuery.model_validate({"agent": "supervisor", "query": "deploy", "return": "full"})
    )
    item = full.to_json()["results"][0]
    assert {"content", "importance", "source", "score", "updated_at"} <= set(item)


def test_each_call_is_an_operational_event(ctx_engine: MemoryEngine) -> None:
    seed(ctx_engine)
    for _ in range(3):
        ctx_engine.memory_query(agent="supervisor", query="rollout")
    ctx_engine.flush_context_events()
    counts = {(c.node, c.op, c.status): c.count for c in ctx_engine.store.event_counts("acme")}
    assert counts[("context", "query", "ok")] == 3
    for _ in range(40):  # a full batch is written without an explicit flush
        ctx_engine.memory_query(agent="supervisor", query="rollout")
    counts = {(c.node, c.op, c.status): c.count for c in ctx_engine.store.event_counts("acme")}
    assert counts[("context", "query", "ok")] >= 3 + 32


def test_events_are_flushed_on_close(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "h")
    put(engine, "Deploy plan", "Decision", category="DECISION")
    engine.memory_query(agent="supervisor", query="deploy")
    engine.close()
    with open_engine(tmp_path / "h") as again:
        counts = {(c.op, c.status): c.count for c in again.store.event_counts("acme")}
    assert counts == {("query", "ok"): 1}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(budget=st.integers(min_value=1, max_value=400), mode=st.sampled_from(["bullets", "full"]))
def test_budget_is_never_exceeded(ctx_engine: MemoryEngine, budget: int, mode: str) -> None:
    if not ctx_engine.list_memories(limit=1):
        for i in range(12):
            put(ctx_engine, f"deploy note {i} " + "detail " * (i * 5), "Fact")
    result = ctx_engine.memory_query(
        {"agent": "a", "query": "deploy", "top_k": 12, "return": mode, "budget_tokens": budget}
    )
    payload = [json.dumps(r, ensure_ascii=False) for r in result.to_json()["results"]]
    assert result.tokens <= budget
    assert sum(-(-len(p) // 4) for p in payload) == result.tokens
    assert len(result.items) + result.omitted["budget"] + result.omitted["threshold"] <= 12
