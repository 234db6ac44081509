"""Settings take effect — through the CLI, ``serve`` (HTTP), ``mcp`` and the agent.

Each case writes a ``memvault.toml`` into a fresh home and checks behaviour,
not only that the file validates: ``policy.contract = "19.0.0"`` changes what
``add`` accepts (KNOWLEDGE is not a category of 19.0.0), ``memory.retrieval.preset``
which retrieval legs run, ``embedder.name`` whether a vector leg exists at all,
``memory.enabled`` whether memory is served. (``store.*`` through the CLI and the
agent: ``tests/integration/store/postgres/test_cli_postgres.py`` and
``tests/integration/agent/test_pg_checkpointer.py``.)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from typer.testing import CliRunner

from memvault.access import AccessControl
from memvault.api import create_app
from memvault.cli import app
from memvault.config import load_config
from memvault.engine import MemoryEngine
from tests.integration.api.conftest import serve_in_thread

KNOWLEDGE = {
    "content": "The deploy pipeline runs on Fridays",
    "type": "Fact",
    "category": "KNOWLEDGE",
    "source_kind": "USER_EXPLICIT",
}
HASHING = '[embedder]\nname = "hashing"\n'
OLD_CONTRACT = '[policy]\ncontract = "19.0.0"\n'


def _home(tmp_path: Path, name: str, toml: str) -> Path:
    home = tmp_path / name
    home.mkdir()
    (home / "memvault.toml").write_text(toml, encoding="utf-8")
    return home


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("MEMVAULT"):
            monkeypatch.delenv(name)


def _cli(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(app, ["--home", str(home), "--orchestrator", "acme", *args])
    return result


def _cli_add(home: Path, memory: dict[str, str]) -> dict[str, Any]:
    flags = ["--type", memory["type"], "--category", memory["category"]]
    flags += ["--source-kind", memory["source_kind"], "--json"]
    data: dict[str, Any] = json.loads(_cli(home, "add", memory["content"], *flags).stdout)
    return data


# -- CLI ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "stop_reason"),
    [(HASHING, "SUCCESS_STORED"), (HASHING + OLD_CONTRACT, "FORBIDDEN_CATEGORY")],
)
def test_cli_add_follows_policy_contract(tmp_path: Path, toml: str, stop_reason: str) -> None:
    home = _home(tmp_path, "h", toml)
    assert _cli_add(home, KNOWLEDGE)["stop_reason"] == stop_reason


@pytest.mark.parametrize(
    ("toml", "legs"),
    [
        (HASHING, ["text", "vector"]),
        (HASHING + '[memory.retrieval]\npreset = "text"\n', ["text"]),
        ('[embedder]\nname = "hashing"\ndimension = 16\n', ["text", "vector"]),
    ],
)
def test_cli_search_follows_retrieval_and_embedder(
    tmp_path: Path, toml: str, legs: list[str]
) -> None:
    home = _home(tmp_path, "h", toml)
    assert _cli_add(home, {**KNOWLEDGE, "category": "PROJECT_CONFIG"})["stop_reason"].startswith(
        "SUCCESS"
    )
    found = json.loads(_cli(home, "search", "deploy Fridays", "--json").stdout)
    assert found["legs"] == legs and found["results"]
    if "dimension = 16" in toml:
        engine = MemoryEngine.open(home, "acme", config=load_config(home))
        try:
            assert engine.embedder is not None and engine.embedder.dimension == 16
        finally:
            engine.close()


def _bulk(n: int) -> list[dict[str, str]]:
    return [
        {**KNOWLEDGE, "content": f"Service {i} deploys from the release branch"} for i in range(n)
    ]


@pytest.mark.parametrize(
    ("toml", "env", "started"),
    [
        (HASHING, {}, True),
        (HASHING + "[policy]\nparallel_gate = false\n", {}, False),
        (HASHING, {"MEMVAULT__POLICY__PARALLEL_GATE": "false"}, False),
        (
            HASHING + "[policy]\nparallel_gate = false\n",
            {"MEMVAULT__POLICY__PARALLEL_GATE": "1"},
            True,
        ),
    ],
)
def test_parallel_gate_decides_whether_a_second_process_starts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    toml: str,
    env: dict[str, str],
    started: bool,
) -> None:
    """``policy.parallel_gate`` (file < environment): a large ``add_many`` batch starts
    the gate's second process only when it is on; the decisions are the same."""
    from memvault.policy import parallel

    monkeypatch.setattr(parallel, "MIN_BATCH", 8)  # a "large" batch, cheaply
    home = _home(tmp_path, "h", toml)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = load_config(home)  # the entry point reads the settings once
    assert config.policy.parallel_gate is started
    parallel.shutdown()
    engine = MemoryEngine.open(home, "acme", config=config)
    try:
        results = engine.add_many(_bulk(10))
        assert [r.stop_reason.value for r in results] == ["SUCCESS_STORED"] * 10
        assert (parallel._WORKER is not None) is started
    finally:
        engine.close()
        parallel.shutdown()


def test_cli_parallel_gate_flag_wins_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``memvault ingest --no-parallel-gate`` over ``parallel_gate = true``: no second
    process for the file's batch; ``config show`` prints the setting."""
    from memvault.policy import parallel

    monkeypatch.setattr(parallel, "MIN_BATCH", 8)
    home = _home(tmp_path, "h", HASHING + "[policy]\nparallel_gate = true\n")
    shown = json.loads(_cli(home, "config", "show", "--json").stdout)
    assert shown["policy"]["parallel_gate"] is True
    monkeypatch.setenv("MEMVAULT__POLICY__PARALLEL_GATE", "false")
    shown = json.loads(_cli(home, "config", "show", "--json").stdout)
    assert shown["policy"]["parallel_gate"] is False
    monkeypatch.delenv("MEMVAULT__POLICY__PARALLEL_GATE")
    assert _cli(home, "init").exit_code == 0
    inbox = home / "acme" / "memory" / "ingest"
    sentences = " ".join(f"Service {i} deploys from the release branch." for i in range(12))
    parallel.shutdown()
    try:
        (inbox / "notes.txt").write_text(sentences, encoding="utf-8")
        ran = _cli(home, "ingest", "--no-parallel-gate", "--json")
        assert ran.exit_code == 0, ran.output
        assert json.loads(ran.stdout)["memories"] >= 8
        assert parallel._WORKER is None
        (inbox / "more.txt").write_text(sentences.replace("Service", "Queue"), encoding="utf-8")
        ran = _cli(home, "ingest", "--json")
        assert ran.exit_code == 0, ran.output
        assert parallel._WORKER is not None  # the file's setting (on) applies again
    finally:
        parallel.shutdown()


# -- serve (HTTP) ------------------------------------------------------------------


def _serve_add(home: Path) -> tuple[int, dict[str, Any], dict[str, Any]]:
    control = AccessControl(home, load_config(home))
    key, _ = control.keys.create("acme", "writer")
    server, thread, sock, url = serve_in_thread(create_app(control))
    try:
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30
        ) as client:
            added = client.post("/v1/memories", json=KNOWLEDGE)
            found = client.post("/v1/search", json={"query": "deploy"})
            body = found.json() if found.status_code == 200 else {"status": found.status_code}
            return added.status_code, added.json(), body
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
        control.close()


def test_serve_follows_policy_contract_and_retrieval(tmp_path: Path) -> None:
    status, body, _ = _serve_add(_home(tmp_path, "old", HASHING + OLD_CONTRACT))
    assert status == 403 and body["stop_reason"] == "FORBIDDEN_CATEGORY"  # docs/http-api.md
    text_only = HASHING + '[memory.retrieval]\npreset = "text"\n'
    status, body, found = _serve_add(_home(tmp_path, "new", text_only))
    assert status == 201 and body["stop_reason"] == "SUCCESS_STORED"
    assert found.get("legs") == ["text"], found


def test_serve_memory_disabled_is_unavailable(tmp_path: Path) -> None:
    status, body, _ = _serve_add(_home(tmp_path, "off", "[memory]\nenabled = false\n"))
    assert status == 503, body


# -- mcp (stdio) -------------------------------------------------------------------


async def _mcp_store(home: Path) -> tuple[bool, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMVAULT")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvault", "--home", str(home), "--orchestrator", "acme", "mcp"],
        env=env,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("memory_store", KNOWLEDGE)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        return bool(result.is_error), text


def test_mcp_follows_policy_contract(tmp_path: Path) -> None:
    refused, text = anyio.run(_mcp_store, _home(tmp_path, "old", HASHING + OLD_CONTRACT))
    assert refused and "FORBIDDEN_CATEGORY" in text
    refused, text = anyio.run(_mcp_store, _home(tmp_path, "new", HASHING))
    assert not refused and "SUCCESS_STORED" in text


# -- the agent ---------------------------------------------------------------------

SCRIPT = (
    '{"channel": "cli", "orchestrator": "acme", "user": "dana", '
    '"text": "I work at Globex as a data engineer."}\n'
    '{"channel": "cli", "orchestrator": "acme", "user": "dana", '
    '"text": "I prefer green tea over coffee"}\n'
)


def _agent(home: Path) -> list[str]:
    script = home / "script.jsonl"
    script.write_text(SCRIPT, encoding="utf-8")
    result = CliRunner().invoke(
        app, ["--home", str(home), "agent", "run", "--script", str(script), "--checkpoint", "none"]
    )
    assert result.exit_code == 0, result.output
    if not (home / "acme").exists():
        return []
    engine = MemoryEngine.open(home, "acme", embedder=None)
    try:
        return sorted(n.category for n in engine.list_memories())
    finally:
        engine.close()


def test_agent_follows_policy_contract_and_memory_enabled(tmp_path: Path) -> None:
    assert _agent(_home(tmp_path, "new", HASHING)) == ["KNOWLEDGE", "PREFERENCE"]
    # KNOWLEDGE is a 19.1.0 category: under 19.0.0 "I work at Globex…" is refused.
    assert _agent(_home(tmp_path, "old", HASHING + OLD_CONTRACT)) == ["PREFERENCE"]
    assert _agent(_home(tmp_path, "off", HASHING + "[memory]\nenabled = false\n")) == []
