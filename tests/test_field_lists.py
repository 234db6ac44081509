"""Field lists are defined once — ``NewMemory``, ``MemoryPatch``, ``NodeFilter`` — and the
CLI options, HTTP schemas and MCP parameters are derived from them or held to them."""

from __future__ import annotations

import inspect
from pathlib import Path

import typer
from typer.main import get_command

from memvault.access import AccessControl, Principal
from memvault.api.app import create_app
from memvault.api.schemas import MemoryPatch as HttpPatch
from memvault.api.schemas import QueryFilters, SearchFilters, _MemoryFields
from memvault.cli.app import app
from memvault.config import load_config
from memvault.engine import MemoryPatch, NewMemory, NodeFilter
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
    from pydantic import BaseModel

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
