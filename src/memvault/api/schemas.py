"""Request bodies of the HTTP API (pydantic at the edge, field sizes bounded).

Enum-like fields (``type``, ``category``, ``source_kind`` …) are plain strings
here on purpose: the engine validates them and answers a bad value with the
``SCHEMA_INVALID`` stop reason, exactly as ``memvault add`` does.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

__all__ = ["MemoryIn", "MemoryPatch", "SearchFilters", "SearchIn", "SupersedeBody"]

Text = Annotated[str, StringConstraints(max_length=16_000)]
Name = Annotated[str, StringConstraints(max_length=64)]
Ident = Annotated[str, StringConstraints(min_length=1, max_length=128)]
Short = Annotated[str, StringConstraints(max_length=1_000)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryIn(_Body):
    """``POST /v1/memories``: the fields of ``memvault add``.

    ``agent_id`` is the key's agent; a different value is refused.
    """

    content: Annotated[str, StringConstraints(min_length=1, max_length=16_000)]
    type: Name
    category: Name
    source_kind: Name
    key: Short = ""
    value: Text = ""
    summary: Short = ""
    importance: int = 50
    confidence: float = 1.0
    pinned: bool = False
    ttl_class: Name = "LONG"
    project_id: Ident | None = None
    user_id: Ident | None = None
    agent_id: Ident | None = None
    run_id: Ident | None = None
    actor_id: Ident | None = None
    role: Ident | None = None
    conversation_id: Ident | None = None
    source_type: Name = "manual"
    captured_by: Name = "user"
    source_path: Annotated[str, StringConstraints(max_length=4_096)] | None = None
    workflow_run_id: Ident | None = None
    step_id: Ident | None = None
    source_ref: Short | None = None
    thread_id: Ident = "default"
    #: a precomputed document vector of ``content`` and the id of the model that made
    #: it; both must match the server's embedder (model id, dimension), else 422-like
    #: SCHEMA_INVALID (issue 22)
    vector: Annotated[list[float], Field(min_length=1, max_length=8_192)] | None = None
    vector_model: Short | None = None


class SupersedeBody(_Body):
    """``POST /v1/memories/{id}/supersede``: the memory that replaces it."""

    by: Ident


class MemoryPatch(_Body):
    """``PATCH /v1/memories/{id}``: the fields ``memvault update`` can change."""

    content: Annotated[str, StringConstraints(min_length=1, max_length=16_000)] | None = None
    summary: Short | None = None
    key: Short | None = None
    value: Text | None = None
    type: Name | None = None
    category: Name | None = None
    importance: int | None = None
    confidence: float | None = None
    pinned: bool | None = None
    ttl_class: Name | None = None

    def changes(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump(exclude_unset=True).items() if v is not None}


class SearchFilters(_Body):
    """Optional filters of ``POST /v1/search`` (applied inside the store)."""

    user_id: Ident | None = None
    agent_id: Ident | None = None
    run_id: Ident | None = None
    actor_id: Ident | None = None
    role: Ident | None = None
    conversation_id: Ident | None = None
    project_id: Ident | None = None
    type: list[Name] | None = Field(default=None, max_length=16)
    pinned: bool | None = None
    importance_min: int | None = None
    importance_max: int | None = None
    updated_after: Name | None = None
    updated_before: Name | None = None


class SearchIn(_Body):
    """``POST /v1/search``: ``{"query", "top_k"}`` plus optional categories and filters."""

    query: Annotated[str, StringConstraints(max_length=2_000)]
    top_k: Annotated[int, Field(ge=1, le=100)] = 10
    categories: list[Name] | None = Field(default=None, max_length=32)
    filters: SearchFilters | None = None
