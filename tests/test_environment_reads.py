"""Settings are read once, at the entry points (STYLE principle 8, issue 15).

An AST walk over ``src/memvault``: only the modules listed here touch the
process environment (``os.environ``, ``os.getenv``, ``from os import environ``,
a typer option's ``envvar=``, a pydantic ``BaseSettings``), each for the reason
given. Everything else — the engine, the store factory, the agent runtime, the
extractors — receives its settings from the entry point that built the
configuration (``memvault.config.load_config``). A listed module that no longer
reads the environment fails too, so the list stays exact.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "memvault"

#: module (relative to src/memvault) -> why it may touch the environment.
ENTRY_POINTS: dict[str, str] = {
    "config.py": "the one reader of settings: MEMVAULT__… (load_config) and MEMVAULT_HOME "
    "(default_home), called by the entry points only",
    "cli/app.py": "entry point: the global --home/--orchestrator fall back to "
    "$MEMVAULT_HOME/$MEMVAULT_ORCHESTRATOR (typer envvar)",
    "cli/options.py": "entry point: the benches' --data-dir falls back to $MEMVAULT_BENCH_DATA",
    "cli/retrieval_cmd.py": "entry point: bench perf --dsn falls back to "
    "$MEMVAULT__STORE__POSTGRES__DSN",
}

#: Modules below the entry points that touch the environment without reading a
#: setting from it, and what they do instead.
NOT_SETTINGS: dict[str, str] = {
    "policy/parallel.py": "hands its environment to the gate's child process "
    "(PYTHONPATH, one BLAS thread); reads no setting",
    "benchmarks/contention.py": "hands its environment to its worker processes",
    "benchmarks/peer_systems.py": (
        "sets the mem0 peer's telemetry and API-key variables (writes only)"
    ),
    "benchmarks/ingest.py": "records the run's OMP_NUM_THREADS in the report (metadata)",
    "benchmarks/perf.py": "records the run's BLAS thread caps in the report (metadata)",
}


_ENV_NAMES = ("environ", "environb", "getenv", "getenvb", "putenv")
_OS_NAMES = {f"os.{name}" for name in _ENV_NAMES}


def environment_uses(source: str) -> list[int]:
    """Lines of ``source`` that touch the process environment."""
    tree = ast.parse(source)
    from_os = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "os"
        for alias in node.names
        if alias.name in _ENV_NAMES
    }
    lines: list[int] = []
    for node in ast.walk(tree):
        named = ast.unparse(node) if isinstance(node, ast.Attribute | ast.Name) else ""
        if named in _OS_NAMES or (isinstance(node, ast.Name) and named in from_os):
            lines.append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg == "envvar":
            lines.append(node.value.lineno)
        elif isinstance(node, ast.ClassDef) and any(
            ast.unparse(base).split(".")[-1] == "BaseSettings" for base in node.bases
        ):
            lines.append(node.lineno)
    return sorted(lines)


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_only_entry_points_read_the_environment(path: Path) -> None:
    rel = str(path.relative_to(SRC))
    if rel in ENTRY_POINTS or rel in NOT_SETTINGS:
        return
    lines = environment_uses(path.read_text(encoding="utf-8"))
    assert not lines, (
        f"{rel} touches the environment at lines {lines}: read settings at the entry point "
        "(memvault.config.load_config) and pass them down"
    )


@pytest.mark.parametrize("rel", sorted({**ENTRY_POINTS, **NOT_SETTINGS}))
def test_the_allow_list_is_exact(rel: str) -> None:
    path = SRC / rel
    assert path.is_file(), f"{rel} is listed but does not exist"
    assert environment_uses(path.read_text(encoding="utf-8")), (
        f"{rel} no longer touches the environment: take it off the list"
    )


def test_the_check_sees_every_form() -> None:
    sample = (
        "import os\n"
        "from os import environ as env, getenv\n"
        "a = os.environ['X']\n"
        "b = os.getenv('Y')\n"
        "c = env.get('Z')\n"
        "d = getenv('W')\n"
        "opt = Option('--x', envvar='X')\n"
        "class S(pydantic_settings.BaseSettings): ...\n"
        "e = os.path.join('a')\n"
    )
    assert environment_uses(sample) == [3, 4, 5, 6, 7, 8]


def test_the_bench_data_variable_is_the_benchmarks() -> None:
    from memvault.benchmarks.perf_corpus import ENV_DATA

    assert f'envvar="{ENV_DATA}"' in (SRC / "cli" / "options.py").read_text(encoding="utf-8")
