"""A caller's reads of history and audit events, and the scope checks they share.

:class:`CallerReads` holds what :class:`~memvault.engine._caller.Caller` reads
about memories beyond their content: a memory's history, the orchestrator's audit
events and head, and the filters that keep a memory outside the caller's scope
out of them (its id, named by an edge or by a history event, is never confirmed).
Every method is authorised by :class:`~memvault.engine._rules.CallerRules`.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memvault.engine._args import check_call
from memvault.engine._reads import Reader, audit_page_bounds
from memvault.engine._rules import CallerRules
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.store.base import HistoryEvent
from memvault.store.records import AuditHead
from memvault.store.scope import ALL_USERS, UserScope, visible_to

__all__ = ["AUDIT_CHUNK", "CallerReads"]

#: Events one read of a shared-only key's audit page asks the store for (keyset pages:
#: a larger page of events the link filter drops is read in several such chunks).
AUDIT_CHUNK = 1_000


def _pointers(event: HistoryEvent) -> set[str]:
    """The other memories an event names: a link's ``to``, a supersede's ``by``, a
    merge's ``replaces`` (the event's own memory left out)."""
    named: set[str] = set()
    for key in ("to", "by", "replaces"):
        value = event.detail.get(key)
        values = value if isinstance(value, list | tuple) else [value]
        named.update(v for v in values if isinstance(v, str))
    named.discard(event.memory_id or "")
    return named


class CallerReads(CallerRules):
    """History, audit events and the scope filters of a caller's reads (see module)."""

    __slots__ = ()

    def history(self, memory_id: str, *, user: UserScope = None) -> list[HistoryEvent]:
        """:meth:`MemoryEngine.history` of a memory the caller may list (as :meth:`get`)."""
        reader = self.by_id_reader(user, "history")
        node = self._node(memory_id, "history", include_deleted=True, reader=reader)
        self.authorize("history", categories=[node.category])
        return self._events_in_scope(self._run(self._engine.history, memory_id), reader)

    def audit_events(
        self, *, memory_id: str | None = None, user: UserScope = None, **options: Any
    ) -> list[HistoryEvent]:
        """:meth:`MemoryEngine.audit_events`: one memory's, if the caller may list it (as
        :meth:`get`), or the orchestrator's for a grant without a category allowlist and
        not bound to a user — those it may read by id (:meth:`by_id_reader`, ``user``):
        every event with ``all_users``, else those of the named user's (none named:
        shared) memories and those of no memory (refusals).

        >>> import tempfile
        >>> from memvault.engine import Grant, MemoryEngine, NewMemory
        >>> engine = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
        >>> _ = engine.add(NewMemory(content="Prefers tea", type="Preference",
        ...     category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana"))
        >>> key = engine.as_caller(Grant("svc"))
        >>> (len(key.audit_events()), len(key.audit_events(user="dana")))
        (0, 1)
        >>> engine.close()
        """
        if memory_id is None:
            self.authorize("audit events", spans_all=True)
            if self.grant.user is not None:
                self._refuse("user_bound", "audit events")
            reader = self.by_id_reader(user, "audit events")
            if reader is not ALL_USERS:
                return self._events_seen(reader, options)
        else:
            reader = self.by_id_reader(user, "audit events")
            node = self._node(memory_id, "audit events", include_deleted=True, reader=reader)
            self.authorize("audit events", categories=[node.category])
            found = self._run(self._engine.audit_events, memory_id=memory_id, **options)
            return self._events_in_scope(found, reader)
        return self._run(self._engine.audit_events, memory_id=memory_id, **options)

    def _events_seen(
        self, reader: UserScope, options: Mapping[str, Any]
    ) -> builtins.list[HistoryEvent]:
        """A page of the orchestrator's audit events newest first, of those ``reader``
        may read by id: events of memories it may list, and of no memory.

        Trigger: a key bound to no user, without ``all_users``, asks for the
          orchestrator's audit events (library; inspector timeline and refusals).
        Why: they named every user's memories (ids, categories, actors, changed
          fields, link targets) while its listings and reads by id are shared-only;
          filtering them in Python after ``OFFSET`` chunks re-read the earlier rows
          for every chunk (S10-R10: quadratic in the events held).
        Outcome: filtered as :meth:`history` filters one memory's; ``limit`` and
          ``offset`` count the events kept. The store applies the user scope in its
          query (a purged memory's events, owner unknown, are left out) and pages by
          keyset (``after`` the last event read), so each event is read at most once;
          only the events naming a memory outside the scope (a link's far end) are
          dropped here.
        """
        check_call(Reader.audit_events, (), dict(options), name="audit_events")
        rest = dict(options)
        limit, offset = rest.pop("limit", 100), rest.pop("offset", 0)
        audit_page_bounds(limit, offset)
        engine = self._engine
        kept: builtins.list[HistoryEvent] = []
        skip = 0
        after: str | None = None
        while len(kept) < limit:
            # no more than the page still needs (the link filter may drop some: read on)
            chunk = min(AUDIT_CHUNK, limit - len(kept) + offset - skip)
            found = self._run(
                engine.store.history,
                engine.orchestrator,
                limit=chunk,
                ops=rest.get("ops"),
                newest_first=True,
                visible_to=visible_to(reader),
                after=after,
            )
            if found:
                after = found[-1].event_id
            for event in self._events_in_scope(found, reader):
                if skip < offset:
                    skip += 1
                elif len(kept) < limit:
                    kept.append(event)
            if len(found) < chunk:
                break
        return kept

    def _events_in_scope(
        self, events: Iterable[HistoryEvent], reader: UserScope
    ) -> builtins.list[HistoryEvent]:
        """A memory's events, without those pointing at a memory ``reader`` may not list.

        Trigger: a memory's history holds a link (``to``), a supersede (``by``) or a
          merge (``replaces``) naming another memory.
        Why: that id (and the link's type and time) belongs to a memory outside the
          caller's scope, which a read by id answers as unknown (as ``get``'s edges).
        Outcome: such an event is left out of the caller's history.
        """
        events = builtins.list(events)
        if reader is ALL_USERS and self.grant.categories is None:
            return events
        named = {e.event_id: _pointers(e) for e in events}
        ends = sorted(set().union(*named.values())) if named else []
        seen = {n.memory_id for n in self._nodes_for(ends, reader)} if ends else set()
        return [e for e in events if named[e.event_id] <= seen]

    def _nodes_for(self, memory_ids: Sequence[str], reader: UserScope) -> builtins.list[MemoryNode]:
        engine = self._engine
        found = self._run(engine.store.get_nodes, engine.orchestrator, builtins.list(memory_ids))
        return [n for n in found if self._readable(n, reader)]

    def _readable_edges(
        self, edges: Iterable[MemoryEdge], readable: set[str], reader: UserScope
    ) -> tuple[MemoryEdge, ...]:
        """``edges`` between two memories the caller may list as ``reader`` (``readable``:
        known ones).

        Trigger: a memory's edges, or a search's, name the memory at the other end.
        Why: an edge to a memory outside the reader's scope (another user's, or one
          outside the grant's categories) told its id, the link's type and time to a
          caller that may not read it (``get`` and ``search``).
        Outcome: such an edge is left out, as the memory itself is.
        """
        edges = tuple(edges)
        if reader is ALL_USERS and self.grant.categories is None:
            return edges  # reads every memory of the orchestrator it names
        ends = {e.from_memory_id for e in edges} | {e.to_memory_id for e in edges}
        unknown = sorted(ends - readable)
        seen = readable | {n.memory_id for n in self._nodes_for(unknown, reader)}
        return tuple(e for e in edges if {e.from_memory_id, e.to_memory_id} <= seen)

    def audit_head(self) -> AuditHead:
        """The head of the audit chain (events, hash): spans every category and user."""
        self.authorize("audit", spans_all=True)
        if self.grant.user is not None:
            self._refuse("user_bound", "audit")
        return self._engine.store.audit_head(self._engine.orchestrator)
