"""The delta header: what changed in memory since a thread last looked (spec §1).

Every write bumps the orchestrator's revision by one and appends change-log
rows (the store does both in the write's transaction). Each reader of a thread
(a user, shared-only, or the orchestrator-wide view) remembers the revision it
last saw there (``Store.mark_thread_seen``): one user reading a thread never
hides its changes from another. On the reader's next message it gets::

    Memory updates since rev 12:
    - +created: [PREFERENCE] Preferred name is Ana (imp=60)
    - ↑updated: [KNOWLEDGE] Ship v1 by Sep

at most three bullets (newest first, one per memory), and no header at all
when nothing changed. A thread the reader never saw counts from revision 0.

>>> from memvault.store import InMemoryStore
>>> delta_header(InMemoryStore(), "acme", "t1") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memvault.context.render import quote
from memvault.errors import StoreError, ValidationFailed
from memvault.model.enums import ChangeKind, MemoryType
from memvault.model.validation import NameRule
from memvault.results import fields_json
from memvault.store.base import ChangeRecord, Store
from memvault.store.scope import UserScope, reader_key, visible_to

__all__ = ["DeltaBullet", "DeltaHeader", "delta_header", "validate_thread_id"]

#: The marker of each change kind (implementation-spec §1).
MARKERS: dict[ChangeKind, str] = {
    ChangeKind.CREATED: "+created",
    ChangeKind.UPDATED: "↑updated",
    ChangeKind.MERGED: "↔merged",
    ChangeKind.DELETED: "−deleted",
    ChangeKind.SOFT_DELETED: "−soft_deleted",
    ChangeKind.RESTORED: "↺restored",
}
MAX_BULLETS = 3
#: How many of the reader's newest changes are read to find the bullets.
WINDOW = 64

#: A thread id: 1-128 of letters, digits, ``_ . : @ -`` (``*`` is reserved):
#: ``validate_thread_id("chan:42")`` is ``'chan:42'``.
validate_thread_id = NameRule(
    re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@\-]{0,127}$"),
    lambda thread_id: ValidationFailed(
        f"invalid thread id {thread_id!r}",
        errors=(("thread_id", "1-128 letters, digits or _ . : @ -"),),
        hint="use the conversation or channel id",
    ),
)


@dataclass(frozen=True, slots=True)
class DeltaBullet:
    """One bullet: a change kind, the memory it touched, and its rendered text."""

    kind: ChangeKind
    memory_id: str
    revision: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True, slots=True)
class DeltaHeader:
    """Changes between ``since_revision`` (exclusive) and ``revision`` (inclusive)."""

    since_revision: int
    revision: int
    bullets: tuple[DeltaBullet, ...]
    #: The reader's changes (among the newest WINDOW) that got no bullet; other
    #: users' changes are never counted.
    omitted: int = 0

    @property
    def text(self) -> str:
        lines = [f"Memory updates since rev {self.since_revision}:"]
        lines.extend(f"- {b.text}" for b in self.bullets)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "since_revision": self.since_revision,
            "revision": self.revision,
            "bullets": [b.to_json() for b in self.bullets],
            "omitted": self.omitted,
            "text": self.text,
        }


def _bullets(
    store: Store, orchestrator: str, rows: list[ChangeRecord]
) -> tuple[list[ChangeRecord], int]:
    newest: list[ChangeRecord] = []
    seen: set[str] = set()
    for row in reversed(rows):  # newest first; one bullet per memory (its latest change)
        if row.memory_id in seen:
            continue
        seen.add(row.memory_id)
        newest.append(row)
        if len(newest) == MAX_BULLETS:
            break
    return newest, len(rows) - len(newest)


def delta_header(
    store: Store,
    orchestrator: str,
    thread_id: str,
    *,
    advance: bool = True,
    warn: Callable[..., None] | None = None,
    user: UserScope = None,
) -> DeltaHeader | None:
    """The header for ``thread_id``'s next message, or ``None`` when nothing changed.

    Only changes of memories ``user`` may see are announced (store/scope.py:
    theirs and shared ones; ``None`` is shared only). With ``advance`` (the
    default) the thread is marked as seen by ``user`` at the current revision,
    so the same changes are not announced to them twice (other readers of the
    thread keep their own marks). With ``warn``, a store failure is
    logged through it and gives ``None`` instead of raising (the per-message
    path must never block on memory).
    """
    validate_thread_id(thread_id)
    users = visible_to(user)
    reader = reader_key(user)
    if warn is None:
        return _delta_header(store, orchestrator, thread_id, advance, users, reader)
    try:
        return _delta_header(store, orchestrator, thread_id, advance, users, reader)
    except StoreError as exc:
        warn("warning", "delta_header_failed", thread_id=thread_id, error=str(exc)[:500])
        return None


def _delta_header(
    store: Store,
    orchestrator: str,
    thread_id: str,
    advance: bool,
    users: tuple[str, ...] | None,
    reader: str,
) -> DeltaHeader | None:
    head = store.revision(orchestrator)
    seen = store.thread_seen(orchestrator, thread_id, reader=reader)
    since = seen or 0
    header: DeltaHeader | None = None
    if head > since:
        # Trigger: the window once counted revisions, anyone's.
        # Why: other users' writes pushed the reader's own changes out of it, and
        #      the skipped revisions were added to ``omitted`` (their activity volume).
        # Outcome: the reader's newest WINDOW visible changes; ``omitted`` counts
        #          only those without a bullet (older ones are not counted).
        rows = [
            r
            for r in store.changes_since(orchestrator, since, visible_to=users, newest=WINDOW)
            if r.revision <= head
        ]
        chosen, omitted = _bullets(store, orchestrator, rows)
        nodes = {
            n.memory_id: n for n in store.get_nodes(orchestrator, [r.memory_id for r in chosen])
        }
        bullets = []
        for row in chosen:
            node = nodes.get(row.memory_id)
            if node is not None and node.type is MemoryType.PROCEDURE:
                omitted += 1  # procedures stay out of default context (spec §12)
                continue
            label = f"[{node.category}] " if node is not None else ""
            weight = (
                f" (imp={node.importance})"
                if node is not None and row.kind is ChangeKind.CREATED
                else ""
            )
            summary = quote(row.summary or row.memory_id, max_chars=160)
            text = f"{MARKERS[row.kind]}: {label}{summary}{weight}"
            bullets.append(DeltaBullet(row.kind, row.memory_id, row.revision, text))
        if bullets:
            header = DeltaHeader(since, head, tuple(bullets), omitted)
    if advance and (seen is None or head > seen):
        store.mark_thread_seen(orchestrator, thread_id, head, reader=reader)
    return header
