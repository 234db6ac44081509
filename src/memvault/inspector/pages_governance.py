"""Timeline, refusals, consent, bulletin, ingest and audit (export, forget)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from memvault.inspector import params as p
from memvault.inspector.source import PAGE_MAX
from memvault.inspector.web import WRITE, Ctx, PageError, memory_url, page, redirect
from memvault.model.enums import HistoryOp
from memvault.store.records import ProposalStatus

__all__ = ["routes"]

OPS = [o.value for o in HistoryOp]
PROPOSAL_STATUSES = [s.value for s in ProposalStatus]
_PROPOSAL_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")
_THREAD = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")


def timeline(ctx: Ctx) -> Response:
    user = p.text(ctx.params, "user")
    op = p.choice(ctx.params, "op", OPS)
    number = p.integer(ctx.params, "page", 1, PAGE_MAX, 1)
    found = ctx.source.timeline(user_id=user, op=HistoryOp(op) if op else None, page=number)
    by_day: dict[str, dict[str, int]] = {}
    for event in found.rows:
        day = by_day.setdefault(event.at[:10], {})
        day[event.op.value] = day.get(event.op.value, 0) + 1
    ids = sorted({e.memory_id for e in found.rows if e.memory_id})
    asked = {str(e.detail["proposal_id"]) for e in found.rows if e.detail.get("proposal_id")}
    return ctx.render(
        "timeline.html",
        nav="timeline",
        peers={n.memory_id: n for n in ctx.source.nodes(ids, user)},
        consent=ctx.source.consent_outcomes(asked) if asked else {},
        user=user or "",
        op=op or "",
        ops=OPS,
        found=found,
        by_day=by_day,
        here={"user": user, "op": op},
    )


def refusals(ctx: Ctx) -> Response:
    days = p.integer(ctx.params, "days", 1, 3650, 30)
    stats = ctx.source.refusals(days=days)
    peak = max((sum(c.values()) for c in stats.by_day.values()), default=0)
    return ctx.render("refusals.html", nav="refusals", stats=stats, days=days, peak=peak)


def consent(ctx: Ctx) -> Response:
    status = p.choice(ctx.params, "status", PROPOSAL_STATUSES) or "pending"
    user = p.text(ctx.params, "user")
    number = p.integer(ctx.params, "page", 1, PAGE_MAX, 1)
    found = ctx.source.proposals(status=status, user_id=user, page=number)
    outcome = None
    if ctx.params.get("done") in ("confirmed", "rejected"):
        outcome = ctx.params.get("done")
    return ctx.render(
        "consent.html",
        nav="consent",
        found=found,
        evidence=ctx.source.evidence(found.rows),
        status=status,
        statuses=PROPOSAL_STATUSES,
        user=user or "",
        outcome=outcome,
        here={"status": status, "user": user},
    )


def _proposal_id(ctx: Ctx) -> str:
    proposal_id = str(ctx.request.path_params["proposal_id"])
    if not _PROPOSAL_ID.match(proposal_id):
        raise PageError(422, "Bad parameter", "that is not a proposal id")
    return proposal_id


def confirm(ctx: Ctx) -> Response:
    proposal_id = _proposal_id(ctx)
    result = ctx.source.confirm(proposal_id, p.text(ctx.params, "user"))
    if not result.ok:
        raise PageError(
            422,
            f"Refused by the gate: {result.stop_reason.value}",
            f"The user's consent was recorded, but the write gate refused the memory"
            f"{': ' + result.reason if result.reason else ''}"
            f"{' (detector ' + result.detector + ')' if result.detector else ''}.",
        )
    if result.memory_id is None:
        return redirect("/consent?done=confirmed")
    # the confirmed memory is the proposal's user's: its page reads as that user
    return redirect(memory_url(result.memory_id, p.text(ctx.params, "user"), done="confirmed"))


def reject(ctx: Ctx) -> Response:
    ctx.source.reject(_proposal_id(ctx), p.text(ctx.params, "user"))
    return redirect("/consent?done=rejected")


def bulletin(ctx: Ctx) -> Response:
    thread = p.text(ctx.params, "thread") or "default"
    if not _THREAD.match(thread):
        raise PageError(422, "Bad parameter", "thread may hold letters, digits and _ . : - only")
    message = p.text(ctx.params, "message", max_len=2000)
    user = p.text(ctx.params, "user")
    everyone = p.choice(ctx.params, "all_users", ["1"]) == "1"
    if user is not None and everyone:
        raise PageError(422, "Bad parameter", "name a user or ask for all users, not both")
    seen = ctx.source.bulletin(thread_id=thread, message=message, user=user, all_users=everyone)
    return ctx.render(
        "bulletin.html",
        nav="bulletin",
        thread=thread,
        message=message or "",
        user=user or "",
        all_users=everyone,
        seen=seen,
    )


def ingest(ctx: Ctx) -> Response:
    status = p.choice(ctx.params, "status", ["processed", "rejected"])
    number = p.integer(ctx.params, "page", 1, PAGE_MAX, 1)
    found = ctx.source.manifests(status=status, page=number)
    return ctx.render(
        "ingest.html",
        nav="ingest",
        found=found,
        status=status or "",
        counts=ctx.source.ingest_counts(),
        here={"status": status},
    )


def audit(ctx: Ctx) -> Response:
    events, head = ctx.source.audit_head()
    report = ctx.source.verify() if ctx.params.get("verify") == "1" else None
    return ctx.render("audit.html", nav="audit", events=events, head=head, report=report)


def _user(ctx: Ctx, *, confirmed: str = "") -> str:
    """The form's user id; with ``confirmed``, it must have been typed again."""
    user = p.text(ctx.form, "user")
    if user is None:
        raise PageError(422, "Bad parameter", "give the user id")
    if confirmed and ctx.form.get("confirm") != user:
        raise PageError(422, "Not confirmed", f"type the user id again to confirm the {confirmed}")
    return user


def export_confirm(ctx: Ctx) -> Response:
    """Step one of an export: say what will be exported and ask again."""
    return ctx.render("confirm.html", nav="audit", action="export", user=_user(ctx))


def export_run(ctx: Ctx) -> Response:
    user = _user(ctx, confirmed="export")
    records = ctx.source.export(user)

    def lines() -> Iterator[bytes]:
        for record in records:
            yield (json.dumps(record, sort_keys=True) + "\n").encode()

    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", user)[:64]
    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="memvault-export-{safe}.jsonl"'},
    )


def forget_confirm(ctx: Ctx) -> Response:
    """Step one of an erasure (read-only keys never get here: the route writes)."""
    return ctx.render("confirm.html", nav="audit", action="forget", user=_user(ctx))


def forget_run(ctx: Ctx) -> Response:
    user = _user(ctx, confirmed="erasure")
    report = ctx.source.forget(user)
    events, head = ctx.source.audit_head()
    return ctx.render(
        "audit.html", nav="audit", events=events, head=head, report=report.audit, forgot=report
    )


def routes() -> list[Route]:
    return [
        page("/timeline", timeline),
        page("/refusals", refusals),
        page("/consent", consent),
        page("/consent/{proposal_id}/confirm", confirm, **WRITE),
        page("/consent/{proposal_id}/reject", reject, **WRITE),
        page("/bulletin", bulletin),
        page("/ingest", ingest),
        page("/audit", audit),
        page("/audit/export", export_confirm, methods=("POST",)),
        page("/audit/export/run", export_run, methods=("POST",)),
        page("/audit/forget", forget_confirm, **WRITE),
        page("/audit/forget/run", forget_run, **WRITE),
    ]
