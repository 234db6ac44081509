"""Reading memories from the command line: ``get``, ``list``, ``search``, ``history``.

Each command parses its options (the filters are :class:`NodeFilter`'s fields),
makes one engine call and prints a table, or JSON with ``--json``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from memvault.cli import output
from memvault.cli.app import _engine, checked_user, known_categories, operator, parse_moment
from memvault.cli.fields import options_from
from memvault.cli.options import JsonFlag, user_option
from memvault.engine import NodeFilter

if TYPE_CHECKING:
    from memvault.engine import MemoryEngine, MemoryView

__all__ = ["print_search", "register"]


#: ``--user`` of a read by id: whose memories it may answer (store/scope.py).
ReadAsUser = Annotated[str | None, user_option("read as")]


def _read_by_id(
    engine: MemoryEngine, read: Literal["get", "history"], memory_id: str, user: str | None
) -> Any:
    """``engine.get``/``engine.history`` of one memory as ``user`` (``Caller.by_id_reader``:
    their memories and shared ones), or every user's when no ``--user`` was given."""
    if user is None:
        return getattr(engine, read)(memory_id)
    return getattr(operator(engine), read)(memory_id, user=checked_user(user))


def get(
    ctx: typer.Context, memory_id: str, user: ReadAsUser = None, as_json: JsonFlag = False
) -> None:
    """Show one memory, its status and its edges."""
    with _engine(ctx) as engine:
        view: MemoryView = _read_by_id(engine, "get", memory_id, user)
    data = view.to_json()
    if as_json:
        output.emit_json(data)
        return
    edges = data.pop("edges")
    output.print_mapping(f"memory {memory_id}", data)
    if edges:
        output.print_table(
            "edges",
            ["edge", "from", "type", "to", "weight"],
            [
                (e["edge_id"], e["from_memory_id"], e["edge_type"], e["to_memory_id"], e["weight"])
                for e in edges
            ],
        )


def _filters(**raw: Any) -> dict[str, Any]:
    """The filter options that were given; date bounds as stored timestamps."""
    from memvault.model.clock import format_timestamp

    filters = {k: v for k, v in raw.items() if v not in (None, [], ())}
    for name in ("updated_after", "updated_before"):
        if name in filters:
            flag = "--" + name.replace("_", "-")
            filters[name] = format_timestamp(parse_moment(str(filters[name]), flag))
    return filters


@options_from(NodeFilter)
def list_command(
    ctx: typer.Context,
    *,
    limit: Annotated[int, typer.Option()] = 50,
    offset: Annotated[int, typer.Option()] = 0,
    as_json: JsonFlag = False,
    **raw: Any,
) -> None:
    """List memories matching filters (active only unless --status is given)."""
    filters = _filters(**raw)
    with _engine(ctx) as engine:
        known_categories(engine, filters.get("category", ()))
        nodes = engine.list_memories(filters, limit=limit, offset=offset)
    if as_json:
        output.emit_json({"memories": [n.to_json() for n in nodes]})
        return
    output.print_table(
        f"{len(nodes)} memories",
        ["id", "type", "category", "imp", "status", "content"],
        [
            (n.memory_id, n.type.value, n.category, n.importance, n.status.value, n.content)
            for n in nodes
        ],
    )


@options_from(NodeFilter)
def search(
    ctx: typer.Context,
    query: str,
    *,
    top_k: Annotated[int, typer.Option("--top-k", help="How many results.")] = 10,
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="Retrieval preset: default, spec, rrf, fts, text, vector."),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show per-leg ranks and modifier contributions.")
    ] = False,
    as_json: JsonFlag = False,
    **raw: Any,
) -> None:
    """Recall memories for a query (hybrid: full text + vectors), best first, with provenance."""
    filters = _filters(**raw)
    with _engine(ctx) as engine:
        known_categories(engine, filters.get("category", ()))
        results = engine.search(query, filters=filters, top_k=top_k, config=preset, explain=explain)
    print_search(results.to_json(), as_json)


def print_search(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        output.emit_json(data)
        return
    explained = any("explain" in r for r in data["results"])
    output.print_table(
        f"{data['query']!r} — legs: {', '.join(data['legs'])}",
        ["#", "score", "id", "type", "content", "source", *(["explain"] if explained else [])],
        [
            (
                r["rank"],
                f"{r['score']:.4f}",
                r["memory_id"],
                r["type"],
                r["content"],
                r["source"]["sourceType"],
                *([json.dumps(r.get("explain", {}))] if explained else []),
            )
            for r in data["results"]
        ],
    )


def history(
    ctx: typer.Context, memory_id: str, user: ReadAsUser = None, as_json: JsonFlag = False
) -> None:
    """Show the audit trail of one memory."""
    from memvault.engine import history_json

    with _engine(ctx) as engine:
        found = _read_by_id(engine, "history", memory_id, user)  # the events, oldest first
        events = [history_json(e) for e in found]
    if as_json:
        output.emit_json({"memory_id": memory_id, "events": events})
        return
    output.print_table(
        f"history of {memory_id}",
        ["at", "op", "stop reason", "actor", "detail"],
        [(e["at"], e["op"], e["stop_reason"], e["actor"], json.dumps(e["detail"])) for e in events],
    )


def register(app: typer.Typer) -> None:
    """Add the read commands to ``memvault`` (or to ``app``)."""
    app.command()(get)
    app.command("list")(list_command)
    app.command()(search)
    app.command()(history)
