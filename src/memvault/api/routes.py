"""The ``/v1`` routes: each parses, checks the key's grant, makes one engine call.

Orchestrator and agent come from the API key only (``Authorization: Bearer``).
Reads and writes of one memory first load it to apply the agent's category
allowlist (the allowlist needs the memory's category); everything else is a
single engine call whose errors are mapped in :mod:`memvault.api.app`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from memvault.access import AccessControl, Principal
from memvault.api.problems import (
    CONFLICT,
    NOT_FOUND,
    PROBLEM_RESPONSES,
    ApiProblem,
    write_problem,
)
from memvault.api.schemas import (
    HTTP_ONLY,
    CategoryName,
    Importance,
    MemoryIn,
    MemoryPatch,
    SearchIn,
    SupersedeBody,
    Timestamp,
    UserIdent,
)
from memvault.engine import Caller as EngineCaller
from memvault.engine import NodeFilter, WriteResult, history_json
from memvault.errors import MemoryNotFoundError, ValidationFailed
from memvault.model.annotations import unwrap, with_keywords
from memvault.model.enums import MemoryStatus, MemoryType, StopReason
from memvault.model.node import ID_PATTERN, SCALAR_FILTERS

__all__ = ["Caller", "reject_unknown_query", "router"]


def reject_unknown_query(request: Request) -> None:
    """422 for a query parameter the route does not declare.

    Trigger: a request whose query string names a parameter its route does not take.
    Why: a misspelt filter (``?userid=``, ``?limt=``) silently ignored answers a
    different question than the caller asked; the OpenAPI document declares each
    route's parameters and nothing else (issue 18: the server does what it says).
    Outcome: problem+json 422 ``unknown-query-parameter`` naming the parameters.
    """
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known: set[str] = set()
    single: set[str] = set()
    pending = [dependant]
    while pending:  # the route's own parameters and those of its dependencies
        current = pending.pop()
        for param in current.query_params:
            known.add(param.alias)
            if not unwrap(param.field_info.annotation)[2]:
                single.add(param.alias)
        pending.extend(current.dependencies)
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise ApiProblem(
            422,
            "unknown-query-parameter",
            "unknown query parameter(s): " + ", ".join(repr(name[:64]) for name in unknown[:5]),
        )
    # A parameter that takes one value, given twice (``?run_id=a&run_id=b``), was
    # answered with the last one: the first was silently ignored.
    repeated = sorted(k for k in single if len(request.query_params.getlist(k)) > 1)
    if repeated:
        raise ApiProblem(
            422,
            "repeated-query-parameter",
            "query parameter(s) given more than once: " + ", ".join(map(repr, repeated[:5])),
        )


router = APIRouter(prefix="/v1", dependencies=[Depends(reject_unknown_query)])
_bearer = HTTPBearer(auto_error=False, description="An API key from `memvault keys create`.")

_AUTHED: dict[int | str, dict[str, Any]] = dict(PROBLEM_RESPONSES)
_ONE: dict[int | str, dict[str, Any]] = {**PROBLEM_RESPONSES, **NOT_FOUND}

#: The stateful links of a created memory: get, patch, delete, restore. (Its history
#: is not linked: the audit trail outlives a delete by design.)
_BY_ID = {"memory_id": "$response.body#/memory_id"}
_CREATED_LINKS = {
    name: {"operationId": op, "parameters": _BY_ID}
    for name, op in (
        ("GetMemory", "get_memory"),
        ("UpdateMemory", "update_memory"),
        ("DeleteMemory", "delete_memory"),
        ("RestoreMemory", "restore_memory"),
    )
}
_WRITTEN = {
    "description": "The write outcome: ``stop_reason``, ``memory_id``, ``revision``",
    "links": _CREATED_LINKS,
}


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated caller of one request."""

    principal: Principal
    engine: EngineCaller
    control: AccessControl
    route: str


def _caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    control: AccessControl = request.app.state.control
    route = f"{request.method} {request.url.path}"
    token = credentials.credentials if credentials is not None else None
    principal = control.authenticate(token)
    if principal is None:
        if token is not None:
            control.keys.record_failed_auth(token)  # counted per key prefix per minute
        raise ApiProblem(
            401,
            "unauthorized",
            "a valid API key is required: Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    request.state.principal = principal
    request.state.route = route
    return Caller(principal, control.engine(principal, route), control, route)


CallerDep = Annotated[Caller, Depends(_caller)]
MemoryId = Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)]
IdQuery = Annotated[str | None, Query(min_length=1, max_length=128)]
#: A user id as a query parameter: trimmed like every user id, so it needs a visible character
#: (the published schema says so: `?user_id=%0B` is refused by the schema, not only by the engine).
UserQuery = Annotated[UserIdent | None, Query()]
StampQuery = Annotated[Timestamp | None, Query(description="RFC 3339 date-time")]


def _written(result: WriteResult, status: int = 200) -> JSONResponse:
    if not result.ok:
        raise write_problem(result)
    return JSONResponse(result.to_json(), status_code=status)


@router.post(
    "/memories",
    status_code=201,
    operation_id="add_memory",
    responses={**_AUTHED, **CONFLICT, 201: _WRITTEN},
)
def add_memory(body: MemoryIn, c: CallerDep) -> JSONResponse:
    """Store one memory (the fields of ``memvault add``); answers ``stop_reason``, ``memory_id``."""
    fields = body.model_dump(mode="json")
    controls = {name: fields.pop(name) for name in HTTP_ONLY}  # thread_id, vector, vector_model
    if controls.get("vector") is not None:
        # Trigger: a precomputed vector in the body.
        # Why: the gate's learned heads read it; a harmless text's vector must not carry
        #      a refused text past them (review S10-R3), and a vector of other words
        #      would surface this memory for queries it does not answer.
        # Outcome: it must be this server's vector of the content, else 409 like a vector
        #          of another model or size (nothing is written).
        try:
            controls["vector"] = c.engine.agreeing_vector(
                str(fields.get("content") or ""), controls["vector"], controls.get("vector_model")
            )
        except ValidationFailed as exc:
            raise ApiProblem(
                409,
                "schema-invalid",
                exc.message,
                stop_reason=exc.stop_reason.value,
                errors=[{"field": f, "message": m} for f, m in exc.errors],
            ) from None
    parsed = c.engine.new_memory(fields)
    result = parsed if isinstance(parsed, WriteResult) else c.engine.add(parsed, **controls)
    if not result.ok and any(field == "source.source_path" for field, _ in result.errors):
        # Trigger: a well-formed absolute source_path outside the orchestrator's workspace.
        # Why: the schema can say "absolute", not "inside this server's workspace".
        # Outcome: 403, like any other write this caller may not make.
        raise ApiProblem(403, "unsafe-path", result.reason or "source_path is not allowed")
    if not result.ok and any(field in ("vector", "vector_model") for field, _ in result.errors):
        # A well-formed vector of another model or dimension than this server's embedder:
        # the request conflicts with the server's configuration, not with the schema.
        problem = write_problem(result)
        problem.status = 409
        raise problem
    return _written(result, 201)


#: How ``GET /v1/memories`` takes the fields of ``NodeFilter`` (the one filter list):
#: every one is a query parameter, none given = not filtered; a field not named
#: here is taken as ``NodeFilter`` types it.
_LIST_QUERY: dict[str, Any] = {
    **dict.fromkeys(SCALAR_FILTERS, IdQuery),
    "user_id": UserQuery,
    "type": Annotated[list[MemoryType] | None, Query(max_length=16)],
    "category": Annotated[list[CategoryName] | None, Query(max_length=32)],
    "status": Annotated[list[MemoryStatus] | None, Query(max_length=4)],
    "importance_min": Annotated[Importance | None, Query()],
    "importance_max": Annotated[Importance | None, Query()],
    "updated_after": StampQuery,
    "updated_before": StampQuery,
    "visible_to": Annotated[
        list[UserIdent] | None,
        Query(
            max_length=8,
            description="as these users see it: their memories and shared ones "
            "(a key bound to a user is held to that user whatever this says)",
        ),
    ],
}


def _filter_query() -> list[inspect.Parameter]:
    """The listing's filter parameters, one per ``NodeFilter`` field, in its order."""
    return [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=_LIST_QUERY.get(name, field.annotation),
        )
        for name, field in NodeFilter.model_fields.items()
    ]


@router.get("/memories", operation_id="list_memories", responses=_AUTHED)
@with_keywords(_filter_query())
def list_memories(
    c: CallerDep,
    *,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    **filters: Any,
) -> dict[str, Any]:
    """Memories matching the filters (active only unless ``status`` is given), newest first."""
    given = {k: v for k, v in filters.items() if v not in (None, [], ())}
    nodes = c.engine.list_memories(given, limit=limit, offset=offset)
    return {"memories": [n.to_json() for n in nodes]}


@router.get("/memories/{memory_id}", operation_id="get_memory", responses=_ONE)
def get_memory(memory_id: MemoryId, c: CallerDep, user_id: UserQuery = None) -> dict[str, Any]:
    """One memory with its edges, if the key may list it: read as ``user_id`` (their
    memories and shared ones; none named: shared ones only, or every user's for a key
    created with ``--all-users``). A key bound to a user reads as that user. Otherwise 404."""
    return c.engine.get(memory_id, user=user_id).to_json()


#: Refusals of a well-formed update that depend on the stored memory (its category).
_CONFLICTS = (StopReason.SCHEMA_INVALID, StopReason.BOUNDS_EXCEEDED, StopReason.TTL_NOT_ALLOWED)


@router.patch("/memories/{memory_id}", operation_id="update_memory", responses={**_ONE, **CONFLICT})
def update_memory(
    memory_id: MemoryId, body: MemoryPatch, c: CallerDep, user_id: UserQuery = None
) -> JSONResponse:
    """Change fields of a memory (through the write gate), acting as ``user_id``: as a
    read by id, a key bound to no user changes shared memories unless it names the
    memory's user (every user's with ``--all-users``); a key bound to a user changes
    its user's memories only (never a shared one). Otherwise 404.

    409 when the change does not fit the stored memory (a TTL class or value
    length its category does not allow, a category its source kind may not have).
    """
    c.engine.authorize(c.route, write=True)
    changes = body.changes()
    if not changes:
        raise ApiProblem(422, "empty-update", "give at least one field to change")
    patch = c.engine.memory_patch(memory_id, changes, user=user_id)
    return _written_or_conflict(
        patch if isinstance(patch, WriteResult) else c.engine.update(memory_id, patch, user=user_id)
    )


def _written_or_conflict(result: WriteResult) -> JSONResponse:
    """Like ``_written``; a well-formed request the memory's state rules out is 409."""
    if result.stop_reason in _CONFLICTS:
        problem = write_problem(result)
        problem.status = 409
        raise problem
    return _written(result)


@router.delete(
    "/memories/{memory_id}", operation_id="delete_memory", responses={**_ONE, **CONFLICT}
)
def delete_memory(memory_id: MemoryId, c: CallerDep, user_id: UserQuery = None) -> JSONResponse:
    """Soft-delete a memory (restorable until it is purged), acting as ``user_id`` (as PATCH)."""
    return _written(c.engine.delete(memory_id, user=user_id))


@router.post(
    "/memories/{memory_id}/restore", operation_id="restore_memory", responses={**_ONE, **CONFLICT}
)
def restore_memory(memory_id: MemoryId, c: CallerDep, user_id: UserQuery = None) -> JSONResponse:
    """Bring a soft-deleted memory back, acting as ``user_id`` (as PATCH)."""
    return _written(c.engine.restore(memory_id, user=user_id))


@router.post(
    "/memories/{memory_id}/supersede",
    operation_id="supersede_memory",
    responses={**_ONE, **CONFLICT},
)
def supersede_memory(
    memory_id: MemoryId, body: SupersedeBody, c: CallerDep, user_id: UserQuery = None
) -> JSONResponse:
    """Mark a memory superseded by a newer one (an Updates edge; kept, never deleted),
    both in the scope of ``user_id`` (as PATCH)."""
    try:
        result = c.engine.supersede(memory_id, by=body.by, user=user_id)
    except MemoryNotFoundError as exc:
        if exc.memory_id != body.by or exc.memory_id == memory_id:
            raise
        # Trigger: the path's memory exists, the one named in the body does not.
        # Why: a 404 would say the addressed memory is gone; the request conflicts
        #      with the store's state instead.
        # Outcome: 409 naming the missing successor (scope misses are still audited).
        c.control.scope_miss(c.principal, c.route, body.by)
        raise ApiProblem(
            409, "unknown-successor", f"no memory {body.by!r} here to supersede it with"
        ) from None
    return _written_or_conflict(result)


@router.post(
    "/memories/{memory_id}/retract", operation_id="retract_memory", responses={**_ONE, **CONFLICT}
)
def retract_memory(memory_id: MemoryId, c: CallerDep, user_id: UserQuery = None) -> JSONResponse:
    """Retract a memory that was wrong (status retracted; audited, kept), acting as
    ``user_id`` (as PATCH)."""
    return _written_or_conflict(c.engine.retract(memory_id, user=user_id))


@router.get("/memories/{memory_id}/history", operation_id="memory_history", responses=_ONE)
def memory_history(memory_id: MemoryId, c: CallerDep, user_id: UserQuery = None) -> dict[str, Any]:
    """The audit trail of one memory, oldest first, read as ``user_id`` (as ``GET
    /v1/memories/{id}``).

    Like the memory itself, 404 once it is soft-deleted (until it is restored); the
    trail of deleted memories stays in ``memvault history`` and the audit export.
    """
    c.engine.get(memory_id, user=user_id)  # authorised, and 404 while soft-deleted
    return {
        "memory_id": memory_id,
        "events": [history_json(e) for e in c.engine.history(memory_id, user=user_id)],
    }


@router.post("/search", operation_id="search", responses=_AUTHED)
def search(body: SearchIn, c: CallerDep) -> dict[str, Any]:
    """Ranked recall with provenance: ``{"query", "top_k"}`` (+ ``categories``, ``filters``)."""
    filters: dict[str, Any] = (
        body.filters.model_dump(mode="json", exclude_none=True) if body.filters is not None else {}
    )
    if body.categories:
        filters["category"] = body.categories
    return c.engine.search(body.query, filters=filters, top_k=body.top_k).to_json()


@router.get("/whoami", operation_id="whoami", responses=PROBLEM_RESPONSES)
def whoami(c: CallerDep) -> dict[str, Any]:
    """The orchestrator, agent and grant of the calling key."""
    return c.principal.to_json()


@router.get("/health", operation_id="health")
def health(request: Request) -> dict[str, Any]:
    """200 once the server is ready; reports ``memory_available`` and degraded parts."""
    control: AccessControl = request.app.state.control
    return control.health()
