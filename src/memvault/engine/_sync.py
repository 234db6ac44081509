"""The synchronous engine: one core and five components, composed.

:class:`MemoryEngine` holds an :class:`~memvault.engine._core.EngineCore`
(store, gate, clock, embedder, settings, the write pipeline) and five
components built on it, each in its own module:

==========  ======================  ===============================================
component   class                   what it does
==========  ======================  ===============================================
writer      ``_writes.Writer``      add, update, delete, restore, supersede,
                                    retract, link, add_many
reader      ``_reads.Reader``       get, history, audit events, search, listing
context     ``_context.ContextOps`` bulletin, delta header, memory.query
lifecycle   ``_lifecycle.           ingest, TTL, consolidation, consent, audit,
            LifecycleOps``          export, erasure, stats
capture     ``_capture.CaptureOps`` transcript turns, workflow outputs, diagnostics
==========  ======================  ===============================================

Each public method is written once, in its component; the engine names it
(``add = _by("writer", Writer.add)``), so its signature, docstring and types
are the component's and there is no forwarding code to keep in step.
Settings (``capture_config``, ``lifecycle_policy``, ``gate``, ``clock`` …) live
on the core and read and assign through the engine as before.

>>> import tempfile
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None) as e:
...     e.parts.writer.core is e.core is e.parts.reader.core
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from memvault import context as ctx
from memvault.embed.base import Embedder
from memvault.engine._args import check_call, checked_method
from memvault.engine._caller import Caller, CallerGrant, DenyHook
from memvault.engine._capture import CaptureOps
from memvault.engine._context import ContextOps
from memvault.engine._core import EngineCore
from memvault.engine._lifecycle import LifecycleOps
from memvault.engine._reads import Reader
from memvault.engine._writes import Writer
from memvault.extract.base import Extractor
from memvault.layout import JsonLineLog, RuntimeLayout
from memvault.lifecycle.service import LifecycleService
from memvault.lifecycle.settings import LifecyclePolicy
from memvault.model.clock import format_timestamp
from memvault.retrieval.config import RetrievalConfig
from memvault.store.base import Store
from memvault.store.factory import open_bound_store  # issue 11: backend chosen by config
from memvault.write import CaptureConfig, CapturePipeline
from memvault.write.drafts import Relations
from memvault.write.gating import Validator
from memvault.write.pipeline import WritePipeline
from memvault.write.spec import Clock, WriteGate

if TYPE_CHECKING:
    from memvault.config import MemvaultConfig

__all__ = ["MemoryEngine", "Parts"]

C = TypeVar("C")
P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V")


class _By(Generic[C, P, R]):
    """An engine method that is one component's method (named once, not forwarded by hand).

    On the class it is the component's function (``inspect``, the async face
    and the docs see its signature and docstring); on an engine it is bound to
    that engine's component and checks its arguments' types first
    (:func:`~memvault.engine._args.check_call`: a wrong type is ValidationFailed).
    """

    def __init__(self, part: str, method: Callable[Concatenate[C, P], R]) -> None:
        self.part = part
        self.method = method
        self.attr = method.__name__
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.attr = name  # ``list`` is Reader.list_memories

    @overload
    def __get__(self, engine: None, owner: type[Any]) -> Callable[Concatenate[C, P], R]: ...

    @overload
    def __get__(self, engine: MemoryEngine, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, engine: MemoryEngine | None, owner: type[Any]) -> Callable[..., R]:
        if engine is None:
            return self.method
        first, *rest = self.part.split(".")
        holder: Any = engine.core if first == "core" else getattr(engine.parts, first)
        for name in rest:  # "capture.capture": the capture component's current pipeline
            holder = getattr(holder, name)
        name = self.method.__name__
        bound: Callable[P, R] = getattr(holder, name)
        method = self.method

        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            check_call(method, args, kwargs)  # wrong types: ValidationFailed (engine/_args.py)
            return bound(*args, **kwargs)

        checked.__name__, checked.__doc__ = name, method.__doc__
        checked.__wrapped__ = bound  # type: ignore[attr-defined]  # inspect.signature follows it
        if not rest:  # a component is the engine's for good: keep the checked method
            engine.__dict__[self.attr] = checked
        return checked


def _by(part: str, method: Callable[Concatenate[C, P], R]) -> _By[C, P, R]:
    return _By(part, method)


class _Shared(Generic[V]):
    """An engine attribute that lives on its core (read and assigned through the engine)."""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, engine: None, owner: type[Any]) -> _Shared[V]: ...

    @overload
    def __get__(self, engine: MemoryEngine, owner: type[Any]) -> V: ...

    def __get__(self, engine: MemoryEngine | None, owner: type[Any]) -> V | _Shared[V]:
        if engine is None:
            return self
        value: V = getattr(engine.core, self.name)
        return value

    def __set__(self, engine: MemoryEngine, value: V) -> None:
        setattr(engine.core, self.name, value)


@dataclass(frozen=True, slots=True)
class Parts:
    """The components of one engine, all on one core."""

    writer: Writer
    reader: Reader
    context: ContextOps
    lifecycle: LifecycleOps
    capture: CaptureOps


class MemoryEngine:
    """Synchronous memory engine for one orchestrator. Thread-safe.

    One :class:`~memvault.engine._core.EngineCore` and the components of
    :class:`Parts` built on it (see the module docstring for who does what).
    """

    def __init__(self, store: Store, orchestrator: str, **options: Any) -> None:
        """An engine over an open ``store`` (see :class:`EngineCore` for ``options``);
        :meth:`open` opens the store of a runtime home."""
        self.core = core = EngineCore(store, orchestrator, **options)
        reader = Reader(core)
        context = ContextOps(core, reader)
        lifecycle = LifecycleOps(core, reader, context)
        self.parts = Parts(
            writer=Writer(core, lifecycle.propose),
            reader=reader,
            context=context,
            lifecycle=lifecycle,
            capture=CaptureOps(core, reader, lifecycle),
        )

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
        (``policy.contract``) and second process (``policy.parallel_gate``), the
        embedder (``embedder.*``) and retrieval (``memory.retrieval.*``) unless
        ``options`` name them; without it the library defaults apply (nothing is
        read from a file or the environment).

        The store's identity is checked against its anchor file
        (``memory/memory.anchor.json``): a store that existed and whose
        database is now missing, empty or another store's is never re-created
        — :class:`~memvault.errors.StoreIdentityError`, whatever ``create``
        says. With ``create=False`` an orchestrator that has no store raises
        :class:`~memvault.errors.StoreMissingError` naming those that exist.
        """
        # Trigger: every open. Why: settings are read once, at the entry point that
        # built ``config``; below it nothing reads a file or the environment.
        # Outcome: store (store.*), gate (policy.contract, policy.parallel_gate,
        # memory.enabled),
        # embedder (embedder.*) and retrieval (memory.retrieval.*) all come from ``config`` — the
        # library defaults when there is none; ``options`` name overrides.
        from memvault.config import defaults

        cfg = config if config is not None else defaults()
        name, embedder_options = cfg.embedder.to_options()
        options.setdefault("embedder", name)
        options.setdefault("embedder_options", embedder_options)
        options.setdefault("retrieval", cfg.memory.retrieval.to_config())
        options.setdefault("contract", cfg.policy.contract)
        options.setdefault("parallel_gate", cfg.policy.parallel_gate)
        options.setdefault("memory_enabled", cfg.memory.enabled)
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
            postgres=cfg.store.postgres.to_options(),
        )
        try:
            layout.ensure()
        except BaseException:
            store.close()
            raise
        engine = cls(store, layout.orchestrator, layout=layout, **options)
        engine.core.configure(cfg)
        return engine

    # -- what the core holds ------------------------------------------------------

    store = _Shared[Store]()
    orchestrator = _Shared[str]()
    layout = _Shared[RuntimeLayout | None]()
    log = _Shared[JsonLineLog | None]()
    gate = _Shared[WriteGate]()
    clock = _Shared[Clock]()
    agent_id = _Shared[str | None]()
    contract = _Shared[str]()
    categories = _Shared[frozenset[str]]()
    retrieval = _Shared[RetrievalConfig]()
    workspace_roots = _Shared[tuple[Path, ...]]()
    embedder = _Shared[Embedder | None]()
    writes = _Shared[WritePipeline]()
    capture_config = _Shared[CaptureConfig]()
    write_validators = _Shared[tuple[Validator, ...]]()
    write_relations = _Shared[tuple[Relations, ...]]()
    auto_relations = _Shared[bool]()
    bulletin_config = _Shared[ctx.BulletinConfig]()
    allowlist = _Shared[ctx.AgentAllowlist | None]()
    category_modes = _Shared[Mapping[str, ctx.CategoryMode]]()
    result_cap = _Shared[int | None]()
    ingest_enabled = _Shared[bool]()
    ingest_max_file_size_mb = _Shared[float]()
    lifecycle_policy = _Shared[LifecyclePolicy]()
    capture_extractor = _Shared[Extractor | None]()
    acting = _by("core", EngineCore.acting)

    @property
    def lifecycle(self) -> LifecycleService:
        """The lifecycle worker bound to this engine (its store, gate and clock)."""
        return self.parts.lifecycle.lifecycle

    @property
    def capture(self) -> CapturePipeline:
        """The capture pipeline bound to this engine (store, gate, clock, recall)."""
        return self.parts.capture.capture

    # -- writer ------------------------------------------------------------------

    add = _by("writer", Writer.add)
    new_memory = _by("writer", Writer.new_memory)
    add_many = _by("writer", Writer.add_many)
    update = _by("writer", Writer.update)
    memory_patch = _by("writer", Writer.memory_patch)
    delete = _by("writer", Writer.delete)
    restore = _by("writer", Writer.restore)
    supersede = _by("writer", Writer.supersede)
    retract = _by("writer", Writer.retract)
    link = _by("writer", Writer.link)
    import_user = _by("writer", Writer.import_user)

    # -- reader ------------------------------------------------------------------

    get = _by("reader", Reader.get)
    history = _by("reader", Reader.history)
    audit_events = _by("reader", Reader.audit_events)
    count_memories = _by("reader", Reader.count_memories)
    search = _by("reader", Reader.search)
    list_memories = _by("reader", Reader.list_memories)
    list = _by("reader", Reader.list_memories)
    backfill_embeddings = _by("reader", Reader.backfill_embeddings)

    # -- context -----------------------------------------------------------------

    bulletin = _by("context", ContextOps.bulletin)
    delta_header = _by("context", ContextOps.delta_header)
    for_message = _by("context", ContextOps.for_message)
    memory_query = _by("context", ContextOps.memory_query)
    flush_context_events = _by("context", ContextOps.flush_context_events)

    def context_assembler(self, *, max_project_items: int = 1000) -> ctx.ContextAssembler:
        """Task, project and global tiers over this engine (keep one per process)."""
        return ctx.ContextAssembler(self, max_project_items=max_project_items)

    # -- lifecycle ---------------------------------------------------------------

    ingest_pending = _by("lifecycle", LifecycleOps.ingest_pending)
    run_lifecycle = _by("lifecycle", LifecycleOps.run_lifecycle)
    consolidate = _by("lifecycle", LifecycleOps.consolidate)
    propose_insights = _by("lifecycle", LifecycleOps.propose_insights)
    verify_audit = _by("lifecycle", LifecycleOps.verify_audit)
    audit_anchor = _by("lifecycle", LifecycleOps.audit_anchor)
    export_user = _by("lifecycle", LifecycleOps.export_user)
    forget_user = _by("lifecycle", LifecycleOps.forget_user)
    propose = _by("lifecycle", LifecycleOps.propose)
    proposals = _by("lifecycle", LifecycleOps.proposals)
    confirm_proposal = _by("lifecycle", LifecycleOps.confirm_proposal)
    reject_proposal = _by("lifecycle", LifecycleOps.reject_proposal)
    record_event = _by("lifecycle", LifecycleOps.record_event)
    stats = _by("lifecycle", LifecycleOps.stats)

    # -- capture -----------------------------------------------------------------

    capture_message = _by("capture", CaptureOps.capture_message)
    capture_workflow_output = _by("capture.capture", CapturePipeline.capture_workflow_output)
    capture_diagnostics = _by("capture.capture", CapturePipeline.capture_diagnostics)

    # -- callers and closing -----------------------------------------------------

    def as_caller(self, grant: CallerGrant, *, on_deny: DenyHook | None = None) -> Caller:
        """This engine as one caller sees it: every call authorised in one place.

        ``grant`` names the agent, its categories (``None`` = all) and whether
        it is read-only (:class:`~memvault.engine.Grant`, or an API key's
        principal); ``on_deny`` audits a denial before it is raised.
        """
        return Caller(self, grant, on_deny=on_deny)

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.flush_context_events()  # memory.query's buffered events
        self.store.close()


# The engine's own public methods check their arguments as its components' do (_By).
for _name, _function in list(vars(MemoryEngine).items()):
    if not _name.startswith("_") and inspect.isfunction(_function):
        setattr(MemoryEngine, _name, checked_method(_function))
