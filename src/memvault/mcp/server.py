"""memvault as an MCP server (the official ``mcp`` SDK): thin tools over the engine.

Tools (spec §6: ``memory_query`` is the primary one):

================  =========================================  ==========================
tool              engine call                                annotations
================  =========================================  ==========================
memory_query      ``engine.memory_query`` (spec §6)          read-only
memory_bulletin   ``engine.bulletin`` / ``for_message``      read-only
memory_store      ``engine.add`` (through the write gate)    not destructive
memory_forget     ``engine.delete`` (soft delete)            destructive, idempotent
memory_supersede  ``engine.supersede`` (Updates edge)        not destructive
memory_retract    ``engine.retract`` (status retracted)      not destructive
================  =========================================  ==========================

Input schemas accept common aliases (``q``/``text`` for ``query``, ``k``/``limit``
for ``top_k``, ``text``/``memory`` for ``content``, ``id`` for ``memory_id`` …), and
advertise them: each alias is a property of the tool's input schema, and a required
argument is required as "one of its names" (``anyOf``), so a schema-validating client
accepts exactly what the tool accepts.
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

import copy
import enum
import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import AliasChoices, Field, ValidationError

from memvault.access import AccessControl, Principal
from memvault.engine import ALL_USERS, NewMemory, QueryFilters, QueryResult, WriteResult
from memvault.engine import Caller as EngineCaller
from memvault.errors import MemoryNotFoundError, MemvaultError
from memvault.model.enums import StopReason, TTLClass

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


def _reads() -> ToolAnnotations:
    """A tool that only reads memory."""
    return ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _writes(*, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """A tool that writes memory (through the gate)."""
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


#: A memory id, under the names clients use for it.
MemoryIdParam = Annotated[str, _alias("memory_id", "id", "memoryId", min_length=1, max_length=128)]


#: memory_store's parameters: fields of ``NewMemory`` (the one field list), each with
#: the other names clients use for it and what this edge sets differently.
_STORE_FIELDS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "content": (("text", "memory", "fact"), {"min_length": 1, "max_length": 16_000}),
    "category": (("governance_category",), {"max_length": 64}),
    "type": (("memory_type", "kind"), {"max_length": 64, "default": "Fact"}),
    "source_kind": (("source", "sourceKind"), {"max_length": 64, "default": "USER_EXPLICIT"}),
    "importance": (("priority",), {}),
    "user_id": (("user", "userId"), {"max_length": 128}),
    "project_id": (("project", "projectId"), {"max_length": 128}),
    "conversation_id": (("conversationId", "thread"), {"max_length": 128}),
    "pinned": ((), {}),
    # absent: the category's own default TTL class (engine.new_memory), not NewMemory's
    "ttl_class": (("ttl", "ttlClass"), {"default": None}),
}


#: NewMemory's fields memory_store does not offer: set by the transport or the server
#: (the key's agent, where a memory came from) or left to the engine's defaults, so
#: that the tool a model reads stays small. Any other field is offered.
_NOT_OFFERED = frozenset(
    {
        "agent_id",
        "source_type",
        "captured_by",
        "source_path",
        "workflow_run_id",
        "step_id",
        "source_ref",
        "key",
        "value",
        "summary",
        "confidence",
        "run_id",
        "actor_id",
        "role",
    }
)


def _store_parameters() -> list[inspect.Parameter]:
    """memory_store's signature, derived from :class:`NewMemory` and ``_STORE_FIELDS``.

    The fields of ``_STORE_FIELDS`` first, then every other field of
    ``NewMemory`` but those ``_NOT_OFFERED``, each as ``NewMemory`` types it. An enum is text
    here (the gate ranks a bad value with its findings), except the TTL class,
    whose three values clients choose from.

    >>> [p.name for p in _store_parameters()][:4]
    ['ctx', 'content', 'category', 'type']
    """
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)]
    fields = NewMemory.model_fields
    rest = [n for n in fields if n not in _STORE_FIELDS and n not in _NOT_OFFERED]
    for name in (*_STORE_FIELDS, *rest):
        aliases, edge = _STORE_FIELDS.get(name, ((), {}))
        field = fields[name]
        bounds = dict(edge)
        default = bounds.pop(
            "default", inspect.Parameter.empty if field.is_required() else field.default
        )
        kind: Any = field.annotation
        if kind is TTLClass:
            kind = Literal[tuple(t.value for t in TTLClass)] | None
        elif isinstance(kind, type) and issubclass(kind, enum.Enum):
            kind = str
        annotation = Annotated[kind, _alias(name, *aliases, **bounds)] if aliases else kind
        params.append(
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=default,
                annotation=annotation,
            )
        )
    return params


class _OneNameTool(Tool):
    """A tool that refuses one argument given under two names with different values.

    Trigger: a call names an argument twice (``content`` and ``text``, ``user_id``
      and ``user``) with different values.
    Why: the parser keeps the first name it knows and drops the other value without a
      word — a memory's text lost, or a query answered for another user than meant.
    Outcome: a tool error naming both (nothing runs); the same value twice is one argument.
    """

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        for field in self.fn_metadata.arg_model.model_fields.values():
            choices = field.validation_alias
            if not isinstance(choices, AliasChoices):
                continue
            given = [n for n in choices.choices if isinstance(n, str) and n in arguments]
            if len({repr(arguments[n]) for n in given}) > 1:
                names = ", ".join(repr(n) for n in given[:-1]) + f" and {given[-1]!r}"
                raise ToolError(
                    f"Error executing tool {self.name}: {names} name the same argument "
                    "with different values; send it once"
                )
        return await super().run(arguments, context, convert_result)


#: Where SCHEMA_INVALID ranks in contract §7 (a smaller number ranks higher).
SCHEMA_RANK = StopReason.SCHEMA_INVALID.priority


class _GatedStoreTool(_OneNameTool):
    """memory_store: a call its schema rules out still gets the gate's higher-ranked refusal.

    Trigger: arguments the tool's schema refuses (no category, an unknown TTL class,
      an empty user id, a text over the bound, an importance that is not a number)
      whose text the gate refuses too (review S13-R2).
    Why: contract §7 ranks INJECTION_DETECTED and FORBIDDEN_CATEGORY above
      SCHEMA_INVALID; the SDK answered its validation dump first, while HTTP and
      ``add`` answer the gate's winner for the same input.
    Outcome: ``refused: <STOP_REASON>: <reason>`` naming the gate's finding; the
      schema error otherwise. Nothing is stored either way.
    """

    verdict: Any = None  # AccessControl.content_verdict, set by build_server

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        try:
            self.fn_metadata.arg_model.model_validate(arguments)
        except ValidationError:
            refusal = self.verdict(self._fields(arguments)) if self.verdict else None
            if refusal is not None and refusal.stop_reason.priority < SCHEMA_RANK:
                raise ToolError(
                    f"Error executing tool {self.name}: refused: "
                    f"{refusal.stop_reason.value}: {refusal.reason}"
                ) from None
        return await super().run(arguments, context, convert_result)

    def _fields(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` by the tool's own field names (aliases resolved), with the
        tool's defaults for those not given."""
        fields: dict[str, Any] = {}
        for name, field in self.fn_metadata.arg_model.model_fields.items():
            choices = field.validation_alias
            names = (
                [n for n in choices.choices if isinstance(n, str)]
                if isinstance(choices, AliasChoices)
                else [name]
            )
            given = next((n for n in names if n in arguments), None)
            if given is not None:
                fields[name] = arguments[given]
            elif not field.is_required() and field.default is not None:
                fields[name] = field.default
        return fields


def advertise_aliases(tool: Tool) -> Tool:
    """``tool`` with every accepted alias in its input schema.

    Each alias becomes a property with its argument's schema; a required argument
    becomes "one of these names is required" (``anyOf`` of ``required``).

    >>> def f(query: Annotated[str, _alias("query", "q")]) -> str:
    ...     return query
    >>> schema = advertise_aliases(Tool.from_function(f)).parameters
    >>> sorted(schema["properties"]), schema["anyOf"]
    (['q', 'query'], [{'required': ['query']}, {'required': ['q']}])
    """
    schema = copy.deepcopy(tool.parameters)
    properties: dict[str, Any] = schema.setdefault("properties", {})
    required: list[str] = list(schema.get("required", []))
    one_of_names: list[list[dict[str, list[str]]]] = []
    for name, field in tool.fn_metadata.arg_model.model_fields.items():
        choices = field.validation_alias
        if not isinstance(choices, AliasChoices):
            continue
        names = [c for c in choices.choices if isinstance(c, str)]
        key = names[0] if names and names[0] in properties else field.alias or name
        aliases = [n for n in names if n != key]
        for alias in aliases:
            properties[alias] = {**properties[key], "description": f"alias of {key}"}
        if key in required and aliases:
            required.remove(key)
            one_of_names.append([{"required": [n]} for n in (key, *aliases)])
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    if len(one_of_names) == 1:
        schema["anyOf"] = one_of_names[0]
    elif one_of_names:
        schema["allOf"] = [{"anyOf": alternatives} for alternatives in one_of_names]
    fields = {name: getattr(tool, name) for name in type(tool).model_fields}
    kind = _GatedStoreTool if tool.name == "memory_store" else _OneNameTool
    return kind(**{**fields, "parameters": schema})


def build_server(control: AccessControl, resolve: PrincipalResolver) -> MCPServer[Any]:
    """An :class:`MCPServer` whose tools act for the principal ``resolve`` returns."""
    tools: list[Tool] = []

    def tool(
        title: str,
        annotations: ToolAnnotations,
        parameters: list[inspect.Parameter] | None = None,
        ends: str | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register ``fn`` as the tool named like the function (``memory_store``);
        ``ends`` closes its description (a list derived from the engine's types)."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if parameters is not None:  # derived from the engine's types
                fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
                    parameters, return_annotation=dict[str, Any]
                )
            text = fn.__doc__ or ""
            described = f"{text.rstrip()}\n\n        {ends}\n        " if ends else text
            found = Tool.from_function(
                fn, name=fn.__name__, title=title, description=described, annotations=annotations
            )
            tools.append(advertise_aliases(found))
            return fn

        return register

    def call(ctx: Context, tool: str, run: Callable[[EngineCaller], Any]) -> dict[str, Any]:
        """Parse → one call on the caller's façade → map the result or the error."""
        principal = resolve(ctx)
        route = f"mcp:{tool}"
        try:
            result = run(control.engine(principal, route))
        except MemoryNotFoundError as exc:
            control.scope_miss(principal, route, exc.memory_id)
            raise ToolError(f"no memory {exc.memory_id!r} here") from None
        except MemvaultError as exc:
            raise ToolError(str(exc) + (f" (hint: {exc.hint})" if exc.hint else "")) from None
        if isinstance(result, WriteResult) and not result.ok:
            stop = f"refused: {result.stop_reason.value}: {result.reason}"
            raise ToolError(stop.rstrip(": "))
        if isinstance(result, QueryResult) and result.refused:
            stop = result.stop_reason.value if result.stop_reason else "refused"
            raise ToolError(f"refused: {stop}: {result.reason}")
        data: dict[str, Any] = result.to_json()
        return data

    @tool("Query memory", _reads(), ends=f"Filter keys: {', '.join(QueryFilters.model_fields)}.")
    def memory_query(
        ctx: Context,
        # no min_length: "" gets the engine's blank-query error, as "   " does (and as
        # search and query answer it on the CLI and over HTTP), not pydantic's wording
        query: Annotated[str, _alias("query", "q", "text", "question", "search", max_length=4000)],
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
        user_id: Annotated[str | None, _alias("user_id", "user", max_length=128)] = None,
    ) -> dict[str, Any]:
        """memory.query — recall what helps with a query (the primary memory tool).

        Returns cited ``results`` (``bullets``: ``{"id", "category", "text"}``; ``full``:
        with type, score and provenance) within ``budget_tokens``. ``categories`` (contract
        names or aliases such as ``tasks``) must lie within the agent's allowlist;
        ``filters`` take the filter keys named below. ``user_id`` is whose question it is:
        their memories and shared ones answer, never another user's (a key bound to a
        user answers for that user only); without it, shared memories only.
        """
        wanted = [categories] if isinstance(categories, str) else categories
        if wanted is not None and len(wanted) > 32:
            raise ToolError("at most 32 categories")
        request: dict[str, Any] = {
            "query": query,
            "categories": wanted,
            "filters": filters or {},
            "top_k": top_k,
            "threshold": threshold,
            "return": return_format,
            "budget_tokens": budget_tokens,
        }
        return call(ctx, "memory_query", lambda engine: engine.memory_query(request, user=user_id))

    @tool("Memory bulletin", _reads())
    def memory_bulletin(
        ctx: Context,
        query: Annotated[str | None, _alias("query", "q", "topic", max_length=2000)] = None,
        thread_id: Annotated[
            str | None, _alias("thread_id", "thread", "conversation_id", max_length=128)
        ] = None,
        user_id: Annotated[str | None, _alias("user_id", "user", max_length=128)] = None,
        all_users: Annotated[bool, _alias("all_users", "everyone")] = False,
    ) -> dict[str, Any]:
        """The memory bulletin: goals, todos, decisions, preferences, conflicts — each cited.

        For one user (``user_id``): their memories and shared ones, never another
        user's; without it, shared memories only; ``all_users`` is the orchestrator-wide
        view and needs a key with that permission. A key bound to a user always gets
        that user's bulletin. With ``thread_id``, also the delta header (what changed
        since that thread last looked). Needs a key without a category allowlist (the
        bulletin spans them all).
        """
        user = ALL_USERS if all_users else user_id
        if thread_id is not None:
            return call(
                ctx,
                "memory_bulletin",
                lambda e: e.for_message(thread_id, user=user, query=query),
            )
        return call(ctx, "memory_bulletin", lambda e: e.bulletin(user=user, query=query))

    @tool("Store a memory", _writes(), parameters=_store_parameters())
    def memory_store(ctx: Context, **fields: Any) -> dict[str, Any]:
        """Store one durable memory; returns its ``stop_reason`` and ``memory_id``.

        ``ttl_class`` defaults to the longest TTL class the contract allows for the
        category (TODO and REMINDER are not LONG-lived). Every write passes the
        governance gate; a refusal is an error naming its stop reason.
        """

        def store(engine: EngineCaller) -> WriteResult:
            parsed = engine.new_memory(fields)
            return parsed if isinstance(parsed, WriteResult) else engine.add(parsed)

        return call(ctx, "memory_store", store)

    @tool("Forget a memory", _writes(destructive=True, idempotent=True))
    def memory_forget(
        ctx: Context,
        memory_id: MemoryIdParam,
        user_id: Annotated[str | None, _alias("user_id", "user", max_length=128)] = None,
    ) -> dict[str, Any]:
        """Soft-delete one memory (restorable until it is purged); idempotent.

        Forgetting a memory that is already soft-deleted succeeds again without a write.
        ``user_id``: the memory's user (without it, shared memories only; a key bound to
        a user changes that user's memories only, never a shared one).
        """
        return call(
            ctx,
            "memory_forget",
            lambda engine: engine.delete(memory_id, idempotent=True, user=user_id),
        )

    @tool("Supersede a memory", _writes())
    def memory_supersede(
        ctx: Context,
        memory_id: MemoryIdParam,
        by: Annotated[str, _alias("by", "new_id", "newId", min_length=1, max_length=128)],
        user_id: Annotated[str | None, _alias("user_id", "user", max_length=128)] = None,
    ) -> dict[str, Any]:
        """Mark a memory superseded by a newer one (an Updates edge; kept, never deleted);
        ``user_id`` as in memory_forget."""
        return call(
            ctx, "memory_supersede", lambda engine: engine.supersede(memory_id, by=by, user=user_id)
        )

    @tool("Retract a memory", _writes())
    def memory_retract(
        ctx: Context,
        memory_id: MemoryIdParam,
        user_id: Annotated[str | None, _alias("user_id", "user", max_length=128)] = None,
    ) -> dict[str, Any]:
        """Retract a memory that was wrong (status retracted; audited, kept); ``user_id``
        as in memory_forget."""
        return call(ctx, "memory_retract", lambda engine: engine.retract(memory_id, user=user_id))

    for found in tools:
        if isinstance(found, _GatedStoreTool):
            found.verdict = control.content_verdict
    return MCPServer(
        name="memvault",
        instructions=INSTRUCTIONS,
        version="0.1.0",
        log_level="WARNING",
        tools=tools,
    )
