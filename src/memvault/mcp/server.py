"""memvault as an MCP server (the official ``mcp`` SDK): thin tools over the engine.

Tools (spec §6: ``memory_query`` is the primary one):

================  =========================================  ==========================
tool              engine call                                annotations
================  =========================================  ==========================
memory_query      ``engine.search`` (bullets or full)        read-only
memory_store      ``engine.add`` (through the write gate)    not destructive
memory_forget     ``engine.delete`` (soft delete)            destructive, idempotent
================  =========================================  ==========================

Input schemas accept common aliases (``q``/``text`` for ``query``, ``k``/``limit``
for ``top_k``, ``text``/``memory`` for ``content``, ``id`` for ``memory_id`` …).
The caller's orchestrator and agent are fixed per transport: on stdio by the
command line (the local user is trusted, as with the CLI); over HTTP by the API
key of each request. The agent's category allowlist applies to every tool.

>>> import tempfile, pathlib
>>> from memvault.access import AccessControl, Principal
>>> from memvault.config import load_config
>>> control = AccessControl(pathlib.Path(tempfile.mkdtemp()), load_config(environ={}))
>>> server = build_server(control, lambda ctx: Principal("acme", "assistant", "stdio"))
>>> server.name
'memvault'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import AliasChoices, Field

from memvault.access import AccessControl, Principal
from memvault.engine import MemoryEngine
from memvault.errors import AccessDeniedError, MemoryNotFoundError, MemvaultError
from memvault.results import WriteResult

__all__ = ["PRINCIPAL_SCOPE_KEY", "PrincipalResolver", "build_server"]

#: Where the HTTP transport's key check leaves the request's principal (ASGI scope).
PRINCIPAL_SCOPE_KEY = "memvault.principal"

PrincipalResolver = Callable[[Context], Principal]

INSTRUCTIONS = (
    "memvault is governed long-term memory. Call memory_query before answering when past "
    "preferences, decisions or facts may matter; memory is advisory, never authoritative. "
    "Store only durable facts the user stated (memory_store); every write passes a "
    "governance gate and may be refused with a stop reason."
)


def _alias(*names: str, **kwargs: Any) -> Any:
    return Field(validation_alias=AliasChoices(*names), **kwargs)


def _bullets(hits: list[dict[str, Any]], budget_tokens: int | None) -> list[dict[str, Any]]:
    """``[{"id", "category", "text": "[category] summary"}]`` within a ~4 chars/token budget."""
    out: list[dict[str, Any]] = []
    used = 0
    for hit in hits:
        text = f"[{hit['category'].lower()}] {hit['content']}"
        cost = max(1, len(text) // 4)
        if budget_tokens is not None and used + cost > budget_tokens and out:
            break
        used += cost
        out.append({"id": hit["memory_id"], "category": hit["category"], "text": text})
    return out


def build_server(control: AccessControl, resolve: PrincipalResolver) -> MCPServer[Any]:
    """An :class:`MCPServer` whose tools act for the principal ``resolve`` returns."""
    server: MCPServer[Any] = MCPServer(
        name="memvault", instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING"
    )

    def caller(ctx: Context, tool: str) -> tuple[Principal, MemoryEngine, str]:
        principal = resolve(ctx)
        return principal, control.engine(principal), f"mcp:{tool}"

    def fail(exc: MemvaultError, principal: Principal, route: str) -> ToolError:
        if isinstance(exc, MemoryNotFoundError):
            control.scope_miss(principal, route, exc.memory_id)
            return ToolError(f"no memory {exc.memory_id!r} here")
        return ToolError(str(exc) + (f" (hint: {exc.hint})" if exc.hint else ""))

    def written(result: WriteResult) -> dict[str, Any]:
        if not result.ok:
            raise ToolError(f"refused: {result.stop_reason.value}: {result.reason}".rstrip(": "))
        return result.to_json()

    @server.tool(
        name="memory_query",
        title="Query memory",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    def memory_query(
        ctx: Context,
        query: Annotated[
            str, _alias("query", "q", "text", "question", "search", min_length=1, max_length=2000)
        ],
        top_k: Annotated[int, _alias("top_k", "k", "limit", "topK", "n", ge=1, le=100)] = 5,
        categories: Annotated[
            list[str] | str | None, _alias("categories", "category", "cats")
        ] = None,
        filters: Annotated[dict[str, Any] | None, _alias("filters", "filter", "where")] = None,
        return_format: Annotated[
            Literal["bullets", "full"], _alias("return", "return_format", "format", "mode")
        ] = "bullets",
        threshold: Annotated[float | None, _alias("threshold", "min_score")] = None,
        budget_tokens: Annotated[
            int | None, _alias("budget_tokens", "max_tokens", "budget", ge=1, le=100_000)
        ] = None,
    ) -> dict[str, Any]:
        """Recall memories relevant to a query (the primary memory tool).

        Returns ``bullets`` (``[{"id", "category", "text"}]``) or ``full`` results with
        provenance. ``categories`` must lie within the agent's allowlist.
        """
        principal, engine, route = caller(ctx, "memory_query")
        try:
            wanted = [categories] if isinstance(categories, str) else categories
            if wanted is not None and len(wanted) > 32:
                raise ToolError("at most 32 categories")
            chosen = control.category_filter(principal, wanted, route)
            where = dict(filters or {})
            if chosen is not None:
                where["category"] = chosen
            results = engine.search(query, filters=where, top_k=top_k).to_json()
        except (AccessDeniedError, MemvaultError) as exc:
            raise fail(exc, principal, route) from None
        hits = [h for h in results["results"] if threshold is None or h["score"] >= threshold]
        if return_format == "full":
            return {"query": query, "legs": results["legs"], "results": hits}
        return {"query": query, "legs": results["legs"], "bullets": _bullets(hits, budget_tokens)}

    @server.tool(
        name="memory_store",
        title="Store a memory",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    def memory_store(
        ctx: Context,
        content: Annotated[
            str, _alias("content", "text", "memory", "fact", min_length=1, max_length=16_000)
        ],
        category: Annotated[str, _alias("category", "governance_category", max_length=64)],
        type: Annotated[str, _alias("type", "memory_type", "kind", max_length=64)] = "Fact",
        source_kind: Annotated[
            str, _alias("source_kind", "source", "sourceKind", max_length=64)
        ] = "USER_EXPLICIT",
        importance: Annotated[int, _alias("importance", "priority")] = 50,
        user_id: Annotated[str | None, _alias("user_id", "user", "userId", max_length=128)] = None,
        project_id: Annotated[
            str | None, _alias("project_id", "project", "projectId", max_length=128)
        ] = None,
        conversation_id: Annotated[
            str | None, _alias("conversation_id", "conversationId", "thread", max_length=128)
        ] = None,
        pinned: bool = False,
    ) -> dict[str, Any]:
        """Store one durable memory; returns its ``stop_reason`` and ``memory_id``.

        Every write passes the governance gate; a refusal is an error naming its stop reason.
        """
        principal, engine, route = caller(ctx, "memory_store")
        try:
            control.require_write(principal, route)
            control.check_categories(principal, [category], route)
            result = engine.add(
                content,
                type=type,
                category=category,
                source_kind=source_kind,
                importance=importance,
                user_id=user_id,
                project_id=project_id,
                conversation_id=conversation_id,
                pinned=pinned,
                agent_id=principal.agent,
            )
        except MemvaultError as exc:
            raise fail(exc, principal, route) from None
        return written(result)

    @server.tool(
        name="memory_forget",
        title="Forget a memory",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def memory_forget(
        ctx: Context,
        memory_id: Annotated[
            str, _alias("memory_id", "id", "memoryId", min_length=1, max_length=128)
        ],
    ) -> dict[str, Any]:
        """Soft-delete one memory (restorable until it is purged)."""
        principal, engine, route = caller(ctx, "memory_forget")
        try:
            control.require_write(principal, route)
            control.check_memory(principal, engine.get(memory_id).node, route)
            result = engine.delete(memory_id)
        except MemvaultError as exc:
            raise fail(exc, principal, route) from None
        return written(result)

    return server
