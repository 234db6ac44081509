"""Layering of DESIGN §10, enforced on the import graph (AST, no imports run).

Interfaces call the engine; the engine calls policy, write, retrieval,
context and lifecycle; those call store and embed; nothing below the engine
imports anything above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "memvault"

FOUNDATION = {"errors", "model", "envvars", "_lazy"}
LOW = FOUNDATION | {"store", "embed", "learn", "layout", "results"}
DOMAIN = LOW | {"policy", "retrieval", "extract", "write", "context", "lifecycle", "ingest"}
ENGINE = DOMAIN | {"engine", "config"}
INTERFACE = ENGINE | {
    "controller",
    "agent",
    "access",
    "api",
    "mcp",
    "integrations",
    "cli",
    "ui",
    "inspector",
    "benchmarks",
}

#: layer -> what it may import from memvault (besides itself)
ALLOWED: dict[str, set[str]] = {
    "errors": {"model"},
    "model": {"errors"},
    "envvars": set(),  # names of environment variables, read by config (nothing here)
    "_lazy": set(),
    "store": FOUNDATION,
    "embed": FOUNDATION,
    "learn": FOUNDATION | {"embed"},
    "layout": FOUNDATION,
    "results": FOUNDATION | {"store"},
    "policy": FOUNDATION | {"learn"},
    "retrieval": LOW,
    "extract": LOW | {"policy"},
    "write": LOW | {"policy", "retrieval", "extract"},
    "context": LOW | {"policy", "retrieval"},
    "lifecycle": LOW | {"policy", "retrieval", "write"},
    "ingest": LOW | {"policy", "retrieval", "write", "extract"},
    "config": LOW | {"policy", "retrieval"},
    "engine": DOMAIN | {"config"},
    "controller": ENGINE,
    "access": ENGINE,
    "agent": ENGINE | {"controller"},
    "api": ENGINE | {"controller", "ui", "access", "inspector"},
    "mcp": ENGINE | {"controller", "access"},
    "integrations": ENGINE | {"controller", "access"},
    "cli": INTERFACE,
    # ``memvault bench langgraph`` measures the LangGraph adapter's operations
    "benchmarks": ENGINE | {"integrations"},
    "ui": ENGINE,
    "inspector": ENGINE | {"access"},
    "__main__": {"cli"},
    "__init__": INTERFACE,
}


def _layer(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved too)."""
    if node.level == 0:
        return node.module or ""
    package = ["memvault", *path.relative_to(SRC).with_suffix("").parts]
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _modules(path: Path) -> set[str]:
    """Every memvault module ``path`` imports, by its absolute dotted name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in found if m.startswith("memvault.")}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            names = [_absolute(path, node)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "memvault" and len(parts) > 1:
                found.add(parts[1])
    return found


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_module_respects_layering(path: Path) -> None:
    layer = _layer(path)
    assert layer in ALLOWED, f"{layer} is not a known layer of DESIGN §10; add it to the test"
    illegal = {i for i in _imports(path) if i != layer and i not in ALLOWED[layer]}
    assert not illegal, f"{path.relative_to(SRC)} ({layer}) imports {sorted(illegal)}"


def test_no_backend_checks_outside_store() -> None:
    """STYLE principle 4: backend differences stay inside store/."""
    for path in MODULES:
        if _layer(path) == "store":
            continue
        text = path.read_text(encoding="utf-8")
        assert "isinstance(self.store" not in text and "backend ==" not in text, path


#: Who may construct what a write is made of (DESIGN §4: one write pipeline).
#: ``store`` reads rows back into these types; ``model`` defines them;
#: ``benchmarks`` seed ungated corpora through ``write.commit.seed_corpus`` (DESIGN §9).
_BUILDERS: dict[str, set[str]] = {
    "WriteSet": {"write", "store"},
    "HistoryEvent": {"write", "store"},
    "MemoryNode": {"write", "store", "model", "benchmarks"},
}


def _constructions(path: Path) -> set[str]:
    """Names of ``_BUILDERS`` called (``X(...)`` or ``X.model_validate(...)``) in a module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BUILDERS:
            found.add(func.id)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr in ("model_validate", "model_construct")
            and isinstance(func.value, ast.Name)
            and func.value.id in _BUILDERS
        ):
            found.add(func.value.id)
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_only_the_write_pipeline_builds_writes(path: Path) -> None:
    """No module outside ``write/`` builds a WriteSet, a node to write or an audit event.

    Refusal records are audit events, so they too come from the pipeline only.
    """
    layer = _layer(path)
    illegal = {name for name in _constructions(path) if layer not in _BUILDERS[name]}
    assert not illegal, f"{path.relative_to(SRC)} ({layer}) constructs {sorted(illegal)}"


def _store_applies(path: Path) -> list[int]:
    """Lines of ``path`` that call ``apply`` on something named like a store."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "apply"
            and "store" in ast.unparse(node.func.value).lower()
        ):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_only_the_write_pipeline_applies_writes(path: Path) -> None:
    """Every write reaches the store through ``write/`` (``WritePipeline.apply``/``commit``).

    Ingest, the lifecycle and the engine hand their write sets to the pipeline;
    benchmarks seed through ``write.commit.seed_corpus``; only the store itself and
    ``write/`` call ``store.apply``.
    """
    if _layer(path) in {"write", "store"}:
        return
    lines = _store_applies(path)
    assert not lines, f"{path.relative_to(SRC)} calls store.apply at lines {lines}"


def test_the_apply_check_sees_a_call(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("self.ctx.store.apply(w)\nwrites.apply(w)\nlstore.apply(w)\n")
    assert _store_applies(sample) == [1, 3]


def test_the_builder_check_sees_a_construction(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("WriteSet('a', 'b')\nMemoryNode.model_validate({})\nx = HistoryEvent\n")
    assert _constructions(sample) == {"WriteSet", "MemoryNode"}


#: Modules outside ``store/`` allowed to name a backend, and why.
_BACKEND_NAMERS = {
    "benchmarks/backends.py": "compares the backends side by side, by design",
    "benchmarks/perf.py": "measures SQLite's own ANN index",
    "benchmarks/peer_systems.py": "reads faiss's HNSW counters of SQLite's ANN index per search",
}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_only_the_store_factory_names_a_backend(path: Path) -> None:
    """STYLE principle 4: callers open a store through ``store.factory``, never a backend."""
    rel = str(path.relative_to(SRC))
    if _layer(path) == "store" or rel in _BACKEND_NAMERS:
        return
    backends = {
        m
        for m in _modules(path)
        if m.startswith(("memvault.store.sqlite", "memvault.store.postgres"))
    }
    assert not backends, f"{rel} imports {sorted(backends)}; open stores with store.factory"


def test_relative_imports_are_resolved(tmp_path: Path) -> None:
    pkg = SRC / "write" / "capture.py"
    tree = ast.parse("from ..store import base\nfrom . import commit\n")
    found = [_absolute(pkg, n) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert found == ["memvault.store", "memvault.write"]


#: Edges (DESIGN §10: interfaces) call the façade only: the engine (with its result
#: types and ``engine.tools``), ``access``, ``model`` and ``errors``; entry points
#: also read ``config`` (and ``envvars``, the names of its variables);
#: the CLI composes the other interfaces (it starts servers, the agent, benches).
EDGES = {"cli", "api", "mcp", "integrations", "agent"}
EDGE_MAY_IMPORT = {"engine", "access", "model", "errors", "config", "envvars"}
COMPOSES = {
    "cli": {"api", "mcp", "agent", "inspector", "benchmarks", "controller"},
    "agent": {"controller"},
    "api": {"inspector"},
}


def test_edges_call_the_facade_only() -> None:
    found: set[tuple[str, str]] = set()
    for path in MODULES:
        layer = _layer(path)
        if layer not in EDGES:
            continue
        allowed = EDGE_MAY_IMPORT | COMPOSES.get(layer, set()) | {layer}
        found |= {(layer, name) for name in _imports(path) if name not in allowed}
    assert found == set(), f"edge imports below the façade: {sorted(found)}"


#: What a principal or grant carries that authorization decides on.
_GRANT_FIELDS = {"agent", "categories", "read_only", "all_users", "user"}


def _grant_reads(path: Path) -> list[str]:
    """``principal.agent``, ``c.grant.categories`` … read in ``path`` (not constructed)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _GRANT_FIELDS
            and ast.unparse(node.value).split(".")[-1] in {"principal", "grant"}
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if _layer(p) in EDGES],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_edges_leave_authorization_to_the_facade(path: Path) -> None:
    """Routes, MCP tools, CLI commands and adapters parse, make one call on the caller's
    façade and map the result: none of them decides from what a principal or grant
    allows (its agent, categories, read-only flag, user) — ``Caller.authorize`` and
    ``AccessControl`` do, once, for every edge (issue 15)."""
    reads = _grant_reads(path)
    assert not reads, f"{path.relative_to(SRC)} authorizes at the edge: {reads}"


def test_the_grant_check_sees_a_read(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text(
        "if body.agent != c.principal.agent: pass\n"
        "ok = grant.categories\n"
        "Grant(agent='a', categories=None)\n"
        "p = principal.key_id\n"
    )
    assert _grant_reads(sample) == ["1: c.principal.agent", "2: grant.categories"]


#: What the engine and ``access`` build from the configuration; an edge only asks them.
_ENGINE_PARTS = {"PolicyGate", "WritePipeline", "WriteBuilder", "AgentAllowlist"}


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if _layer(p) in EDGES],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_edges_build_no_gate_or_pipeline(path: Path) -> None:
    """A route, tool, command or adapter never constructs a gate, a write pipeline or
    an allowlist: ``MemoryEngine.open(config=…)`` and ``AccessControl`` build them
    from the configuration (``AgentAllowlist.load`` of a ``--allowlist`` file is a
    flag, read at the entry point, and allowed)."""
    built = sorted(
        f"{node.lineno}: {ast.unparse(node.func)}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _ENGINE_PARTS
    )
    assert not built, f"{path.relative_to(SRC)} builds {built}"
