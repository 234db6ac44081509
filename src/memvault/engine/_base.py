"""The engine's core: construction, the embedder, helpers and every write."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from memvault.embed.base import Embedder, FloatVector
from memvault.errors import MemoryNotFoundError, ValidationFailed
from memvault.layout import JsonLineLog, RuntimeLayout
from memvault.model.clock import format_timestamp
from memvault.model.decision import Decision
from memvault.model.enums import (
    ChangeKind,
    EdgeType,
    HistoryOp,
    MemoryOp,
    MemoryStatus,
    StopReason,
)
from memvault.model.node import MemoryNode
from memvault.policy.contract import DEFAULT_CONTRACT_VERSION, load_contract
from memvault.results import WriteResult
from memvault.retrieval.config import RetrievalConfig, preset
from memvault.retrieval.indexing import embedding_rows
from memvault.store.base import EmbeddingRow, IndexText, NodeFilter, Store, WriteSet
from memvault.store.factory import open_bound_store  # issue 11: backend chosen by config
from memvault.write import CaptureConfig
from memvault.write.pipeline import Relations, Validator, WritePipeline
from memvault.write.precomputed import checked_vector
from memvault.write.relations import related_edges
from memvault.write.spec import Clock, MemoryPatch, NewMemory, WriteGate
from memvault.write.validators import writing_constraints

if TYPE_CHECKING:
    from memvault.config import MemvaultConfig

#: (engine id, agent) while :meth:`EngineBase.acting` is in effect.
_ACTING: ContextVar[tuple[int, str | None] | None] = ContextVar("memvault_acting", default=None)


def _unpack(content: str | NewMemory, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(content, fields)`` of a typed :class:`NewMemory` (keywords win), or as given."""
    if isinstance(content, NewMemory):
        given = content.model_dump(exclude={"content"}, exclude_defaults=True)
        return content.content, {**given, **fields}
    return content, fields


class EngineBase:
    """Construction, the embedder, the gate and the write operations (one store each)."""

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
    ) -> None:
        self.store = store
        self.orchestrator = orchestrator
        self.layout = layout
        #: The governance contract's version (its categories are :attr:`categories`).
        self.contract = contract or DEFAULT_CONTRACT_VERSION
        self.gate: WriteGate = gate or self._default_gate(contract)
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
        self._embedder_error: str | None = None

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
            and self._embedder_error is None
        ):
            try:
                from memvault.embed import make_embedder

                name = None if self._embedder_spec == "default" else self._embedder_spec
                options = self._embedder_options
                self._embedder = make_embedder(name, **options) if name else make_embedder()
            except Exception as exc:
                self._embedder_error = f"{type(exc).__name__}: {exc}"
                self._log("warning", "embedder_unavailable", error=self._embedder_error)
        return self._embedder

    def _embed(
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
            self._log("warning", "embedding_failed", error=f"{type(exc).__name__}: {exc}")
            return ()

    def _default_gate(self, contract: str | None = None) -> WriteGate:
        """The governance gate of ``contract`` (default 19.1.0); counts the user's writes today."""
        from memvault.policy.candidate import Usage
        from memvault.policy.write_gate import PolicyGate

        def usage(node: MemoryNode) -> Usage:
            if node.user_id is None:
                return Usage()
            day = self._now()[:10] + "T00:00:00.000000Z"
            statuses = tuple(MemoryStatus)
            written = self.store.count_nodes(
                self.orchestrator,
                NodeFilter(user_id=node.user_id, updated_after=day, status=statuses),
            )
            return Usage(user_today=written)

        gate = PolicyGate(usage=usage) if contract is None else PolicyGate(contract, usage=usage)
        if gate.startup_error:
            # Trigger: the learned layer's weights are missing or altered.
            # Why: fail closed (INV-8) — every content write is refused — and say so once.
            # Outcome: an error line in memory.log at startup; reads keep working.
            self._log("error", "learned_gate_unavailable", error=gate.startup_error)
        return gate

    @classmethod
    def open(
        cls,
        home: str | Path | None = None,
        orchestrator: str = "default",
        *,
        config: MemvaultConfig | None = None,
        create: bool = True,
        **options: Any,
    ) -> Self:
        """Open the orchestrator's runtime under ``home``; ``create`` a new one if none exists.

        ``config`` (from :func:`memvault.config.load_config`, built by the entry
        point) supplies the store (``store.*``), the gate's contract
        (``policy.contract``), the embedder (``embedder.*``) and retrieval
        (``memory.retrieval.*``) unless ``options`` name them; without it the
        library defaults apply (nothing is read from a file or the environment).

        The store's identity is checked against its anchor file
        (``memory/memory.anchor.json``): a store that existed and whose
        database is now missing, empty or another store's is never re-created
        — :class:`~memvault.errors.StoreIdentityError`, whatever ``create``
        says. With ``create=False`` an orchestrator that has no store raises
        :class:`~memvault.errors.StoreMissingError` naming those that exist.
        """
        # Trigger: every open. Why: settings are read once, at the entry point that
        # built ``config``; below it nothing reads a file or the environment.
        # Outcome: store (store.*), gate (policy.contract), embedder (embedder.*)
        # and retrieval (memory.retrieval.*) all come from ``config`` — the
        # library defaults when there is none; ``options`` name overrides.
        from memvault.config import defaults

        cfg = config if config is not None else defaults()
        name, embedder_options = cfg.embedder.to_options()
        options.setdefault("embedder", name)
        options.setdefault("embedder_options", embedder_options)
        options.setdefault("retrieval", cfg.memory.retrieval.to_config())
        options.setdefault("contract", cfg.policy.contract)
        dsn = cfg.store.postgres.dsn
        layout = RuntimeLayout.for_orchestrator(home, orchestrator)
        store = open_bound_store(
            layout.orchestrator,
            layout.db_path,
            layout.anchor_path,
            create=create,
            at=format_timestamp(datetime.now(UTC)),
            known=layout.known_orchestrators,
            backend=cfg.store.backend,
            dsn=dsn.get_secret_value() if dsn is not None else None,
        )
        try:
            layout.ensure()
        except BaseException:
            store.close()
            raise
        engine = cls(store, layout.orchestrator, layout=layout, **options)
        engine._configure(cfg)
        return engine

    def _configure(self, config: MemvaultConfig) -> None:
        """What the layers above take from ``config`` (each layer reads its own part)."""
        return None

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

    def _now(self) -> str:
        return format_timestamp(self.clock())

    def _log(self, level: str, event: str, **fields: Any) -> None:
        if self.log is not None:
            self.log.write(self._now(), level, event, agent=self.agent_id, **fields)

    @property
    def writes(self) -> WritePipeline:
        """The one write pipeline, bound to this engine's store, gate, clock and agent.

        Built per use (cheap), so a changed ``gate``, ``clock`` or ``agent_id``
        takes effect at once. ``write_validators`` and ``write_relations`` plug
        steps into every write kind.
        """
        return WritePipeline(
            store=self.store,
            orchestrator=self.orchestrator,
            gate=self.gate,
            clock=self.clock,
            agent_id=self.agent_id,
            log=self._log,
            embed=self._embed,
            workspace_roots=self.workspace_roots,
            validators=self.write_validators,
            relations=(
                *self.write_relations,
                *((related_edges(self.store, self.orchestrator),) if self.auto_relations else ()),
            ),
        )

    def _load(self, memory_id: str, operation: str, *, include_deleted: bool = False) -> MemoryNode:
        nodes = self.store.get_nodes(self.orchestrator, [memory_id]) if memory_id else []
        if nodes and (include_deleted or nodes[0].status is not MemoryStatus.SOFT_DELETED):
            return nodes[0]
        # Trigger: an id that is not in this orchestrator (or is soft-deleted).
        # Why: ids of other tenants must be indistinguishable from unknown ids,
        #      and every such attempt must be auditable (fail closed and log).
        # Outcome: not found, plus a structured line in logs/memory.log.
        self._log("warning", "scope_miss", operation=operation, memory_id=memory_id[:128])
        raise MemoryNotFoundError(memory_id, self.orchestrator)

    def _commit(self, write: WriteSet, result: WriteResult) -> WriteResult:
        return self.writes.commit(write, result)

    def _gate(self, op: MemoryOp, node: MemoryNode) -> Decision:
        return self.writes.check(op, node)

    # -- writes --------------------------------------------------------------
    # Thin: every write goes through memvault.write.pipeline.WritePipeline.

    def add(
        self,
        content: str | NewMemory,
        *,
        thread_id: str = "default",
        index_text: IndexText | None = None,
        vector: FloatVector | Sequence[float] | None = None,
        vector_model: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a new memory. Returns a :class:`WriteResult`; never raises for bad input.

        ``content`` is the text with its fields as keywords, or a typed
        :class:`~memvault.engine.NewMemory` (every field in one value).

        ``vector``: the content's document vector, when the caller already has
        one (the gate and the stored embedding reuse it), with ``vector_model``
        the id of the model that made it: both are checked against this
        engine's embedder (its ``model_id`` and dimension), else SCHEMA_INVALID.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> e = MemoryEngine.open(tempfile.mkdtemp(), "acme")
        >>> e.add("x", type="fact", category="PREFERENCE", source_kind="USER_EXPLICIT").stop_reason
        <StopReason.SCHEMA_INVALID: 'SCHEMA_INVALID'>
        >>> e.add(NewMemory(content="Prefers tea", type="Preference", category="PREFERENCE",
        ...                 source_kind="USER_EXPLICIT")).stop_reason
        <StopReason.SUCCESS_STORED: 'SUCCESS_STORED'>
        >>> e.close()
        """
        content, fields = _unpack(content, fields)
        if vector is not None:
            try:
                vector = checked_vector(vector, vector_model, self.embedder)
            except ValidationFailed as exc:
                return self.writes.invalid(
                    MemoryOp.STORE, exc, fields={"content": content, **fields}
                )
        elif vector_model is not None:
            return self.writes.invalid(
                MemoryOp.STORE,
                ValidationFailed("vector_model without a vector", errors=(("vector", "missing"),)),
                fields={"content": content, **fields},
            )
        return self.writes.add(
            {"content": content, **fields},
            thread_id=thread_id,
            index_text=index_text,
            vector=vector,
        )

    def update(
        self,
        memory_id: str,
        patch: MemoryPatch | None = None,
        *,
        thread_id: str = "default",
        **changes: Any,
    ) -> WriteResult:
        """Change fields of an active memory: a typed ``patch`` and/or keywords.

        Unknown fields are SCHEMA_INVALID. Raises :class:`MemoryNotFoundError`
        for an id outside this orchestrator.
        """
        old = self._load(memory_id, "update")
        if patch is not None:
            changes = {**patch.changes(), **changes}
        return self.writes.update(old, changes, thread_id=thread_id)

    def delete(
        self, memory_id: str, *, thread_id: str = "default", idempotent: bool = False
    ) -> WriteResult:
        """Soft-delete: hidden from every read path, restorable until ``purge_at``.

        ``idempotent``: a memory that is already soft-deleted succeeds again
        without a write (else it is not found, like every read of it).
        """
        node = self._load(memory_id, "delete", include_deleted=idempotent)
        return self.writes.delete(node, thread_id=thread_id)

    def restore(self, memory_id: str, *, thread_id: str = "default") -> WriteResult:
        """Bring a soft-deleted memory back to ``active`` (a no-op if it is not deleted)."""
        node = self._load(memory_id, "restore", include_deleted=True)
        return self.writes.restore(node, thread_id=thread_id)

    def supersede(self, memory_id: str, *, by: str, thread_id: str = "default") -> WriteResult:
        """Mark a memory superseded by a newer one (spec 001): an ``Updates`` edge from
        ``by`` to it, then its status ``superseded`` — kept and explainable, never deleted.

        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        old = self._load(memory_id, "supersede")
        new = self._load(by, "supersede")
        problem = _manual_problem(old, new)
        if problem:
            return WriteResult(StopReason.SCHEMA_INVALID, memory_id=memory_id, reason=problem)
        linked = self.link(
            new.memory_id, old.memory_id, EdgeType.UPDATES, reason="superseded by hand"
        )
        if not linked.ok:
            return linked
        return self.writes.transition(
            old,
            MemoryOp.UPDATE,
            HistoryOp.SUPERSEDE,
            ChangeKind.UPDATED,
            thread_id=thread_id,
            status=MemoryStatus.SUPERSEDED,
        )

    def retract(self, memory_id: str, *, thread_id: str = "default") -> WriteResult:
        """Retract a memory that was wrong (spec 001): status ``retracted``, audited, kept.

        Raises :class:`MemoryNotFoundError` for an id outside this orchestrator.
        """
        node = self._load(memory_id, "retract")
        problem = _manual_problem(node)
        if problem:
            return WriteResult(StopReason.SCHEMA_INVALID, memory_id=memory_id, reason=problem)
        return self.writes.transition(
            node,
            MemoryOp.UPDATE,
            HistoryOp.UPDATE,
            ChangeKind.UPDATED,
            thread_id=thread_id,
            status=MemoryStatus.RETRACTED,
        )

    def link(
        self,
        from_id: str,
        to_id: str,
        edge_type: EdgeType | str,
        *,
        weight: float = 1.0,
        reason: str | None = None,
        thread_id: str = "default",
    ) -> WriteResult:
        """Add a typed edge between two active memories of this orchestrator."""
        self._load(from_id, "link")
        self._load(to_id, "link")
        return self.writes.link(
            from_id, to_id, edge_type, weight=weight, reason=reason, thread_id=thread_id
        )


def _manual_problem(node: MemoryNode, by: MemoryNode | None = None) -> str:
    """Why a manual supersede/retract cannot apply ("" when it can)."""
    if node.status is not MemoryStatus.ACTIVE:
        return f"{node.memory_id} is {node.status.value}, not active"
    if by is not None and by.memory_id == node.memory_id:
        return "a memory cannot supersede itself"
    if by is not None and by.status is not MemoryStatus.ACTIVE:
        return f"{by.memory_id} is {by.status.value}, not active"
    return ""
