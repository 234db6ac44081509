"""Configuration reaches the engine: ``embedder.*`` and ``memory.retrieval.*``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli.app import app
from memvault.config import load_config
from memvault.engine import MemoryEngine, NewMemory
from memvault.errors import ConfigError
from tests.helpers import add_fields


def test_configured_embedder_and_preset_are_the_engines(tmp_path: Path) -> None:
    cfg = load_config(
        tmp_path,
        environ={
            "MEMVAULT__EMBEDDER__NAME": "hashing",
            "MEMVAULT__EMBEDDER__DIMENSION": "64",
            "MEMVAULT__MEMORY__RETRIEVAL__PRESET": "rrf",
            "MEMVAULT__MEMORY__RETRIEVAL__RRF_K": "25",
        },
    )
    with MemoryEngine.open(tmp_path, "acme", config=cfg) as engine:
        assert engine.embedder is not None and engine.embedder.dimension == 64
        assert (engine.retrieval.name, engine.retrieval.rrf_k) == ("rrf", 25.0)
        pref = {"type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"}
        assert add_fields(engine, "Ada prefers tea in the morning", **pref).ok
        results = engine.search("tea")
        assert results.legs == ("text", "vector")


def test_explicit_options_win_over_config(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={"MEMVAULT__MEMORY__RETRIEVAL__PRESET": "vector"})
    with MemoryEngine.open(tmp_path, "acme", config=cfg, retrieval="text", embedder=None) as e:
        assert e.retrieval.name == "text" and e.embedder is None


def test_top_n_caps_results_only_when_set(tmp_path: Path) -> None:
    plain = load_config(tmp_path, environ={})
    assert plain.memory.retrieval.to_config().top_k_text == 100  # the default preset as is
    set_n = load_config(tmp_path, environ={"MEMVAULT__MEMORY__RETRIEVAL__TOP_N": "2"})
    pref = {"type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"}
    for config, count in ((plain, 3), (set_n, 2)):
        with MemoryEngine.open(tmp_path, "acme", config=config, embedder=None) as engine:
            if count == 3:
                for drink in ("tea", "green tea", "iced tea"):
                    assert engine.add(NewMemory(content=f"Ada drinks {drink}", **pref)).ok
            assert len(engine.search("tea", top_k=10).hits) == count


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("MEMVAULT__MEMORY__RETRIEVAL__PRESET", "nope", "unknown retrieval preset"),
        ("MEMVAULT__EMBEDDER__NAME", "openai", "needs embedder.model"),
    ],
)
def test_bad_settings_fail_with_the_key(key: str, value: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path, environ={key: value})


def test_cli_refuses_a_bad_preset_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMVAULT__MEMORY__RETRIEVAL__PRESET", "nope")
    result = CliRunner().invoke(app, ["--home", str(tmp_path), "search", "tea", "--json"])
    assert result.exit_code == 2
    assert "unknown retrieval preset" in result.output
    assert "Traceback" not in result.output
