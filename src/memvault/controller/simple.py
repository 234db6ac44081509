"""Two controllers without a database: disabled, and a deterministic in-memory one.

:class:`DisabledMemoryController` is "memory off": it still checks
authorisation (so an unauthorised request reads ``unauthorized`` whatever the
backend), then answers ``unavailable``. :class:`InMemoryController` is the test
reference: derived statements in a dict, token-overlap recall, every call
recorded, and an injectable failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memvault.controller.base import GuardedController
from memvault.controller.types import (
    ControllerStatus,
    MemoryReadRequest,
    MemoryReadResponse,
    MemoryWriteRequest,
    MemoryWriteResponse,
    RecallItem,
)
from memvault.errors import StoreUnavailableError

__all__ = ["DisabledMemoryController", "InMemoryController"]

_WORD = re.compile(r"[a-z0-9]+")
_STATEMENT = re.compile(
    r"\bI\s+(prefer|like|love|use|work\s+(?:on|at|in)|live\s+in)\s+(.+?)[.!?]*$", re.I
)


def _tokens(text: str) -> set[str]:
    return {t for t in _WORD.findall(text.lower()) if len(t) > 2}


class DisabledMemoryController(GuardedController):
    """Memory switched off: authorised requests answer ``unavailable``.

    >>> from memvault.controller import MemoryReadRequest
    >>> DisabledMemoryController("acme").read(MemoryReadRequest(
    ...     authorized=True, reason="r", orchestrator="acme", agent="a", query="q")).status.value
    'unavailable'
    """

    def _read(self, request: MemoryReadRequest) -> MemoryReadResponse:
        return MemoryReadResponse.unavailable("memory disabled")

    def _write(self, request: MemoryWriteRequest) -> MemoryWriteResponse:
        return MemoryWriteResponse.unavailable("memory disabled")


@dataclass(frozen=True, slots=True)
class _Fact:
    memory_id: str
    type: str
    content: str
    source: Mapping[str, Any] = field(default_factory=dict)
    #: Whose memory it is (``None``: shared); a read sees its user's and shared ones.
    user: str | None = None


class InMemoryController(GuardedController):
    """Deterministic reference controller for tests (derived statements, not transcripts).

    ``fail`` injects a failure into every authorised call: ``"unavailable"``
    raises a store error, ``"failed"`` a plain one — the guard turns both into
    responses. ``calls`` records every request that reached the controller.

    >>> from memvault.controller import MemoryReadRequest, MemoryWriteRequest
    >>> c = InMemoryController("acme")
    >>> c.write(MemoryWriteRequest(authorized=True, reason="r", orchestrator="acme", agent="a",
    ...         kind="message", payload={"text": "I prefer green tea", "user": "dana"})).memory_ids
    ('mem_1',)
    >>> c.read(MemoryReadRequest(authorized=True, reason="r", orchestrator="acme", agent="a",
    ...        query="what tea?", user="dana")).recall[0].content
    'Dana prefers green tea.'
    >>> c.read(MemoryReadRequest(authorized=True, reason="r", orchestrator="acme", agent="a",
    ...        query="what tea?", user="erin")).recall
    ()
    """

    def __init__(
        self, orchestrator: str, *, fail: Literal["unavailable", "failed"] | None = None
    ) -> None:
        super().__init__(orchestrator)
        self.fail = fail
        self.facts: list[_Fact] = []
        self.calls: list[MemoryReadRequest | MemoryWriteRequest] = []

    def _check(self, request: MemoryReadRequest | MemoryWriteRequest) -> None:
        self.calls.append(request)
        if self.fail == "unavailable":
            raise StoreUnavailableError("injected: store unavailable")
        if self.fail == "failed":
            raise RuntimeError("injected: memory call failed")

    def _read(self, request: MemoryReadRequest) -> MemoryReadResponse:
        self._check(request)
        wanted = _tokens(request.query)
        visible = [f for f in self.facts if f.user is None or f.user == request.user]
        scored = sorted(
            ((len(wanted & _tokens(f.content)), -i, f) for i, f in enumerate(visible)),
            key=lambda t: (t[0], t[1]),
            reverse=True,
        )
        hits = [
            RecallItem(f.memory_id, f.type, f.content, float(score), f.source)
            for score, _, f in scored[: request.top_k]
            if score > 0
        ]
        context = "\n".join(r.render() for r in hits)
        return MemoryReadResponse(
            ControllerStatus.OK,
            context=f"Relevant memories for this request:\n{context}" if hits else "",
            recall=tuple(hits),
            memory_ids=tuple(r.memory_id for r in hits),
        )

    def _derive(self, request: MemoryWriteRequest) -> list[tuple[str, str, dict[str, Any]]]:
        p = request.payload
        if request.kind == "message":
            match = _STATEMENT.search(str(p.get("text", "")))
            if not match:
                return []
            user = str(p.get("user") or "the user")
            verb = match[1].lower().split()
            verb[0] += "s"
            text = f"{user[:1].upper()}{user[1:]} {' '.join(verb)} {match[2]}."
            return [("Preference", text, {"sourceType": "channel_transcript"})]
        if request.kind == "workflow_output":
            out = p.get("output")
            source = {"sourceType": "workflow_output", "workflowRunId": p.get("run_id")}
            if not isinstance(out, Mapping):
                return []
            return [("Decision", f"Decision: {d}.", source) for d in out.get("decisions", [])] + [
                ("Todo", f"Open todo: {t}.", source) for t in out.get("todos", [])
            ]
        finding = p.get("finding")
        title = finding.get("title") if isinstance(finding, Mapping) else finding
        return [("Observation", f"Diagnostics: {title}.", {"sourceType": "diagnostics"})]

    def _write(self, request: MemoryWriteRequest) -> MemoryWriteResponse:
        self._check(request)
        ids = []
        for kind, content, source in self._derive(request):
            owner = request.payload.get("user")
            fact = _Fact(
                f"mem_{len(self.facts) + 1}", kind, content, source, str(owner) if owner else None
            )
            self.facts.append(fact)
            ids.append(fact.memory_id)
        return MemoryWriteResponse(
            ControllerStatus.OK,
            stop_reason="SUCCESS_STORED" if ids else None,
            memory_ids=tuple(ids),
            outcomes=tuple("stored" for _ in ids),
        )
