"""Requests and responses of the memory controller (memory-invariants Rules 10–11).

A request says who asks (``orchestrator``, ``agent``), whether the decision
logic authorised it (``authorized``) and why (``reason``). A response is data:
a status, the governance stop reason where one applies, and what was read or
written. Failures are values, never exceptions.

>>> r = MemoryReadRequest(authorized=True, reason="context_enrichment",
...                       orchestrator="acme", agent="assistant", query="tea")
>>> MemoryReadResponse.unavailable("memory disabled").to_json()["status"]
'unavailable'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Self

__all__ = [
    "ControllerStatus",
    "MemoryReadRequest",
    "MemoryReadResponse",
    "MemoryWriteRequest",
    "MemoryWriteResponse",
    "ReadPurpose",
    "RecallItem",
    "WriteKind",
]


class ControllerStatus(StrEnum):
    """What happened to one request."""

    OK = "ok"
    UNAUTHORIZED = "unauthorized"
    UNAVAILABLE = "unavailable"
    FAILED = "failed"


#: Why a read happens (spec 001 "Orchestrator Integration": selector prompts,
#: workflow step prompts, diagnostics investigations).
ReadPurpose = Literal["message", "workflow_step", "diagnostics"]
#: Which write-back trigger a write is (transcript, workflow output, diagnostics).
WriteKind = Literal["message", "workflow_output", "diagnostics"]


@dataclass(frozen=True, slots=True)
class MemoryReadRequest:
    """An authorised (or not) request to read memory for one turn."""

    authorized: bool
    reason: str
    orchestrator: str
    agent: str
    query: str
    thread_id: str = "default"
    purpose: ReadPurpose = "message"
    top_k: int = 5
    #: Categories asked for (``None``: all the agent may read). Checked against the
    #: engine's per-agent allowlist when one is set.
    categories: tuple[str, ...] | None = None
    #: Whose turn this is: the read sees their memories and shared ones, never
    #: another user's (``None``: no user known — shared memories only).
    user: str | None = None


@dataclass(frozen=True, slots=True)
class RecallItem:
    """One recalled memory with its provenance (``source`` in the spec's camelCase)."""

    memory_id: str
    type: str
    content: str
    score: float
    source: Mapping[str, Any] = field(default_factory=dict)

    def render(self) -> str:
        where = self.source.get("sourceType", "?")
        ref = self.source.get("workflowRunId") or self.source.get("sourceRef") or ""
        origin = f"{where}:{ref}" if ref else str(where)
        return f"- [{self.type}] {self.content} [{self.memory_id}] (source: {origin})"

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "type": self.type,
            "content": self.content,
            "score": round(self.score, 6),
            "source": dict(self.source),
        }


@dataclass(frozen=True, slots=True)
class ControllerResponse:
    """What every controller answer carries: a status, a detail, a stop reason."""

    status: ControllerStatus
    detail: str = ""
    stop_reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is ControllerStatus.OK

    @classmethod
    def unauthorized(cls, detail: str) -> Self:
        return cls(ControllerStatus.UNAUTHORIZED, detail, stop_reason="UNAUTHORIZED")

    @classmethod
    def unavailable(cls, detail: str) -> Self:
        return cls(ControllerStatus.UNAVAILABLE, detail)

    @classmethod
    def failed(cls, detail: str) -> Self:
        return cls(ControllerStatus.FAILED, detail)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "detail": self.detail, "stop_reason": self.stop_reason}


@dataclass(frozen=True, slots=True)
class MemoryReadResponse(ControllerResponse):
    """The outcome of a read. ``context`` is what the model call receives as content."""

    context: str = ""
    recall: tuple[RecallItem, ...] = ()
    memory_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            **ControllerResponse.to_json(self),
            "context": self.context,
            "recall": [r.to_json() for r in self.recall],
            "memory_ids": list(self.memory_ids),
        }


@dataclass(frozen=True, slots=True)
class MemoryWriteRequest:
    """An authorised (or not) request to write back one trigger's candidate.

    ``payload`` is the trigger's input: ``{"text", "user", "channel", "at"}``
    for a transcript turn, ``{"run_id", "step_id", "output"}`` for a workflow
    output, ``{"finding"}`` for diagnostics.
    """

    authorized: bool
    reason: str
    orchestrator: str
    agent: str
    kind: WriteKind
    payload: Mapping[str, Any]
    thread_id: str = "default"


@dataclass(frozen=True, slots=True)
class MemoryWriteResponse(ControllerResponse):
    """The outcome of a write; ``stop_reason`` is the governance gate's first answer."""

    memory_ids: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            **ControllerResponse.to_json(self),
            "memory_ids": list(self.memory_ids),
            "outcomes": list(self.outcomes),
        }
