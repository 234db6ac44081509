"""memory.query: the one recall tool for supervisors and sub-agents (spec §6).

A request names the calling ``agent``, a ``query`` and, optionally, the
``categories`` it wants. The categories must be a subset of the agent's
allowlist (:class:`memvault.policy.AgentAllowlist`, spec §5) or the call is
refused with ``FORBIDDEN_CATEGORY`` — whatever the filters say. Filters are
the spec's fixed keys (an unknown key is an error) and are applied inside the
store's query. Procedure memories come back only when the categories ask for
``PROCEDURE`` (spec §12). Results are cut to ``top_k``, to ``threshold`` (an
absolute score, 0..1: with the default calibrated retrieval a probability of
relevance, so an unrelated query gets nothing) and to ``budget_tokens``; recalled text
is quoted data (:func:`memvault.context.render.quote`).

>>> q = MemoryQuery.model_validate({"agent": "planner", "query": "deploy plan",
...                                 "categories": ["tasks"], "return": "bullets"})
>>> q.return_mode, q.top_k, q.budget_tokens
('bullets', 3, 512)
>>> MemoryQuery.model_validate({"agent": "a", "query": "q", "filters": {"colour": "red"}})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for MemoryQuery
filters.colour
  Extra inputs are not permitted [type=extra_forbidden, input_value='red', input_type=str]
    For further information visit https://errors.pydantic.dev/2.../v/extra_forbidden
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
    field_validator,
)

from memvault.context.render import estimate_tokens, quote
from memvault.model.annotations import edge_fields
from memvault.model.enums import MemoryType, StopReason
from memvault.model.node import SCALAR_FILTERS, MemoryNode
from memvault.model.validation import BLANK_QUERY, UserId, is_blank, to_validation_failed
from memvault.policy.allowlist import ALIASES, AgentAllowlist
from memvault.store.base import NodeFilter, as_tuple
from memvault.store.records import OpEvent
from memvault.store.scope import UserScope
from memvault.store.scope import scoped as scope_to

__all__ = [
    "PROCEDURE",
    "CategoryMode",
    "EventBuffer",
    "MemoryQuery",
    "QueryFilters",
    "QueryItem",
    "QueryResult",
    "RankedRecall",
    "expand_categories",
    "memory_query",
    "run_query",
]

#: The category that unlocks Procedure memories (implementation-spec §12).
PROCEDURE = "PROCEDURE"
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True, slots=True)
class CategoryMode:
    """How a category reaches an agent's context (implementation-spec §5).

    ``all``: every active memory of the category is handed over on each
    memory.query that may see it (newest first, within the token budget),
    whatever the query; ``rag``: only recalled memories, at most
    ``rag_length`` of the category per call (``None``: no cap of its own).

    >>> CategoryMode("rag", 30).rag_length
    30
    """

    context: Literal["all", "rag"] = "rag"
    rag_length: int | None = None


#: Memories an ``all`` category contributes at most (the budget cuts further).
ALL_MAX = 200

#: ``listing(filters, limit)`` → active nodes, newest first (the engine's list).
Listing = Callable[[NodeFilter, int], Sequence[MemoryNode]]

#: ``recall(query, filters, top_k)`` → ``(node, score)`` best first (the engine's search).
RankedRecall = Callable[[str, NodeFilter, int], Sequence[tuple[MemoryNode, float]]]

Name = Annotated[str, StringConstraints(min_length=1, max_length=128)]


def _day_to_timestamp(value: Any) -> Any:
    if isinstance(value, str) and _DAY.match(value):
        return value + "T00:00:00.000000Z"
    return value


class _Filters(BaseModel):
    """What :data:`QueryFilters` adds to :class:`NodeFilter`'s fields: days as dates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    _tuple = field_validator("category", "type", mode="before", check_fields=False)(as_tuple)

    @field_validator("updated_after", "updated_before", mode="before", check_fields=False)
    @classmethod
    def _dates(cls, value: Any) -> Any:
        return _day_to_timestamp(value)


if TYPE_CHECKING:
    QueryFilters = _Filters
else:
    QueryFilters = create_model(
        "QueryFilters",
        __base__=_Filters,
        __module__=__name__,
        __doc__="""The filter keys memory.query accepts (spec §6.1); anything else is an error.

    They are :class:`NodeFilter`'s (the one filter list) but the store's own
    ``status`` and ``visible_to`` (the user scope is the call's ``user``), ids
    named (1-128 characters), checked here, at the edge (issue 20: "nope" was a
    500 deep in the store filter). Dates may be ``YYYY-MM-DD`` (midnight UTC)
    or full timestamps.

    >>> QueryFilters(updated_after="2025-07-01").updated_after
    '2025-07-01T00:00:00.000000Z'
    """,
        **edge_fields(
            NodeFilter,
            # a user id is trimmed, as every write trims it ('dana ' is dana)
            {n: ((UserId if n == "user_id" else Name) | None, None) for n in SCALAR_FILTERS},
            skip={"status", "visible_to"},
        ),
    )


class MemoryQuery(BaseModel):
    """One memory.query call (the spec's JSON shape; ``return`` is ``return_mode``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    agent: Name
    #: Not empty or blank (``_visible``, the same rule as search).
    query: Annotated[str, StringConstraints(max_length=4000)]
    categories: tuple[Name, ...] | None = None
    filters: QueryFilters = Field(default_factory=QueryFilters)
    top_k: int = Field(default=3, ge=1, le=100)
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    return_mode: Literal["bullets", "full"] = Field(default="bullets", alias="return")
    budget_tokens: int = Field(default=512, ge=1, le=100_000)

    @field_validator("query")
    @classmethod
    def _visible(cls, value: str) -> str:
        if is_blank(value):
            raise ValueError(BLANK_QUERY)  # as search says it (model/validation.py)
        return value

    @field_validator("categories", mode="before")
    @classmethod
    def _tuple(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list | set | frozenset):
            return tuple(value)
        return value


def expand_categories(names: Iterable[str]) -> frozenset[str]:
    """Contract categories named by ``names`` (spec aliases such as ``tasks`` expand).

    >>> sorted(expand_categories(["tasks", "PREFERENCE", "procedural"]))
    ['PREFERENCE', 'PROCEDURE', 'REMINDER', 'TODO']
    """
    out: set[str] = set()
    for name in names:
        key = name.strip()
        out |= ALIASES.get(key.lower(), frozenset({key.upper()}))
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class QueryItem:
    """One recalled memory as the agent receives it."""

    node: MemoryNode
    score: float
    payload: dict[str, Any]
    tokens: int

    def to_json(self) -> dict[str, Any]:
        return dict(self.payload)


@dataclass(frozen=True, slots=True)
class QueryResult:
    """The answer: items within budget, or a refusal with its stop reason."""

    agent: str
    return_mode: str
    items: tuple[QueryItem, ...] = ()
    stop_reason: StopReason | None = None
    reason: str = ""
    budget_tokens: int = 0
    omitted: dict[str, int] = field(default_factory=dict)
    categories: tuple[str, ...] = ()

    @property
    def refused(self) -> bool:
        return self.stop_reason is not None

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "status": "refused" if self.refused else "ok",
            "agent": self.agent,
            "return": self.return_mode,
            "results": [i.to_json() for i in self.items],
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
            "omitted": dict(self.omitted),
        }
        if self.refused:
            assert self.stop_reason is not None
            data["stop_reason"] = self.stop_reason.value
            data["reason"] = self.reason
        return data


def _refuse(request: MemoryQuery, reason: str) -> QueryResult:
    return QueryResult(
        request.agent,
        request.return_mode,
        stop_reason=StopReason.FORBIDDEN_CATEGORY,
        reason=reason,
        budget_tokens=request.budget_tokens,
    )


def scope_filter(
    request: MemoryQuery, allowlist: AgentAllowlist | None
) -> tuple[NodeFilter, tuple[str, ...]] | str:
    """The store filter for ``request``, or the reason it is refused.

    Trigger: every memory.query call, before anything is read.
    Why: spec §5 — requested categories ⊆ allowlist[agent], enforced server
    side regardless of filters; no agent may widen its reach through filters.
    Outcome: a NodeFilter whose ``category``/``type`` encode the allowed set.
    """
    given = NodeFilter.model_validate(request.filters.model_dump(exclude_none=True))
    asked: frozenset[str] | None = None
    if request.categories is not None:
        asked = expand_categories(request.categories)
    if given.category is not None:
        by_filter = expand_categories(given.category)
        asked = by_filter if asked is None else asked & by_filter
    granted: frozenset[str] | None = None  # None: every category
    if allowlist is not None:
        if request.agent not in allowlist.agents and not allowlist.unlisted_unrestricted:
            return f"agent {request.agent} is not in the allowlist"
        granted = allowlist.categories_for(request.agent)
    if asked is not None and granted is not None:
        denied = sorted(asked - granted)
        if denied:
            return f"agent {request.agent} may not access category {', '.join(denied)}"
    wanted = asked if asked is not None else granted
    procedures = asked is not None and PROCEDURE in asked
    if wanted is not None and not procedures:
        wanted = wanted - {PROCEDURE}
    types = given.type
    if not procedures:
        types = tuple(t for t in (types or tuple(MemoryType)) if t is not MemoryType.PROCEDURE)
    data = given.model_dump(exclude={"category", "type"}, exclude_none=True)
    data["category"] = tuple(sorted(wanted)) if wanted is not None else None
    data["type"] = types
    return NodeFilter.model_validate(data), tuple(sorted(wanted or ()))


def _payload(node: MemoryNode, score: float, mode: str) -> dict[str, Any]:
    text = f"[{node.category}] {quote(node.summary or node.content)}"
    if mode == "bullets":
        return {"id": node.memory_id, "category": node.category, "text": text}
    return {
        "id": node.memory_id,
        "category": node.category,
        "type": node.type.value,
        "text": text,
        "content": quote(node.content, max_chars=4000),
        "importance": node.importance,
        "confidence": node.confidence,
        "pinned": node.pinned,
        "project_id": node.project_id,
        "updated_at": node.updated_at,
        "score": round(score, 6),
        # a dropped file's path is a name anyone can choose ("Ignore all previous
        # instructions….md") and may name a person: kept for audit and the inspector,
        # never handed to the model (review S11-R1 addendum)
        "source": node.source.model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude={"source_path"}
        ),
    }


def _with_modes(
    ranked: list[tuple[MemoryNode, float]],
    node_filter: NodeFilter,
    modes: Mapping[str, CategoryMode],
    listing: Listing | None,
    omitted: dict[str, int],
) -> tuple[list[tuple[MemoryNode, float]], set[str]]:
    """``ranked`` with ``all`` categories in front and ``rag_length`` caps applied.

    Trigger: categories configured with a context mode (spec §5).
    Why: "context mode respected" — an ``all`` category (a profile) is always
    in context; a ``rag`` one only as far as recall finds it, and no more
    than its ``rag_length``.
    Outcome: the whole ``all`` categories first (newest first), then recall.
    """
    allowed = node_filter.category
    everything = sorted(
        c for c, m in modes.items() if m.context == "all" and (allowed is None or c in allowed)
    )
    front: list[tuple[MemoryNode, float]] = []
    if everything and listing is not None:
        flt = node_filter.model_copy(update={"category": tuple(everything)})
        front = [(n, 0.0) for n in listing(flt, ALL_MAX)]
    pinned = {n.memory_id for n, _ in front}
    counts: dict[str, int] = {}
    rest: list[tuple[MemoryNode, float]] = []
    for node, score in ranked:
        if node.memory_id in pinned:
            continue
        mode = modes.get(node.category)
        cap = mode.rag_length if mode is not None and mode.context == "rag" else None
        if cap is not None and counts.get(node.category, 0) >= cap:
            omitted["rag_length"] = omitted.get("rag_length", 0) + 1
            continue
        counts[node.category] = counts.get(node.category, 0) + 1
        rest.append((node, score))
    return front + rest, pinned


def run_query(
    request: MemoryQuery,
    allowlist: AgentAllowlist | None,
    recall: RankedRecall,
    *,
    modes: Mapping[str, CategoryMode] | None = None,
    listing: Listing | None = None,
    user: UserScope = None,
) -> QueryResult:
    """Check scope, recall, then cut to ``threshold``, ``top_k`` and ``budget_tokens``.

    Every read is held to the user scope (store/scope.py): ``user``, else the
    request's ``filters.user_id``, sees their memories and shared ones; with
    neither, shared memories only.

    Items are kept in rank order and the cut is a prefix: an item that would
    overflow the budget ends the list (so the total never exceeds it).
    ``modes`` (spec §5, per category): ``all`` categories come first whatever
    the query (``listing`` reads them; never cut by ``threshold``), ``rag``
    ones at most ``rag_length`` per call.
    """
    scoped = scope_filter(request, allowlist)
    if isinstance(scoped, str):
        return _refuse(request, scoped)
    node_filter, categories = scoped
    reader: UserScope = user if user is not None else node_filter.user_id
    node_filter = scope_to(node_filter, reader)
    ranked = list(recall(request.query, node_filter, request.top_k))
    omitted = {"threshold": 0, "budget": 0}
    pinned: set[str] = set()
    if modes:
        ranked, pinned = _with_modes(ranked, node_filter, modes, listing, omitted)
    items: list[QueryItem] = []
    used = 0
    for node, score in ranked:
        # The spec's threshold (003 §6) is absolute: scores are calibrated
        # across queries, so a weak best hit is dropped like any other.
        if (
            request.threshold is not None
            and score < request.threshold
            and node.memory_id not in pinned
        ):
            omitted["threshold"] += 1
            continue
        payload = _payload(node, score, request.return_mode)
        cost = estimate_tokens(json.dumps(payload, ensure_ascii=False))
        if used + cost > request.budget_tokens or omitted["budget"]:
            omitted["budget"] += 1
            continue
        used += cost
        items.append(QueryItem(node, score, payload, cost))
    return QueryResult(
        request.agent,
        request.return_mode,
        tuple(items),
        budget_tokens=request.budget_tokens,
        omitted=omitted,
        categories=categories,
    )


class EventBuffer:
    """memory.query's operational events, written in small batches.

    Trigger: one write transaction per call costs an fsync, which is more than
    the recall itself on a busy disk.
    Why: the events are counters (spec §11, §14), not an audit trail.
    Outcome: pending events are written in order once ``max_pending`` are
    waiting, when the oldest is ``max_age`` seconds old, and on :meth:`flush`
    (the engine flushes on close); a crash can lose at most that window.
    """

    def __init__(
        self,
        write: Callable[[Sequence[OpEvent]], None],
        *,
        max_pending: int = 32,
        max_age: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        #: Writes a batch in one transaction (the write pipeline's, raises on failure).
        self.write = write
        self.max_pending = max_pending
        self.max_age = max_age
        self.clock = clock
        self._pending: list[OpEvent] = []
        self._since = 0.0
        self._lock = threading.Lock()

    def add(self, event: OpEvent) -> None:
        with self._lock:
            if not self._pending:
                self._since = self.clock()
            self._pending.append(event)
            due = (
                len(self._pending) >= self.max_pending or self.clock() - self._since >= self.max_age
            )
        if due:
            self.flush()

    def flush(self) -> None:
        """Write every pending event now (raises the store's error, events kept)."""
        with self._lock:
            pending, self._pending = self._pending, []
        if not pending:
            return
        try:
            self.write(tuple(pending))
        except Exception:
            with self._lock:
                self._pending[:0] = pending
            raise


def memory_query(
    request: MemoryQuery | Mapping[str, Any] | None,
    fields: Mapping[str, Any],
    allowlist: AgentAllowlist | None,
    recall: RankedRecall,
    *,
    events: EventBuffer,
    now: Callable[[], str],
    warn: Callable[..., None],
    modes: Mapping[str, CategoryMode] | None = None,
    listing: Listing | None = None,
    user: UserScope = None,
) -> QueryResult:
    """Validate, run, log a refusal, record the operational event; the engine's body.

    Each call leaves one ``events`` row (node ``context``; op ``query`` with the
    best hit, or ``query_refused``) through ``events`` (batched), so the
    on-demand recall rate (spec §11) can be counted. Recording never fails the call.

    Raises :class:`~memvault.errors.ValidationFailed` for a malformed request
    (unknown filter key, bad bound); a refusal is a result, not an exception.
    """
    try:
        if isinstance(request, MemoryQuery):
            req = request
            if fields:
                data = request.model_dump(by_alias=True, exclude_unset=True)
                req = MemoryQuery.model_validate({**data, **fields})
        else:
            req = MemoryQuery.model_validate({**(request or {}), **fields})
    except ValidationError as exc:
        raise to_validation_failed(exc) from None
    result = run_query(req, allowlist, recall, modes=modes, listing=listing, user=user)
    at = now()
    if result.refused:
        warn("warning", "query_refused", calling_agent=req.agent, reason=result.reason)
        event = OpEvent(at=at, node="context", op="query_refused", status="skipped")
    else:
        top = result.items[0] if result.items else None
        event = OpEvent(
            at=at,
            node="context",
            op="query",
            status="ok",
            memory_id=top.node.memory_id if top else None,
            category=top.node.category if top else None,
            best_similarity=round(top.score, 6) if top else None,
        )
    try:
        events.add(event)
    except Exception as exc:  # the answer stands even if it cannot be counted
        warn("error", "query_event_not_recorded", error=f"{type(exc).__name__}: {exc}"[:300])
    return result
