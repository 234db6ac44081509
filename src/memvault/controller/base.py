"""The ``MemoryController`` protocol and the guard every implementation shares.

:class:`GuardedController` does what no implementation may skip: it refuses an
unauthorised request or one addressed to another orchestrator (status
``unauthorized``, logged), and turns every exception into a ``failed`` or
``unavailable`` response plus a log line. Implementations fill in
``_read``/``_write`` and may raise freely.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

from memvault.controller.types import (
    ControllerResponse,
    ControllerStatus,
    MemoryReadRequest,
    MemoryReadResponse,
    MemoryWriteRequest,
    MemoryWriteResponse,
)
from memvault.errors import StoreUnavailableError

__all__ = ["GuardedController", "MemoryController", "logger"]

logger = logging.getLogger("memvault.controller")

A = TypeVar("A", bound=ControllerResponse)

#: Exceptions that mean "the store is not there" rather than "this call failed".
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    StoreUnavailableError,
    OSError,
    TimeoutError,
)


@runtime_checkable
class MemoryController(Protocol):
    """Read and write memory on behalf of an agent graph's memory nodes.

    Both methods return a response and never raise.
    """

    orchestrator: str

    def read(self, request: MemoryReadRequest) -> MemoryReadResponse: ...

    def write(self, request: MemoryWriteRequest) -> MemoryWriteResponse: ...


class GuardedController(ABC):
    """Authorisation, tenancy and never-raise, shared by every controller.

    >>> from memvault.controller import InMemoryController, MemoryReadRequest
    >>> c = InMemoryController("acme")
    >>> c.read(MemoryReadRequest(authorized=False, reason="", orchestrator="acme",
    ...                          agent="a", query="x")).status.value
    'unauthorized'
    """

    def __init__(self, orchestrator: str, *, on_event: Callable[..., None] | None = None) -> None:
        self.orchestrator = orchestrator
        self._on_event = on_event

    # -- the guard -------------------------------------------------------------

    def _log(self, level: int, event: str, **fields: Any) -> None:
        fields = {"orchestrator": self.orchestrator, **fields}
        logger.log(level, "%s %s", event, " ".join(f"{k}={v}" for k, v in fields.items()))
        if self._on_event is not None:
            try:
                self._on_event(event, level=logging.getLevelName(level).lower(), **fields)
            except Exception:  # the audit hook is best effort, like the log
                logger.exception("controller event hook failed")

    def _denied(self, op: str, authorized: bool, orchestrator: str, agent: str) -> str | None:
        """Why ``op`` is refused, or ``None``.

        Trigger: a request the decision logic did not authorise, or one naming
        another orchestrator.
        Why: memory access is explicit and tenant-bound (INV Rule 10, spec v1
        ``cross_orchestrator = false``).
        Outcome: ``unauthorized`` with a reason, and a warning in the log.
        """
        if not authorized:
            detail = f"{op} not authorized by decision logic"
        elif orchestrator != self.orchestrator:
            detail = (
                f"cross-orchestrator {op} denied: {orchestrator!r} asked the memory of "
                f"{self.orchestrator!r}"
            )
        else:
            return None
        self._log(
            logging.WARNING, f"memory_{op}_denied", agent=agent, asked_by=orchestrator, why=detail
        )
        return detail

    def _failure(self, op: str, exc: BaseException, agent: str) -> tuple[ControllerStatus, str]:
        status = (
            ControllerStatus.UNAVAILABLE
            if isinstance(exc, UNAVAILABLE_ERRORS) or _is_sqlite_error(exc)
            else ControllerStatus.FAILED
        )
        detail = f"{type(exc).__name__}: {exc}"
        self._log(logging.ERROR, f"memory_{op}_{status.value}", agent=agent, error=detail)
        return status, detail

    def _guarded(
        self,
        op: str,
        request: MemoryReadRequest | MemoryWriteRequest,
        answer: type[A],
        run: Callable[[], A],
        logged: Callable[[A], dict[str, Any]],
    ) -> A:
        """``run()`` behind the guard; a denial or failure becomes ``answer``'s status.

        A completed call is logged as ``memory_<op>`` with ``logged(response)``.
        """
        try:
            denied = self._denied(op, request.authorized, request.orchestrator, request.agent)
            if denied is not None:
                return answer.unauthorized(denied)
            response = run()
        except Exception as exc:
            status, detail = self._failure(op, exc, request.agent)
            return answer(status, detail)
        fields = {"agent": request.agent, "reason": request.reason, **logged(response)}
        self._log(logging.INFO, f"memory_{op}", **fields)
        return response

    def read(self, request: MemoryReadRequest) -> MemoryReadResponse:
        """Read for ``request``; never raises."""
        return self._guarded(
            "read",
            request,
            MemoryReadResponse,
            lambda: self._read(request),
            lambda r: {"status": r.status.value, "ids": len(r.memory_ids)},
        )

    def write(self, request: MemoryWriteRequest) -> MemoryWriteResponse:
        """Write for ``request``; never raises."""
        return self._guarded(
            "write",
            request,
            MemoryWriteResponse,
            lambda: self._write(request),
            lambda r: {
                "kind": request.kind,
                "status": r.status.value,
                "stop_reason": r.stop_reason,
            },
        )

    def close(self) -> None:  # noqa: B027 - optional hook, deliberately empty
        """Release resources (a no-op unless an implementation holds some)."""

    # -- what implementations provide -----------------------------------------

    @abstractmethod
    def _read(self, request: MemoryReadRequest) -> MemoryReadResponse: ...

    @abstractmethod
    def _write(self, request: MemoryWriteRequest) -> MemoryWriteResponse: ...


def _is_sqlite_error(exc: BaseException) -> bool:
    """A database-level error (corrupt file, disk I/O, locked) without importing sqlite3 here."""
    return type(exc).__module__ == "sqlite3" and type(exc).__name__ in {
        "DatabaseError",
        "OperationalError",
    }
