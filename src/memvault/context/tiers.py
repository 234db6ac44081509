"""Task, project and global memory tiers, and the :class:`ContextAssembler` (spec 002).

=======  ==========================================  =================================
tier     where it lives                              life
=======  ==========================================  =================================
task     in this process, per task (never persisted)  cleared when the task ends
project  the store, ``project_id = P``                eviction over ``max_items``
global   the store, ``project_id`` is null            manual only
=======  ==========================================  =================================

Projects are isolated: project ``P`` reads only rows with ``project_id = P``
(a store filter, in SQL). Nothing moves between tiers by itself: promotion is
an explicit call (task → project at the end of a task). Eviction soft-deletes
the lowest-importance, then oldest, 10% of a project (pinned memories never)
through the engine, so each one is an audited, restorable delete.

``ContextAssembler.build(task, request)`` splits ``budget_tokens`` between the
tiers (40/40/20 by default), ranks each tier's candidates by relevance to the
query and importance, keeps optional head/tail task items, offers leftover
budget to the best remaining items, and never exceeds the budget.

>>> from memvault.engine import MemoryEngine
>>> import tempfile
>>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme")
>>> assembler = ContextAssembler(engine)
>>> _ = assembler.task("t1").add("Found the flaky test: test_sync", importance=80)
>>> pkg = assembler.build(TaskRef("t1", "web"), ContextRequest(query="flaky", budget_tokens=200))
>>> [(i.tier, i.text) for i in pkg.items]
[('task', 'Found the flaky test: test_sync')]
>>> engine.close()
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memvault.context.render import estimate_tokens, quote
from memvault.errors import ValidationFailed
from memvault.model.enums import MemoryType
from memvault.model.node import MemoryNode
from memvault.model.validation import require_text
from memvault.results import SearchResults, WriteResult, fields_json
from memvault.retrieval.text import query_terms
from memvault.store.base import NodeFilter
from memvault.store.scope import UserScope, scoped

__all__ = [
    "TERMINAL_STATES",
    "ContextAssembler",
    "ContextItem",
    "ContextPackage",
    "ContextRequest",
    "GlobalMemory",
    "MemoryPort",
    "ProjectMemory",
    "TaskMemory",
    "TaskRef",
]

Tier = Literal["task", "project", "global"]
TIERS: tuple[Tier, ...] = ("task", "project", "global")
#: States after which a task's memory is cleared.
TERMINAL_STATES = frozenset({"completed", "failed", "cancelled"})
#: Score = RELEVANCE_WEIGHT × relevance + (1 − RELEVANCE_WEIGHT) × importance / 100.
RELEVANCE_WEIGHT = 0.6
_LIST_PAGE = 10_000


class MemoryPort(Protocol):
    """What the tiers need from the engine (``MemoryEngine`` satisfies it)."""

    def new_memory(self, fields: Mapping[str, Any]) -> Any:
        """The engine's typed ``NewMemory`` of raw fields, or the refusal (a WriteResult)."""
        ...

    def add(self, memory: Any, /, *, thread_id: str = ...) -> WriteResult: ...

    def delete(self, memory_id: str, *, thread_id: str = ...) -> WriteResult: ...

    def list_memories(
        self, filters: NodeFilter | None = ..., *, limit: int = ..., offset: int = ...
    ) -> list[MemoryNode]: ...

    def search(
        self, query: str, *, filters: NodeFilter | None = ..., top_k: int = ...
    ) -> SearchResults: ...


def _add(port: MemoryPort, fields: Mapping[str, Any]) -> WriteResult:
    """Parse raw fields with the engine, then store them (bad input is a result)."""
    rest = dict(fields)
    thread_id = str(rest.pop("thread_id", "default"))
    parsed = port.new_memory(rest)
    return parsed if isinstance(parsed, WriteResult) else port.add(parsed, thread_id=thread_id)


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One candidate or selected piece of context. ``text`` is quoted data."""

    item_id: str
    tier: Tier
    text: str
    importance: int
    token_cost: int
    order: str  # chronological key (task: sequence; stored: created_at)
    memory_id: str | None = None
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return fields_json(self, omit=("order",), score=round(self.score, 6))


def _stored_item(node: MemoryNode, tier: Tier, relevance: float) -> ContextItem:
    text = f"[{node.type.value}] {quote(node.summary or node.content)}"
    return ContextItem(
        item_id=node.memory_id,
        tier=tier,
        text=text,
        importance=node.importance,
        token_cost=estimate_tokens(text),
        order=node.created_at,
        memory_id=node.memory_id,
        score=RELEVANCE_WEIGHT * relevance + (1 - RELEVANCE_WEIGHT) * node.importance / 100,
    )


def _recall(
    port: MemoryPort, query: str, filters: NodeFilter, limit: int
) -> list[tuple[MemoryNode, float]]:
    """``(node, relevance 0..1)``: recall order for a query, newest first without one.

    Procedures never enter a context package (spec §12: only a query that asks
    for the PROCEDURE category returns them).
    """
    if filters.type is None:
        filters = filters.model_copy(update={"type": _NOT_PROCEDURE})
    if query.strip():
        hits = port.search(query, filters=filters, top_k=limit).hits
        best = max((h.score for h in hits), default=0.0)
        return [(h.node, h.score / best if best > 0 else 0.0) for h in hits]
    return [(n, 0.0) for n in port.list_memories(filters, limit=limit)]


_NOT_PROCEDURE = tuple(t for t in MemoryType if t is not MemoryType.PROCEDURE)


@dataclass
class TaskMemory:
    """Ephemeral memory of one running task: in-process only, never persisted."""

    task_id: str
    _items: list[tuple[str, str, int]] = field(default_factory=list)  # (id, raw text, importance)

    def add(self, text: str, *, importance: int = 50) -> str:
        """Keep ``text`` for this task; returns its item id (``<task>#<n>``)."""
        if not text.strip():
            raise ValidationFailed("task memory text must not be blank", errors=(("text", ""),))
        if not 0 <= importance <= 100:
            raise ValidationFailed("importance must be 0..100", errors=(("importance", ""),))
        item_id = f"{self.task_id}#{len(self._items) + 1}"
        self._items.append((item_id, text, importance))
        return item_id

    def raw(self, item_id: str) -> tuple[str, int]:
        for iid, text, importance in self._items:
            if iid == item_id:
                return text, importance
        raise ValidationFailed(f"no task item {item_id!r}", errors=(("item_id", "unknown"),))

    def items(self, query: str = "") -> list[ContextItem]:
        terms = set(query_terms(query))
        out = []
        for seq, (item_id, raw, importance) in enumerate(self._items):
            text = quote(raw)
            words = set(query_terms(raw))
            relevance = len(terms & words) / len(terms) if terms else 0.0
            score = RELEVANCE_WEIGHT * relevance + (1 - RELEVANCE_WEIGHT) * importance / 100
            out.append(
                ContextItem(
                    item_id,
                    "task",
                    text,
                    importance,
                    estimate_tokens(text),
                    f"{seq:09d}",
                    score=score,
                )
            )
        return out

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()


@dataclass
class ProjectMemory:
    """Persistent memory of one project (``project_id``), isolated from other projects."""

    port: MemoryPort
    project_id: str
    max_items: int = 1000

    def add(self, content: str, **fields: Any) -> WriteResult:
        """Store a memory in this project, then evict if the project is over ``max_items``."""
        result = _add(self.port, {**fields, "content": content, "project_id": self.project_id})
        if result.ok:
            self.evict()
        return result

    def items(
        self, query: str = "", *, limit: int = 50, user: UserScope = None
    ) -> list[ContextItem]:
        """The project's memories ``user`` may see (theirs and shared; store/scope.py)."""
        flt = scoped(NodeFilter(project_id=self.project_id), user)
        found = _recall(self.port, query, flt, limit)
        return [_stored_item(n, "project", rel) for n, rel in found]

    def active(self) -> list[MemoryNode]:
        out: list[MemoryNode] = []
        while True:
            page = self.port.list_memories(
                NodeFilter(project_id=self.project_id), limit=_LIST_PAGE, offset=len(out)
            )
            out.extend(page)
            if len(page) < _LIST_PAGE:
                return out

    def evict(self) -> list[str]:
        """Soft-delete the lowest-importance-then-oldest 10% when over ``max_items``.

        Trigger: the project holds more active memories than ``max_items``.
        Why: spec 002 §3 — bounded project memory; DESIGN §7 — nothing is hard-deleted.
        Outcome: ``max(n // 10, n - max_items)`` unpinned memories are deleted through
        the engine (audited, restorable until purge); their ids are returned.
        """
        nodes = self.active()
        if len(nodes) <= self.max_items:
            return []
        count = max(len(nodes) // 10, len(nodes) - self.max_items)
        victims = sorted(
            (n for n in nodes if not n.pinned),
            key=lambda n: (n.importance, n.created_at, n.memory_id),
        )[:count]
        evicted = []
        for node in victims:
            if self.port.delete(node.memory_id, thread_id=f"evict.{self.project_id}").ok:
                evicted.append(node.memory_id)
        return evicted


@dataclass
class GlobalMemory:
    """Orchestrator-wide memory (``project_id`` null), readable by every project."""

    port: MemoryPort

    def add(self, content: str, **fields: Any) -> WriteResult:
        return _add(self.port, {**fields, "content": content, "project_id": None})

    def items(
        self, query: str = "", *, limit: int = 50, user: UserScope = None
    ) -> list[ContextItem]:
        """Global memories ``user`` may see (theirs and shared; store/scope.py)."""
        # Trigger: the store filter has no "project_id IS NULL" condition yet.
        # Why: global recall must never surface a project's memory.
        # Outcome: over-fetch, then keep only global rows (isolation is exact;
        #          recall of global items can be short when projects dominate).
        found = _recall(self.port, query, scoped(NodeFilter(), user), limit * 4)
        mine = [(n, rel) for n, rel in found if n.project_id is None][:limit]
        return [_stored_item(n, "global", rel) for n, rel in mine]


class ContextRequest(BaseModel):
    """What to assemble: a query, a token budget and how to split it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: str = ""
    budget_tokens: int = Field(default=2000, ge=1, le=1_000_000)
    #: Shares of the budget for (task, project, global); they must sum to 1.
    split: tuple[float, float, float] = (0.4, 0.4, 0.2)
    #: Always keep the first and last N task items (if they fit the task share).
    head_tail: int = Field(default=0, ge=0, le=100)
    candidates: int = Field(default=50, ge=1, le=1000)

    @field_validator("split")
    @classmethod
    def _split(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(v < 0 for v in value) or not math.isclose(sum(value), 1.0, abs_tol=1e-6):
            raise ValueError("split must be three non-negative shares summing to 1")
        return value


@dataclass(frozen=True, slots=True)
class TaskRef:
    """The task a context is for: its id and (optionally) its project.

    >>> TaskRef("t1").task_id
    't1'
    >>> TaskRef("  ")
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: task is empty or blank
    """

    task_id: str
    project_id: str | None = None

    def __post_init__(self) -> None:
        # Trigger: ``context --task "  "`` (an unset variable, a lost argument).
        # Why: a blank id names no task, yet the package came back as if it did.
        # Outcome: SCHEMA_INVALID naming ``task`` (CLI exit 2), nothing assembled.
        require_text(
            self.task_id,
            "task",
            why="must hold a visible character (a blank id names no task)",
            hint="give the id of the task the context is for",
        )


@dataclass(frozen=True, slots=True)
class ContextPackage:
    """Selected items (task chronological, then project and global by score)."""

    package_id: str
    items: tuple[ContextItem, ...]
    token_cost: int
    budget_tokens: int
    candidate_cost: int
    by_tier: dict[str, int]

    @property
    def compression_ratio(self) -> float:
        """Selected tokens / candidate tokens (1.0 when nothing was left out)."""
        return self.token_cost / self.candidate_cost if self.candidate_cost else 1.0

    @property
    def text(self) -> str:
        return "\n".join(f"- ({i.tier}) {i.text}" for i in self.items)

    def to_json(self) -> dict[str, Any]:
        return {
            "package_id": self.package_id,
            "items": [i.to_json() for i in self.items],
            "token_cost": self.token_cost,
            "budget_tokens": self.budget_tokens,
            "candidate_cost": self.candidate_cost,
            "compression_ratio": round(self.compression_ratio, 6),
            "by_tier": dict(self.by_tier),
        }


def _by_score(items: Iterable[ContextItem]) -> list[ContextItem]:
    ranked = sorted(items, key=lambda i: i.item_id)
    ranked.sort(key=lambda i: -i.score)
    return ranked


def select_within_budget(
    candidates: dict[Tier, list[ContextItem]], request: ContextRequest
) -> list[ContextItem]:
    """Pick items per tier share, then fill leftover budget by score. Pure; total ≤ budget."""
    budget = request.budget_tokens
    shares = dict(zip(TIERS, request.split, strict=True))
    chosen: dict[str, ContextItem] = {}
    used = 0

    def take(item: ContextItem, limit: int, spent: int) -> int:
        nonlocal used
        if spent + item.token_cost <= limit and used + item.token_cost <= budget:
            chosen[item.item_id] = item
            used += item.token_cost
            return spent + item.token_cost
        return spent

    for tier in TIERS:
        limit = math.floor(budget * shares[tier])
        spent = 0
        pool = candidates.get(tier, [])
        if tier == "task" and request.head_tail and len(pool) > 2 * request.head_tail:
            n = request.head_tail
            for item in pool[:n] + pool[-n:]:
                spent = take(item, limit, spent)
        for item in _by_score(pool):
            if item.item_id not in chosen:
                spent = take(item, limit, spent)
    rest = _by_score(i for t in TIERS for i in candidates.get(t, []) if i.item_id not in chosen)
    for item in rest:
        take(item, budget, used)
    order = {t: n for n, t in enumerate(TIERS)}
    picked = list(chosen.values())
    picked.sort(key=lambda i: i.item_id)
    picked.sort(key=lambda i: -i.score)
    picked.sort(key=lambda i: (order[i.tier], i.order if i.tier == "task" else ""))
    return picked


class ContextAssembler:
    """Builds budgeted context packages from the three tiers (spec 002 §6)."""

    def __init__(self, port: MemoryPort, *, max_project_items: int = 1000) -> None:
        self.port = port
        self.max_project_items = max_project_items
        self.global_memory = GlobalMemory(port)
        self._tasks: dict[str, TaskMemory] = {}

    def task(self, task_id: str) -> TaskMemory:
        """The task's memory (created on first use)."""
        if task_id not in self._tasks:
            self._tasks[task_id] = TaskMemory(task_id)
        return self._tasks[task_id]

    def project(self, project_id: str) -> ProjectMemory:
        return ProjectMemory(self.port, project_id, self.max_project_items)

    def build(
        self, task: TaskRef, request: ContextRequest, *, user: UserScope = None
    ) -> ContextPackage:
        """Assemble a package for ``task`` within ``request.budget_tokens``, for ``user``.

        The project and global tiers hold ``user``'s memories and shared ones,
        never another user's (no user: shared ones only; ``ALL_USERS``: every
        user's, for administrators).
        """
        n = request.candidates
        known = task.task_id in self._tasks
        project = self.project(task.project_id) if task.project_id else None
        candidates: dict[Tier, list[ContextItem]] = {
            "task": self.task(task.task_id).items(request.query) if known else [],
            "project": project.items(request.query, limit=n, user=user) if project else [],
            "global": self.global_memory.items(request.query, limit=n, user=user),
        }
        picked = select_within_budget(candidates, request)
        by_tier: dict[str, int] = {
            t: sum(i.token_cost for i in picked if i.tier == t) for t in TIERS
        }
        return ContextPackage(
            package_id=f"ctx-{task.task_id}",
            items=tuple(picked),
            token_cost=sum(i.token_cost for i in picked),
            budget_tokens=request.budget_tokens,
            candidate_cost=sum(i.token_cost for t in TIERS for i in candidates[t]),
            by_tier=by_tier,
        )

    def end_task(
        self,
        task_id: str,
        state: str,
        *,
        promote: Sequence[str] = (),
        project_id: str | None = None,
        **fields: Any,
    ) -> list[WriteResult]:
        """Clear a task's memory at a terminal state, promoting the named items first.

        Promotion is explicit (no automatic promotion): each id in ``promote``
        is written to ``project_id`` as a new memory (default: an Observation in
        KNOWLEDGE from SYSTEM_KNOWN; override with ``fields``), through the gate.
        """
        if state not in TERMINAL_STATES:
            raise ValidationFailed(
                f"{state!r} is not a terminal state",
                errors=(("state", f"one of {sorted(TERMINAL_STATES)}"),),
            )
        memory = self._tasks.get(task_id)
        results: list[WriteResult] = []
        if memory is not None and promote:
            if project_id is None:
                raise ValidationFailed(
                    "promotion needs a project_id", errors=(("project_id", "required"),)
                )
            target = self.project(project_id)
            spec = {"type": "Observation", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
            spec.update(fields)
            for item_id in promote:
                text, importance = memory.raw(item_id)
                results.append(target.add(text, importance=importance, **spec))
        if memory is not None:
            memory.clear()
            del self._tasks[task_id]
        return results
