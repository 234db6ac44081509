"""CLI skins for what an agent sees: ``bulletin``, ``query``, ``context``, ``bench context``.

Each command parses, makes one engine call and prints (``--json`` for machines).

``memvault bulletin --json`` prints exactly
``{"revision", "sections", "truncated", "text"}`` (plus ``"delta"`` when
``--thread`` is given); the same memory state prints the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import ValidationError

from memvault.cli import output
from memvault.cli.app import (
    EXIT_REFUSED,
    EXIT_USAGE,
    _engine,
    _fail,
    app,
    bench_app,
    known_categories,
)
from memvault.cli.options import JsonFlag, user_option
from memvault.engine import ALL_USERS
from memvault.model.validation import to_validation_failed

if TYPE_CHECKING:
    from memvault.engine import UserScope

__all__ = ["register", "register_bench"]

UserOpt = Annotated[str | None, user_option("turn")]
AllUsersOpt = Annotated[
    bool,
    typer.Option(
        "--all-users", help="The orchestrator-wide view: every user's memories (administrators)."
    ),
]


def _reader(user: str | None, all_users: bool) -> UserScope:
    """``--user`` / ``--all-users`` as a reader; neither: shared memories only."""
    if user is not None and all_users:
        _fail("--user and --all-users exclude each other", EXIT_USAGE)
    return ALL_USERS if all_users else user


def _whose(reader: UserScope) -> str:
    """Whose memories a read saw, for a table's title.

    Trigger: ``memvault query tea`` printed an empty table when the only match
    was a user's memory: without ``--user`` a read sees shared memories only,
    and nothing said so. Outcome: the title names the reader.

    >>> _whose(None), _whose("dana"), _whose(ALL_USERS)
    ("shared memories only (--user U for a user's)", 'user dana and shared', 'all users')
    """
    if reader is ALL_USERS:
        return "all users"
    if reader is None:
        return "shared memories only (--user U for a user's)"
    return f"user {reader} and shared"


def bulletin(
    ctx: typer.Context,
    thread: Annotated[
        str | None,
        typer.Option("--thread", help="Also emit the delta header for this thread (and mark it)."),
    ] = None,
    query: Annotated[
        str | None, typer.Option("--query", help="Rank knowledge by relevance to this text.")
    ] = None,
    user: UserOpt = None,
    all_users: AllUsersOpt = False,
    as_json: JsonFlag = False,
) -> None:
    """The memory bulletin (cited, size-bounded); with --thread, the delta header first.

    A bulletin is for one user (``--user``): theirs and shared memories. Without
    it, shared memories only; ``--all-users`` is the orchestrator-wide view.
    """
    reader = _reader(user, all_users)
    with _engine(ctx) as engine:
        delta = engine.delta_header(thread, user=reader) if thread is not None else None
        result = engine.bulletin(user=reader, query=query)
    if result.status != "fresh":
        output.error(f"bulletin unavailable; showing the {result.status.replace('_', ' ')} one")
    if as_json:
        data = result.to_json()
        if thread is not None:
            data["delta"] = delta.to_json() if delta else None
        output.emit_json(data)
        return
    if delta is not None:
        sys.stdout.write(delta.text + "\n\n")
    sys.stdout.write(result.text + "\n")


def _parse_filters(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            _fail(f"--filter expects KEY=VALUE, got {pair!r}", EXIT_USAGE)
        parsed: Any = value
        if value in ("true", "false"):
            parsed = value == "true"
        elif key.startswith("importance_") and value.lstrip("-").isdigit():
            parsed = int(value)
        out[key] = parsed
    return out


def query(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(metavar="QUERY", help="What to recall.")],
    agent: Annotated[str, typer.Option("--agent", help="The calling agent.")] = "supervisor",
    category: Annotated[
        list[str] | None,
        typer.Option("--category", help="Category to recall (repeatable; within the allowlist)."),
    ] = None,
    return_mode: Annotated[
        str, typer.Option("--return", help="bullets (compact) or full (with metadata).")
    ] = "bullets",
    budget: Annotated[int, typer.Option("--budget", help="Token budget of the answer.")] = 512,
    top_k: Annotated[int, typer.Option("--top-k", help="At most this many results.")] = 3,
    threshold: Annotated[
        float | None,
        typer.Option(
            "--threshold",
            help="Drop hits scoring below this (absolute, 0..1: a probability of relevance).",
        ),
    ] = None,
    filters: Annotated[
        list[str] | None,
        typer.Option("--filter", help="KEY=VALUE (user_id, role, pinned, importance_min, …)."),
    ] = None,
    allowlist: Annotated[
        Path | None,
        typer.Option("--allowlist", help="Agent allowlists (YAML/JSON, spec §5 shape)."),
    ] = None,
    user: UserOpt = None,
    all_users: AllUsersOpt = False,
    as_json: JsonFlag = False,
) -> None:
    """memory.query: recall for an agent, checked against its category allowlist.

    Recall is for one user (``--user``, else ``--filter user_id=…``): theirs and
    shared memories; with neither, shared ones; ``--all-users``: every user's.
    """
    reader = _reader(user, all_users)
    request: dict[str, Any] = {
        "agent": agent,
        "query": text,
        "return": return_mode,
        "budget_tokens": budget,
        "top_k": top_k,
        "filters": _parse_filters(filters or []),
    }
    if category:
        request["categories"] = category
    if threshold is not None:
        request["threshold"] = threshold
    with _engine(ctx) as engine:
        known_categories(engine, category or ())
        if allowlist is not None:
            from memvault.engine import AgentAllowlist

            engine.allowlist = AgentAllowlist.load(allowlist)
        result = engine.memory_query(request, user=reader)
    data = result.to_json()
    if as_json:
        output.emit_json(data)
    elif result.refused:
        output.error(f"{data['stop_reason']}: {data['reason']}")
    else:
        output.print_table(
            f"{text!r} for {agent}, {_whose(reader)} — {data['tokens']}/{budget} tokens",
            ["id", "category", "text"],
            [(r["id"], r["category"], r["text"]) for r in data["results"]],
        )
    if result.refused:
        raise typer.Exit(EXIT_REFUSED)


def context(
    ctx: typer.Context,
    task: Annotated[str, typer.Option("--task", help="The task id.")],
    project: Annotated[
        str | None, typer.Option("--project", help="The task's project (its tier).")
    ] = None,
    budget: Annotated[int, typer.Option("--budget", help="Token budget.")] = 2000,
    query: Annotated[str, typer.Option("--query", help="Rank by relevance to this text.")] = "",
    head_tail: Annotated[
        int, typer.Option("--head-tail", help="Keep first/last N task items.")
    ] = 0,
    user: UserOpt = None,
    all_users: AllUsersOpt = False,
    as_json: JsonFlag = False,
) -> None:
    """A budgeted context package from the task, project and global tiers (40/40/20).

    Task memory lives in the running process, so from the command line the
    task tier is empty; project and global memory come from the store, for one
    user (`--user`: theirs and shared memories; neither flag: shared only).
    """
    from memvault.engine import ContextRequest, TaskRef

    try:
        request = ContextRequest(query=query, budget_tokens=budget, head_tail=head_tail)
    except ValidationError as exc:
        _fail(str(to_validation_failed(exc)), EXIT_USAGE)
    with _engine(ctx) as engine:
        package = engine.context_assembler().build(
            TaskRef(task, project), request, user=(reader := _reader(user, all_users))
        )
    data = package.to_json()
    if as_json:
        output.emit_json(data)
        return
    output.print_table(
        f"{data['package_id']}, {_whose(reader)} — {data['token_cost']}/{budget} tokens, "
        f"compression {data['compression_ratio']:.2f}",
        ["tier", "id", "score", "tokens", "text"],
        [
            (i["tier"], i["item_id"], f"{i['score']:.3f}", i["token_cost"], i["text"])
            for i in data["items"]
        ],
    )


def register() -> None:
    """Add the context commands to ``memvault`` and ``memvault bench``."""
    app.command("bulletin")(bulletin)
    app.command("query")(query)
    app.command("context")(context)
    register_bench(bench_app)


def bench_context(
    ctx: typer.Context,
    sizes: Annotated[
        str, typer.Option("--sizes", help="Comma-separated store sizes.")
    ] = "1000,10000,100000",
    repeats: Annotated[int, typer.Option("--repeats", help="Timed calls per figure.")] = 100,
    out: Annotated[Path, typer.Option("--out", help="Where to write the JSON result.")] = Path(
        "bench/results/context.json"
    ),
    as_json: JsonFlag = False,
) -> None:
    """Bulletin and memory.query latency (p50/p95 ms) at growing store sizes."""
    try:
        targets = sorted({int(s) for s in sizes.split(",") if s.strip()})
    except ValueError:
        _fail(f"--sizes expects integers, got {sizes!r}", EXIT_USAGE)
    if not targets or targets[0] < 1 or repeats < 1:
        _fail("--sizes and --repeats must be positive", EXIT_USAGE)
    from memvault.benchmarks import context as bench

    result = bench.run(ctx.obj.orchestrator, targets, repeats, progress=not as_json)
    if output.save_result(out, result, as_json=as_json):
        return
    output.print_table(
        "bench context (ms; SQLite file, text recall leg)",
        ["memories", "bulletin p50", "p95", "cpu p50", "unchanged p50", "bulletin+query p50",
         "query bullets p50", "p95", "cpu p50", "query full p50", "seed s"],
        [
            (
                r["memories"], r["bulletin"]["p50"], r["bulletin"]["p95"],
                r["bulletin"]["cpu_p50"], r["bulletin_same_revision"]["p50"],
                r["bulletin_with_query"]["p50"], r["query_bullets"]["p50"],
                r["query_bullets"]["p95"], r["query_bullets"]["cpu_p50"],
                r["query_full"]["p50"], r["seed_seconds"],
            )
            for r in result["results"]
        ],
        caption=f"{result['cpus']} CPUs, load average {result['load_average']}, "
        f"{repeats} calls per figure; written to {out}",
    )  # fmt: skip


def register_bench(bench_group: typer.Typer) -> None:
    """Add ``memvault bench context``."""
    bench_group.command("context")(bench_context)
