"""``/v1`` routes over the engine's context, capture, ingest and consent calls.

These calls span categories the caller does not choose up front (a bulletin
summarises every category; capture and ingest extract their own categories; a
proposal carries its own), so a key restricted by a category allowlist gets 403
on them — fail closed — except ``/v1/query``, whose categories are checked.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse
from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from memvault.api.problems import CONFLICT, NOT_FOUND, PROBLEM_RESPONSES, ApiProblem, write_problem
from memvault.api.routes import CallerDep, UserQuery, reject_unknown_query
from memvault.api.schemas import Ident, Name, QueryIn, UserIdent
from memvault.engine import ALL_USERS, ProposalError, ProposalStatus, Role, proposal_json
from memvault.model.enums import StopReason
from memvault.model.validation import VISIBLE_PATTERN

__all__ = ["router"]

router = APIRouter(prefix="/v1", dependencies=[Depends(reject_unknown_query)])
_DOCS: dict[int | str, dict[str, Any]] = dict(PROBLEM_RESPONSES)
#: A thread id as the delta header validates it.
THREAD_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@\-]{0,127}$"
ThreadId = Annotated[str, StringConstraints(pattern=THREAD_PATTERN)]


def _text_only(value: Any) -> Any:
    """A date-time is an RFC 3339 string in JSON, never a number of seconds."""
    if not isinstance(value, str):
        raise ValueError("give an RFC 3339 date-time string")
    return value


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class MessageIn(_Body):
    """``POST /v1/capture/message``: one transcript turn (only user turns write)."""

    # A blank turn is refused (the engine's rule, model/validation.require_text); the
    # schema says so too, so a client learns it from the OpenAPI document.
    text: Annotated[str, StringConstraints(max_length=16_000, pattern=VISIBLE_PATTERN)]
    user_id: UserIdent | None = None
    role: Role = Role.USER
    speaker: Name | None = None
    conversation_id: Ident | None = None
    channel: Ident | None = None
    at: Annotated[AwareDatetime, BeforeValidator(_text_only)] | None = None
    project_id: Ident | None = None
    thread_id: ThreadId = "default"


class WorkflowIn(_Body):
    """``POST /v1/capture/workflow``: a workflow step's output (decisions, todos, goals)."""

    run_id: Ident
    step_id: Ident
    output: Annotated[str, StringConstraints(max_length=64_000)] | dict[str, Any]
    user_id: Ident | None = None
    project_id: Ident | None = None
    thread_id: ThreadId = "default"


class DiagnosticsIn(_Body):
    """``POST /v1/capture/diagnostics``: one diagnostics finding."""

    finding: (
        dict[str, Any]
        | Annotated[list[dict[str, Any]], Field(max_length=100)]
        | Annotated[str, StringConstraints(max_length=16_000)]
    )
    user_id: Ident | None = None
    project_id: Ident | None = None
    thread_id: ThreadId = "default"


@router.post("/query", responses=_DOCS)
def memory_query(body: QueryIn, c: CallerDep) -> JSONResponse:
    """memory.query: allowlist-checked, filtered, budgeted recall (bullets or full)."""
    request = body.model_dump(mode="json", by_alias=True, exclude_none=True)
    result = c.engine.memory_query(request, user=request.pop("user_id", None))
    data = result.to_json()
    if result.refused:
        status = 403 if result.stop_reason is StopReason.FORBIDDEN_CATEGORY else 422
        raise ApiProblem(status, "query-refused", result.reason or "refused", **data)
    return JSONResponse(data)


@router.get("/bulletin", responses=_DOCS)
def bulletin(
    c: CallerDep,
    query: Annotated[str | None, Query(max_length=2000)] = None,
    thread_id: Annotated[str | None, Query(pattern=THREAD_PATTERN)] = None,
    user_id: UserQuery = None,
    all_users: bool = False,
) -> dict[str, Any]:
    """The memory bulletin of one user; with ``thread_id``, the delta header for that thread too.

    ``user_id``: their memories and shared ones, never another user's; none: shared
    memories only. A key bound to a user always reads as that user (naming another
    is 403). ``all_users=true`` is the orchestrator-wide view: 403 unless the key has
    that permission (``memvault keys create --all-users``).
    """
    user = ALL_USERS if all_users else user_id
    if thread_id is not None:
        return c.engine.for_message(thread_id, user=user, query=query).to_json()
    return c.engine.bulletin(user=user, query=query).to_json()


@router.post("/capture/message", responses=_DOCS)
def capture_message(body: MessageIn, c: CallerDep) -> dict[str, Any]:
    """Capture one transcript turn: 0–5 candidates, each gated, resolved and committed."""
    message = body.model_dump(mode="json", exclude={"project_id", "thread_id"}, exclude_none=True)
    result = c.engine.capture_message(message, project_id=body.project_id, thread_id=body.thread_id)
    return result.to_json()


@router.post("/capture/workflow", responses=_DOCS)
def capture_workflow(body: WorkflowIn, c: CallerDep) -> dict[str, Any]:
    """Decision / Todo / Goal memories from a workflow step's output (SYSTEM_KNOWN)."""
    result = c.engine.capture_workflow_output(
        body.run_id,
        body.step_id,
        body.output,
        user_id=body.user_id,
        project_id=body.project_id,
        thread_id=body.thread_id,
    )
    return result.to_json()


@router.post("/capture/diagnostics", responses=_DOCS)
def capture_diagnostics(body: DiagnosticsIn, c: CallerDep) -> dict[str, Any]:
    """Observation memories from one diagnostics finding."""
    result = c.engine.capture_diagnostics(
        body.finding, user_id=body.user_id, project_id=body.project_id, thread_id=body.thread_id
    )
    return result.to_json()


@router.post("/ingest", responses=_DOCS)
def ingest(c: CallerDep) -> dict[str, Any]:
    """One pass over the orchestrator's drop folder (``memory.ingest.*``, applied by the engine)."""
    return c.engine.ingest_pending().to_json()


@router.get("/proposals", responses=_DOCS)
def proposals(
    c: CallerDep,
    status: ProposalStatus | None = None,
    user_id: UserQuery = None,
) -> dict[str, Any]:
    """Consent proposals (inferred memories waiting for the user), oldest first."""
    try:
        found = c.engine.proposals(status=status, user_id=user_id)
    except ValueError as exc:
        raise ApiProblem(422, "invalid-request", str(exc)) from None
    return {"proposals": [proposal_json(p) for p in found]}


ProposalId = Annotated[str, Path(min_length=1, max_length=128)]


def _proposal_problem(exc: ProposalError) -> ApiProblem:
    missing = "does not exist" in exc.problem
    return ApiProblem(404 if missing else 409, "proposal", str(exc), proposal_id=exc.proposal_id)


@router.post("/proposals/{proposal_id}/confirm", responses={**_DOCS, **NOT_FOUND, **CONFLICT})
def confirm_proposal(
    proposal_id: ProposalId, c: CallerDep, user_id: UserQuery = None
) -> JSONResponse:
    """The user consents: the proposal is stored as USER_EXPLICIT (the gate may refuse).

    Acting as ``user_id``, as a write by id: a key bound to no user decides the
    proposals of the user it names (none: user-less ones); another's is 404.
    """
    try:
        result = c.engine.confirm_proposal(proposal_id, user=user_id)
    except ProposalError as exc:
        raise _proposal_problem(exc) from None
    if not result.ok:
        raise write_problem(result)
    return JSONResponse(result.to_json())


@router.post("/proposals/{proposal_id}/reject", responses={**_DOCS, **NOT_FOUND, **CONFLICT})
def reject_proposal(
    proposal_id: ProposalId, c: CallerDep, user_id: UserQuery = None
) -> dict[str, Any]:
    """The user declines: nothing is stored (acting as ``user_id``, as confirm)."""
    try:
        return proposal_json(c.engine.reject_proposal(proposal_id, user=user_id))
    except ProposalError as exc:
        raise _proposal_problem(exc) from None
