"""Tiers and the ContextAssembler: isolation, eviction, budgets, task lifecycle."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault.context import ContextAssembler, ContextRequest, TaskRef
from memvault.context.tiers import ContextItem, select_within_budget
from memvault.engine import ALL_USERS, MemoryEngine
from memvault.errors import ValidationFailed
from memvault.model import HistoryOp, MemoryStatus
from tests.integration.context.conftest import put


def test_projects_are_isolated_and_global_is_shared(ctx_engine: MemoryEngine) -> None:
    a = put(ctx_engine, "Alpha uses Postgres for billing", project_id="alpha")
    b = put(ctx_engine, "Beta uses Postgres for search", project_id="beta")
    g = put(ctx_engine, "Dana likes Postgres examples")
    assembler = ctx_engine.context_assembler()
    request = ContextRequest(query="postgres", budget_tokens=1000)
    alpha = {i.memory_id for i in assembler.build(TaskRef("t1", "alpha"), request).items}
    beta = {i.memory_id for i in assembler.build(TaskRef("t2", "beta"), request).items}
    assert alpha == {a, g} and beta == {b, g}
    none = {i.memory_id for i in assembler.build(TaskRef("t3"), request).items}
    assert none == {g}
    assert [i.memory_id for i in assembler.global_memory.items("postgres")] == [g]
    assert {i.memory_id for i in assembler.project("alpha").items()} == {a}


def test_project_and_global_tiers_are_held_to_the_user(ctx_engine: MemoryEngine) -> None:
    """A task's package holds its user's memories and shared ones, never another user's."""
    mine = put(ctx_engine, "Alpha deploys Postgres on Mondays", project_id="alpha", user_id="ada")
    theirs = put(ctx_engine, "Alpha deploys Postgres on Fridays", project_id="alpha", user_id="bo")
    shared = put(ctx_engine, "Postgres upgrades need a change ticket")
    bos = put(ctx_engine, "Bo keeps Postgres notes in a notebook", user_id="bo")
    assembler = ctx_engine.context_assembler()
    request = ContextRequest(query="postgres", budget_tokens=1000)
    task = TaskRef("t1", "alpha")
    ada = {i.memory_id for i in assembler.build(task, request, user="ada").items}
    assert ada == {mine, shared}
    assert {i.memory_id for i in assembler.build(task, request).items} == {shared}
    everyone = {i.memory_id for i in assembler.build(task, request, user=ALL_USERS).items}
    assert everyone == {mine, theirs, shared, bos}


def test_eviction_soft_deletes_lowest_importance_then_oldest(ctx_engine: MemoryEngine) -> None:
    assembler = ctx_engine.context_assembler(max_project_items=10)
    project = assembler.project("alpha")
    keep = put(ctx_engine, "pinned but unimportant", project_id="alpha", importance=0, pinned=True)
    ids = [
        put(ctx_engine, f"note {i}", project_id="alpha", importance=10 if i in (3, 7) else 50)
        for i in range(10)
    ]
    other = put(ctx_engine, "beta note", project_id="beta", importance=0)
    result = project.add("one more", type="Fact", category="KNOWLEDGE", source_kind="USER_EXPLICIT")
    assert result.ok
    deleted = [
        n.memory_id for n in ctx_engine.list_memories({"status": ["soft_deleted"]}, limit=100)
    ]
    # 12 active > 10: max(12 // 10, 12 - 10) = 2 evicted, lowest importance first (pinned spared)
    assert sorted(deleted) == sorted([ids[3], ids[7]])
    assert keep not in deleted and other not in deleted
    for memory_id in deleted:
        ops = [e.op for e in ctx_engine.history(memory_id)]
        if ops:  # put() writes no history; the eviction's delete does
            assert ops[-1] is HistoryOp.DELETE
        view = ctx_engine.get(memory_id, include_deleted=True)
        assert view.node.status is MemoryStatus.SOFT_DELETED and view.node.purge_at
    assert len(project.active()) == 10
    assert project.evict() == []  # back within max_items


def test_eviction_ties_go_oldest_first(ctx_engine: MemoryEngine) -> None:
    project = ctx_engine.context_assembler(max_project_items=3).project("p")
    ids = [put(ctx_engine, f"note {i}", project_id="p") for i in range(5)]
    assert project.evict() == ids[:2]


def test_task_memory_is_cleared_at_terminal_state_and_promotion_is_explicit(
    ctx_engine: MemoryEngine,
) -> None:
    assembler = ctx_engine.context_assembler()
    task = assembler.task("t1")
    keep = task.add("The flaky test is test_sync", importance=80)
    task.add("scratch note")
    package = assembler.build(TaskRef("t1", "alpha"), ContextRequest(budget_tokens=500))
    assert [i.tier for i in package.items] == ["task", "task"]
    with pytest.raises(ValidationFailed):
        assembler.end_task("t1", "running")
    results = assembler.end_task("t1", "completed", promote=[keep], project_id="alpha")
    assert [r.ok for r in results] == [True]
    assert len(assembler.task("t1")) == 0  # a fresh, empty task memory
    promoted = assembler.project("alpha").items("flaky")
    assert [i.text for i in promoted] == ["[Observation] The flaky test is test_sync"]
    after = assembler.build(TaskRef("t9", "beta"), ContextRequest(budget_tokens=500))
    assert after.items == ()  # nothing was promoted to global or to another project


def test_split_ranking_head_tail_and_package(ctx_engine: MemoryEngine) -> None:
    assembler = ctx_engine.context_assembler()
    task = assembler.task("t1")
    first = task.add("first step of the task " * 3, importance=0)
    for i in range(8):
        task.add(f"middle step {i} " * 3, importance=10)
    last = task.add("last step of the task " * 3, importance=0)
    for i in range(5):
        put(ctx_engine, f"project fact {i} " * 3, project_id="alpha", importance=90 - i)
    request = ContextRequest(budget_tokens=100, head_tail=1)
    package = assembler.build(TaskRef("t1", "alpha"), request)
    chosen = [i.item_id for i in package.items]
    assert first in chosen and last in chosen
    assert package.token_cost <= 100
    assert sum(package.by_tier.values()) == package.token_cost
    assert 0 < package.compression_ratio < 1
    data = package.to_json()
    assert data["package_id"] == "ctx-t1" and data["token_cost"] == package.token_cost
    tiers = [i.tier for i in package.items]
    assert tiers == sorted(tiers, key=["task", "project", "global"].index)


def test_request_validation() -> None:
    with pytest.raises(ValueError):
        ContextRequest(split=(0.5, 0.5, 0.5))
    with pytest.raises(ValueError):
        ContextRequest(budget_tokens=0)
    with pytest.raises(ValueError):
        ContextRequest.model_validate({"budget": 5})


item = st.builds(
    lambda n, tier, cost, score: ContextItem(f"i{n}", tier, "x", 50, cost, f"{n:05d}", score=score),
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(["task", "project", "global"]),
    st.integers(min_value=0, max_value=300),
    st.floats(min_value=0, max_value=1),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(item, max_size=40, unique_by=lambda i: i.item_id),
    st.integers(min_value=1, max_value=2000),
    st.integers(min_value=0, max_value=3),
)
def test_budget_is_never_exceeded(items: list[ContextItem], budget: int, head_tail: int) -> None:
    pools: dict[str, list[ContextItem]] = {"task": [], "project": [], "global": []}
    for i in items:
        pools[i.tier].append(i)
    request = ContextRequest(budget_tokens=budget, head_tail=head_tail)
    picked = select_within_budget(pools, request)  # type: ignore[arg-type]
    assert sum(i.token_cost for i in picked) <= budget
    assert len({i.item_id for i in picked}) == len(picked)
    leftover = budget - sum(i.token_cost for i in picked)
    assert all(i.token_cost > leftover for i in items if i not in picked)  # nothing else fits
    assert picked == select_within_budget(pools, request)  # type: ignore[arg-type]


def test_assembler_works_on_an_engine_without_tasks(ctx_engine: MemoryEngine) -> None:
    assembler = ContextAssembler(ctx_engine)
    assert assembler.build(TaskRef("none"), ContextRequest()).items == ()
