"""What the inspector reads and writes, for one signed-in key: the one adapter to the engine.

Every engine call of the inspector is here, made on the per-caller façade
(``engine.as_caller(principal)``, from :meth:`AccessControl.engine`), which
authorizes each call in one place exactly as for the ``/v1`` routes: read-only
keys refused, category allowlists applied, calls that span every category
refused to restricted keys, denials audited. Every read is bounded: pages of at most
:data:`PAGE_MAX` rows, searches of at most :data:`SEARCH_MAX` hits, graphs of at
most :data:`GRAPH_MAX` nodes, refusal statistics over at most
:data:`REFUSALS_MAX` events.

>>> import tempfile, pathlib
>>> from memvault.access import AccessControl, Principal
>>> from memvault.config import load_config
>>> control = AccessControl(pathlib.Path(tempfile.mkdtemp()), load_config(environ={}))
>>> source = MemorySource(control, Principal("acme", "dev", "k1"), "doctest")
>>> source.memories({}, page=1).total
0
>>> control.close()
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memvault.access import AccessControl, Principal
from memvault.engine import ALL_USERS, consent_links
from memvault.engine import Caller as EngineCaller
from memvault.lifecycle import AuditReport, ForgetReport
from memvault.model.enums import HistoryOp, MemoryStatus
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.results import SearchHit, WriteResult
from memvault.store.base import HistoryEvent
from memvault.store.records import Proposal

__all__ = [
    "GRAPH_MAX",
    "PAGE_MAX",
    "PAGE_SIZE",
    "REFUSALS_MAX",
    "SEARCH_MAX",
    "Graph",
    "ManifestRow",
    "MemorySource",
    "Page",
    "RefusalStats",
]

PAGE_SIZE = 25
PAGE_MAX = 4000  # deepest page: offsets stay below 100,000 rows
SEARCH_MAX = 100
GRAPH_MAX = 120
REFUSALS_MAX = 5000
USER_TIMELINE_MEMORIES = 200
MANIFESTS_SCANNED = 20_000
ALL_STATUSES = tuple(s.value for s in MemoryStatus)


@dataclass(frozen=True, slots=True)
class Page:
    """One page of rows, and how many there are in all (``None``: not counted)."""

    rows: Sequence[Any]
    page: int
    total: int | None
    size: int = PAGE_SIZE
    note: str = ""

    @property
    def pages(self) -> int:
        if self.total is None:
            return self.page + (1 if len(self.rows) == self.size else 0)
        return max(1, -(-self.total // self.size))


@dataclass(frozen=True, slots=True)
class Graph:
    """Nodes and typed edges around a memory or a user (allowlist applied)."""

    nodes: Sequence[MemoryNode]
    edges: Sequence[MemoryEdge]
    center: str | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        shown = {n.memory_id for n in self.nodes}
        return {
            "center": self.center,
            "truncated": self.truncated,
            "nodes": [
                {
                    "id": n.memory_id,
                    "label": n.summary[:60] or n.content[:60],
                    "type": n.type.value,
                    "category": n.category,
                    "status": n.status.value,
                }
                for n in self.nodes
            ],
            "edges": [
                {
                    "id": e.edge_id,
                    "source": e.from_memory_id,
                    "target": e.to_memory_id,
                    "type": e.edge_type.value,
                    "weight": e.weight,
                    "reason": e.reason or "",
                    "conflict": e.edge_type.value == "Contradicts" and not e.resolved,
                }
                for e in self.edges
                if e.from_memory_id in shown and e.to_memory_id in shown
            ],
        }


@dataclass(frozen=True, slots=True)
class RefusalStats:
    """Refusal counts by day, stop reason and detector (never content: none is kept)."""

    total: int
    by_reason: Mapping[str, int]
    by_detector: Mapping[str, int]
    by_day: Mapping[str, Mapping[str, int]]
    by_day_detector: Mapping[str, Mapping[str, int]]
    capped: bool
    contract: str


@dataclass(frozen=True, slots=True)
class ManifestRow:
    """One drop-folder manifest, summarised (file, status, reasons, counts)."""

    name: str
    status: str
    at: str
    size_bytes: int | None
    sha256: str | None
    reasons: tuple[str, ...] = ()
    memories: int = 0
    refused: Mapping[str, int] = field(default_factory=dict)
    duplicate_of: str | None = None
    error: str = ""


class MemorySource:
    """One principal's view of its orchestrator's memory, for one inspector request."""

    def __init__(self, control: AccessControl, principal: Principal, route: str) -> None:
        self.control = control
        self.principal = principal
        self.route = route

    @property
    def engine(self) -> EngineCaller:
        """The orchestrator's engine as this key's caller (authorizes every call)."""
        return self.control.engine(self.principal, self.route)

    # -- checks ----------------------------------------------------------------

    def open(self) -> None:
        """Open the orchestrator's engine now: an unavailable store fails here, clearly."""
        _ = self.engine

    def require_write(self) -> None:
        """Refuse (403, audited) a read-only key before a form that writes does anything."""
        self.engine.authorize(self.route, write=True)

    def _unrestricted(self, what: str, *, write: bool = False) -> None:
        """Pages spanning every category are refused to category-restricted keys."""
        self.engine.authorize(what, write=write, spans_all=True)

    def _filters(self, filters: Mapping[str, Any]) -> dict[str, Any]:
        """The form's filters without empty fields (the façade holds them to the grant)."""
        out = {k: v for k, v in filters.items() if v not in (None, "", [], ())}
        if "category" in out:
            out["category"] = tuple(out["category"])
        return out

    # -- memories --------------------------------------------------------------

    def revision(self) -> int:
        return self.engine.revision()

    def memories(self, filters: Mapping[str, Any], *, page: int) -> Page:
        """A page of memories matching ``filters``, newest first, with the total."""
        f = self._filters(filters)
        engine = self.engine
        rows = engine.list_memories(f, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
        return Page(rows, page, engine.count_memories(f))

    def search(
        self, query: str, filters: Mapping[str, Any], *, page: int
    ) -> tuple[Page, Sequence[str]]:
        """A page of hybrid-search hits (with the explain breakdown) and the legs that ran."""
        f = self._filters(filters)
        f.pop("status", None)  # recall only ever returns active memories
        results = self.engine.search(query, filters=f, top_k=SEARCH_MAX, explain=True)
        start = (page - 1) * PAGE_SIZE
        hits: Sequence[SearchHit] = results.hits[start : start + PAGE_SIZE]
        note = f"search shows the best {SEARCH_MAX} hits" if len(results.hits) == SEARCH_MAX else ""
        return Page(hits, page, len(results.hits), note=note), results.legs

    def memory(
        self, memory_id: str, user: str | None = None
    ) -> tuple[MemoryNode, list[MemoryEdge], dict[str, MemoryNode]]:
        """A memory (soft-deleted ones too), its edges and the memories at their other ends,
        read as ``user`` (the page's user; the key's own when it is bound to one)."""
        view = self.engine.get(memory_id, include_deleted=True, user=user)  # allowlist checked
        edges = list(view.edges[:GRAPH_MAX])
        ends = {e.from_memory_id for e in edges} | {e.to_memory_id for e in edges}
        others = ends - {memory_id}
        peers = {n.memory_id: n for n in self.nodes(sorted(others), user)}
        return view.node, edges, peers

    def history(self, memory_id: str, user: str | None = None) -> list[HistoryEvent]:
        return self.engine.audit_events(memory_id=memory_id, user=user, limit=PAGE_MAX)[::-1]

    def nodes(self, ids: Sequence[str], user: str | None = None) -> list[MemoryNode]:
        """The memories with these ids that this key may see as ``user`` (any status)."""
        return self.engine.get_nodes(list(ids), user=user)  # held to the key's categories and user

    def delete(self, memory_id: str, user: str | None = None) -> WriteResult:
        """Soft-delete a memory, acting as ``user`` (the page's user, as :meth:`memory`)."""
        return self.engine.delete(memory_id, user=user)

    def restore(self, memory_id: str, user: str | None = None) -> WriteResult:
        """Restore a memory, acting as ``user`` (the page's user, as :meth:`memory`)."""
        return self.engine.restore(memory_id, user=user)

    def update(
        self, memory_id: str, changes: Mapping[str, Any], user: str | None = None
    ) -> WriteResult:
        """Change fields of a memory through the write gate (the result says why if
        refused), acting as ``user`` (the page's user, as :meth:`memory`)."""
        patch = self.engine.memory_patch(memory_id, changes, user=user)
        if isinstance(patch, WriteResult):
            return patch
        return self.engine.update(memory_id, patch, user=user)

    # -- graph -----------------------------------------------------------------

    def graph(self, *, memory_id: str | None = None, user_id: str | None = None) -> Graph:
        """The typed edges around one memory (two hops; read as ``user_id`` when given) or
        a user's memories (bounded)."""
        engine = self.engine
        if memory_id is not None:
            engine.get(memory_id, include_deleted=True, user=user_id)  # exists, allowlist checked
            seeds = [memory_id]
            hops = 2
        else:
            f = self._filters({"user_id": user_id, "status": ALL_STATUSES})
            seeds = [n.memory_id for n in engine.list_memories(f, limit=GRAPH_MAX // 2)]
            hops = 1
        seen: set[str] = set(seeds)
        edges: dict[str, MemoryEdge] = {}
        frontier = list(seeds)
        truncated = False
        for _ in range(hops):
            if not frontier:
                break
            found = engine.edges_of(frontier, user=user_id)  # between memories it may read
            frontier = []
            for edge in found:
                edges[edge.edge_id] = edge
                for end in (edge.from_memory_id, edge.to_memory_id):
                    if end not in seen:
                        if len(seen) >= GRAPH_MAX:
                            truncated = True
                            continue
                        seen.add(end)
                        frontier.append(end)
        nodes = self.nodes(sorted(seen), user_id)
        return Graph(nodes, list(edges.values()), memory_id, truncated)

    # -- timeline and refusals -------------------------------------------------

    def timeline(self, *, user_id: str | None, op: HistoryOp | None, page: int) -> Page:
        """Audit events newest first: the orchestrator's, or those of a user's memories."""
        self._unrestricted("timeline")
        engine = self.engine
        ops = [op] if op is not None else None
        if user_id is None:
            offset = (page - 1) * PAGE_SIZE
            rows = engine.audit_events(ops=ops, limit=PAGE_SIZE + 1, offset=offset)
            total = None if len(rows) > PAGE_SIZE else offset + len(rows)
            return Page(rows[:PAGE_SIZE], page, total)
        # Trigger: a user's timeline. Why: audit rows carry a memory id, not a user
        # (refusals carry neither: nothing of refused content is kept). Outcome: the
        # events of the user's most recently updated memories, merged newest first.
        mine = engine.list_memories(
            {"user_id": user_id, "status": ALL_STATUSES}, limit=USER_TIMELINE_MEMORIES
        )
        events: list[HistoryEvent] = []
        for node in mine:
            events.extend(
                engine.audit_events(memory_id=node.memory_id, user=user_id, ops=ops, limit=200)
            )
        events.sort(key=lambda e: e.at, reverse=True)
        start = (page - 1) * PAGE_SIZE
        note = (
            f"covers the user's {USER_TIMELINE_MEMORIES} most recently updated memories"
            if len(mine) == USER_TIMELINE_MEMORIES
            else ""
        )
        return Page(events[start : start + PAGE_SIZE], page, len(events), note=note)

    def refusals(self, *, days: int) -> RefusalStats:
        """Refusals of the last ``days`` days by stop reason, detector and day."""
        self._unrestricted("refusals")
        events = self.engine.audit_events(ops=[HistoryOp.REFUSE], limit=REFUSALS_MAX)
        from datetime import UTC, datetime, timedelta

        since = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d")
        recent = [e for e in events if e.at[:10] >= since]
        by_day: dict[str, Counter[str]] = {}
        by_day_detector: dict[str, Counter[str]] = {}
        for e in recent:
            by_day.setdefault(e.at[:10], Counter())[_reason(e)] += 1
            by_day_detector.setdefault(e.at[:10], Counter())[e.detector or "—"] += 1
        return RefusalStats(
            total=len(recent),
            by_reason=dict(Counter(_reason(e) for e in recent).most_common()),
            by_detector=dict(Counter(e.detector or "—" for e in recent).most_common()),
            by_day={d: dict(c.most_common()) for d, c in sorted(by_day.items(), reverse=True)},
            by_day_detector={d: dict(c.most_common()) for d, c in by_day_detector.items()},
            capped=len(events) == REFUSALS_MAX,
            contract=self.control.config.policy.contract,
        )

    # -- consent ---------------------------------------------------------------

    def proposals(self, *, status: str | None, user_id: str | None, page: int) -> Page:
        self._unrestricted("proposals")
        found = self.engine.proposals(status=status, user_id=user_id)
        start = (page - 1) * PAGE_SIZE
        return Page(found[start : start + PAGE_SIZE], page, len(found))

    def consent_outcomes(self, proposal_ids: set[str]) -> dict[str, dict[str, Any]]:
        """What became of these proposals (confirmed as which memory, rejected, expired).

        A consent refusal row on the timeline names its proposal; this is the
        confirmation (or rejection) linked to it (:func:`consent_links`).
        """
        self._unrestricted("proposals")
        links = consent_links(self.engine.proposals())
        return {pid: links[pid] for pid in proposal_ids if pid in links}

    def evidence(self, proposals: Sequence[Proposal]) -> dict[str, MemoryNode]:
        """The memories proposals point at (what a merge would replace), visible ones only."""
        whose: dict[str | None, set[str]] = {}  # each read as the proposal's user
        for proposal in proposals:
            replaces = proposal.candidate.get("replaces")
            if isinstance(replaces, list | tuple):
                whose.setdefault(proposal.user_id, set()).update(str(i) for i in replaces)
        found: dict[str, MemoryNode] = {}
        for user, ids in whose.items():
            found.update((n.memory_id, n) for n in self.nodes(sorted(ids)[:GRAPH_MAX], user))
        return found

    def confirm(self, proposal_id: str, user: str | None = None) -> WriteResult:
        """Confirm as ``user`` (the consent page's user: a decision by id is scoped as a
        write by id is)."""
        self._unrestricted("proposals", write=True)
        return self.engine.confirm_proposal(proposal_id, user=user)

    def reject(self, proposal_id: str, user: str | None = None) -> Proposal:
        self._unrestricted("proposals", write=True)
        return self.engine.reject_proposal(proposal_id, user=user)

    # -- bulletin --------------------------------------------------------------

    def bulletin(
        self,
        *,
        thread_id: str,
        message: str | None,
        user: str | None = None,
        all_users: bool = False,
    ) -> dict[str, Any]:
        """What an agent would be handed for ``user``'s message in ``thread_id`` (read only).

        ``user``'s memories and shared ones (none named: shared only); ``all_users``
        is the orchestrator-wide view, for keys with that permission. The delta
        header is previewed without marking the thread as having seen it.
        """
        self._unrestricted("bulletin")
        engine = self.engine
        reader = engine.reader(ALL_USERS if all_users else user, "the bulletin")
        delta = engine.delta_header(thread_id, user=reader, advance=False)
        bulletin = engine.bulletin(user=reader, query=message or None)
        return {
            "reader": "all users" if all_users else (reader or "shared only"),
            "delta": delta.to_json() if delta is not None else None,
            "bulletin": bulletin.to_json(),
            "status": bulletin.status,
            "tokens": bulletin.tokens,
        }

    # -- ingest ----------------------------------------------------------------

    def manifests(self, *, status: str | None, page: int) -> Page:
        """Drop-folder manifests, newest first (at most :data:`MANIFESTS_SCANNED` looked at)."""
        self._unrestricted("ingest")
        layout = self.engine.ingest_layout()
        if layout is None:
            return Page([], page, 0)
        dirs = {"processed": layout.processed_dir, "rejected": layout.rejected_dir}
        found: list[tuple[float, Path]] = []
        capped = False
        for name, directory in dirs.items():
            if status not in (None, name):
                continue
            for entry in _scan(directory):
                if len(found) >= MANIFESTS_SCANNED:
                    capped = True
                    break
                found.append(entry)
        found.sort(reverse=True)
        start = (page - 1) * PAGE_SIZE
        rows = [_manifest(path) for _, path in found[start : start + PAGE_SIZE]]
        note = f"the newest of the first {MANIFESTS_SCANNED} manifests" if capped else ""
        return Page(rows, page, len(found), note=note)

    def ingest_counts(self) -> dict[str, int]:
        layout = self.engine.ingest_layout()
        if layout is None:
            return {}
        return {"waiting": sum(1 for p in _files(layout.ingest_dir) if p.is_file())}

    # -- audit -----------------------------------------------------------------

    def verify(self) -> AuditReport:
        self._unrestricted("audit")
        return self.engine.verify_audit()

    def audit_head(self) -> tuple[int, str]:
        self._unrestricted("audit")
        head = self.engine.audit_head()
        return head.events, head.hash

    def export(self, user_id: str) -> Iterator[dict[str, Any]]:
        self._unrestricted("export")
        return self.engine.export_user(user_id)

    def forget(self, user_id: str) -> ForgetReport:
        self._unrestricted("forget", write=True)
        return self.engine.forget_user(user_id)


def _reason(event: HistoryEvent) -> str:
    return event.stop_reason.value if event.stop_reason is not None else "—"


def _files(directory: Path) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            yield from it
    except OSError:
        return


def _scan(directory: Path) -> Iterator[tuple[float, Path]]:
    for entry in _files(directory):
        if entry.name.endswith(".manifest.json"):
            try:
                yield entry.stat().st_mtime, Path(entry.path)
            except OSError:
                continue


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _manifest(path: Path) -> ManifestRow:
    name = path.name.removesuffix(".manifest.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except (OSError, ValueError) as exc:
        return ManifestRow(name, "unreadable", "", None, None, error=str(exc)[:200])
    info = _dict(data.get("file"))
    candidates = _list(data.get("candidates"))
    refused: Counter[str] = Counter()
    stored = 0
    for c in candidates:
        if not isinstance(c, dict):
            continue
        reason = str(c.get("stop_reason") or "")
        if reason.startswith("SUCCESS"):
            stored += 1
        elif reason:
            refused[reason] += 1
    counts = _dict(data.get("counts"))
    if isinstance(counts.get("stored"), int):
        stored = counts["stored"]
    details = _list(data.get("reason_details"))
    why = tuple(
        f"{d.get('code')}: {d.get('message')}" if d.get("message") else str(d.get("code"))
        for d in details
        if isinstance(d, dict)
    ) or tuple(str(r) for r in _list(data.get("reasons")))
    duplicate = _dict(data.get("duplicate_of"))
    return ManifestRow(
        name=str(info.get("name") or name),
        status=str(data.get("status") or "?"),
        at=str(data.get("at") or ""),
        size_bytes=info.get("size_bytes") if isinstance(info.get("size_bytes"), int) else None,
        sha256=str(info.get("sha256")) if info.get("sha256") else None,
        reasons=why,
        memories=stored,
        refused=dict(refused),
        duplicate_of=str(duplicate.get("original_name")) if duplicate else None,
    )
