"""``memvault --help`` imports no heavy module (NOTE5 "seen and left alone" 7: 4.3 s wall).

The CLI imports the engine, the gate's detectors and weights, numpy, the stores
and the web stack only inside the commands that use them. This checks what a
fresh interpreter has imported after the help is printed — not a time, which
the machine's load would decide.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

#: Modules ``--help`` must not import: numpy and the models on it, the gate
#: (detectors and learned weights), the engine, the backends, the web stack.
HEAVY = (
    "numpy",
    "fastapi",
    "starlette",
    "uvicorn",
    "mcp",
    "psycopg",
    "faiss",
    "langgraph",
    "pydantic_settings",
    "memvault.engine._sync",  # the engine (the façade package itself imports on demand)
    "memvault.engine._core",
    "memvault.policy",
    "memvault.policy.learned",
    "memvault.embed",
    "memvault.store.sqlite",
    "memvault.store.postgres",
    "memvault.context",
    "memvault.ingest",
    "memvault.api",
)

_PROBE = """
import json, sys
from memvault.cli import main
sys.argv = ["memvault", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _project_version() -> str:
    """The version pyproject.toml declares (``--version`` must print it)."""
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    return str(tomllib.loads(text)["project"]["version"])


def _imported(*args: str) -> tuple[str, set[str]]:
    """What ``memvault ARGS`` printed, and every module imported by then."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120
    )
    assert "MODULES " in done.stderr, done.stderr
    return done.stdout, set(json.loads(done.stderr.rsplit("MODULES ", 1)[1]))


@pytest.mark.parametrize(
    "args", [("--help",), ("add", "--help"), ("search", "--help"), ("--version",)]
)
def test_help_imports_no_heavy_module(args: tuple[str, ...]) -> None:
    printed, imported = _imported(*args)
    assert "Usage: memvault" in printed or printed == f"memvault {_project_version()}\n"
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert "memvault.cli.app" in imported  # the probe did run the CLI


def test_the_probe_sees_heavy_modules_when_a_command_runs(tmp_path: Path) -> None:
    """The check can fail: running a command does import the engine."""
    printed, imported = _imported("--home", str(tmp_path), "stats", "--json")
    assert json.loads(printed)["revision"] == 0
    assert {"memvault.engine._sync", "numpy"} <= imported
