"""Memories (search and filters), one memory (with its actions) and the graph."""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memvault.inspector import params as p
from memvault.inspector.source import PAGE_MAX
from memvault.inspector.web import WRITE, Ctx, Handler, PageError, memory_url, page, redirect
from memvault.model.enums import MemoryStatus, MemoryType
from memvault.results import WriteResult

__all__ = ["routes"]

TYPES = [t.value for t in MemoryType]
STATUSES = [s.value for s in MemoryStatus]
_CATEGORY = re.compile(r"^[A-Z_]{1,32}$")
_MEMORY_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")
DONE = {
    "deleted": "Soft-deleted: recall no longer returns it; restorable until its purge date.",
    "restored": "Restored: the memory is active again.",
    "updated": "Updated through the write gate.",
}


def _filters(ctx: Ctx) -> tuple[dict[str, Any], dict[str, Any]]:
    """The filters of the memories page, and the same as query-string values."""
    q = ctx.params
    raw = [c for value in q.getlist("category") for c in value.split(",")]
    categories = [c.strip().upper() for c in raw if c.strip()]
    bad = [c for c in categories if not _CATEGORY.match(c)]
    if bad:
        raise PageError(422, "Bad parameter", f"category {bad[0][:40]!r} is not a category name")
    lo = p.integer(q, "importance_min", 0, 100, None)
    hi = p.integer(q, "importance_max", 0, 100, None)
    if lo is not None and hi is not None and lo > hi:
        raise PageError(422, "Bad parameter", "importance_min is above importance_max")
    shown = {
        "user": p.text(q, "user"),
        "project": p.text(q, "project"),
        "type": p.choices(q.getlist("type"), "type", TYPES),
        "category": categories,
        "status": p.choices(q.getlist("status"), "status", STATUSES),
        "importance_min": lo,
        "importance_max": hi,
    }
    filters = {
        "user_id": shown["user"],
        "project_id": shown["project"],
        "type": shown["type"],
        "category": categories,
        "status": shown["status"],
        "importance_min": lo,
        "importance_max": hi,
    }
    return filters, shown


def memories(ctx: Ctx) -> Response:
    filters, shown = _filters(ctx)
    query = p.text(ctx.params, "q", max_len=2000)
    number = p.integer(ctx.params, "page", 1, PAGE_MAX, 1)
    legs: Any = ()
    if query is not None:
        found, legs = ctx.source.search(query, filters, page=number)
    else:
        found = ctx.source.memories(filters, page=number)
    return ctx.render(
        "memories.html",
        nav="memories",
        q=query or "",
        shown=shown,
        found=found,
        legs=legs,
        searching=query is not None,
        types=TYPES,
        statuses=STATUSES,
        revision=ctx.source.revision(),
        here={**shown, "q": query},
    )


def _memory_id(ctx: Ctx) -> str:
    memory_id = str(ctx.request.path_params["memory_id"])
    if not _MEMORY_ID.match(memory_id):
        raise PageError(422, "Bad parameter", "that is not a memory id")
    return memory_id


def _page_user(ctx: Ctx) -> str | None:
    """The user a memory page reads as (``?user=``, carried by every link to it)."""
    return p.text(ctx.params, "user")


def _memory_page(ctx: Ctx, memory_id: str, *, code: int = 200, **extra: Any) -> Response:
    user = _page_user(ctx)
    node, edges, peers = ctx.source.memory(memory_id, user)
    done = DONE.get(ctx.params.get("done") or "")
    return ctx.render(
        "memory.html",
        code=code,
        nav="memories",
        node=node,
        edges=edges,
        peers=peers,
        history=ctx.source.history(memory_id, user),
        done=done,
        types=TYPES,
        user=user,
        **extra,
    )


def memory(ctx: Ctx) -> Response:
    return _memory_page(ctx, _memory_id(ctx))


def _refused(ctx: Ctx, memory_id: str, what: str, result: WriteResult) -> Response:
    return _memory_page(ctx, memory_id, code=422, refused={"what": what, **result.to_json()})


def _lifecycle(what: str, done: str) -> Handler:
    """A soft delete or a restore: one gated write, then back to the memory."""

    def handler(ctx: Ctx) -> Response:
        memory_id = _memory_id(ctx)
        act = ctx.source.delete if what == "delete" else ctx.source.restore
        result = act(memory_id, _page_user(ctx))
        if not result.ok:
            return _refused(ctx, memory_id, what, result)
        return redirect(memory_url(memory_id, _page_user(ctx), done=done))

    return handler


def edit(ctx: Ctx) -> Response:
    """Change content, importance, confidence, category or pinned (only what changed)."""
    memory_id = _memory_id(ctx)
    node, _, _ = ctx.source.memory(memory_id, _page_user(ctx))
    form = ctx.form
    changes: dict[str, Any] = {}
    content = (form.get("content") or "").strip()
    if content and content != node.content:
        changes["content"] = content
    importance = p.integer(form, "importance", 0, 100, None)
    if importance is not None and importance != node.importance:
        changes["importance"] = importance
    confidence = p.number(form, "confidence", 0.0, 1.0)
    if confidence is not None and confidence != node.confidence:
        changes["confidence"] = confidence
    category = (form.get("category") or "").strip().upper()
    if category and category != node.category:
        changes["category"] = category
    pinned = form.get("pinned") == "on"
    if "pinned_shown" in form and pinned != node.pinned:
        changes["pinned"] = pinned
    if not changes:
        raise PageError(422, "Nothing to change", "the form changes no field of this memory")
    result = ctx.source.update(memory_id, changes, _page_user(ctx))
    if not result.ok:
        return _refused(ctx, memory_id, "edit", result)
    return redirect(memory_url(memory_id, _page_user(ctx), done="updated"))


def _graph_target(ctx: Ctx) -> tuple[str | None, str | None]:
    memory_id = p.text(ctx.params, "memory")
    user = p.text(ctx.params, "user")
    if memory_id is not None and not _MEMORY_ID.match(memory_id):
        raise PageError(422, "Bad parameter", "memory is not a memory id")
    return memory_id, user  # both: the graph around the memory, read as the user


def graph(ctx: Ctx) -> Response:
    memory_id, user = _graph_target(ctx)
    data = None
    ctx.source.open()
    if memory_id is not None or user is not None:
        data = ctx.source.graph(memory_id=memory_id, user_id=user).to_json()
    return ctx.render("graph.html", nav="graph", memory=memory_id, user=user, data=data)


def graph_data(ctx: Ctx) -> Response:
    memory_id, user = _graph_target(ctx)
    if memory_id is None and user is None:
        raise PageError(422, "Bad parameter", "give memory=<id> or user=<user id>")
    return JSONResponse(ctx.source.graph(memory_id=memory_id, user_id=user).to_json())


def routes() -> list[Route]:
    return [
        page("/", memories),
        page("/memory/{memory_id}", memory),
        page("/memory/{memory_id}/delete", _lifecycle("delete", "deleted"), **WRITE),
        page("/memory/{memory_id}/restore", _lifecycle("restore", "restored"), **WRITE),
        page("/memory/{memory_id}/edit", edit, **WRITE),
        page("/graph", graph),
        page("/graph/data", graph_data),
    ]
