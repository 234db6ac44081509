"""Errors as RFC 9457 ``application/problem+json``, formatted in one place.

Every error body has ``type``, ``title``, ``status`` and ``detail``; a write
that was refused also carries its ``stop_reason`` (and ``memory_id``,
``reason``, ``detector``, ``errors`` as the engine returned them).

=================================================  ======
what happened                                      status
=================================================  ======
a body that is not JSON at all                     400
no, malformed, unknown or revoked API key          401
category outside the agent's allowlist; read-only  403
a governance refusal of a well-formed write        403
(``FORBIDDEN_CATEGORY``, ``INJECTION_DETECTED``,
``MISSING_EXPLICIT_CONSENT``,
``NO_SOURCE_DERIVED_FACT``, ``POLICY_DISABLED``)
memory id not in the key's orchestrator            404
an update that conflicts with the stored memory    409
body larger than ``server.max_body_bytes``         413
a request the OpenAPI document does not allow      422
(``SCHEMA_INVALID``, ``BOUNDS_EXCEEDED``,
``TTL_NOT_ALLOWED``)
``ENTITLEMENT_CAP``                                429
``INTERNAL_INCONSISTENCY``                         500
memory store unavailable or disabled               503
=================================================  ======

Trigger: a request that matches the published schema is refused by the gate.
Why: 422 means "the request is malformed"; a governance refusal is a well-formed
request the policy forbids, and a client checking the OpenAPI document must be
able to tell the two apart.
Outcome: governance refusals are 403 (with their ``stop_reason``); 422 is kept
for what the schema itself rules out.

>>> status_for(StopReason.FORBIDDEN_CATEGORY), status_for(StopReason.SUCCESS_STORED)
(403, 200)
>>> status_for(StopReason.BOUNDS_EXCEEDED)
422
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from memvault.engine import WriteResult
from memvault.model.enums import StopReason

__all__ = [
    "CONFLICT",
    "NOT_FOUND",
    "PROBLEM_RESPONSES",
    "ApiProblem",
    "Problem",
    "problem_response",
    "status_for",
    "write_problem",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"

_TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

_STATUS = {
    StopReason.POLICY_DISABLED: 403,
    StopReason.FORBIDDEN_CATEGORY: 403,
    StopReason.INJECTION_DETECTED: 403,
    StopReason.MISSING_EXPLICIT_CONSENT: 403,
    StopReason.NO_SOURCE_DERIVED_FACT: 403,
    StopReason.ENTITLEMENT_CAP: 429,
    StopReason.INTERNAL_INCONSISTENCY: 500,
}


def status_for(stop_reason: StopReason) -> int:
    """The HTTP status of a write outcome (success → 200; callers use 201 for a create)."""
    if stop_reason.is_success:
        return 200
    return _STATUS.get(stop_reason, 422)


class Problem(BaseModel):
    """The documented shape of an error body (extra members may follow)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str = ""
    stop_reason: str | None = None


class ApiProblem(Exception):
    """Raised inside a route to answer with a problem document."""

    def __init__(
        self,
        status: int,
        slug: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.slug = slug
        self.detail = detail
        self.headers = headers
        self.extra = extra


def problem_response(
    status: int,
    slug: str,
    detail: str,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """One problem document (the only place error bodies are formatted)."""
    body: dict[str, Any] = {
        "type": f"urn:memvault:problem:{slug}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    # memory_id stays even when null: a refused write answers stop_reason *and* memory_id.
    body.update({k: v for k, v in extra.items() if v is not None or k == "memory_id"})
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_MEDIA_TYPE)


def write_problem(result: WriteResult) -> ApiProblem:
    """A refused write as a problem carrying its stop reason."""
    data = result.to_json()
    slug = result.stop_reason.value.lower().replace("_", "-")
    return ApiProblem(
        503 if result.store_unavailable else status_for(result.stop_reason),
        slug,
        result.reason or result.stop_reason.value,
        **data,
    )


_DOC = {"model": Problem, "content": {PROBLEM_MEDIA_TYPE: {}}}

#: Documented error responses shared by every authenticated route.
PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {**_DOC, "description": _TITLES[code]}
    for code in (400, 401, 403, 413, 422, 429, 500, 503)
}
#: Routes that name one resource by id add these.
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {**_DOC, "description": _TITLES[404]}}
CONFLICT: dict[int | str, dict[str, Any]] = {409: {**_DOC, "description": _TITLES[409]}}
