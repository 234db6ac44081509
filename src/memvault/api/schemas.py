"""Request bodies of the HTTP API (pydantic at the edge): the OpenAPI document states
what the server enforces.

Enumerations (``type``, ``category``, ``source_kind``, ``ttl_class``, ``status`` …)
are enums; ids carry their patterns; text fields their bounds and "no control
characters"; ``POST /v1/memories`` is one schema per contract category (a
``oneOf`` discriminated by ``category``), each with the source kinds, TTL classes
and value length the contract allows for it and the category's default TTL class.
The categories are those of the default contract (19.1.0); a server configured
for another contract refuses the others with 403 ``FORBIDDEN_CATEGORY``.

What no schema can say — forbidden or injected *content* — is the governance
gate's, answered 403 with its stop reason.

>>> sorted(MEMORY_IN_MODELS)[:2]
['CONSTRAINT', 'DECISION']
>>> MEMORY_IN_MODELS["TODO"].model_fields["ttl_class"].default
'MEDIUM'
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    WithJsonSchema,
    create_model,
)

from memvault.engine import (
    CATEGORY_ALIASES,
    DEFAULT_CONTRACT_VERSION,
    MemoryQuery,
    NewMemory,
    NodeFilter,
    load_contract,
)
from memvault.engine import MemoryPatch as EngineMemoryPatch
from memvault.model.annotations import edge_fields
from memvault.model.enums import MemoryType, TTLClass
from memvault.model.node import (
    CONTENT_MAX,
    ID_PATTERN,
    PROVENANCE_FIELDS,
    SCALAR_FILTERS,
    SUMMARY_MAX,
)
from memvault.model.validation import VISIBLE_PATTERN

__all__ = [
    "CONTENT_PATTERN",
    "HTTP_ONLY",
    "MEMORY_IN_MODELS",
    "Ident",
    "MemoryIn",
    "MemoryPatch",
    "Name",
    "QueryFilters",
    "QueryIn",
    "SearchFilters",
    "SearchIn",
    "SupersedeBody",
    "Timestamp",
    "UserIdent",
]

#: Plain text: no control characters (tab, newline and carriage return are fine).
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"
#: Content holds at least one visible character (it may not be blank). Other
#: control characters than tab and line breaks are not refused: the write path
#: removes them and records the removal (issue 17: a pasted table is not lost).
CONTENT_PATTERN = VISIBLE_PATTERN

Content = Annotated[
    str, StringConstraints(min_length=1, max_length=CONTENT_MAX, pattern=CONTENT_PATTERN)
]
Summary = Annotated[str, StringConstraints(max_length=SUMMARY_MAX, pattern=TEXT_PATTERN)]
ScopeId = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=ID_PATTERN)]
Ident = Annotated[str, StringConstraints(min_length=1, max_length=128)]
#: A user id: it is trimmed (model/validation.clean_user_id), so it needs a visible character.
UserIdent = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=VISIBLE_PATTERN)]


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_AWARE: TypeAdapter[datetime] = TypeAdapter(AwareDatetime)
_DATE: TypeAdapter[date] = TypeAdapter(date)


def _utc_stamp(moment: datetime) -> str:
    """memvault's timestamp of a moment.

    A moment before year 1 or after 9999 in UTC is clamped to the first or last
    one: as a filter bound it means "everything" either way.
    """
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        offset = moment.utcoffset()
        edge = datetime.min if offset is not None and offset > timedelta(0) else datetime.max
        moment = edge.replace(tzinfo=UTC)
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}.{moment.microsecond:06d}Z"


def _stamp(value: Any) -> str:
    """An RFC 3339 date-time string as memvault's UTC timestamp (else ValueError)."""
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise ValueError("give an RFC 3339 date-time, e.g. 2026-01-31T09:30:00Z")
    return _utc_stamp(_AWARE.validate_python(value))


def _day_or_stamp(value: Any) -> str:
    """A day (kept as a day: memory.query reads it as midnight UTC) or a date-time."""
    if isinstance(value, str) and _DAY.match(value):
        return _DATE.validate_python(value).isoformat()
    return _stamp(value)


#: An RFC 3339 date-time (any offset), passed on as memvault's UTC timestamp.
Timestamp = Annotated[
    str, BeforeValidator(_stamp), WithJsonSchema({"type": "string", "format": "date-time"})
]
#: A day (midnight UTC) or an RFC 3339 date-time.
Day = Annotated[
    str,
    BeforeValidator(_day_or_stamp),
    WithJsonSchema(
        {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}
    ),
]
Short = Annotated[str, StringConstraints(max_length=256)]


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return value


# JSON ``false`` is not the number 0, nor ``0`` the boolean false (``43.0`` is the
# integer 43, as JSON Schema says).
Importance = Annotated[int, Field(ge=0, le=100), BeforeValidator(_not_bool)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False, strict=True)]
Flag = Annotated[bool, Field(strict=True)]

_CONTRACT = load_contract(DEFAULT_CONTRACT_VERSION)
if TYPE_CHECKING:
    CategoryName = str
else:
    #: Every category of the default contract, for reads and updates.
    CategoryName = Literal[tuple(sorted(_CONTRACT.categories))]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _ByName(BaseModel):
    """A body whose aliased fields may also be given by name (``return``: ``return_mode``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _text(max_length: int) -> Any:
    return Annotated[str, StringConstraints(max_length=max_length, pattern=TEXT_PATTERN)]


#: How the HTTP bodies type the memory fields of ``NewMemory`` and ``MemoryPatch``
#: (the one field lists); a field not named here is taken as the engine types it.
#: ``POST /v1/memories`` narrows ``category``, ``source_kind``, ``ttl_class``, ``key``
#: and ``value`` further, per contract category (``_memory_in``).
_MEMORY_TYPES: dict[str, Any] = {
    "content": Content,
    "type": MemoryType,
    "summary": Summary,
    "ttl_class": TTLClass,
    "key": _text(128),
    "value": _text(1024),
    "category": CategoryName,
    "importance": Importance,
    "confidence": Confidence,
    "pinned": Flag,
    "project_id": ScopeId | None,
    **dict.fromkeys((*PROVENANCE_FIELDS, "workflow_run_id", "step_id"), Ident | None),
    "user_id": UserIdent | None,
    "agent_id": Annotated[
        Ident | None,
        Field(description="must be the API key's agent (403 otherwise); defaults to it"),
    ],
    "source_path": Annotated[
        Annotated[str, StringConstraints(max_length=4_096, pattern=r"^/")] | None,
        Field(description="absolute, inside the orchestrator's workspace (403)"),
    ],
    "source_ref": Short | None,
}

#: What ``POST /v1/memories`` takes besides ``NewMemory``'s fields: the edge's own controls.
#: ``vector`` is a precomputed document vector of ``content`` and ``vector_model`` the
#: id of the model that made it; both must match the server's embedder (model id,
#: dimension), else 409 (issue 22).
HTTP_ONLY: dict[str, Any] = {
    "thread_id": (ScopeId, "default"),
    "vector": (
        Annotated[
            list[Annotated[float, Field(strict=True, allow_inf_nan=False)]],
            Field(min_length=1, max_length=8_192),
        ]
        | None,
        None,
    ),
    "vector_model": (Short | None, Field(default=None, description="needs ``vector``")),
}


class _MemoryBody(_Body):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"dependentRequired": {"vector_model": ["vector"]}}
    )


if TYPE_CHECKING:
    _MemoryFields = _MemoryBody
else:
    _MemoryFields = create_model(
        "_MemoryFields",
        __base__=_MemoryBody,
        __doc__="The fields of ``memvault add`` every category shares.",
        **edge_fields(NewMemory, _MEMORY_TYPES),
        **HTTP_ONLY,
    )


def _memory_in(category: str) -> type[_MemoryFields]:
    rule = _CONTRACT.categories[category]
    kinds = tuple(k.value for k in rule.allowed_source_kinds)
    ttls = tuple(t.value for t in rule.allowed_ttl_classes)
    # Typed Any: a Literal built at run time is a "special form" to mypy, which
    # pydantic >= 2.14's create_model stubs (TypeForm) no longer accept as a type.
    category_type: Any = Literal[category]
    kind_type: Any = Literal[kinds]
    ttl_type: Any = Literal[ttls]
    model: type[_MemoryFields] = create_model(
        "MemoryIn" + "".join(part.title() for part in category.split("_")),
        __base__=_MemoryFields,
        __doc__=f"``POST /v1/memories`` with category {category} (contract §{rule.section}).",
        category=(category_type, ...),
        source_kind=(kind_type, ...),
        ttl_class=(ttl_type, rule.default_ttl.value),
        key=(_text(rule.key_max), ""),
        value=(_text(rule.value_max), ""),
    )
    return model


#: One request model per contract category.
MEMORY_IN_MODELS: dict[str, type[_MemoryFields]] = {c: _memory_in(c) for c in _CONTRACT.categories}

if TYPE_CHECKING:
    MemoryIn = _MemoryFields
else:
    #: ``POST /v1/memories``: the fields of ``memvault add``, per category.
    MemoryIn = Annotated[
        Union[tuple(MEMORY_IN_MODELS.values())],  # noqa: UP007
        Field(discriminator="category"),
    ]


class SupersedeBody(_Body):
    """``POST /v1/memories/{id}/supersede``: the memory that replaces it."""

    by: Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=ID_PATTERN)]


class _PatchBody(_Body):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    def changes(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in self.model_dump(mode="json", exclude_unset=True).items()
            if v is not None
        }


if TYPE_CHECKING:
    MemoryPatch = _PatchBody
else:
    MemoryPatch = create_model(
        "MemoryPatch",
        __base__=_PatchBody,
        __doc__=(
            "``PATCH /v1/memories/{id}``: the fields ``memvault update`` can change"
            " (at least one).\n\nA change the stored memory's category does not allow"
            " (a TTL class, a value\nlength, a source kind) is 409: the request conflicts"
            " with the stored memory."
        ),
        **edge_fields(
            EngineMemoryPatch,
            {n: (t, None) for n, t in _MEMORY_TYPES.items() if n in EngineMemoryPatch.model_fields},
        ),
    )


def _filter_fields(dates: Any, *, category: bool) -> dict[str, Any]:
    """The fields of ``NodeFilter`` (the one filter list) as this edge types them.

    ``status`` is the listing's own query parameter; ``category`` is the
    request's top-level ``categories`` where ``category`` is False; the user
    scope (``visible_to``) is the listing's alone here.
    """
    edge: dict[str, Any] = {
        **dict.fromkeys(SCALAR_FILTERS, (Ident | None, None)),
        "type": (list[MemoryType] | None, Field(default=None, max_length=16)),
        "category": (list[CategoryName] | None, Field(default=None, max_length=32)),
        "pinned": (Flag | None, None),
        "importance_min": (Importance | None, None),
        "importance_max": (Importance | None, None),
        "updated_after": (dates | None, None),
        "updated_before": (dates | None, None),
    }
    skip = {"status", "visible_to"} | (set() if category else {"category"})
    return edge_fields(NodeFilter, edge, skip=skip)


if TYPE_CHECKING:
    SearchFilters = _Body
    QueryFilters = _Body
else:
    #: Optional filters of ``POST /v1/search`` (applied inside the store).
    SearchFilters = create_model(
        "SearchFilters",
        __base__=_Body,
        __doc__="Optional filters of ``POST /v1/search`` (applied inside the store).",
        **_filter_fields(Timestamp, category=False),
    )
    #: ``filters`` of ``POST /v1/query``: dates may be days.
    QueryFilters = create_model(
        "QueryFilters",
        __base__=_Body,
        __doc__="``filters`` of ``POST /v1/query`` (memory.query, spec §6.1): dates may be days.",
        **_filter_fields(Day, category=True),
    )


#: A name: an agent's, a speaker's.
Name = Annotated[str, StringConstraints(min_length=1, max_length=64)]
if TYPE_CHECKING:
    QueryCategory = str
    QueryIn = _Body
else:
    #: memory.query takes contract categories and the spec's aliases (``tasks`` …).
    QueryCategory = Literal[tuple(sorted(CATEGORY_ALIASES))] | CategoryName

    #: ``POST /v1/query``: memory.query's request (the one list), as HTTP types it,
    #: and whose question it is.
    QueryIn = create_model(
        "QueryIn",
        __base__=_ByName,
        __doc__="``POST /v1/query``: memory.query (spec §6); the agent comes from the key.",
        **edge_fields(
            MemoryQuery,
            {
                "query": Annotated[
                    str, StringConstraints(max_length=4000, pattern=VISIBLE_PATTERN)
                ],
                "agent": (
                    Name | None,
                    Field(default=None, description="must be the key's agent (403)"),
                ),
                "categories": (list[QueryCategory] | None, Field(default=None, max_length=32)),
                "filters": (QueryFilters | None, None),
            },
        ),
        user_id=(
            Ident | None,
            Field(
                default=None,
                description="whose question: their memories and shared ones answer, never "
                "another user's (a key bound to a user may name only that user); none: "
                "shared only, unless filters.user_id names the user",
            ),
        ),
    )


class SearchIn(_Body):
    """``POST /v1/search``: ``{"query", "top_k"}`` plus optional categories and filters."""

    #: Not empty or blank (422): listing memories is ``GET /v1/memories``.
    query: Annotated[str, StringConstraints(max_length=2_000, pattern=VISIBLE_PATTERN)]
    top_k: Annotated[int, Field(ge=1, le=100)] = 10
    categories: list[CategoryName] | None = Field(default=None, max_length=32)
    filters: SearchFilters | None = None
