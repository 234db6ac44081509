"""Typed config: precedence (defaults < toml < env < flags) and validation failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.config import MemvaultConfig, load_config
from memvault.errors import ConfigError


def _toml(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "memvault.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_match_the_spec() -> None:
    cfg = load_config(environ={})
    assert cfg.memory.enabled is True and cfg.memory.bulletin_mode == "every_message"
    assert (cfg.memory.retrieval.top_n, cfg.memory.retrieval.rrf_k) == (None, 60)
    assert cfg.memory.ingest.enabled is True and cfg.memory.ingest.max_file_size_mb == 25
    assert cfg.memory.scope.cross_orchestrator is False
    assert cfg.policy.contract == "19.1.0" and cfg.policy.allowlists == {}
    assert cfg.store.backend == "sqlite" and cfg.server.host == "127.0.0.1"
    assert MemvaultConfig().server.port == 8765


def test_precedence_defaults_toml_env_flags(tmp_path: Path) -> None:
    _toml(
        tmp_path,
        "[memory.retrieval]\ntop_n = 30\nrrf_k = 10\n[server]\nport = 9001\nhost = '0.0.0.0'\n",
    )
    env = {"MEMVAULT__MEMORY__RETRIEVAL__RRF_K": "20", "MEMVAULT__SERVER__PORT": "9002"}
    cfg = load_config(tmp_path, environ=env, overrides={"server": {"port": 9003}})
    assert cfg.memory.retrieval.top_n == 30  # toml over default
    assert cfg.memory.retrieval.rrf_k == 20  # env over toml
    assert cfg.server.port == 9003  # flag over env
    assert cfg.server.host == "0.0.0.0"  # toml, untouched by env and flags
    assert cfg.memory.ingest.max_file_size_mb == 25  # default


def test_explicit_config_file_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text("[policy]\ncontract = '19.0.0'\n", encoding="utf-8")
    assert load_config(tmp_path / "home", config_file=path, environ={}).policy.contract == "19.0.0"
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path, config_file=tmp_path / "nope.toml", environ={})


def test_postgres_keys_from_the_environment() -> None:
    env = {
        "MEMVAULT__STORE__BACKEND": "postgres",
        "MEMVAULT__STORE__POSTGRES__DSN": "postgresql://u:secret@db/memvault",
    }
    cfg = load_config(environ=env)
    assert cfg.store.backend == "postgres"
    assert cfg.store.postgres.dsn is not None
    assert cfg.store.postgres.dsn.get_secret_value().endswith("/memvault")
    assert "secret" not in json.dumps(cfg.public_dict())
    with pytest.raises(ConfigError, match=r"store.*needs store\.postgres\.dsn"):
        load_config(environ={"MEMVAULT__STORE__BACKEND": "postgres"})
    with pytest.raises(ConfigError, match=r"store\.backend"):
        load_config(environ={"MEMVAULT__STORE__BACKEND": "mysql"})


@pytest.mark.parametrize(
    ("toml", "path"),
    [
        ("[memory]\nenabeld = true\n", "memory.enabeld: unknown key"),
        ("[memory.retrieval]\ntop_n = 'many'\n", "memory.retrieval.top_n:"),
        ("[memory.retrieval]\nrrf_k = 0\n", "memory.retrieval.rrf_k:"),
        ("[memory]\nbulletin_mode = 'sometimes'\n", "memory.bulletin_mode:"),
        ("[memory.ingest]\nmax_file_size_mb = -1\n", "memory.ingest.max_file_size_mb:"),
        ("[memory.scope]\ncross_orchestrator = true\n", "memory.scope.cross_orchestrator:"),
        ("[policy]\ncontract = 'latest'\n", "policy.contract:"),
        ("[policy]\ncontract = '99.0.0'\n", "policy.contract: no contract '99.0.0' is shipped"),
        ("[policy.allowlists]\nplanner = ['ok', 'no spaces']\n", "policy.allowlists.planner.1:"),
        ("[embedder]\nname = 'word2vec'\n", "embedder.name:"),
        ("[server]\nport = 70000\n", "server.port:"),
        ("[servers]\nport = 1\n", "servers: unknown key"),
    ],
)
def test_invalid_toml_fails_with_the_key_path(tmp_path: Path, toml: str, path: str) -> None:
    _toml(tmp_path, toml)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert path in str(info.value)


@pytest.mark.parametrize(
    ("name", "value", "path"),
    [
        ("MEMVAULT__MEMORY__SCOPE__CROSS_ORCHESTRATOR", "true", "memory.scope.cross_orchestrator"),
        ("MEMVAULT__MEMORY__RETRIEVAL__TOP_N", "abc", "memory.retrieval.top_n"),
        ("MEMVAULT__MEMORY__RETRIEVL__TOP_N", "5", "memory.retrievl (from $MEMVAULT__"),
        ("MEMVAULT__NOPE", "1", "nope (from $MEMVAULT__NOPE)"),
        ("MEMVAULT__SERVER__PORT", "http", "server.port"),
    ],
)
def test_invalid_env_fails_with_the_key_path(name: str, value: str, path: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(environ={name: value})
    assert path in str(info.value)


def test_env_allowlists_are_json_and_upper_cased() -> None:
    env = {"MEMVAULT__POLICY__ALLOWLISTS__PLANNER": '["tasks", "goal"]'}
    assert load_config(environ=env).policy.allowlists == {"planner": ("TASKS", "GOAL")}


def test_other_memvault_variables_are_not_config_keys() -> None:
    env = {"MEMVAULT_HOME": "/tmp/x", "MEMVAULT_ORCHESTRATOR": "acme"}
    assert load_config(environ=env).store.backend == "sqlite"


def test_config_cli_show_and_validate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in __import__("os").environ if n.upper().startswith("MEMVAULT__")]:
        monkeypatch.delenv(name)
    runner = CliRunner()
    _toml(tmp_path, "[server]\nport = 9100\n")
    shown = runner.invoke(app, ["--home", str(tmp_path), "config", "show", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["server"]["port"] == 9100
    table = runner.invoke(app, ["--home", str(tmp_path), "config", "show"])
    assert table.exit_code == 0 and "server.port" in table.stdout
    ok = runner.invoke(app, ["--home", str(tmp_path), "config", "validate"])
    assert ok.exit_code == 0 and "valid" in ok.stdout
    monkeypatch.setenv("MEMVAULT__MEMORY__SCOPE__CROSS_ORCHESTRATOR", "true")
    bad = runner.invoke(app, ["--home", str(tmp_path), "config", "validate"])
    assert bad.exit_code == 2
    assert "memory.scope.cross_orchestrator" in bad.stderr
