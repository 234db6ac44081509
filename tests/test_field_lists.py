"""Field lists are defined once — ``NewMemory``, ``MemoryPatch``, ``NodeFilter`` — and the
CLI options, HTTP schemas and MCP parameters are derived from them or held to them."""

from __future__ import annotations

import inspect
from pathlib import Path

import typer
from pydantic import BaseModel
from typer.main import get_command

from memvault.access import AccessControl, Principal
from memvault.api.app import create_app
from memvault.api.schemas import MemoryPatch as HttpPatch
from memvault.api.schemas import QueryFilters, SearchFilters, _MemoryFields
from memvault.cli.app import app
from memvault.config import load_config
from memvault.engine import MemoryPatch, MemoryQuery, NewMemory, NodeFilter
from memvault.mcp.server import build_server

#: What the HTTP body of POST /v1/memories adds to NewMemory: the edge's own controls.
HTTP_ONLY = {"thread_id", "vector", "vector_model"}


def _options(command: str) -> set[str]:
    click = get_command(app)
    sub = click.commands[command]  # type: ignore[attr-defined]
    return {p.name for p in sub.params if p.name}


def test_cli_add_options_are_new_memory_fields() -> None:
    assert _options("add") - {"text", "as_json"} == set(NewMemory.model_fields) - {"content"}


def test_cli_update_options_are_memory_patch_fields() -> None:
    assert _options("update") - {"memory_id", "as_json"} == set(MemoryPatch.model_fields)


def test_cli_filters_are_node_filter_fields() -> None:
    fields = set(NodeFilter.model_fields)
    assert _options("list") - {"limit", "offset", "as_json"} == fields
    assert _options("search") - {"query", "top_k", "preset", "explain", "as_json"} == fields


def test_a_new_field_becomes_an_option() -> None:
    from memvault.cli.fields import options_from

    class Sample(BaseModel):
        colour: str = "teal"
        sizes: tuple[int, ...] | None = None

    seen: dict[str, object] = {}
    sub = typer.Typer()

    @sub.command()
    @options_from(Sample)
    def show(**fields: object) -> None:
        seen.update(fields)

    from typer.testing import CliRunner

    assert CliRunner().invoke(sub, ["--sizes", "2", "--sizes", "3"]).exit_code == 0
    assert seen == {"colour": "teal", "sizes": [2, 3]}
    assert "colour" in inspect.signature(show).parameters


def test_http_bodies_hold_the_engine_fields() -> None:
    assert set(_MemoryFields.model_fields) == set(NewMemory.model_fields) | HTTP_ONLY
    assert set(HttpPatch.model_fields) == set(MemoryPatch.model_fields)
    assert set(QueryFilters.model_fields) <= set(NodeFilter.model_fields)
    assert set(SearchFilters.model_fields) <= set(NodeFilter.model_fields)


def test_http_list_query_is_the_node_filter(tmp_path: Path) -> None:
    control = AccessControl(tmp_path, load_config(environ={}))
    try:
        listing = create_app(control).openapi()["paths"]["/v1/memories"]["get"]
        names = {p["name"] for p in listing["parameters"] if p["in"] == "query"}
        assert names - {"limit", "offset"} == set(NodeFilter.model_fields)
    finally:
        control.close()


def test_mcp_store_parameters_are_new_memory_fields(tmp_path: Path) -> None:
    control = AccessControl(tmp_path, load_config(environ={}))
    try:
        server = build_server(control, lambda ctx: Principal("acme", "assistant", "stdio"))
        tools = {t.name: t for t in server._tool_manager.list_tools()}
        store = tools["memory_store"].fn_metadata.arg_model.model_fields
        assert set(store) <= set(NewMemory.model_fields)
    finally:
        control.close()


#: What every surface shows of the field lists, printed as JSON by a fresh interpreter.
_SURFACES = r"""
import json, tempfile, pathlib
from typer.main import get_command
from memvault.access import AccessControl, Principal
from memvault.api.app import create_app
from memvault.cli.app import app
from memvault.config import load_config
from memvault.context.query import QueryFilters
from memvault.mcp.server import build_server

control = AccessControl(pathlib.Path(tempfile.mkdtemp()), load_config(environ={}))
try:
    api = create_app(control).openapi()
    server = build_server(control, lambda ctx: Principal("acme", "assistant", "stdio"))
    tools = {t.name: t for t in server._tool_manager.list_tools()}
finally:
    control.close()
commands = get_command(app).commands
schemas = api["components"]["schemas"]
listing = api["paths"]["/v1/memories"]["get"]["parameters"]
print(json.dumps({
    "cli add": [p.name for p in commands["add"].params],
    "http add": list(schemas["MemoryInPreference"]["properties"]),
    "mcp memory_store": list(tools["memory_store"].parameters["properties"]),
    "mcp memory_query filters": tools["memory_query"].description.split("Filter keys: ")[1]
    .split(".")[0].split(", "),
    "cli update": [p.name for p in commands["update"].params],
    "http update": list(schemas["MemoryPatch"]["properties"]),
    "http query": list(schemas["QueryIn"]["properties"]),
    "cli list": [p.name for p in commands["list"].params],
    "cli search": [p.name for p in commands["search"].params],
    "http list": [p["name"] for p in listing],
    "http search filters": list(schemas["SearchFilters"]["properties"]),
    "http query filters": list(schemas["QueryFilters"]["properties"]),
    "memory.query filters": list(QueryFilters.model_fields),
}))
"""


def _surfaces(tmp_path: Path, added: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    """The surfaces of a copy of the package with each ``(file, after, line)`` added.

    The copy links every file but the edited ones, so it costs milliseconds.
    """
    import json
    import os
    import shutil
    import subprocess
    import sys

    import memvault

    tree = tmp_path / "tree"
    package = tree / "memvault"
    shutil.copytree(
        Path(memvault.__file__).parent,
        package,
        copy_function=os.symlink,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for rel, after, line in added:
        path = package / rel
        text = path.read_text()
        assert text.count(after) == 1, f"{rel}: {after!r} is not there once"
        path.unlink()
        path.write_text(text.replace(after, after + line))
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _SURFACES], env=env, capture_output=True, text=True, check=True
    )
    surfaces: dict[str, list[str]] = json.loads(out.stdout)
    return surfaces


#: Where each engine type reaches: its file, the last line of its fields, its surfaces.
_REACH: dict[type[BaseModel], tuple[str, str, set[str]]] = {
    NewMemory: (
        "write/spec.py",
        "    source_ref: str | None = None\n",
        {"cli add", "http add", "mcp memory_store"},
    ),
    MemoryPatch: (
        "write/spec.py",
        "    ttl_class: TTLClass | None = None\n",
        {"cli update", "http update"},
    ),
    NodeFilter: (
        "store/values.py",
        "    visible_to: tuple[str, ...] | None = None\n",
        {"cli list", "cli search", "http list", "http search filters", "http query filters"}
        | {"memory.query filters", "mcp memory_query filters"},
    ),
    MemoryQuery: (
        "context/query.py",
        "    budget_tokens: int = Field(default=512, ge=1, le=100_000)\n",
        {"http query"},
    ),
}


def test_a_field_added_once_reaches_every_surface(tmp_path: Path) -> None:
    """One line added to each engine type, and nothing else: the new field is an option
    of the CLI commands, a field or parameter of the HTTP routes, an MCP parameter and
    a filter of memory.query, wherever the type it was added to reaches.

    (memory.query's own options reach the HTTP body; the CLI's ``query`` and MCP's
    ``memory_query`` name theirs, with the aliases clients use.)"""
    added = [
        (path, last, f"    {model.__name__.lower()}_mood: str | None = None\n")
        for model, (path, last, _) in _REACH.items()
    ]
    surfaces = _surfaces(tmp_path, added)
    for model, (_, _, where) in _REACH.items():
        name = f"{model.__name__.lower()}_mood"
        assert name not in model.model_fields
        for surface, fields in surfaces.items():
            assert (name in fields) == (surface in where), (name, surface, fields)
