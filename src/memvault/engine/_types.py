"""What the engine takes in: new memories, the write-gate seam, the clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from memvault.model.decision import Decision
from memvault.model.enums import (
    CapturedBy,
    MemoryOp,
    MemoryType,
    SourceKind,
    SourceType,
    StopReason,
    TTLClass,
)
from memvault.model.node import MemoryNode

if TYPE_CHECKING:
    pass


Clock = Callable[[], datetime]
P = ParamSpec("P")
T = TypeVar("T")

#: A soft-deleted memory can be restored until it is purged this long after.
PURGE_AFTER = timedelta(days=30)

#: Fields ``update`` may change; identity, scope and provenance are fixed.
UPDATABLE_FIELDS = frozenset(
    {
        "content",
        "summary",
        "key",
        "value",
        "type",
        "category",
        "importance",
        "confidence",
        "pinned",
        "ttl_class",
    }
)


def _derive_key(content: str) -> str:
    words = [w for w in "".join(c if c.isalnum() else " " for c in content.lower()).split()]
    return "_".join(words[:8])[:128] or "memory"


class NewMemory(BaseModel):
    """What a caller gives to ``add`` (pydantic at the edge; the node validates bounds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str
    type: MemoryType
    category: str
    source_kind: SourceKind
    key: str = ""
    value: str = ""
    summary: str = ""
    importance: int = 50
    confidence: float = 1.0
    pinned: bool = False
    ttl_class: TTLClass = TTLClass.LONG
    project_id: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    actor_id: str | None = None
    role: str | None = None
    conversation_id: str | None = None
    source_type: SourceType = SourceType.MANUAL
    captured_by: CapturedBy = CapturedBy.USER
    source_path: str | None = None
    workflow_run_id: str | None = None
    step_id: str | None = None
    source_ref: str | None = None


class WriteGate(Protocol):
    """The seam where governance decides every write (DESIGN §2).

    ``check`` is pure and returns exactly one stop reason. The engine calls it
    after schema validation and before anything touches the store.
    """

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision: ...


_SUCCESS = {
    MemoryOp.STORE: StopReason.SUCCESS_STORED,
    MemoryOp.UPDATE: StopReason.SUCCESS_UPDATED,
    MemoryOp.DELETE: StopReason.SUCCESS_DELETED,
}


class OpenGate:
    """A gate that allows every schema-valid write (no content governance).

    Used only where content governance is deliberately off (tests of the core,
    benchmarks that load sensitive conversations on purpose).
    """

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
        return Decision(_SUCCESS.get(op, StopReason.SUCCESS_STORED), detector="open_gate")
