"""CLI skins for the lifecycle: ``lifecycle``, ``proposals``, ``audit``, ``export``, ``forget``.

Each command parses, makes one engine call and prints (``--json`` for machines):

- ``memvault lifecycle run [--now ISO-8601] --json`` — what the TTL sweep and
  purge changed (``counts``, ``soft_deleted``, ``purged``, ``proposals_expired``).
- ``memvault lifecycle consolidate [--now ISO-8601] --json`` — what the
  consolidation worker merged, linked, contradicted and proposed.
- ``memvault proposals list | confirm ID | reject ID`` — consent proposals.
- ``memvault audit verify`` — exit 0 when the hash chain holds, 1 (and the
  first broken row) when it does not.
- ``memvault export --user U`` — JSON Lines on stdout (right of access).
- ``memvault forget --user U [--yes] [--json]`` — purge a user's memories; print counts
  (asks first; ``--yes`` is needed when stdin is not a terminal; ``--json`` never asks).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memvault.cli import output
from memvault.cli.app import (
    EXIT_NOT_FOUND,
    EXIT_REFUSED,
    EXIT_USAGE,
    _engine,
    _fail,
    _print_write,
    checked_user,
    parse_moment,
)
from memvault.cli.app import app as root_app
from memvault.cli.confirm import confirm
from memvault.cli.options import JsonFlag, YesFlag
from memvault.model.enums import HistoryOp, MemoryStatus

if TYPE_CHECKING:  # the engine is imported when a command runs (cli/app.py)
    from memvault.engine import MemoryEngine

__all__ = ["register"]

lifecycle_app = typer.Typer(help="TTL sweep, purge and consolidation.", no_args_is_help=True)
proposals_app = typer.Typer(help="Consent proposals: list, confirm, reject.", no_args_is_help=True)
audit_app = typer.Typer(help="The tamper-evident audit log.", no_args_is_help=True)

NowOpt = Annotated[
    str | None,
    typer.Option("--now", help="Act as if it were this moment (ISO-8601, UTC if no offset)."),
]


def _parse_now(text: str | None) -> datetime | None:
    return None if text is None else parse_moment(text, "--now")


def _dated_pass(
    ctx: typer.Context, as_json: bool, title: str, run: Callable[[MemoryEngine], Any]
) -> dict[str, Any] | None:
    """Run one dated engine pass (its result has ``to_json()`` with ``now`` and ``counts``).

    ``--json`` prints the whole report and returns None; otherwise the counts are
    printed under "<title> at <now>" and the report is returned for more detail.
    """
    with _engine(ctx) as engine:
        report: dict[str, Any] = run(engine).to_json()
    if as_json:
        output.emit_json(report)
        return None
    output.print_mapping(f"{title} at {report['now']}", report["counts"])
    return report


@lifecycle_app.command("run")
def lifecycle_run(
    ctx: typer.Context, now: NowOpt = None, yes: YesFlag = False, as_json: JsonFlag = False
) -> None:
    """Expire proposals, soft-delete idle memories (TTL), purge what is due.

    A --now later than the clock purges early, so it asks first (--yes skips the
    question); a run at the real time (cron) and --json never ask.
    """
    moment = _parse_now(now)
    if moment is not None and moment > datetime.now(UTC):
        confirm(
            "a lifecycle run dated in the future",
            f"Act as if it were {moment.isoformat()}, in the future: memories are soft-deleted "
            "and purged early, and a purge cannot be undone. Go on?",
            yes=yes,
            as_json=as_json,
        )
    report = _dated_pass(ctx, as_json, "lifecycle run", lambda e: e.run_lifecycle(now=moment))
    if report is None:
        return
    rows = [("soft_deleted", t["memory_id"], t["reason"]) for t in report["soft_deleted"]]
    rows += [("purged", t["memory_id"], t["reason"]) for t in report["purged"]]
    if rows:
        output.print_table("changes", ["transition", "memory", "reason"], rows)


@lifecycle_app.command("insights")
def insights(
    ctx: typer.Context,
    user: Annotated[str, typer.Option("--user", help="Whose memories to read.")],
    as_json: JsonFlag = False,
) -> None:
    """Propose insights (a recurring preference, a working pattern) for the user's consent."""
    user = checked_user(user)
    with _engine(ctx) as engine:
        results = engine.propose_insights(user)
    data = [r.to_json() for r in results]
    if as_json:
        output.emit_json({"proposals": data})
        return
    output.print_table(
        f"{len(data)} insight proposal(s) for {user}",
        ["proposal", "stop reason", "reason"],
        [(d["proposal_id"] or "-", d["stop_reason"], d["reason"]) for d in data],
    )


@lifecycle_app.command("consolidate")
def lifecycle_consolidate(
    ctx: typer.Context, now: NowOpt = None, as_json: JsonFlag = False
) -> None:
    """Merge, link or propose similar memory pairs (capped per user per day)."""
    moment = _parse_now(now)
    _dated_pass(ctx, as_json, "consolidation", lambda e: e.consolidate(now=moment))


@contextmanager
def _deciding(ctx: typer.Context) -> Iterator[MemoryEngine]:
    """The engine for a decision on a proposal; one that cannot be decided exits 3 or 2."""
    from memvault.engine import ProposalError

    with _engine(ctx) as engine:
        try:
            yield engine
        except ProposalError as exc:
            code = EXIT_NOT_FOUND if "does not exist" in exc.problem else EXIT_USAGE
            _fail(str(exc), code, exc.hint)


@proposals_app.command("list")
def proposals_list(
    ctx: typer.Context,
    status: Annotated[
        str | None,
        typer.Option(help="pending, confirmed, refused, rejected or expired (default: all)."),
    ] = None,
    user_id: Annotated[str | None, typer.Option("--user-id")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Consent proposals, oldest first."""
    from memvault.engine import proposal_json

    with _engine(ctx) as engine:
        try:
            found = engine.proposals(status=status, user_id=user_id)
        except ValueError:
            _fail(f"unknown status {status!r}", EXIT_USAGE)
    data = [proposal_json(p) for p in found]
    if as_json:
        output.emit_json({"proposals": data})
        return
    output.print_table(
        f"{len(data)} proposals",
        ["id", "kind", "status", "user", "expires", "content"],
        [
            (
                p["proposal_id"],
                p["kind"],
                p["status"],
                p["user_id"],
                p["expires_at"],
                p["candidate"].get("content", ""),
            )
            for p in data
        ],
    )


@proposals_app.command("confirm")
def proposals_confirm(ctx: typer.Context, proposal_id: str, as_json: JsonFlag = False) -> None:
    """The user consents: store the proposal as USER_EXPLICIT through the gate."""
    with _deciding(ctx) as engine:
        result = engine.confirm_proposal(proposal_id)
    _print_write(result, as_json, "stored")


@proposals_app.command("reject")
def proposals_reject(ctx: typer.Context, proposal_id: str, as_json: JsonFlag = False) -> None:
    """The user declines: nothing is stored and the proposal's text is dropped."""
    from memvault.engine import proposal_json

    with _deciding(ctx) as engine:
        proposal = engine.reject_proposal(proposal_id)
    if as_json:
        output.emit_json(proposal_json(proposal))
    else:
        output.stdout.print(f"rejected {proposal.proposal_id}", highlight=False)


@audit_app.command("verify")
def audit_verify(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Check the audit chain, the live rows against it and the anchor file; exit 1 when broken.

    Reports the first edited or removed history row, the first memory row whose
    content no longer matches the digest its last audited write recorded, or a
    database behind its anchor file (restored from an older copy).
    """
    with _engine(ctx) as engine:
        report = engine.verify_audit()
    data = report.to_json()
    if as_json:
        output.emit_json(data)
    elif report.ok:
        anchor = {True: "matches its anchor", False: "", None: "no anchor file"}
        older = report.rows_unverified
        output.stdout.print(
            f"audit chain holds: {report.events} events, head {report.head_hash}; "
            f"{report.rows_checked} rows match their digests"
            + (f", {older} written before digests" if older else "")
            + f"; {anchor[report.anchor_checked]}",
            highlight=False,
        )
    if not report.ok:
        broken = data["first_broken"]
        memory, event = broken["memory_id"], broken["event_id"]
        where = f"memory {memory}" if memory else f"event {event}"
        output.error(f"audit broken at row {broken['position']} ({where}): {broken['reason']}")
        raise typer.Exit(EXIT_REFUSED)


@audit_app.command("anchor")
def audit_anchor(
    ctx: typer.Context,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the anchor JSON to this file.")
    ] = None,
) -> None:
    """Print the anchor (store identity, revision, audit head) kept outside the database.

    Keep a copy elsewhere: a later ``audit verify`` against a restored database,
    or a comparison with this copy, shows a rollback of the whole store.
    """
    with _engine(ctx) as engine:
        anchor = engine.audit_anchor()
    if anchor is None:
        output.error("no anchor file for this orchestrator")
        raise typer.Exit(EXIT_REFUSED)
    data = anchor.to_json()
    if out is not None:
        out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    output.emit_json(data)


@audit_app.command("refusals")
def audit_refusals(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", help="At most this many, newest first.")] = 50,
    as_json: JsonFlag = False,
) -> None:
    """Refused writes, newest first, each consent refusal with what became of it.

    A consent-gated write is refused (``MISSING_EXPLICIT_CONSENT``) and queued; the
    refusal rows stay when the user later confirms, and the confirmation — the
    memory's CREATE row — is shown beside them (``confirmed as mem_…``).
    """
    from memvault.engine import consent_links

    with _engine(ctx) as engine:
        events = engine.audit_events(ops=[HistoryOp.REFUSE], limit=max(1, limit))
        links = consent_links(engine.proposals())
    rows: list[dict[str, Any]] = []
    for e in events:
        pid = e.detail.get("proposal_id")
        rows.append(
            {
                "at": e.at,
                "stop_reason": e.stop_reason.value if e.stop_reason else None,
                "detector": e.detector,
                "proposal_id": pid,
                "consent": links.get(str(pid)) if pid else None,
                "detail": dict(e.detail),
            }
        )
    if as_json:
        output.emit_json({"refusals": rows})
        return

    def outcome(row: dict[str, Any]) -> str:
        link = row["consent"]
        if not link:
            return "pending" if row["proposal_id"] else ""
        memory = f" as {link['memory_id']}" if link.get("memory_id") else ""
        return f"{link['status']}{memory}"

    output.print_table(
        f"{len(rows)} refusals (newest first)",
        ["at", "stop reason", "detector", "proposal", "then"],
        [
            (
                r["at"][:19],
                r["stop_reason"] or "",
                r["detector"] or "",
                r["proposal_id"] or "",
                outcome(r),
            )
            for r in rows
        ],
    )


def export(
    ctx: typer.Context,
    user: Annotated[str, typer.Option("--user", help="The user whose data to export.")],
) -> None:
    """Right of access: a user's memories, edges, history, proposals, seen-marks (JSON Lines)."""
    user = checked_user(user)
    with _engine(ctx) as engine:
        for record in engine.export_user(user):
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def import_(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help="A file `memvault export` wrote (JSON Lines); - reads stdin.")
    ],
    user: Annotated[
        str | None,
        typer.Option("--user", help="Import as this user (default: the export's user)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Write back what `export` wrote: the user's active memories and their edges.

    Each memory goes through the write path again (the gate judges it, it gets a
    new id); a memory the user already holds is counted (memory:already_held),
    not written again, so a second import writes nothing; history, proposals and
    seen-marks are counted, not replayed. A bad
    line is named and nothing is stored (exit 2); memories the gate refuses are
    counted (exit 1).
    """
    if user is not None:
        user = checked_user(user)
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {file}: {exc}", EXIT_USAGE)
    with _engine(ctx) as engine:
        report = engine.import_user(text.splitlines(), user_id=user)
    data = report.to_json()
    if as_json:
        output.emit_json(data)
    else:
        data.pop("ids")
        output.print_mapping(f"imported user {report.user_id}", data)
    if report.refused:
        raise typer.Exit(EXIT_REFUSED)


def forget(
    ctx: typer.Context,
    user: Annotated[str, typer.Option("--user", help="The user whose data to erase.")],
    yes: YesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Right to erasure: purge a user's memories and proposals; print counts and the verdict.

    Asks first (it cannot be undone); --yes skips the question, and is needed
    when stdin is not a terminal. --json never asks (it is for programs).
    """
    user = checked_user(user)
    with _engine(ctx) as engine:
        if not (yes or as_json):
            held = engine.count_memories({"user_id": user, "status": list(MemoryStatus)})
            confirm(
                f"erasing user {user!r}",
                f"Erase user {user!r} of orchestrator {engine.orchestrator!r} ({held} "
                "memories, their proposals and every copy)? This cannot be undone.",
                yes=yes,
            )
        report = engine.forget_user(user)
    data: dict[str, Any] = report.to_json()
    if as_json:
        output.emit_json(data)
    else:
        output.print_mapping(f"forgot user {user}", data)
    if report.remaining or not report.audit.ok:
        raise typer.Exit(EXIT_REFUSED)


def register(app: typer.Typer | None = None) -> None:
    """Add the lifecycle commands to ``memvault`` (or to ``app``)."""
    target = app or root_app
    target.add_typer(lifecycle_app, name="lifecycle")
    target.add_typer(proposals_app, name="proposals")
    target.add_typer(audit_app, name="audit")
    target.command("export")(export)
    target.command("import")(import_)
    target.command("forget")(forget)
