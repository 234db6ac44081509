"""Procedures stay out of default context (spec §12): the context package and the
agent's memory read never include them; memory.query with PROCEDURE does."""

from __future__ import annotations

from pathlib import Path

from memvault.context import ContextRequest, TaskRef
from memvault.controller.base import MemoryReadRequest
from memvault.controller.engine_backed import EngineMemoryController
from memvault.engine import MemoryEngine
from tests.integration.context.conftest import put

STEPS = "Procedure for deploying: 1. Run the migrations. 2. Restart the workers."


def test_the_context_package_leaves_procedures_out(ctx_engine: MemoryEngine) -> None:
    fact = put(ctx_engine, "The workers are deployed with Nomad")
    steps = put(ctx_engine, STEPS, type="Procedure")
    package = ctx_engine.context_assembler().build(
        TaskRef("t1"), ContextRequest(query="deploying the workers", budget_tokens=1000)
    )
    ids = {i.memory_id for i in package.items}
    assert fact in ids and steps not in ids
    assert ctx_engine.get(steps).node.content == STEPS  # still stored, just not in context


def test_the_agents_memory_read_leaves_procedures_out(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        fact = put(engine, "The workers are deployed with Nomad")
        steps = put(engine, STEPS, type="Procedure")
    controller = EngineMemoryController.for_home(tmp_path, "acme")
    try:
        read = controller.read(
            MemoryReadRequest(
                authorized=True,
                reason="context_enrichment",
                orchestrator="acme",
                agent="assistant",
                query="deploying the workers",
            )
        )
    finally:
        controller.close()
    assert fact in read.memory_ids and steps not in read.memory_ids
    assert "Restart the workers" not in read.context
