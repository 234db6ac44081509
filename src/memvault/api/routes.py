"""The ``/v1`` routes: each parses, checks the key's grant, makes one engine call.

Orchestrator and agent come from the API key only (``Authorization: Bearer``).
Reads and writes of one memory first load it to apply the agent's category
allowlist (the allowlist needs the memory's category); everything else is a
single engine call whose errors are mapped in :mod:`memvault.api.app`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from memvault.access import AccessControl, Principal
from memvault.api.problems import PROBLEM_RESPONSES, ApiProblem, write_problem
from memvault.api.schemas import MemoryIn, MemoryPatch, SearchIn, SupersedeBody
from memvault.engine import Caller as EngineCaller
from memvault.results import WriteResult, history_json

__all__ = ["Caller", "router"]

router = APIRouter(prefix="/v1")
_bearer = HTTPBearer(auto_error=False, description="An API key from `memvault keys create`.")

_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: PROBLEM_RESPONSES[403] | {"description": "Not Found"}
}
_AUTHED: dict[int | str, dict[str, Any]] = {**PROBLEM_RESPONSES, **_NOT_FOUND}


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
MemoryId = Annotated[str, Path(min_length=1, max_length=128)]


def _written(result: WriteResult, status: int = 200) -> JSONResponse:
    if not result.ok:
        raise write_problem(result)
    return JSONResponse(result.to_json(), status_code=status)


@router.post("/memories", status_code=201, responses=_AUTHED)
def add_memory(body: MemoryIn, c: CallerDep) -> JSONResponse:
    """Store one memory (the fields of ``memvault add``); answers ``stop_reason``, ``memory_id``."""
    if body.agent_id not in (None, c.principal.agent):
        raise ApiProblem(
            422, "agent-mismatch", "agent_id comes from the API key and may not differ from it"
        )
    fields = body.model_dump(exclude={"content", "thread_id"})
    return _written(c.engine.add(body.content, thread_id=body.thread_id, **fields), 201)


@router.get("/memories", responses=_AUTHED)
def list_memories(
    c: CallerDep,
    user_id: Annotated[str | None, Query(max_length=128)] = None,
    agent_id: Annotated[str | None, Query(max_length=128)] = None,
    run_id: Annotated[str | None, Query(max_length=128)] = None,
    actor_id: Annotated[str | None, Query(max_length=128)] = None,
    role: Annotated[str | None, Query(max_length=128)] = None,
    conversation_id: Annotated[str | None, Query(max_length=128)] = None,
    project_id: Annotated[str | None, Query(max_length=128)] = None,
    type: Annotated[list[str] | None, Query(max_length=16)] = None,
    category: Annotated[list[str] | None, Query(max_length=32)] = None,
    status: Annotated[list[str] | None, Query(max_length=4)] = None,
    pinned: bool | None = None,
    importance_min: int | None = None,
    importance_max: int | None = None,
    updated_after: Annotated[str | None, Query(max_length=64)] = None,
    updated_before: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    """Memories matching the filters (active only unless ``status`` is given), newest first."""
    raw: dict[str, Any] = {
        "user_id": user_id,
        "agent_id": agent_id,
        "run_id": run_id,
        "actor_id": actor_id,
        "role": role,
        "conversation_id": conversation_id,
        "project_id": project_id,
        "type": type,
        "category": c.control.category_filter(c.principal, category, c.route),
        "status": status,
        "pinned": pinned,
        "importance_min": importance_min,
        "importance_max": importance_max,
        "updated_after": updated_after,
        "updated_before": updated_before,
    }
    filters = {k: v for k, v in raw.items() if v not in (None, [], ())}
    nodes = c.engine.list_memories(filters, limit=limit, offset=offset)
    return {"memories": [n.to_json() for n in nodes]}


@router.get("/memories/{memory_id}", responses=_AUTHED)
def get_memory(memory_id: MemoryId, c: CallerDep) -> dict[str, Any]:
    """One memory with its edges."""
    return c.engine.get(memory_id).to_json()


@router.patch("/memories/{memory_id}", responses=_AUTHED)
def update_memory(memory_id: MemoryId, body: MemoryPatch, c: CallerDep) -> JSONResponse:
    """Change fields of a memory (through the write gate)."""
    c.engine.authorize(c.route, write=True)
    changes = body.changes()
    if not changes:
        raise ApiProblem(422, "empty-update", "give at least one field to change")
    return _written(c.engine.update(memory_id, **changes))


@router.delete("/memories/{memory_id}", responses=_AUTHED)
def delete_memory(memory_id: MemoryId, c: CallerDep) -> JSONResponse:
    """Soft-delete a memory (restorable until it is purged)."""
    return _written(c.engine.delete(memory_id))


@router.post("/memories/{memory_id}/restore", responses=_AUTHED)
def restore_memory(memory_id: MemoryId, c: CallerDep) -> JSONResponse:
    """Bring a soft-deleted memory back."""
    return _written(c.engine.restore(memory_id))


@router.post("/memories/{memory_id}/supersede", responses=_AUTHED)
def supersede_memory(memory_id: MemoryId, body: SupersedeBody, c: CallerDep) -> JSONResponse:
    """Mark a memory superseded by a newer one (an Updates edge; kept, never deleted)."""
    c.control.require_write(c.principal, c.route)
    c.control.check_memory(c.principal, c.engine.get(memory_id).node, c.route)
    c.control.check_memory(c.principal, c.engine.get(body.by).node, c.route)
    return _written(c.engine.supersede(memory_id, by=body.by))


@router.post("/memories/{memory_id}/retract", responses=_AUTHED)
def retract_memory(memory_id: MemoryId, c: CallerDep) -> JSONResponse:
    """Retract a memory that was wrong (status retracted; audited, kept)."""
    c.control.require_write(c.principal, c.route)
    c.control.check_memory(c.principal, c.engine.get(memory_id).node, c.route)
    return _written(c.engine.retract(memory_id))


@router.get("/memories/{memory_id}/history", responses=_AUTHED)
def memory_history(memory_id: MemoryId, c: CallerDep) -> dict[str, Any]:
    """The audit trail of one memory, oldest first."""
    return {
        "memory_id": memory_id,
        "events": [history_json(e) for e in c.engine.history(memory_id)],
    }


@router.post("/search", responses=_AUTHED)
def search(body: SearchIn, c: CallerDep) -> dict[str, Any]:
    """Ranked recall with provenance: ``{"query", "top_k"}`` (+ ``categories``, ``filters``)."""
    filters: dict[str, Any] = (
        body.filters.model_dump(exclude_none=True) if body.filters is not None else {}
    )
    categories = c.control.category_filter(c.principal, body.categories, c.route)
    if categories is not None:
        filters["category"] = categories
    return c.engine.search(body.query, filters=filters, top_k=body.top_k).to_json()


@router.get("/whoami", responses=PROBLEM_RESPONSES)
def whoami(c: CallerDep) -> dict[str, Any]:
    """The orchestrator, agent and grant of the calling key."""
    return c.principal.to_json()


@router.get("/health")
def health(request: Request) -> dict[str, Any]:
    """200 once the server is ready; reports ``memory_available`` and degraded parts."""
    control: AccessControl = request.app.state.control
    return control.health()
