"""The ``memvault`` command line: thin skins over :class:`MemoryEngine`.

Each command parses its options, makes one engine call and prints the result
(``--json`` for machines, tables for people). A user's mistake is one line
on stderr and a non-zero exit code, never a traceback:

=====  ==========================================================
exit   meaning
=====  ==========================================================
0      success
1      the write was refused (its stop reason is printed)
2      bad usage or invalid input
3      no such memory in this orchestrator
4      the memory store is unavailable (missing, corrupt, locked)
=====  ==========================================================
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from memvault.cli import output
from memvault.cli.fields import options_from
from memvault.cli.options import JsonFlag
from memvault.engine import MemoryPatch, NewMemory, WriteResult
from memvault.errors import (
    ConfigError,
    MemoryNotFoundError,
    MemvaultError,
    StoreUnavailableError,
    ValidationFailed,
)

# Trigger: ``memvault --help`` took 4.3 s wall (NOTE5 "seen and left alone" 7):
#          importing this module imported the engine — the gate's detectors and
#          weights, numpy, the stores, context, ingest.
# Why: a command's help, or a typo, should answer at once; only a command that
#      runs needs the engine.
# Outcome: the engine, configuration and results are imported inside the
#          functions that use them; at import only the models the option lists
#          are built from (NewMemory, NodeFilter: the façade imports each name
#          on first access) are read (tests/test_cli_startup.py).
if TYPE_CHECKING:
    from memvault.engine import Caller, MemoryEngine

__all__ = [
    "app",
    "bench_app",
    "checked_user",
    "granted_categories",
    "known_categories",
    "load_demo",
    "main",
    "parse_moment",
]

app = typer.Typer(
    name="memvault",
    help="memvault — governed long-term memory for LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
bench_app = typer.Typer(help="Benchmarks: print a table and write JSON.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

EXIT_REFUSED, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_UNAVAILABLE = 1, 2, 3, 4


@dataclass
class Settings:
    home: Path | None
    orchestrator: str
    #: The store backend of the loaded configuration (set when a command opens its engine).
    backend: str = "sqlite"


def _fail(message: str, code: int, hint: str = "") -> NoReturn:
    output.error(message, hint)
    raise typer.Exit(code)


@contextmanager
def _errors() -> Iterator[None]:
    """Map memvault errors to one line and an exit code."""
    try:
        yield
    except MemoryNotFoundError as exc:
        _fail(str(exc), EXIT_NOT_FOUND, exc.hint)
    except StoreUnavailableError as exc:
        _fail(str(exc), EXIT_UNAVAILABLE, exc.hint)
    except (ValidationFailed, ConfigError) as exc:
        _fail(str(exc), EXIT_USAGE, exc.hint)
    except MemvaultError as exc:
        _fail(str(exc), EXIT_USAGE, exc.hint)


@contextmanager
def _engine(
    ctx: typer.Context, *, create: bool = False, overrides: dict[str, Any] | None = None
) -> Iterator[MemoryEngine]:
    from memvault.config import load_config
    from memvault.engine import MemoryEngine, RuntimeLayout

    settings: Settings = ctx.obj
    with _errors():
        # The embedder and retrieval preset come from memvault.toml / MEMVAULT__… ;
        # ``overrides``: the command's flags (highest precedence).
        config = load_config(settings.home, overrides=overrides)
        settings.backend = config.store.backend
        # Trigger: any command but `init` on an orchestrator that has no store,
        #          in a home where other orchestrators do have one.
        # Why: a mistyped `-o acem` must not silently start an empty memory, and
        #      a deleted database must not come back empty (issue 20); in a home
        #      with no store at all there is nothing to mistype, so first use creates.
        # Outcome: exit 4 naming the orchestrators that exist; `init` creates.
        layout = RuntimeLayout.for_orchestrator(settings.home, settings.orchestrator)
        first_use = not layout.known_orchestrators()
        engine = MemoryEngine.open(
            settings.home, settings.orchestrator, config=config, create=create or first_use
        )
        try:
            yield engine
        finally:
            engine.close()


def _print_version(given: bool) -> None:
    """``--version``: print ``memvault X.Y.Z`` and stop (before any command runs)."""
    if given:
        from memvault import __version__

        output.stdout.print(f"memvault {__version__}", highlight=False)
        raise typer.Exit(0)


@app.callback()
def _root(
    ctx: typer.Context,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            envvar="MEMVAULT_HOME",
            help="Runtime root (default: the per-user data directory).",
        ),
    ] = None,
    orchestrator: Annotated[
        str,
        typer.Option(
            "--orchestrator", "-o", envvar="MEMVAULT_ORCHESTRATOR", help="Tenant to act on."
        ),
    ] = "default",
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print memvault's version and exit.",
        ),
    ] = False,
) -> None:
    ctx.obj = Settings(home, orchestrator)


def _file_or_none(path: str | Path | None) -> str | None:
    """``path`` when a database file is there, else ``None`` (a server-backed store)."""
    return str(path) if path is not None and Path(path).is_file() else None


def _print_write(result: WriteResult, as_json: bool, verb: str) -> None:
    if as_json:
        output.emit_json(result.to_json())
    elif result.ok:
        target = result.edge_id or result.memory_id
        if len(result.parts) > 1:  # a long text stored as several memories
            target = f"{target} and {len(result.parts) - 1} more ({', '.join(result.parts[1:])})"
        output.stdout.print(f"{verb} {target} ({result.stop_reason.value})", highlight=False)
    else:
        output.error(f"{result.stop_reason.value}: {result.reason}")
    if not result.ok:
        # A store that could not take the write is "unavailable" (4), not a refusal (1).
        raise typer.Exit(EXIT_UNAVAILABLE if result.store_unavailable else EXIT_REFUSED)


@app.command()
def init(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Create the orchestrator's runtime folders and database."""
    with _engine(ctx, create=True) as engine:
        layout = engine.layout
        assert layout is not None
        data = {
            "orchestrator": engine.orchestrator,
            "home": str(layout.home),
            "store": ctx.obj.backend,
            # Trigger: a store that keeps no file here (store.backend = "postgres").
            # Why: printing a path that was never made sends people looking for it.
            # Outcome: the database file when there is one, else null.
            "db_path": _file_or_none(layout.db_path),
            # Where the data lives, safe to print (a PostgreSQL DSN without its password).
            "location": engine.store.location,
            "ingest_dir": str(layout.ingest_dir),
            "log_path": str(layout.log_path),
        }
    if as_json:
        output.emit_json(data)
    else:
        output.print_mapping("memvault runtime", data)


#: Help of the ``add`` options (the options themselves are ``NewMemory``'s fields).
_ADD_HELP = {
    "type": "Fact, Preference, Decision, …",
    "category": "Governance category.",
    "source_kind": "USER_EXPLICIT, SYSTEM_KNOWN, CITED_SOURCE.",
    "importance": "0..100",
    "confidence": "0..1",
    "key": "Key within the category.",
    "value": "Value for the key.",
    "summary": "Short summary.",
    "ttl_class": "SHORT, MEDIUM, LONG (default: the longest the category allows).",
    "pinned": "Never expire.",
}


@app.command()
@options_from(NewMemory, skip={"content"}, help=_ADD_HELP, unset={"ttl_class"})
def add(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The memory, as a plain sentence.")],
    *,
    as_json: JsonFlag = False,
    **fields: Any,
) -> None:
    """Store one memory; prints its stop reason and id."""
    with _engine(ctx) as engine:
        parsed = engine.new_memory({"content": text, **fields})
        result = parsed if isinstance(parsed, WriteResult) else engine.add(parsed)
    _print_write(result, as_json, "stored")


@app.command()
@options_from(
    MemoryPatch,
    help={**_ADD_HELP, "content": "The new text of the memory."},
    flags={"pinned": "--pinned/--unpinned"},
)
def update(
    ctx: typer.Context,
    memory_id: str,
    *,
    as_json: JsonFlag = False,
    **fields: Any,
) -> None:
    """Change fields of a memory."""
    changes = {k: v for k, v in fields.items() if v is not None}
    if not changes:
        _fail("nothing to update: give at least one field option", EXIT_USAGE)
    with _engine(ctx) as engine:
        patch = engine.memory_patch(memory_id, changes)
        result = patch if isinstance(patch, WriteResult) else engine.update(memory_id, patch)
    _print_write(result, as_json, "updated")


@app.command()
def supersede(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(help="The memory that is no longer current.")],
    by: Annotated[str, typer.Option("--by", help="The memory that replaces it.")],
    as_json: JsonFlag = False,
) -> None:
    """Mark a memory superseded by a newer one (Updates edge; kept, never deleted)."""
    with _engine(ctx) as engine:
        result = engine.supersede(memory_id, by=by)
    _print_write(result, as_json, "superseded")


def _status_command(name: str, done: str, doc: str) -> None:
    """``memvault NAME MEMORY_ID``: one status change of the engine (``engine.NAME``)."""

    def command(ctx: typer.Context, memory_id: str, as_json: JsonFlag = False) -> None:
        with _engine(ctx) as engine:
            result = getattr(engine, name)(memory_id)
        _print_write(result, as_json, done)

    command.__doc__ = doc
    app.command(name)(command)


for _name, _done, _doc in (
    ("delete", "deleted", "Soft-delete a memory (restorable until it is purged)."),
    ("restore", "restored", "Restore a soft-deleted memory."),
    ("retract", "retracted", "Retract a memory that was wrong (status retracted; audited, kept)."),
):
    _status_command(_name, _done, _doc)


@app.command()
def link(
    ctx: typer.Context,
    from_id: Annotated[str, typer.Argument(help="Source memory id.")],
    to_id: Annotated[str, typer.Argument(help="Target memory id.")],
    edge_type: Annotated[
        str, typer.Option("--type", help="RelatedTo, Updates, Contradicts, CausedBy, PartOf")
    ] = "RelatedTo",
    weight: Annotated[float, typer.Option(help="0..1")] = 1.0,
    reason: Annotated[str | None, typer.Option()] = None,
    as_json: JsonFlag = False,
) -> None:
    """Link two memories with a typed edge."""
    with _engine(ctx) as engine:
        result = engine.link(from_id, to_id, edge_type, weight=weight, reason=reason)
    _print_write(result, as_json, "linked")


def parse_moment(text: str, flag: str) -> datetime:
    """An ISO-8601 day or date-time given on the command line (UTC if it names no offset).

    A mistake exits 2 naming the flag: ``--updated-after is not an ISO-8601 moment``.

    >>> parse_moment("2026-01-31", "--x").isoformat()
    '2026-01-31T00:00:00+00:00'
    >>> parse_moment("2026-01-31T09:30:00+02:00", "--x").isoformat()
    '2026-01-31T09:30:00+02:00'
    """
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        _fail(
            f"{flag} is not an ISO-8601 moment: {text!r}",
            EXIT_USAGE,
            "e.g. 2026-01-31 or 2026-01-31T09:30:00Z",
        )
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def checked_user(user: str, flag: str = "--user") -> str:
    """A user id named on the command line, trimmed; refused (exit 2) when it cannot name a user.

    Trigger: ``--user ""``, ``--user " dana"`` or a pasted id with a line break.
    Why: no memory has a blank owner, so export would print an empty record set and
         forget would report "0 purged" — both read as "done" while nothing was; and
         " dana" is dana, as at every other entry point (model/validation.clean_user_id).
    Outcome: surrounding whitespace is trimmed; a blank, over-long or control-character
         id is one line naming the flag and the value, exit 2.

    >>> checked_user(" dana ")
    'dana'
    """
    from memvault.model.validation import clean_user_id

    try:
        trimmed = clean_user_id(user, flag)
    except ValidationFailed:
        trimmed = ""
    if not trimmed.isprintable() or not trimmed:
        _fail(
            f"{flag} is not a user id: {user!r}",
            EXIT_USAGE,
            "give 1-128 printable characters (surrounding spaces are trimmed)",
        )
    return trimmed


def known_categories(engine: MemoryEngine, names: Iterable[str]) -> None:
    """Refuse (exit 2, naming the known ones) a category the engine's contract does not have.

    Trigger: ``--category NOPE`` on a read (a typo, a made-up name).
    Why: an empty listing reads as "nothing stored"; HTTP answers 422 and MCP an
         error for the same read (the caller's one check, ``Caller.known``).
    Outcome: ValidationFailed, which ``_errors`` prints as one line, exit 2.
    """
    operator(engine).known(names)


def operator(engine: MemoryEngine) -> Caller:
    """The local operator as a caller: every category and every user (``--all-users``).

    A read by id naming ``user=`` reads as that user (``Caller.by_id_reader``).
    """
    from memvault.engine import Grant

    return engine.as_caller(Grant(agent="cli", all_users=True))


def granted_categories(text: str | None, contract: str) -> list[str] | None:
    """The categories of ``--categories A,B`` (a key's or the MCP tools' allowlist).

    Names are contract categories in any case, or the spec's aliases (``tasks`` →
    REMINDER and TODO, ``preferences`` → PREFERENCE); ``None`` is unrestricted.

    Trigger: ``--categories tasks`` or a typo such as ``--categories TODOS``.
    Why: the name was kept as given, so the key was limited to a category no
         memory can have and every call with it was refused (403) — a key that
         silently grants nothing.
    Outcome: aliases expand; a name the contract does not have, or none at all,
         is exit 2 naming the categories that exist.

    >>> granted_categories("tasks,goal", "19.1.0")
    ['GOAL', 'REMINDER', 'TODO']
    """
    if text is None:
        return None
    from memvault.engine import CATEGORY_ALIASES, load_contract

    known = frozenset(load_contract(contract).categories)
    names = [n.strip() for n in text.split(",") if n.strip()]
    expanded = {n: CATEGORY_ALIASES.get(n.lower(), frozenset({n.upper()})) for n in names}
    unknown = [n for n, cats in expanded.items() if not cats <= known]
    if unknown or not names:
        what = f"unknown category: {', '.join(unknown)}" if unknown else "no category named"
        _fail(
            f"--categories: {what}",
            EXIT_USAGE,
            f"use one of {', '.join(sorted(known))} (or an alias such as 'tasks'); "
            "leave out --categories for all",
        )
    return sorted(set().union(*expanded.values()))


@app.command()
def stats(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Counts of memories by status and type, edges, and the revision."""
    with _engine(ctx) as engine:
        data = engine.stats().to_json()
    if as_json:
        output.emit_json(data)
        return
    flat = {
        "orchestrator": data["orchestrator"],
        "database": data["db_path"] or data["location"],
        "revision": data["revision"],
        **{f"memories.{k}": v for k, v in data["memories"].items()},
        "edges": data["edges"],
        "history events": data["history_events"],
        "operations": data.get("operations", {}).get("by_node_op", {}),
    }
    output.print_mapping("memvault stats", flat)


def load_demo(engine: MemoryEngine) -> dict[str, str]:
    """Write the bundled sample (memories and edges) into ``engine``; return ref → id."""
    sample = json.loads(resources.files("memvault.cli").joinpath("demo_data.json").read_text())
    ids: dict[str, str] = {}
    for item in sample["memories"]:
        memory = NewMemory(**{k: v for k, v in item.items() if k != "ref"})
        ids[item["ref"]] = engine.add(memory).raise_for_status().memory_id or ""
    for edge in sample["edges"]:
        engine.link(
            ids[edge["from"]],
            ids[edge["to"]],
            edge["type"],
            weight=edge.get("weight", 1.0),
            reason=edge.get("reason"),
        ).raise_for_status()
    return ids


@app.command()
def demo(
    ctx: typer.Context,
    keep: Annotated[bool, typer.Option(help="Keep the temporary home and print its path.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Load a bundled sample into a temporary home and show recall."""
    from memvault.cli.reads_cmd import print_search
    from memvault.engine import MemoryEngine

    sample = json.loads(resources.files("memvault.cli").joinpath("demo_data.json").read_text())
    home = Path(tempfile.mkdtemp(prefix="memvault-demo-"))
    report: dict[str, Any] = {"home": str(home), "queries": []}
    try:
        with _errors(), MemoryEngine.open(home, ctx.obj.orchestrator) as engine:
            ids = load_demo(engine)
            report["memories"] = len(ids)
            report["stats"] = engine.stats().to_json()
            for query in sample["queries"]:
                report["queries"].append(engine.search(query, top_k=3).to_json())
    finally:
        if not keep:
            shutil.rmtree(home, ignore_errors=True)
    if as_json:
        output.emit_json(report)
        return
    output.stdout.print(
        f"Loaded {report['memories']} memories and "
        f"{report['stats']['edges']['total']} edges into {home}",
        highlight=False,
    )
    for result in report["queries"]:
        print_search(result, False)
    if keep:
        output.stdout.print(f"Kept: memvault --home {home} list", highlight=False)


#: Sub-command modules contributed by the rest of the codebase: ``(module, how)``
#: where ``how`` is "app" (``register(app)``), "plain" (``register()``, the
#: module imports the app itself) or "bench" (``register_bench(bench_app)``).
EXTENSIONS: tuple[tuple[str, str], ...] = (
    ("reads_cmd", "app"),
    ("policy_cmd", "app"),
    ("lifecycle_cmd", "plain"),
    ("ingest_cmd", "plain"),
    ("capture_cmd", "plain"),
    ("config_cmd", "app"),
    ("keys_cmd", "app"),
    ("serve_cmd", "app"),
    ("inspector_cmd", "bench"),
    ("context_cmd", "plain"),
    ("retrieval_cmd", "bench"),
    ("peers_cmd", "bench"),
    ("contention_cmd", "bench"),
    ("langgraph_cmd", "bench"),
    ("embed_cmd", "bench"),
    ("agent_cmd", "plain"),
)


def _register_extensions() -> None:
    """Register every extension module that is present in this installation.

    Trigger: sub-commands live in their own modules, added over time.
    Why: a checkout that lacks one module (a partial install, a branch) must
    still have a working CLI; a module that exists but fails to import is a
    real bug and must fail loudly.
    Outcome: absent modules are skipped; present ones always register.
    """
    import importlib
    import importlib.util

    for name, how in EXTENSIONS:
        qualified = f"memvault.cli.{name}"
        if importlib.util.find_spec(qualified) is None:
            continue
        module = importlib.import_module(qualified)
        if how == "app":
            module.register(app)
        elif how == "bench":
            module.register_bench(bench_app)
        else:
            module.register()


_register_extensions()


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive
        raise SystemExit(130) from None
