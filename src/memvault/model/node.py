"""Memory nodes, edges and provenance: validated, frozen data (STYLE principle 5).

Bounds come from DESIGN §1.2 and contract §12. Validation is strict: an enum
value must match exactly, numbers must be in range, nothing is coerced
silently. Use :func:`memvault.model.validation.to_validation_failed` to turn a
pydantic error into memvault's typed error with the right stop reason.

>>> src = Source(source_type=SourceType.MANUAL, captured_by=CapturedBy.USER,
...              source_kind=SourceKind.USER_EXPLICIT)
>>> n = MemoryNode(memory_id="mem_1", orchestrator_id="acme", type=MemoryType.PREFERENCE,
...                category="PREFERENCE", content="Prefers concise answers", source=src,
...                created_at="2026-01-01T00:00:00.000000Z",
...                updated_at="2026-01-01T00:00:00.000000Z")
>>> n.status
<MemoryStatus.ACTIVE: 'active'>
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
)
from pydantic.alias_generators import to_camel

from memvault.model.enums import (
    CapturedBy,
    EdgeType,
    MemoryStatus,
    MemoryType,
    SourceKind,
    SourceType,
    TTLClass,
)

__all__ = [
    "CONTENT_MAX",
    "ID_PATTERN",
    "PROVENANCE_FIELDS",
    "SCALAR_FILTERS",
    "SUMMARY_MAX",
    "CheckedTimestamp",
    "MemoryEdge",
    "MemoryNode",
    "Source",
    "Timestamp",
]

#: Identifiers: letters, digits and ``_ . : -``; no spaces, no path separators.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:\-]*$"
#: ISO-8601 UTC with microseconds and ``Z`` — sortable as text.
TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$"
CONTENT_MAX = 4000
SUMMARY_MAX = 280
#: Who and what a memory came from: the node's provenance columns, one list for the
#: store's columns and filters and the ingest schema.
PROVENANCE_FIELDS = ("user_id", "agent_id", "run_id", "actor_id", "role", "conversation_id")
#: The id-valued fields a filter compares by equality (``column = value``): the
#: store's, and the id-typed inputs of every edge that takes filters. ``key`` (a
#: memory's key, e.g. a LangGraph item key) is looked up by an index of its own.
SCALAR_FILTERS = (*PROVENANCE_FIELDS, "project_id", "key")

MemoryId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=ID_PATTERN)]
ScopeId = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=ID_PATTERN)]
FilterValue = Annotated[str, StringConstraints(min_length=1, max_length=128)]
Timestamp = Annotated[str, StringConstraints(pattern=TIMESTAMP_PATTERN)]


def _real_instant(value: str) -> str:
    from memvault.model.clock import parse_timestamp

    parse_timestamp(value)  # ValueError (→ a validation error) for 2026-13-45T99:…
    return value


#: A :data:`Timestamp` that is also a real calendar instant: for values callers
#: type (filters), where "2026-13-45T99:99:99.000000Z" must be refused, not matched.
CheckedTimestamp = Annotated[
    str, StringConstraints(pattern=TIMESTAMP_PATTERN), AfterValidator(_real_instant)
]
ShortText = Annotated[str, StringConstraints(max_length=256)]

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

_STRICT = ConfigDict(frozen=True, extra="forbid", validate_default=True, use_enum_values=False)


class Source(BaseModel):
    """Provenance of a memory (memory-subsystem spec, DESIGN §1.2).

    Serialised with camelCase keys (``sourceType``, ``sourcePath`` …) as the
    spec names them; Python attributes are snake_case. ``source_path`` must be
    absolute; the engine canonicalises it (symlinks resolved) and checks it
    lies inside the orchestrator's workspace before building a ``Source``.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        validate_default=True,
    )

    source_type: SourceType
    captured_by: CapturedBy
    source_kind: SourceKind
    source_path: Annotated[str, StringConstraints(max_length=4096)] | None = None
    conversation_id: FilterValue | None = None
    workflow_run_id: FilterValue | None = None
    step_id: FilterValue | None = None
    source_ref: Annotated[str, StringConstraints(max_length=256)] | None = None

    @field_validator("source_path")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith("/") and not re.match(r"^[A-Za-z]:[\\/]", value):
            raise ValueError("sourcePath must be an absolute path")
        if "\x00" in value:
            raise ValueError("sourcePath must not contain NUL")
        return value


class MemoryNode(BaseModel):
    """One memory: the typed-graph node and the governance item in one record."""

    model_config = _STRICT

    memory_id: MemoryId
    orchestrator_id: ScopeId
    project_id: ScopeId | None = None
    type: MemoryType
    category: Annotated[str, StringConstraints(min_length=1, max_length=32, pattern=r"^[A-Z_]+$")]
    key: Annotated[str, StringConstraints(max_length=128)] = ""
    value: Annotated[str, StringConstraints(max_length=1024)] = ""
    content: Annotated[str, StringConstraints(min_length=1, max_length=CONTENT_MAX)]
    summary: Annotated[str, StringConstraints(max_length=SUMMARY_MAX)] = ""
    importance: Annotated[int, Field(ge=0, le=100, strict=True)] = 50
    confidence: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 1.0
    pinned: bool = False
    source: Source
    status: MemoryStatus = MemoryStatus.ACTIVE
    ttl_class: TTLClass = TTLClass.LONG
    user_id: FilterValue | None = None
    agent_id: FilterValue | None = None
    run_id: FilterValue | None = None
    actor_id: FilterValue | None = None
    role: FilterValue | None = None
    conversation_id: FilterValue | None = None
    created_at: Timestamp
    updated_at: Timestamp
    last_accessed_at: Timestamp | None = None
    purge_at: Timestamp | None = None
    access_count: Annotated[int, Field(ge=0, strict=True)] = 0

    @field_validator("content", "summary", "key", "value")
    @classmethod
    def _plain_text(cls, value: str) -> str:
        if _CONTROL.search(value):
            raise ValueError("control characters are not allowed")
        return value

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content must not be blank")
        return value

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (enums as values, ``source`` with camelCase keys)."""
        data = self.model_dump(mode="json", exclude={"source"})
        data["source"] = self.source.model_dump(mode="json", by_alias=True)
        return data


class MemoryEdge(BaseModel):
    """A typed, weighted relation between two nodes of one orchestrator."""

    model_config = _STRICT

    edge_id: MemoryId
    orchestrator_id: ScopeId
    from_memory_id: MemoryId
    to_memory_id: MemoryId
    edge_type: EdgeType
    weight: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 1.0
    reason: Annotated[str, StringConstraints(max_length=280)] | None = None
    resolved: bool = False
    created_at: Timestamp

    @field_validator("to_memory_id")
    @classmethod
    def _no_self_loop(cls, value: str, info: Any) -> str:
        if info.data.get("from_memory_id") == value:
            raise ValueError("an edge cannot link a memory to itself")
        return value

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
