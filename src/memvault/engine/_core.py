"""The engine's shared core: its store, gate, clock, embedder, settings and pipeline.

Every component of :class:`~memvault.engine.MemoryEngine` (writer, reader,
context, lifecycle, capture) holds the one :class:`EngineCore` of its engine;
none of them knows the others except through what it is handed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memvault import context as ctx
from memvault.embed.base import Embedder, FloatVector
from memvault.errors import MemoryNotFoundError
from memvault.extract.base import Extractor
from memvault.ingest.statements import message_parts
from memvault.layout import JsonLineLog, RuntimeLayout
from memvault.lifecycle.settings import LifecyclePolicy
from memvault.model.clock import format_timestamp
from memvault.model.decision import Decision
from memvault.model.enums import (
    MemoryOp,
    MemoryStatus,
)
from memvault.model.node import CONTENT_MAX, MemoryNode
from memvault.model.validation import to_validation_failed
from memvault.policy.contract import DEFAULT_CONTRACT_VERSION, load_contract
from memvault.retrieval.config import RetrievalConfig, preset
from memvault.retrieval.indexing import embedding_rows
from memvault.store.base import NO_FILTER, EmbeddingRow, IndexText, NodeFilter, Store
from memvault.write import CaptureConfig
from memvault.write.drafts import Draft, Relations
from memvault.write.gating import Validator
from memvault.write.pipeline import WritePipeline
from memvault.write.relations import related_edges
from memvault.write.spec import Clock, NewMemory, WriteGate
from memvault.write.validators import writing_constraints

if TYPE_CHECKING:
    from memvault.config import MemvaultConfig

#: (core id, agent) while :meth:`EngineCore.acting` is in effect.
_ACTING: ContextVar[tuple[int, str | None] | None] = ContextVar("memvault_acting", default=None)


def _unpack(content: str | NewMemory, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(content, fields)`` of a typed :class:`NewMemory` (keywords win), or as given."""
    if isinstance(content, NewMemory):
        given = content.model_dump(exclude={"content"}, exclude_defaults=True)
        return content.content, {**given, **fields}
    return content, fields


class EngineCore:
    """What every component of an engine shares: one store, one gate, one pipeline."""

    #: Caps, bands and knobs of capture and ingest merges (assign a new frozen config
    #: to change them).
    capture_config: CaptureConfig = CaptureConfig()
    #: Extra validator steps every write kind runs (ranked with the gate's findings).
    write_validators: tuple[Validator, ...] = (writing_constraints,)
    #: Extra relations steps: edges every new node gets in its own transaction.
    write_relations: tuple[Relations, ...] = ()
    #: Automatic ``RelatedTo`` edges for ``add`` (``write.relations``), as capture makes.
    #: Off by default for now: on, every add also writes LINK history rows and edges,
    #: which changes audit sequences, link and consolidation behaviour others rely on.
    auto_relations: bool = False
    #: Size limits of the bulletin (assign a new frozen config to change them).
    bulletin_config: ctx.BulletinConfig = ctx.BulletinConfig()
    #: Per-agent category allowlists for memory.query (spec §5). ``None``:
    #: none configured, so no agent limits (set one to enforce them).
    allowlist: ctx.AgentAllowlist | None = None
    #: Per-category context modes for memory.query (spec §5: ``all`` or
    #: ``rag`` with ``rag_length``), from ``policy.categories``.
    category_modes: Mapping[str, ctx.CategoryMode] = {}
    #: ``memory.retrieval.top_n``: at most this many results per search, whatever
    #: the caller's ``top_k`` asks; ``None``: the caller's ``top_k``.
    result_cap: int | None = None
    #: ``memory.ingest.enabled`` and ``max_file_size_mb``: the drop folder's defaults.
    ingest_enabled: bool = True
    ingest_max_file_size_mb: float = 25.0
    #: TTL, purge and consent settings (assign a new frozen policy to change them).
    lifecycle_policy: LifecyclePolicy = LifecyclePolicy()
    #: The transcript extractor; ``None`` is the deterministic rule extractor.
    capture_extractor: Extractor | None = None

    def __init__(
        self,
        store: Store,
        orchestrator: str,
        *,
        layout: RuntimeLayout | None = None,
        gate: WriteGate | None = None,
        clock: Clock | None = None,
        agent_id: str | None = None,
        workspace_roots: Iterable[str | Path] = (),
        embedder: Embedder | str | None = "default",
        embedder_options: Mapping[str, Any] | None = None,
        retrieval: RetrievalConfig | str = "default",
        contract: str | None = None,
        parallel_gate: bool = True,
        memory_enabled: bool = True,
    ) -> None:
        self.store = store
        self.orchestrator = orchestrator
        self.layout = layout
        #: The governance contract's version (its categories are :attr:`categories`).
        self.contract = contract or DEFAULT_CONTRACT_VERSION
        #: ``policy.parallel_gate``: the default gate may judge large batches in a
        #: second process (``False``: never).
        self.parallel_gate = parallel_gate
        #: ``memory.enabled``: ``False`` and the default gate refuses every write
        #: POLICY_DISABLED (contract §6; a higher-ranked finding still wins, §7)
        self.memory_enabled = memory_enabled
        self.gate: WriteGate = gate or self.default_gate(contract)
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self._agent_id = agent_id
        roots = [Path(r) for r in workspace_roots]
        if layout is not None:
            roots.insert(0, layout.root)
        self.workspace_roots = tuple(roots)
        self.log = JsonLineLog(layout.log_path, orchestrator) if layout else None
        self.retrieval = preset(retrieval) if isinstance(retrieval, str) else retrieval
        self._embedder_spec = embedder
        self._embedder_options = dict(embedder_options or {})
        self._embedder: Embedder | None = embedder if not isinstance(embedder, str | None) else None
        self.embedder_error: str | None = None

    @property
    def categories(self) -> frozenset[str]:
        """The categories of this engine's contract (what a memory's ``category`` may be).

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None) as e:
        ...     "PREFERENCE" in e.categories
        True
        """
        return frozenset(load_contract(self.contract).categories)

    @property
    def embedder(self) -> Embedder | None:
        """The embedder, created on first use; ``None`` when none is available.

        Trigger: the default local model may be missing or broken.
        Why: memory is advisory — recall degrades to full text, it never fails.
        Outcome: the error is logged once and the vector leg is skipped.
        """
        if (
            self._embedder is None
            and isinstance(self._embedder_spec, str)
            and self.embedder_error is None
        ):
            try:
                from memvault.embed import make_embedder

                name = None if self._embedder_spec == "default" else self._embedder_spec
                options = self._embedder_options
                self._embedder = make_embedder(name, **options) if name else make_embedder()
            except Exception as exc:
                self.embedder_error = f"{type(exc).__name__}: {exc}"
                self.log_event("warning", "embedder_unavailable", error=self.embedder_error)
        return self._embedder

    def embed_rows(
        self,
        nodes: tuple[MemoryNode, ...],
        extras: Mapping[str, IndexText] | None = None,
        *,
        known: Mapping[str, FloatVector] | None = None,
    ) -> tuple[EmbeddingRow, ...]:
        """Vectors for nodes about to be written; empty (and queued) on failure.

        ``known``: document vectors of this embedder the caller already has, by text.
        """
        embedder = self.embedder
        if embedder is None or not nodes:
            return ()
        try:
            return tuple(
                embedding_rows(
                    self.store,
                    embedder,
                    nodes,
                    extras,
                    with_context=self.retrieval.use_context_vectors,
                    known=known,
                )
            )
        except Exception as exc:
            self.log_event("warning", "embedding_failed", error=f"{type(exc).__name__}: {exc}")
            return ()

    def default_gate(self, contract: str | None = None) -> WriteGate:
        """The governance gate of ``contract`` (default 19.1.0); counts the user's writes today.

        Its second process for large batches follows :attr:`parallel_gate`; with
        :attr:`memory_enabled` false it refuses every write POLICY_DISABLED.
        """
        from memvault.policy.candidate import Usage
        from memvault.policy.write_gate import PolicyGate

        def usage(node: MemoryNode) -> Usage:
            if node.user_id is None:
                return Usage()
            day = self.now()[:10] + "T00:00:00.000000Z"
            statuses = tuple(MemoryStatus)
            written = self.store.count_nodes(
                self.orchestrator,
                NodeFilter(user_id=node.user_id, updated_after=day, status=statuses),
            )
            return Usage(user_today=written)

        gate = PolicyGate(
            contract or DEFAULT_CONTRACT_VERSION,
            usage=usage,
            parallel=self.parallel_gate,
            policy_enabled=self.memory_enabled,
        )
        if gate.startup_error:
            # Trigger: the learned layer's weights are missing or altered.
            # Why: fail closed (INV-8) — every content write is refused — and say so once.
            # Outcome: an error line in memory.log at startup; reads keep working.
            self.log_event("error", "learned_gate_unavailable", error=gate.startup_error)
        return gate

    def configure(self, config: MemvaultConfig) -> None:
        """What the components take from ``config`` beyond construction.

        The per-category context modes of memory.query (spec §5: ``all``, or
        ``rag`` with ``rag_length``) come from ``policy.categories``, its
        per-agent category allowlists from ``policy.allowlists`` (the agents it
        names), the cap on search results from ``memory.retrieval.top_n``, and
        the drop folder's defaults from ``memory.ingest.*``.
        """
        self.allowlist = config.policy.agent_allowlist()
        self.result_cap = config.memory.retrieval.top_n
        self.ingest_enabled = config.memory.ingest.enabled
        self.ingest_max_file_size_mb = config.memory.ingest.max_file_size_mb
        self.category_modes = {
            name: ctx.CategoryMode(setting.context, setting.rag_length)
            for name, setting in config.policy.categories.items()
        }

    # -- who is acting --------------------------------------------------------

    @property
    def agent_id(self) -> str | None:
        """The agent this engine acts as: the caller's inside :meth:`acting`, else its own."""
        acting = _ACTING.get()
        if acting is not None and acting[0] == id(self):
            return acting[1]
        return self._agent_id

    @agent_id.setter
    def agent_id(self, value: str | None) -> None:
        self._agent_id = value

    @contextmanager
    def acting(self, agent: str | None) -> Iterator[None]:
        """Act as ``agent`` in this thread (or task) until the block ends.

        Trigger: one engine per orchestrator serves many agents (HTTP keys, MCP).
        Why: history rows, the gate and the log must name the acting agent, yet
        every agent of a tenant shares one store, one writer and one cache.
        Outcome: a context variable, not a copy of the engine.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None)
        >>> with e.acting("planner"):
        ...     e.agent_id
        'planner'
        >>> e.agent_id is None
        True
        >>> e.close()
        """
        token = _ACTING.set((id(self), agent))
        try:
            yield
        finally:
            _ACTING.reset(token)

    # -- helpers -------------------------------------------------------------

    def now(self) -> str:
        return format_timestamp(self.clock())

    def log_event(self, level: str, event: str, **fields: Any) -> None:
        if self.log is not None:
            self.log.write(self.now(), level, event, agent=self.agent_id, **fields)

    @property
    def writes(self) -> WritePipeline:
        """The one write pipeline, bound to this engine's store, gate, clock and agent.

        Built per use (cheap), so a changed ``gate``, ``clock``, ``agent_id`` or
        ``lifecycle_policy`` (its ``purge_after`` dates a delete's purge) takes
        effect at once. ``write_validators`` and ``write_relations`` plug
        steps into every write kind.
        """
        return WritePipeline(
            store=self.store,
            orchestrator=self.orchestrator,
            gate=self.gate,
            clock=self.clock,
            agent_id=self.agent_id,
            log=self.log_event,
            # no embedder, no embed step: the gate's n-gram heads judge English text
            # (a configured embedder that fails is another thing: review S12-R7/R12)
            embed=self.embed_rows if self.embedder is not None else None,
            workspace_roots=self.workspace_roots,
            validators=self.write_validators,
            relations=(
                *self.write_relations,
                *((related_edges(self.store, self.orchestrator),) if self.auto_relations else ()),
            ),
            content_limit=self.content_limit,
            splitter=message_parts,
            purge_after=self.lifecycle_policy.purge_after,
        )

    def content_limit(self, category: str) -> int:
        """The longest content one memory of ``category`` may hold under this contract.

        ``CONTENT_MAX``, or the category's value bound when smaller: without a
        ``value`` the gate bounds the content as the value. A longer ``add``
        is stored as several memories (:meth:`WritePipeline.parts`).

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None) as e:
        ...     e.core.content_limit("EVENT"), e.core.content_limit("NO_SUCH_CATEGORY")
        (512, 4000)
        """
        try:
            spec = load_contract(self.contract).category(category)
        except Exception:  # an unknown contract: the content bound alone
            spec = None
        return min(CONTENT_MAX, spec.value_max) if spec is not None else CONTENT_MAX

    def load(self, memory_id: str, operation: str, *, include_deleted: bool = False) -> MemoryNode:
        nodes = self.store.get_nodes(self.orchestrator, [memory_id]) if memory_id else []
        if nodes and (include_deleted or nodes[0].status is not MemoryStatus.SOFT_DELETED):
            return nodes[0]
        # Trigger: an id that is not in this orchestrator (or is soft-deleted).
        # Why: ids of other tenants must be indistinguishable from unknown ids,
        #      and every such attempt must be auditable (fail closed and log).
        # Outcome: not found, plus a structured line in logs/memory.log.
        self.log_event("warning", "scope_miss", operation=operation, memory_id=memory_id[:128])
        raise MemoryNotFoundError(memory_id, self.orchestrator)

    def check(self, op: MemoryOp, node: MemoryNode) -> Decision:
        """The gate alone on ``node`` (capture's seam); an exception fails closed."""
        return self.writes.check(op, Draft(node))

    @staticmethod
    def filters(filters: NodeFilter | Mapping[str, Any] | None) -> NodeFilter:
        """``filters`` as a :class:`NodeFilter`; a bad field is :class:`ValidationFailed`."""
        if filters is None:
            return NO_FILTER  # frozen: one shared instance (stores test it by identity first)
        if isinstance(filters, NodeFilter):
            return filters
        try:
            return NodeFilter.model_validate(dict(filters))
        except ValidationError as exc:
            raise to_validation_failed(exc, prefix="filters.") from None
