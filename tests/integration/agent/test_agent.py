"""The reference agent: memory changes answers, never paths (INV 3, 6–9; spec 001 smoke tests)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault.agent import (
    MEMORY_NODES,
    TASK_NODES,
    AgentRuntime,
    Envelope,
    MemoryReadNode,
    MemoryWriteNode,
    OfflineResponder,
    TurnResult,
    build_graph,
    controller_factory,
    node_functions,
    parse_script,
)
from memvault.agent import graph as graph_module
from memvault.controller import (
    DisabledMemoryController,
    InMemoryController,
    MemoryController,
    MemoryReadRequest,
    MemoryReadResponse,
    MemoryWriteRequest,
    MemoryWriteResponse,
)
from memvault.embed import HashingEmbedder

SCRIPT = [
    '{"channel": "cli", "orchestrator": "acme", "user": "dana", '
    '"text": "I prefer green tea over coffee"}',
    '{"channel": "http", "orchestrator": "acme", "user": "dana", '
    '"text": "Which tea should I order for Dana?"}',
    '{"workflow_output": {"decisions": ["use PostgreSQL for storage"], '
    '"todos": ["write the storage migration"]}, "run_id": "run-7", "step_id": "plan"}',
    '{"workflow_output": {"todos": ["review the storage migration"]}, '
    '"run_id": "run-7", "step_id": "review"}',
    '{"diagnostics": "{\\"component\\": \\"api\\", \\"severity\\": \\"high\\", '
    '\\"title\\": \\"search latency above 2 s after deploy 41\\", '
    '\\"evidence\\": [\\"GET /search p95=2.4s\\", \\"GET /items p95=2.1s\\"]}"}',
    '{"diagnostics": "why is search latency high?"}',
    '{"channel": "cli", "orchestrator": "beta", "user": "dana", '
    '"text": "Which tea does Dana prefer?"}',
    '{"channel": "incognito", "orchestrator": "acme", "user": "dana", "text": "hello"}',
]


def run(mode: str, home: Path) -> list[TurnResult]:
    factory, cleanup = controller_factory(mode, home, embedder=HashingEmbedder())  # type: ignore[arg-type]
    runtime = AgentRuntime(factory)
    try:
        return runtime.run(parse_script(SCRIPT))
    finally:
        runtime.close()
        cleanup()


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[TurnResult]]:
    return {m: run(m, tmp_path_factory.mktemp(m)) for m in ("on", "off", "broken")}


def test_control_flow_is_identical_with_memory_on_off_and_broken(
    traces: dict[str, list[TurnResult]],
) -> None:
    paths = {m: [(t.nodes, t.routes) for t in turns] for m, turns in traces.items()}
    assert paths["on"] == paths["off"] == paths["broken"]
    assert [t.response for t in traces["on"]] != [t.response for t in traces["off"]]
    assert [t.trace()["response"] for t in traces["off"]] == [
        t.trace()["response"] for t in traces["broken"]
    ]


def test_broken_memory_completes_with_memory_unavailable(
    traces: dict[str, list[TurnResult]],
) -> None:
    for turn in traces["broken"] + traces["off"]:
        assert turn.memory_available is False
        assert turn.nodes[-1] == "format_response_node" and turn.response
    assert all(t.memory_available for t in traces["on"][:-1])  # the last one is incognito


def test_message_a_is_recalled_by_message_b_on_another_channel(
    traces: dict[str, list[TurnResult]],
) -> None:
    a, b = traces["on"][0], traces["on"][1]
    assert (a.envelope.channel, b.envelope.channel) == ("cli", "http")
    assert a.memory_write_status == "ok"
    assert "Dana prefers green tea" in b.response
    assert "Dana prefers green tea" not in traces["off"][1].response


def test_workflow_output_decisions_and_todos_reach_the_next_step(
    traces: dict[str, list[TurnResult]],
) -> None:
    step2 = traces["on"][3]
    assert "Decision: use PostgreSQL for storage." in step2.context
    assert "Open todo: write the storage migration." in step2.context
    assert "storage migration" in step2.response


def test_diagnostics_request_gets_bounded_evidence_with_provenance(
    traces: dict[str, list[TurnResult]],
) -> None:
    request = traces["on"][5]
    assert request.routes == ("plan:memory_read_node", "store:format_response_node")
    evidence = request.context.split("Evidence for this request:\n", 1)[1]
    assert "GET /search p95=2.4s" in evidence and "(source: diagnostics)" in evidence
    assert len(evidence.splitlines()) <= 5
    assert "search latency above 2 s" in request.response


def test_recall_across_orchestrators_is_denied(
    traces: dict[str, list[TurnResult]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    beta = traces["on"][6]
    assert beta.envelope.orchestrator == "beta" and "green tea" not in beta.response
    factory, _ = controller_factory("on", tmp_path, embedder=HashingEmbedder())
    acme = factory("acme")
    with caplog.at_level(logging.WARNING, "memvault.controller"):
        response = acme.read(
            MemoryReadRequest(
                authorized=True, reason="r", orchestrator="beta", agent="assistant", query="tea"
            )
        )
    assert response.status.value == "unauthorized"
    assert "cross-orchestrator read denied" in caplog.text
    acme.close()  # type: ignore[attr-defined]


# -- task nodes are memory-blind -------------------------------------------------------


class Spy:
    """Instrumentation: which node was running when the controller was called."""

    def __init__(self, inner: MemoryController) -> None:
        self.orchestrator = inner.orchestrator
        self.inner = inner
        self.current = ""
        self.callers: list[str] = []

    def read(self, request: MemoryReadRequest) -> MemoryReadResponse:
        self.callers.append(self.current)
        return self.inner.read(request)

    def write(self, request: MemoryWriteRequest) -> MemoryWriteResponse:
        self.callers.append(self.current)
        return self.inner.write(request)


def _instrumented(spy: Spy) -> dict[str, Callable[[Any], dict[str, Any]]]:
    def tracked(name: str, fn: Callable[[Any], dict[str, Any]]) -> Callable[[Any], Any]:
        def node(state: Any) -> dict[str, Any]:
            spy.current = name
            try:
                return fn(state)
            finally:
                spy.current = ""

        return node

    return {n: tracked(n, f) for n, f in node_functions(spy, OfflineResponder()).items()}


def test_only_memory_nodes_call_the_controller() -> None:
    spy = Spy(InMemoryController("acme"))
    graph = build_graph(_instrumented(spy))
    for text in ("I prefer green tea", "which tea?"):
        graph.invoke(
            {
                "orchestrator": "acme",
                "channel": "cli",
                "user": "dana",
                "kind": "message",
                "text": text,
                "phase": "plan",
                "routes": [],
            }
        )
    assert spy.callers == ["memory_read_node", "memory_write_node"] * 2


def _reachable(obj: object, depth: int = 4) -> Iterator[object]:
    yield obj
    if depth == 0:
        return
    children: list[object] = []
    if inspect.isfunction(obj):
        children += [c.cell_contents for c in obj.__closure__ or ()]
        children += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
    elif inspect.ismethod(obj):
        children.append(obj.__self__)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        children += list(vars(obj).values())
    for child in children:
        yield from _reachable(child, depth - 1)


def test_task_nodes_hold_no_reference_to_the_controller() -> None:
    controller = InMemoryController("acme")
    nodes = node_functions(controller, OfflineResponder())
    for name in (*TASK_NODES, "decision_logic_node", "format_response_node"):
        reachable = list(_reachable(nodes[name]))
        assert not any(isinstance(o, MemoryController) for o in reachable), name
        assert controller not in reachable, name
    assert isinstance(nodes["memory_read_node"], MemoryReadNode)
    assert isinstance(nodes["memory_write_node"], MemoryWriteNode)
    assert set(MEMORY_NODES) == {"memory_read_node", "memory_write_node"}


def test_task_node_code_never_names_the_controller() -> None:
    for fn in (
        graph_module.preprocessing_node,
        graph_module.result_handling_node,
        graph_module.format_response_node,
        graph_module.ModelCallNode,
    ):
        source = inspect.getsource(fn)
        assert "controller" not in source.lower() and ".read(" not in source, fn


def test_failed_read_follows_rule_7() -> None:
    graph = build_graph(
        node_functions(InMemoryController("acme", fail="failed"), OfflineResponder())
    )
    out = graph.invoke(
        {
            "orchestrator": "acme",
            "channel": "cli",
            "user": "dana",
            "kind": "message",
            "text": "hi",
            "phase": "plan",
            "routes": [],
        }
    )
    assert out["memory_read_result"] is None
    assert out["memory_read_authorized"] is False and out["memory_available"] is False
    assert out["memory_write_status"] == "failed"
    assert out["routes"] == ["plan:memory_read_node", "store:memory_write_node"]


def test_disabled_and_in_memory_controllers_take_the_same_path() -> None:
    envelopes = [
        Envelope("cli", "acme", "dana", "I prefer green tea"),
        Envelope("http", "acme", "dana", "which tea?"),
    ]
    on = AgentRuntime(InMemoryController).run(envelopes)
    off = AgentRuntime(DisabledMemoryController).run(envelopes)
    assert [(t.nodes, t.routes) for t in on] == [(t.nodes, t.routes) for t in off]
    assert "green tea" in on[1].response and "green tea" not in off[1].response


@pytest.mark.parametrize("mode", ["on", "memory"])
def test_one_users_turn_never_gets_another_users_memory(mode: str, tmp_path: Path) -> None:
    """Bob's stated preference is recalled on Bob's turn, never on Alice's (store/scope.py)."""
    script = [
        '{"channel": "cli", "orchestrator": "acme", "user": "bob", '
        '"text": "I prefer oolong tea with the kettle at ninety degrees"}',
        '{"channel": "cli", "orchestrator": "acme", "user": "alice", '
        '"text": "Which oolong tea and kettle setting should I use?"}',
        '{"channel": "http", "orchestrator": "acme", "user": "bob", '
        '"text": "Which oolong tea and kettle setting should I use?"}',
    ]
    if mode == "memory":
        controllers: dict[str, InMemoryController] = {}

        def factory(orch: str) -> MemoryController:
            return controllers.setdefault(orch, InMemoryController(orch))

        runtime = AgentRuntime(factory)
        cleanup: Callable[[], None] = lambda: None  # noqa: E731
    else:
        made, cleanup = controller_factory("on", tmp_path, embedder=HashingEmbedder())
        runtime = AgentRuntime(made)
    try:
        bob_says, alice_asks, bob_asks = runtime.run(parse_script(script))
    finally:
        runtime.close()
        cleanup()
    assert bob_says.memory_write_status == "ok"
    assert "ninety" in bob_asks.context
    assert "ninety" not in alice_asks.context and "ninety" not in alice_asks.response
