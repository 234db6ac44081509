"""Every setting changes behaviour through each entry point it applies to.

``tests/e2e/test_config_effect.py`` covers ``policy.contract``,
``memory.retrieval.preset``, ``embedder.*``, ``memory.enabled`` and
``policy.parallel_gate``; this file covers the rest of the keys of
docs/configuration.md — ``memory.retrieval.top_n``/``rrf_k``,
``memory.ingest.*``, ``policy.allowlists``, ``policy.categories.<C>.context``/
``rag_length``, ``server.*``, ``store.*`` over ``serve`` and ``mcp`` — and the
precedence file < environment < flag, each through the CLI, ``serve`` (a real
HTTP server), ``mcp`` (stdio, a subprocess) and the agent where the key applies.
Every case writes a ``memvault.toml`` into a fresh home and seeds it through
the library; the entry point under test then reads the file itself.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
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
from memvault.engine import MemoryEngine, NewMemory
from tests.helpers import wait_healthy
from tests.integration.api.conftest import serve_in_thread

HASHING = '[embedder]\nname = "hashing"\n'
PREF = {"type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"}
GOAL = {"type": "Goal", "category": "GOAL", "source_kind": "USER_EXPLICIT"}
CONFIG = {"type": "Fact", "category": "PROJECT_CONFIG", "source_kind": "USER_EXPLICIT"}
GOALS = (
    "Ship the billing export before the audit",
    "Finish the deploy checklist for the Lisbon cluster",
    "Plan the Porto offsite for the platform team",
)
CONFIGS = tuple(f"Service {name} deploys from the release branch" for name in "ABCD")


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("MEMVAULT"):
            monkeypatch.delenv(name)


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMVAULT")}
    return {**env, "COLUMNS": "200", **extra}


def _home(tmp_path: Path, toml: str, *, seed: bool = True) -> Path:
    """A fresh home with ``memvault.toml``; seeded (as dana) through the library."""
    home = tmp_path / f"h{len(list(tmp_path.iterdir()))}"
    home.mkdir()
    (home / "memvault.toml").write_text(HASHING + toml, encoding="utf-8")
    if seed:
        memories = [
            NewMemory(content="Dana prefers green tea in the afternoon", **PREF, user_id="dana"),
            *(NewMemory(content=text, **GOAL, user_id="dana") for text in GOALS),
            *(NewMemory(content=text, **CONFIG) for text in CONFIGS),
        ]
        with MemoryEngine.open(home, "acme", config=load_config(home)) as engine:
            assert all(engine.add(memory).ok for memory in memories)
    return home


def _cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--home", str(home), "--orchestrator", "acme", *args])


def _cli_json(home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = _cli(home, *args, "--json")
    try:
        data: dict[str, Any] = json.loads(result.stdout)
    except json.JSONDecodeError:
        data = {"output": result.output}
    return result.exit_code, data


# -- the CLI -------------------------------------------------------------------------


TOP_N = [("", {4, 5}), ("[memory.retrieval]\ntop_n = 2\n", {2})]


@pytest.mark.parametrize(("toml", "counts"), TOP_N)
def test_cli_search_keeps_top_n(tmp_path: Path, toml: str, counts: set[int]) -> None:
    """``memory.retrieval.top_n``: results kept after fusion, whatever ``--top-k`` asks."""
    code, found = _cli_json(_home(tmp_path, toml), "search", "deploys release branch")
    assert code == 0 and len(found["results"]) in counts, found


def test_cli_search_scores_follow_rrf_k(tmp_path: Path) -> None:
    """``memory.retrieval.rrf_k``: the rank-fusion constant changes the fused scores."""
    scores = []
    for k in (1, 1000):
        home = _home(tmp_path, f'[memory.retrieval]\npreset = "rrf"\nrrf_k = {k}\n')
        code, found = _cli_json(home, "search", "deploys release branch")
        assert code == 0 and found["results"], found
        scores.append(found["results"][-1]["score"] / found["results"][0]["score"])
    # The last hit relative to the first: 1/(1+r) falls fast, 1/(1000+r) much less.
    assert scores[0] * 2 < scores[1], scores


def _drop(home: Path, name: str, text: str) -> Path:
    inbox = home / "acme" / "memory" / "ingest"
    inbox.mkdir(parents=True, exist_ok=True)
    path = inbox / name
    path.write_text(text, encoding="utf-8")
    return path


NOTES = "The billing service deploys from the release branch every Tuesday.\n" * 40


@pytest.mark.parametrize(
    ("toml", "code", "status"),
    [
        ("", 0, "processed"),
        ("[memory.ingest]\nenabled = false\n", 2, None),
        ("[memory.ingest]\nmax_file_size_mb = 0.001\n", 0, "rejected"),
    ],
)
def test_cli_ingest_follows_memory_ingest(
    tmp_path: Path, toml: str, code: int, status: str | None
) -> None:
    """``memory.ingest.enabled`` stops the pass (the file stays); ``max_file_size_mb``
    rejects a 2.7 KB file at 1 KB."""
    home = _home(tmp_path, toml, seed=False)
    assert _cli(home, "init").exit_code == 0
    dropped = _drop(home, "notes.txt", NOTES)
    exit_code, report = _cli_json(home, "ingest")
    assert exit_code == code, report
    if status is None:
        assert dropped.exists() and "ingestion is disabled" in report["output"]
    else:
        assert [k for k in ("processed", "rejected") if report[k]] == [status], report


def _query(home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    ask = "green tea billing deploy offsite plan"
    return _cli_json(home, "query", ask, "--user", "dana", "--top-k", "10", *args)


ALLOW = '[policy.allowlists]\nplanner = ["goals"]\n'


def test_cli_query_applies_policy_allowlists_and_the_flag_replaces_them(tmp_path: Path) -> None:
    """``policy.allowlists``: the named agent is held to its categories, others are not;
    ``query --allowlist FILE`` (a flag) wins over the file."""
    home = _home(tmp_path, ALLOW)
    code, refused = _query(home, "--agent", "planner", "--category", "PREFERENCE")
    assert code == 1 and refused["stop_reason"] == "FORBIDDEN_CATEGORY", refused
    code, goals = _query(home, "--agent", "planner")
    assert code == 0 and {r["category"] for r in goals["results"]} == {"GOAL"}, goals
    code, other = _query(home, "--agent", "stylist", "--category", "PREFERENCE")
    assert code == 0 and [r["category"] for r in other["results"]] == ["PREFERENCE"], other
    flag = tmp_path / "allow.json"
    flag.write_text(json.dumps({"allowlists": {"planner": ["preferences"]}}), encoding="utf-8")
    code, flagged = _query(home, "--agent", "planner", "--allowlist", str(flag))
    assert code == 0 and {r["category"] for r in flagged["results"]} == {"PREFERENCE"}, flagged


MODES = (
    ("", {"GOAL": 3}),
    ('[policy.categories.GOAL]\ncontext = "rag"\nrag_length = 1\n', {"GOAL": 1}),
    ('[policy.categories.PREFERENCE]\ncontext = "all"\n', {"GOAL": 3, "PREFERENCE": 1}),
)


def _by_category(results: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    return counts


@pytest.mark.parametrize(("toml", "expected"), MODES)
def test_cli_query_follows_category_modes(
    tmp_path: Path, toml: str, expected: dict[str, int]
) -> None:
    """``policy.categories.<C>``: ``rag_length`` caps a category, ``context = "all"``
    hands every memory of it over though recall does not find it."""
    home = _home(tmp_path, toml)
    code, found = _cli_json(
        home, "query", "billing deploy offsite plan", "--user", "dana", "--top-k", "10",
        "--category", "GOAL", "--category", "PREFERENCE",
    )  # fmt: skip
    assert code == 0 and _by_category(found["results"]) == expected, found


def test_a_misspelt_category_fails_instead_of_doing_nothing(tmp_path: Path) -> None:
    home = _home(tmp_path, '[policy.allowlists]\nplanner = ["PREFERNCE"]\n', seed=False)
    result = _cli(home, "config", "validate")
    assert result.exit_code == 2 and "unknown category 'PREFERNCE'" in result.output


# -- serve (a real HTTP server in this process) ----------------------------------------


class _Serve:
    """``memvault serve``'s app over ``home``'s configuration, on a real socket."""

    def __init__(self, home: Path) -> None:
        self.control = AccessControl(home, load_config(home))
        self.server, self.thread, self.sock, self.url = serve_in_thread(create_app(self.control))

    def client(self, agent: str) -> httpx.Client:
        key, _ = self.control.keys.create("acme", agent)
        auth = {"Authorization": f"Bearer {key}"}
        return httpx.Client(base_url=self.url, headers=auth, timeout=60)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()
        self.control.close()


@pytest.fixture
def serve() -> Iterator[Any]:
    opened: list[_Serve] = []

    def start(home: Path) -> _Serve:
        opened.append(_Serve(home))
        return opened[-1]

    yield start
    for s in opened:
        s.close()


def _http_query(client: httpx.Client, **body: Any) -> httpx.Response:
    return client.post("/v1/query", json={"query": "billing deploy offsite plan",
                                          "user_id": "dana", "top_k": 10, **body})  # fmt: skip


def test_serve_follows_top_n_allowlists_and_category_modes(tmp_path: Path, serve: Any) -> None:
    toml = ALLOW + "[memory.retrieval]\ntop_n = 2\n" + MODES[1][0]
    s = serve(_home(tmp_path, toml))
    with s.client("planner") as planner, s.client("stylist") as stylist:
        found = stylist.post("/v1/search", json={"query": "deploys release branch", "top_k": 10})
        assert found.status_code == 200 and len(found.json()["results"]) == 2, found.text
        refused = _http_query(planner, categories=["PREFERENCE"])
        assert refused.status_code == 403, refused.text
        goals = _http_query(planner)
        assert _by_category(goals.json()["results"]) == {"GOAL": 1}, goals.text  # rag_length 1
        prefs = _http_query(stylist, categories=["PREFERENCE"], query="green tea")
        assert _by_category(prefs.json()["results"]) == {"PREFERENCE": 1}, prefs.text


@pytest.mark.parametrize(
    ("toml", "status", "outcome"),
    [
        ("", 200, "processed"),
        ("[memory.ingest]\nenabled = false\n", 422, None),
        ("[memory.ingest]\nmax_file_size_mb = 0.001\n", 200, "rejected"),
    ],
)
def test_serve_ingest_follows_memory_ingest(
    tmp_path: Path, serve: Any, toml: str, status: int, outcome: str | None
) -> None:
    home = _home(tmp_path, toml, seed=False)
    s = serve(home)
    with s.client("ingester") as client:
        assert client.get("/v1/whoami").status_code == 200
        _drop(home, "notes.txt", NOTES)
        ran = client.post("/v1/ingest")
    assert ran.status_code == status, ran.text
    if outcome is not None:
        assert [k for k in ("processed", "rejected") if ran.json()[k]] == [outcome], ran.text
    else:
        assert "memory.ingest.enabled" in ran.text


# -- serve: server.* through `memvault serve` (a subprocess), and the precedence ----------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve_process(home: Path, env: dict[str, str], *flags: str) -> tuple[str, Any]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memvault", "--home", str(home), "serve", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_clean_env(**env),
    )
    assert proc.stdout is not None
    banner = ""
    while "Inspector" not in banner or ("create a key" not in banner and "mvk_" not in banner):
        line = proc.stdout.readline()
        if not line:
            stderr = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"serve exited: {stderr}")
        banner += line
    return banner, proc


def _stop(proc: Any) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def test_serve_settings_and_precedence_file_env_flag(tmp_path: Path) -> None:
    """``server.port`` from the file < ``MEMVAULT__SERVER__PORT`` < ``--port``;
    ``server.dev_key = "off"`` prints no key; ``server.mcp = false`` mounts no /mcp;
    ``server.max_body_bytes`` answers 413 above it; ``server.host`` is the bind."""
    file_port, env_port, flag_port = _free_port(), _free_port(), _free_port()
    toml = (
        f'[server]\nhost = "127.0.0.1"\nport = {file_port}\ndev_key = "off"\nmcp = false\n'
        "max_body_bytes = 2048\n"
    )
    home = _home(tmp_path, toml, seed=False)
    key = json.loads(_cli(home, "keys", "create", "--agent", "w", "--json").stdout)["key"]
    banner, proc = _serve_process(home, {"MEMVAULT__SERVER__PORT": str(env_port)})
    try:
        url = f"http://127.0.0.1:{env_port}"
        assert url in banner and "mvk_" not in banner and "MCP:" not in banner, banner
        auth = {"Authorization": f"Bearer {key}"}
        wait_healthy(url)
        assert httpx.post(f"{url}/mcp", headers=auth, json={}).status_code == 404
        big = {"query": "x" * 4000}
        assert httpx.post(f"{url}/v1/search", headers=auth, json=big).status_code == 413
        small = httpx.post(f"{url}/v1/search", headers=auth, json={"query": "tea"})
        assert small.status_code == 200, small.text
    finally:
        _stop(proc)
    banner, proc = _serve_process(
        home, {"MEMVAULT__SERVER__PORT": str(env_port)}, "--port", str(flag_port)
    )
    try:
        assert f"http://127.0.0.1:{flag_port}" in banner, banner
    finally:
        _stop(proc)
    banner, proc = _serve_process(home, {})
    try:
        assert f"http://127.0.0.1:{file_port}" in banner, banner
    finally:
        _stop(proc)


# -- mcp (stdio, a subprocess) ----------------------------------------------------------


async def _mcp_calls(home: Path, agent: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memvault", "--home", str(home), "--orchestrator", "acme", "mcp",
              "--agent", agent],
        env=_clean_env(),
    )  # fmt: skip
    out: list[Any] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            out.append((bool(result.is_error), text))
    return out


def test_mcp_follows_allowlists_and_category_modes(tmp_path: Path) -> None:
    home = _home(tmp_path, ALLOW + MODES[1][0])
    ask = {"query": "billing deploy offsite plan", "user_id": "dana", "top_k": 10}
    (refused, why), (failed, goals) = anyio.run(
        _mcp_calls,
        home,
        "planner",
        [("memory_query", {**ask, "categories": ["PREFERENCE"]}), ("memory_query", ask)],
    )
    assert refused and "PREFERENCE" in why, why
    assert not failed and _by_category(json.loads(goals)["results"]) == {"GOAL": 1}, goals


# -- store.* through serve and mcp (PostgreSQL) -----------------------------------------


def test_serve_and_mcp_open_the_configured_postgres_store(tmp_path: Path, serve: Any) -> None:
    """``[store] backend = "postgres"`` with its DSN in the file: ``serve`` and ``mcp``
    write to the server (the row is in PostgreSQL) and make no SQLite file."""
    psycopg = pytest.importorskip("psycopg")
    from tests.integration.store.postgres import server as pg

    server = pg.shared_server()
    server.claim_schema("memvault")
    toml = f'[store]\nbackend = "postgres"\n[store.postgres]\ndsn = "{server.dsn}"\n'
    home = _home(tmp_path, toml, seed=False)
    orch = f"set-{secrets.token_hex(4)}"
    (home / "memvault.toml").write_text(HASHING + toml, encoding="utf-8")
    s = serve(home)
    key, _ = s.control.keys.create(orch, "writer")
    body = {"content": "Dana prefers oolong tea", **PREF}
    added = httpx.post(f"{s.url}/v1/memories", json=body,
                       headers={"Authorization": f"Bearer {key}"}, timeout=60)  # fmt: skip
    assert added.status_code == 201, added.text
    assert httpx.get(f"{s.url}/v1/health").json()["store_backend"] == "postgres"
    ids = [added.json()["memory_id"]]
    home_for_mcp = home

    async def store_over_mcp() -> str:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memvault", "--home", str(home_for_mcp), "--orchestrator", orch, "mcp"],
            env=_clean_env(),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(
                "memory_store", {"content": "Dana prefers rooibos", **PREF}
            )
            return " ".join(getattr(c, "text", "") for c in result.content)

    text = anyio.run(store_over_mcp)
    found = re.search(r"mem_[0-9a-f]+", text)
    assert found is not None, text
    ids.append(found.group(0))
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT memory_id FROM memvault.memories WHERE orchestrator_id = %s", [orch]
        ).fetchall()
    assert sorted(r[0] for r in rows) == sorted(ids)
    assert not list(home.rglob("memory.db"))


# -- the agent -------------------------------------------------------------------------


def _agent_reads(home: Path) -> list[str]:
    """Categories of what the agent read for dana's turn (controller built from the file)."""
    from memvault.agent import AgentRuntime, controller_factory, parse_script

    factory, cleanup = controller_factory("on", home, config=load_config(home))
    runtime = AgentRuntime(factory)
    try:
        line = {"channel": "cli", "orchestrator": "acme", "user": "dana",
                "text": "What should I plan for the billing deploy and the offsite?"}  # fmt: skip
        (turn,) = runtime.run(parse_script([json.dumps(line)]))
    finally:
        runtime.close()
        cleanup()
    with MemoryEngine.open(home, "acme", embedder=None) as engine:
        nodes = engine.store.get_nodes("acme", list(turn.memory_ids))
    return sorted(n.category for n in nodes)


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("", {"GOAL", "PREFERENCE", "PROJECT_CONFIG"}),
        ('[policy.allowlists]\nassistant = ["goals"]\n', {"GOAL"}),
    ],
)
def test_agent_reads_follow_policy_allowlists(
    tmp_path: Path, toml: str, expected: set[str]
) -> None:
    assert set(_agent_reads(_home(tmp_path, toml))) == expected


def test_agent_reads_follow_category_modes(tmp_path: Path) -> None:
    """``rag_length`` caps what the agent (a listed agent: memory.query) reads."""
    allow = '[policy.allowlists]\nassistant = ["goals"]\n'
    assert _agent_reads(_home(tmp_path, allow)).count("GOAL") == 3
    assert _agent_reads(_home(tmp_path, allow + MODES[1][0])) == ["GOAL"]


def test_cli_add_takes_the_contracts_default_ttl_class(tmp_path: Path) -> None:
    """Without ``--ttl-class`` a TODO gets the contract's default (MEDIUM), as over HTTP
    and MCP: the rule lives in ``engine.new_memory``, not in each edge."""
    home = _home(tmp_path, "", seed=False)
    todo = ["--type", "Todo", "--category", "TODO", "--source-kind", "USER_EXPLICIT"]
    code, added = _cli_json(home, "add", "Write the release notes", *todo)
    assert code == 0 and added["stop_reason"] == "SUCCESS_STORED", added
    code, shown = _cli_json(home, "get", added["memory_id"])
    assert "'ttl_class': 'MEDIUM'" in str(shown), shown
    code, refused = _cli_json(home, "add", "Write the notes", *todo, "--ttl-class", "LONG")
    assert code == 1 and refused["stop_reason"] == "TTL_NOT_ALLOWED", refused


# -- the LangGraph adapter and memory.enabled over mcp ---------------------------------


@pytest.mark.parametrize(
    ("toml", "refused"), [("", False), ('[policy]\ncontract = "19.0.0"\n', True)]
)
def test_langgraph_store_follows_the_config_it_is_given(
    tmp_path: Path, toml: str, refused: bool
) -> None:
    """``MemvaultStore(config=load_config(home))``: the adapter's engine takes its gate
    (``policy.contract``: KNOWLEDGE, its default category, is not in 19.0.0) and its
    embedder (``embedder.name = "hashing"``) from the configuration."""
    pytest.importorskip("langgraph")
    from memvault.errors import WriteRefusedError
    from memvault.integrations.langgraph_store import MemvaultStore

    home = _home(tmp_path, toml, seed=False)
    store = MemvaultStore(home, orchestrator="acme", config=load_config(home))
    try:
        fact = {"content": "The deploy pipeline runs on Fridays"}
        if refused:
            with pytest.raises(WriteRefusedError) as caught:
                store.put(("team",), "deploys", fact)
            assert caught.value.stop_reason.value == "FORBIDDEN_CATEGORY"
        else:
            store.put(("team",), "deploys", fact)
            assert [i.key for i in store.search(("team",), query="deploy pipeline")] == ["deploys"]
    finally:
        store.close()
    with MemoryEngine.open(home, "acme", config=load_config(home)) as engine:
        assert type(engine.embedder).__name__ == "HashingEmbedder"


def test_mcp_refuses_to_start_when_memory_is_disabled(tmp_path: Path) -> None:
    """``memory.enabled = false``: ``memvault mcp`` exits 4 before the handshake."""
    home = _home(tmp_path, "[memory]\nenabled = false\n", seed=False)
    result = _cli(home, "mcp")
    assert result.exit_code == 4 and "memory.enabled = false" in result.output, result.output
