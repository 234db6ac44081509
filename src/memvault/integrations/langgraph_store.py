"""A LangGraph ``BaseStore`` over the memvault engine (``pip install "memvault[langgraph]"``).

Namespaces map to memvault scopes::

    (orchestrator,)                      the orchestrator's global tier
    (orchestrator, project)              a project ("global" names the global tier)
    (orchestrator, project, user)        one user's memories in that project or tier

An item's ``key`` is the memory's ``key``; its ``value`` (a JSON object) is kept
verbatim in the memory's ``value``. The memory's text is ``value["content"]``
(or ``"text"``/``"memory"``), else the JSON itself; ``type``, ``category``,
``source_kind``, ``importance``, ``pinned`` and ``ttl_class`` in the value set
those fields (defaults: ``Fact``, ``KNOWLEDGE``, ``SYSTEM_KNOWN``). Every put
goes through ``engine.add``/``engine.update`` and so through the write gate: a
refused put raises :class:`~memvault.errors.WriteRefusedError` with its stop reason.
A delete is memvault's soft delete. ``search`` with a query is memvault recall.

>>> import tempfile
>>> store = MemvaultStore(tempfile.mkdtemp())
>>> store.put(("acme", "billing", "dana"), "drink", {"content": "Dana prefers tea",
...           "type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"})
>>> store.get(("acme", "billing", "dana"), "drink").value["content"]
'Dana prefers tea'
>>> store.close()
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memvault.engine import MemoryEngine
from memvault.layout import default_home
from memvault.model.node import MemoryNode
from memvault.policy.contract import DEFAULT_CONTRACT_VERSION
from memvault.policy.write_gate import PolicyGate

__all__ = ["GLOBAL_TIER", "MemvaultStore"]

#: The project segment that names an orchestrator's global tier.
GLOBAL_TIER = "global"
_TEXT_KEYS = ("content", "text", "memory")
_FIELDS = ("type", "category", "source_kind", "importance", "pinned", "ttl_class")
_DEFAULTS = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "SYSTEM_KNOWN"}
#: How many memories of one scope are scanned to find a key (the store has no key index).
SCAN_LIMIT = 10_000


def _when(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


class MemvaultStore(BaseStore):
    """LangGraph's store interface on memvault (sync ``batch``; ``abatch`` in a thread).

    ``orchestrators`` limits which orchestrators a namespace may name (``None``:
    any under ``home``); ``agent`` is recorded as the actor of every write;
    every put is judged by a :class:`~memvault.policy.write_gate.PolicyGate` for
    ``contract``.
    """

    supports_ttl = False

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        agent: str = "langgraph",
        orchestrators: Iterable[str] | None = None,
        contract: str = DEFAULT_CONTRACT_VERSION,
    ) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.agent = agent
        self.allowed = frozenset(orchestrators) if orchestrators is not None else None
        self.contract = contract
        self._engines: dict[str, MemoryEngine] = {}
        self._lock = threading.Lock()

    # -- plumbing --------------------------------------------------------------

    def _engine(self, orchestrator: str) -> MemoryEngine:
        if self.allowed is not None and orchestrator not in self.allowed:
            raise InvalidNamespaceError(f"orchestrator {orchestrator!r} is not open to this store")
        with self._lock:
            engine = self._engines.get(orchestrator)
            if engine is None:
                engine = MemoryEngine.open(
                    self.home, orchestrator, agent_id=self.agent, gate=PolicyGate(self.contract)
                )
                self._engines[orchestrator] = engine
            return engine

    def close(self) -> None:
        """Close every engine this store opened."""
        with self._lock:
            engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            engine.close()

    @staticmethod
    def _scope(namespace: tuple[str, ...]) -> tuple[str, str | None, str | None, bool]:
        """``(orchestrator, project_id, user_id, global tier?)`` of a namespace."""
        if not 1 <= len(namespace) <= 3 or not all(namespace):
            raise InvalidNamespaceError(
                f"namespace {namespace!r}: use (orchestrator[, project|'global'[, user]])"
            )
        project = namespace[1] if len(namespace) > 1 else GLOBAL_TIER
        user = namespace[2] if len(namespace) > 2 else None
        is_global = project == GLOBAL_TIER
        return namespace[0], None if is_global else project, user, is_global

    @staticmethod
    def _namespace(node: MemoryNode) -> tuple[str, ...]:
        base = (node.orchestrator_id, node.project_id or GLOBAL_TIER)
        return (*base, node.user_id) if node.user_id else base

    @staticmethod
    def _value(node: MemoryNode) -> dict[str, Any]:
        try:
            value = json.loads(node.value) if node.value else None
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        return {"content": node.content, "type": node.type.value, "category": node.category}

    def _in_scope(
        self, namespace: tuple[str, ...], *, exact: bool
    ) -> tuple[MemoryEngine, list[MemoryNode]]:
        """Memories whose namespace is ``namespace`` (exact) or starts with it (prefix).

        Project and user are filtered inside the store; the global tier (project
        IS NULL) and the exact match are checked here on the scoped rows.
        """
        orchestrator, project, user, _ = self._scope(namespace)
        engine = self._engine(orchestrator)
        filters = {k: v for k, v in {"project_id": project, "user_id": user}.items() if v}
        nodes = engine.list_memories(filters, limit=SCAN_LIMIT)
        if exact:
            wanted = namespace if len(namespace) > 1 else (namespace[0], GLOBAL_TIER)
            return engine, [n for n in nodes if self._namespace(n) == wanted]
        return engine, [n for n in nodes if self._namespace(n)[: len(namespace)] == namespace]

    # -- operations -----------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        _, nodes = self._in_scope(op.namespace, exact=True)
        for node in nodes:
            if node.key == op.key:
                return Item(
                    value=self._value(node),
                    key=node.key,
                    namespace=self._namespace(node),
                    created_at=_when(node.created_at),
                    updated_at=_when(node.updated_at),
                )
        return None

    def _put(self, op: PutOp) -> None:
        engine, nodes = self._in_scope(op.namespace, exact=True)
        existing = next((n for n in nodes if n.key == op.key), None)
        if op.value is None:
            if existing is not None:
                engine.delete(existing.memory_id).raise_for_status()
            return
        value = dict(op.value)
        text = next((str(value[k]) for k in _TEXT_KEYS if value.get(k)), None)
        fields = {k: value[k] for k in _FIELDS if k in value}
        content = text or json.dumps(value, sort_keys=True, ensure_ascii=False)
        encoded = json.dumps(value, ensure_ascii=False, default=str)
        if existing is not None:
            # Provenance (source_kind) is fixed at creation; the rest may change.
            changes = {k: v for k, v in fields.items() if k != "source_kind"}
            engine.update(
                existing.memory_id, content=content, value=encoded, **changes
            ).raise_for_status()
            return
        _, project, user, _ = self._scope(op.namespace)
        engine.add(
            content,
            key=op.key,
            value=encoded,
            project_id=project,
            user_id=user,
            agent_id=self.agent,
            **{**_DEFAULTS, **fields},
        ).raise_for_status()

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = op.namespace_prefix
        if not prefix:
            raise InvalidNamespaceError("search needs at least the orchestrator in the prefix")
        wanted = op.limit + op.offset
        if op.query:
            orchestrator, project, user, _ = self._scope(prefix)
            filters = {k: v for k, v in {"project_id": project, "user_id": user}.items() if v}
            hits = self._engine(orchestrator).search(op.query, filters=filters, top_k=100).hits
            scored: list[tuple[MemoryNode, float | None]] = [
                (h.node, h.score) for h in hits if self._namespace(h.node)[: len(prefix)] == prefix
            ]
        else:
            _, nodes = self._in_scope(prefix, exact=False)
            scored = [(n, None) for n in nodes]
        items: list[SearchItem] = []
        for node, score in scored:
            value = self._value(node)
            if op.filter and any(value.get(k) != v for k, v in op.filter.items()):
                continue
            items.append(
                SearchItem(
                    namespace=self._namespace(node),
                    key=node.key,
                    value=value,
                    created_at=_when(node.created_at),
                    updated_at=_when(node.updated_at),
                    score=score,
                )
            )
            if len(items) >= wanted:
                break
        return items[op.offset :]

    def _orchestrators(self) -> list[str]:
        if self.allowed is not None:
            return sorted(self.allowed)
        if not self.home.is_dir():
            return []
        return sorted(p.name for p in self.home.iterdir() if (p / "memory" / "memory.db").is_file())

    @staticmethod
    def _matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
        path = tuple(condition.path)
        if len(path) > len(namespace):
            return False
        size = len(path)
        part = namespace[:size] if condition.match_type == "prefix" else namespace[-size:]
        return all(p == "*" or p == n for p, n in zip(path, part, strict=True))

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for orchestrator in self._orchestrators():
            for node in self._engine(orchestrator).list_memories(limit=SCAN_LIMIT):
                namespace = self._namespace(node)
                if op.max_depth is not None:
                    namespace = namespace[: op.max_depth]
                found.add(namespace)
        matched = [
            ns
            for ns in sorted(found)
            if all(self._matches(ns, c) for c in op.match_conditions or ())
        ]
        return matched[op.offset : op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations in order, each through the engine."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:  # pragma: no cover - LangGraph defines only these four
                raise TypeError(f"unsupported store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in a worker thread (one copy of the logic)."""
        return await asyncio.to_thread(self.batch, list(ops))
