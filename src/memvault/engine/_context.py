"""What the agent sees: bulletin, delta header, memory.query (DESIGN §6).

Thin: the logic is in :mod:`memvault.context`; this component binds it to one
engine's store, settings and recall.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memvault import context as ctx
from memvault.engine._core import EngineCore
from memvault.engine._reads import Reader
from memvault.model.node import MemoryNode
from memvault.store.base import NodeFilter
from memvault.store.scope import UserScope

__all__ = ["ContextOps"]


class ContextOps:
    """The context operations of one engine (recall through its reader)."""

    def __init__(self, core: EngineCore, reader: Reader) -> None:
        self.core = core
        self.reader = reader
        self._bulletin_keepers: ctx.KeeperPerReader | None = None
        self._query_events: ctx.EventBuffer | None = None

    def _recall_scored(
        self, query: str, filters: NodeFilter, top_k: int
    ) -> list[tuple[MemoryNode, float]]:
        return [
            (h.node, h.score) for h in self.reader.search(query, filters=filters, top_k=top_k).hits
        ]

    def bulletin(
        self, *, user: UserScope = None, query: str | None = None, reuse: bool = True
    ) -> ctx.Bulletin:
        """``user``'s memory bulletin of the current state; never raises (falls back instead).

        It cites ``user``'s memories and shared (user-less) ones, never another
        user's; without a user it holds shared memories only, and
        :data:`~memvault.store.scope.ALL_USERS` is the orchestrator-wide view
        (administrators). Without a query, a bulletin already built for the same
        user at the current revision is reused (same state, same bytes);
        ``reuse=False`` always rebuilds. Each user has their own cache and
        ``bulletins/`` files, so a fallback never serves another user's bulletin.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.bulletin(user="dana").to_json()["revision"]
        0
        """
        core = self.core
        cfg = core.bulletin_config
        if self._bulletin_keepers is None:
            where = core.layout.bulletins_dir if core.layout else None
            self._bulletin_keepers = ctx.KeeperPerReader(where, cfg.keep_files)

        def recall(q: str, filters: NodeFilter, top_k: int) -> list[MemoryNode]:
            return [n for n, _ in self._recall_scored(q, filters, top_k)]

        return self._bulletin_keepers.of(user).build(
            lambda: ctx.build_bulletin(
                core.store, core.orchestrator, cfg, query=query, recall=recall, user=user
            ),
            cfg,
            core.log_event,
            key=(cfg,) if reuse and query is None else None,
            revision=lambda: core.store.revision(core.orchestrator),
        )

    def drop_materialised(self) -> int:
        """Purged text must not live on in materialised bulletins (right to erasure).

        Trigger: a purge. Why: ``bulletins/*.json`` quote memory text and serve
        as the last-good fallback. Outcome: they are deleted; the next bulletin
        is built from the store as it now is.
        """
        self._bulletin_keepers = None
        layout = self.core.layout
        where = layout.bulletins_dir if layout else None
        dropped = 0
        if where is not None and where.is_dir():
            # Shared-only files at the top, every other reader's one level down.
            for path in [*where.glob("*.json"), *where.glob("*/*.json")]:
                path.unlink(missing_ok=True)
                dropped += 1
        return dropped

    def delta_header(
        self, thread_id: str, *, user: UserScope = None, advance: bool = True
    ) -> ctx.DeltaHeader | None:
        """Changes since ``thread_id`` last looked (≤ 3 bullets), or ``None``.

        Only changes of memories ``user`` may see (theirs and shared ones;
        without a user, shared ones only).
        """
        core = self.core
        return ctx.delta_header(
            core.store,
            core.orchestrator,
            thread_id,
            advance=advance,
            warn=core.log_event,
            user=user,
        )

    def for_message(
        self, thread_id: str, *, user: UserScope = None, query: str | None = None
    ) -> ctx.MessageContext:
        """Delta header and bulletin for one message of ``user`` in ``thread_id``."""
        return ctx.MessageContext(
            self.delta_header(thread_id, user=user), self.bulletin(user=user, query=query)
        )

    def memory_query(
        self,
        /,
        request: ctx.MemoryQuery | Mapping[str, Any] | None = None,
        *,
        user: UserScope = None,
        **fields: Any,
    ) -> ctx.QueryResult:
        """memory.query (spec §6): allowlist-checked, filtered, budgeted recall for ``user``.

        Recall is held to ``user``'s scope (theirs and shared memories). Without
        ``user``, the request's ``filters.user_id`` names the user when it has
        one; otherwise only shared memories answer.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.memory_query(agent="planner", query="deploy plan").to_json()["status"]
        'ok'
        """
        core = self.core
        return ctx.memory_query(
            request,
            fields,
            core.allowlist,
            self._recall_scored,
            user=user,
            events=self._context_events(),
            now=core.now,
            warn=core.log_event,
            modes=core.category_modes,
            listing=lambda flt, limit: core.store.list_nodes(core.orchestrator, flt, limit=limit),
        )

    def _context_events(self) -> ctx.EventBuffer:
        if self._query_events is None:
            self._query_events = ctx.EventBuffer(self.core.writes.record_op_events)
        return self._query_events

    def flush_context_events(self) -> None:
        """Write memory.query's pending operational events now (never raises)."""
        if self._query_events is None:
            return
        try:
            self._query_events.flush()
        except Exception as exc:
            self.core.log_event(
                "error", "query_events_not_recorded", error=f"{type(exc).__name__}: {exc}"
            )
