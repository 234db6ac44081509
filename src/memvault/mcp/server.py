"""memvault as an MCP server (the official ``mcp`` SDK): thin tools over the engine.

Tools (spec §6: ``memory_query`` is the primary one):

================  =========================================  ==========================
tool              engine call                                annotations
================  =========================================  ==========================
memory_query      ``engine.memory_query`` (spec §6)          read-only
memory_bulletin   ``engine.bulletin`` / ``for_message``      read-only
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
from memvault.errors import MemoryNotFoundError, MemvaultError
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
            str, _alias("query", "q", "text", "question", "search", min_length=1, max_length=4000)
        ],
        top_k: Annotated[int, _alias("top_k", "k", "limit", "topK", "n", ge=1, le=100)] = 3,
        categories: Annotated[
            list[str] | str | None, _alias("categories", "category", "cats")
        ] = None,
        filters: Annotated[dict[str, Any] | None, _alias("filters", "filter", "where")] = None,
        return_format: Annotated[
            Literal["bullets", "full"], _alias("return", "return_format", "format", "mode")
        ] = "bullets",
        threshold: Annotated[float | None, _alias("threshold", "min_score", ge=0, le=1)] = None,
        budget_tokens: Annotated[
            int, _alias("budget_tokens", "max_tokens", "budget", ge=1, le=100_000)
        ] = 512,
    ) -> dict[str, Any]:
        """memory.query — recall what helps with a query (the primary memory tool).

        Returns cited ``results`` (``bullets``: ``{"id", "category", "text"}``; ``full``:
        with type, score and provenance) within ``budget_tokens``. ``categories`` (contract
        names or aliases such as ``tasks``) must lie within the agent's allowlist;
        ``filters`` take user_id, agent_id, run_id, actor_id, role, pinned,
        importance_min/max, updated_after/before.
        """
        principal, engine, route = caller(ctx, "memory_query")
        wanted = [categories] if isinstance(categories, str) else categories
        if wanted is not None and len(wanted) > 32:
            raise ToolError("at most 32 categories")
        try:
            request: dict[str, Any] = {
                "agent": principal.agent,
                "query": query,
                "categories": control.query_categories(principal, wanted, route),
                "filters": filters or {},
                "top_k": top_k,
                "threshold": threshold,
                "return": return_format,
                "budget_tokens": budget_tokens,
            }
            result = engine.memory_query({k: v for k, v in request.items() if v is not None})
        except MemvaultError as exc:
            raise fail(exc, principal, route) from None
        if result.refused:
            stop = result.stop_reason.value if result.stop_reason else "refused"
            raise ToolError(f"refused: {stop}: {result.reason}")
        return result.to_json()

    @server.tool(
        name="memory_bulletin",
        title="Memory bulletin",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    def memory_bulletin(
        ctx: Context,
        query: Annotated[str | None, _alias("query", "q", "topic", max_length=2000)] = None,
        thread_id: Annotated[
            str | None, _alias("thread_id", "thread", "conversation_id", max_length=128)
        ] = None,
    ) -> dict[str, Any]:
        """The memory bulletin: goals, todos, decisions, preferences, conflicts — each cited.

        With ``thread_id``, also the delta header (what changed since that thread last
        looked). Needs a key without a category allowlist (the bulletin spans them all).
        """
        principal, engine, route = caller(ctx, "memory_bulletin")
        try:
            control.require_unrestricted(principal, route, "the bulletin")
            if thread_id is not None:
                return engine.for_message(thread_id, query=query).to_json()
            return engine.bulletin(query=query).to_json()
        except MemvaultError as exc:
            raise fail(exc, principal, route) from None

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
