"""What the agent sees: bulletin, delta header, memory.query (DESIGN §6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memvault import context as ctx
from memvault.model.node import MemoryNode
from memvault.store.base import (
    NodeFilter,
)

if TYPE_CHECKING:
    from memvault.config import MemvaultConfig

    pass
from memvault.engine._reads import EngineReads


class EngineContext(EngineReads):
    """The context operations of :class:`~memvault.engine.MemoryEngine`."""

    # -- context ---
    # What an agent sees (DESIGN §6). Thin: the logic is in memvault.context.

    #: Size limits of :meth:`bulletin` (assign a new frozen config to change them).
    bulletin_config: ctx.BulletinConfig = ctx.BulletinConfig()
    _bulletin_keeper: ctx.BulletinKeeper | None = None

    def _recall_nodes(self, query: str, filters: NodeFilter, top_k: int) -> list[MemoryNode]:
        return [h.node for h in self.search(query, filters=filters, top_k=top_k).hits]

    def bulletin(self, *, query: str | None = None, reuse: bool = True) -> ctx.Bulletin:
        """The memory bulletin of the current state; never raises (falls back instead).

        Without a query, a bulletin already built at the current revision is
        reused (same state, same bytes); ``reuse=False`` always rebuilds.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.bulletin().to_json()["revision"]
        0
        """
        cfg = self.bulletin_config
        if self._bulletin_keeper is None:
            where = self.layout.bulletins_dir if self.layout else None
            self._bulletin_keeper = ctx.BulletinKeeper(where, cfg.keep_files)
        return self._bulletin_keeper.build(
            lambda: ctx.build_bulletin(
                self.store, self.orchestrator, cfg, query=query, recall=self._recall_nodes
            ),
            cfg,
            self._log,
            key=(cfg,) if reuse and query is None else None,
            revision=lambda: self.store.revision(self.orchestrator),
        )

    def delta_header(self, thread_id: str, *, advance: bool = True) -> ctx.DeltaHeader | None:
        """Changes since ``thread_id`` last looked (≤ 3 bullets), or ``None``."""
        return ctx.delta_header(
            self.store, self.orchestrator, thread_id, advance=advance, warn=self._log
        )

    def for_message(self, thread_id: str, *, query: str | None = None) -> ctx.MessageContext:
        """Delta header and bulletin for one message of ``thread_id``."""
        return ctx.MessageContext(self.delta_header(thread_id), self.bulletin(query=query))

    #: Per-agent category allowlists for :meth:`memory_query` (spec §5). ``None``:
    #: none configured, so no agent limits (set one to enforce them).
    allowlist: ctx.AgentAllowlist | None = None
    #: Per-category context modes for :meth:`memory_query` (spec §5: ``all`` or
    #: ``rag`` with ``rag_length``), from ``policy.categories``.
    category_modes: Mapping[str, ctx.CategoryMode] = {}

    def _configure(self, config: MemvaultConfig) -> None:
        super()._configure(config)
        self.category_modes = {
            name: ctx.CategoryMode(setting.context, setting.rag_length)
            for name, setting in config.policy.categories.items()
        }

    def _recall_scored(
        self, query: str, filters: NodeFilter, top_k: int
    ) -> list[tuple[MemoryNode, float]]:
        return [(h.node, h.score) for h in self.search(query, filters=filters, top_k=top_k).hits]

    def memory_query(
        self, request: ctx.MemoryQuery | Mapping[str, Any] | None = None, **fields: Any
    ) -> ctx.QueryResult:
        """memory.query (spec §6): allowlist-checked, filtered, budgeted recall.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     e.memory_query(agent="planner", query="deploy plan").to_json()["status"]
        'ok'
        """
        return ctx.memory_query(
            request,
            fields,
            self.allowlist,
            self._recall_scored,
            events=self._context_events(),
            now=self._now,
            warn=self._log,
            modes=self.category_modes,
            listing=lambda flt, limit: self.store.list_nodes(self.orchestrator, flt, limit=limit),
        )

    _query_events: ctx.EventBuffer | None = None

    def _context_events(self) -> ctx.EventBuffer:
        if self._query_events is None:
            self._query_events = ctx.EventBuffer(self.writes.record_op_events)
        return self._query_events

    def flush_context_events(self) -> None:
        """Write memory.query's pending operational events now (never raises)."""
        if self._query_events is None:
            return
        try:
            self._query_events.flush()
        except Exception as exc:
            self._log("error", "query_events_not_recorded", error=f"{type(exc).__name__}: {exc}")

    def context_assembler(self, *, max_project_items: int = 1000) -> ctx.ContextAssembler:
        """Task, project and global tiers over this engine (keep one per process)."""
        return ctx.ContextAssembler(self, max_project_items=max_project_items)
