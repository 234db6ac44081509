"""What a write takes in: a new memory, a patch, the gate seam (DESIGN §4).

:class:`NewMemory` is every field a caller may give to ``add``;
:class:`MemoryPatch` every field ``update`` may change. They are the one
definition of those field lists: the engine's typed methods, the CLI options,
the HTTP bodies and the MCP parameters derive from them.

>>> sorted(MemoryPatch.model_fields) == sorted(UPDATABLE_FIELDS)
True
>>> NewMemory(content="Prefers tea", type="Preference", category="PREFERENCE",
...           source_kind="USER_EXPLICIT").ttl_class.value
'LONG'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol, TypedDict, runtime_checkable

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
from memvault.model.validation import UserId

__all__ = [
    "PURGE_AFTER",
    "UPDATABLE_FIELDS",
    "Clock",
    "FieldGate",
    "LinkOptions",
    "MemoryPatch",
    "NewMemory",
    "OpenGate",
    "WriteGate",
    "derive_key",
]

Clock = Callable[[], datetime]

#: A soft-deleted memory can be restored until it is purged this long after.
PURGE_AFTER = timedelta(days=30)


def derive_key(content: str) -> str:
    """The default ``key`` of a memory: a slug of its first eight words.

    >>> derive_key("Prefers concise answers!")
    'prefers_concise_answers'
    """
    # runs of str.isalnum() characters (``[^\W_]``), only as far as the eighth
    words = [m.group() for m in itertools.islice(_ALNUM_RUN.finditer(content.lower()), 8)]
    return "_".join(words)[:128] or "memory"


_ALNUM_RUN = re.compile(r"[^\W_]+")


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
    user_id: UserId | None = None  # trimmed: 'alice ' is 'alice' (model/validation.py)
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


class LinkOptions(TypedDict, total=False):
    """What ``link`` takes besides its two ends and the edge type (one definition)."""

    weight: float  # default 1.0
    reason: str | None  # default None
    thread_id: str  # default "default"


class MemoryPatch(BaseModel):
    """What ``update`` may change (identity, scope and provenance are fixed).

    ``None`` means "leave as is"; only the fields set are applied.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str | None = None
    summary: str | None = None
    key: str | None = None
    value: str | None = None
    type: MemoryType | None = None
    category: str | None = None
    importance: int | None = None
    confidence: float | None = None
    pinned: bool | None = None
    ttl_class: TTLClass | None = None

    def changes(self) -> dict[str, Any]:
        """The fields this patch sets (``None`` = unchanged)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


#: Fields ``update`` may change; identity, scope and provenance are fixed.
UPDATABLE_FIELDS = frozenset(MemoryPatch.model_fields)


class WriteGate(Protocol):
    """The seam where governance decides every write (DESIGN §2).

    ``check`` is pure and returns exactly one stop reason. The write pipeline
    calls it after building the node and before anything touches the store.
    """

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision: ...


@runtime_checkable
class FieldGate(Protocol):
    """Optional: a gate that can judge raw fields no node could be built from.

    Trigger: ``add`` with a bad ``type`` (or another schema problem).
    Why: contract §7 — an injection or forbidden content outranks
    SCHEMA_INVALID, so the text is judged even when the shape is wrong.
    Outcome: the pipeline ranks the gate's answer with the schema finding.
    """

    def check_fields(
        self, op: MemoryOp, fields: dict[str, Any], *, agent_id: str | None
    ) -> Decision: ...


_SUCCESS = {
    MemoryOp.STORE: StopReason.SUCCESS_STORED,
    MemoryOp.UPDATE: StopReason.SUCCESS_UPDATED,
    MemoryOp.DELETE: StopReason.SUCCESS_DELETED,
}


class OpenGate:
    """A gate that allows every schema-valid write (no content governance).

    Used only where content governance is deliberately off (tests of the core,
    benchmarks that load sensitive conversations on purpose).

    >>> gate: WriteGate = OpenGate()
    >>> isinstance(gate, FieldGate)   # it judges built nodes only
    False
    """

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
        return Decision(_SUCCESS.get(op, StopReason.SUCCESS_STORED), detector="open_gate")
