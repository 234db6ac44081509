"""A LangGraph ``BaseStore`` over the memvault engine (``pip install "memvault[langgraph]"``).

One store is one memvault orchestrator (``orchestrator=``, default
``"langgraph"``; optionally one ``project`` and ``user`` scope for every
item). A LangGraph namespace — any depth, any labels LangGraph accepts
(``("a%b",)``, ``("star*",)``, ``("users", "alice\\n")`` …) — is kept literally
on each memory, so ``get``/``search``/``list_namespaces`` give back exactly
the namespace that was put. An item is one memory: its ``key`` is the
memory's ``key``, its ``value`` (a JSON object) is kept verbatim.

What is indexed. Without ``index`` the memory's text is ``value["content"]``
(or ``"text"``/``"memory"``), else the value's JSON, and a query is embedded
with memvault's own model. With ``index={"embed": …, "dims": …, "fields": […]}``
(LangGraph's ``IndexConfig``; SQLite's ``text_fields`` is accepted too) the
caller's embeddings are used and the memory's text is the text at those
fields (``put(..., index=[...])`` overrides them per item); ``index=False``
stores an item that a query never scores (it can still fill a page, with
``score=None``, as in LangGraph's in-memory store). ``score`` is the cosine
similarity of the query and the item's vector — not a per-query normalised
rank.

``type``, ``category``, ``source_kind``, ``importance``, ``pinned`` and
``ttl_class`` in a value set those memvault fields when they hold valid
memvault values (defaults: ``Fact``, ``KNOWLEDGE``, ``SYSTEM_KNOWN``); any
other use of those keys is just the application's data.

Filters: equality on a top-level or dotted key (``"user.level"``), lists and
objects compared whole, and the operators ``$eq $ne $gt $gte $lt $lte``; an
unknown operator or a malformed key raises ``ValueError`` — never an empty
result (:mod:`memvault.integrations.langgraph_filter`). How an item is held as a
memory — the value's envelope, the settable fields, the caller's embeddings — is
:mod:`memvault.integrations.langgraph_items`; how a batch's puts are judged and written,
:mod:`memvault.integrations.langgraph_puts`.

Where memvault deliberately differs from LangGraph's own stores
(docs/langgraph.md lists the affected LangGraph tests):

- every put goes through the write gate: forbidden content (credentials,
  health data, injections …) is refused with
  :class:`~memvault.errors.WriteRefusedError` carrying the stop reason;
- a delete is memvault's soft delete (restorable until purge);
- one vector per item: the indexed fields are embedded as one text, not one
  vector per field with max-pooling;
- a value's JSON is at most 1024 characters, its text at most 4000;
- no TTL (``supports_ttl = False``): memvault's TTL classes govern lifetime.

>>> import tempfile
>>> store = MemvaultStore(tempfile.mkdtemp())
>>> store.put(("dana", "prefs"), "drink", {"content": "Dana prefers tea",
...           "type": "Preference", "category": "PREFERENCE", "source_kind": "USER_EXPLICIT"})
>>> store.get(("dana", "prefs"), "drink").value["content"]
'Dana prefers tea'
>>> [item.key for item in store.search(())]
['drink']
>>> store.close()
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    validate_op_namespace,
)
from pydantic import StringConstraints, TypeAdapter

from memvault.access.keys import AGENT_RULE, is_agent_name
from memvault.config import MemvaultConfig, default_home
from memvault.engine import (
    ALL_USERS,
    Caller,
    Grant,
    MemoryEngine,
    RetrievalConfig,
    UserScope,
)
from memvault.errors import ValidationFailed
from memvault.integrations.langgraph_filter import (
    FILTER_OPERATORS,
    compile_filter,
    namespace_matches,
)
from memvault.integrations.langgraph_items import (
    LangChainEmbedder,
    StoredItem,
    check_json,
    check_key,
    decode,
)
from memvault.integrations.langgraph_puts import ItemWrites
from memvault.model.enums import StopReason
from memvault.model.node import ID_PATTERN
from memvault.model.validation import clean_user_id

__all__ = ["FILTER_OPERATORS", "MemvaultStore"]

#: How many memories a listing reads: a ``search`` without a query (or one whose page the
#: query's hits do not fill) and ``list_namespaces`` scan the store's memories (there is
#: no namespace index); ``get`` and ``put`` find an item by its key (an index) instead.
SCAN_LIMIT = 10_000
#: A query's candidates: the vector leg alone, as deep as memvault allows.
_SIMILARITY = RetrievalConfig(name="langgraph", text_weight=0.0, top_k_text=0, top_k_vector=1000)


#: A project id, as a memory's ``project_id`` takes it (``ScopeId`` of memvault.model.node).
_PROJECT_RULE = "1-128 letters, digits, '_', '.', ':' or '-', starting with a letter or digit"
_PROJECT_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=ID_PATTERN)]
)


def _is_project_id(value: object) -> bool:
    """Whether ``value`` is a project id a memory can hold.

    >>> _is_project_id("team-1.v2"), _is_project_id(""), _is_project_id("a b")
    (True, False, False)
    """
    try:
        _PROJECT_ID.validate_python(value, strict=True)
    except ValueError:  # pydantic's ValidationError
        return False
    return True


def _misnamed(field: str, value: object, what: str, rule: str) -> ValidationFailed:
    """The error of a constructor argument that is not ``what`` (SCHEMA_INVALID, its rule)."""
    return ValidationFailed(
        f"{field} is not {what}: {value!r}",
        stop_reason=StopReason.SCHEMA_INVALID,
        errors=((field, rule),),
        hint=f"name the store's {field} with {rule}",
    )


class MemvaultStore(ItemWrites, BaseStore):
    """LangGraph's store interface on one memvault orchestrator (``abatch`` runs in a thread).

    ``agent`` is recorded as the actor of every write; every put is judged by a
    :class:`~memvault.policy.write_gate.PolicyGate` for ``contract`` (default:
    ``config.policy.contract``); ``config`` (``memvault.config.load_config``, built
    by your code — the adapter reads no file or environment besides
    ``$MEMVAULT_HOME`` when ``home`` is not given) supplies the store, gate,
    embedder and retrieval as for every entry point, and ``policy.allowlists[agent]``
    the categories the store reads and writes; ``index``
    is LangGraph's ``IndexConfig`` (see the module docstring). ``user`` is whose
    store it is: it reads that user's and shared memories and writes that user's;
    without it, shared (user-less) memories only; ``ALL_USERS`` reads every user's
    (an explicit, administrative choice; its writes are shared).
    """

    supports_ttl = False

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        orchestrator: str = "langgraph",
        project: str | None = None,
        user: UserScope = None,
        agent: str = "langgraph",
        contract: str | None = None,
        index: IndexConfig | Mapping[str, Any] | None = None,
        config: MemvaultConfig | None = None,
    ) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.orchestrator = orchestrator
        if project is not None and not _is_project_id(project):
            # Trigger: ``project=""`` (an empty setting), ``"  "``, ``5`` (review S18-R13).
            # Why: the read scope applies a truthy project only, so ``""`` listed and
            #   searched every project's items, and the name was checked at the first
            #   put (SCHEMA_INVALID on ``project_id``, a field the caller never named).
            # Outcome: a memory's project id or ``None``, else ValidationFailed here,
            #   before anything is opened or written.
            raise _misnamed("project", project, "a project id", _PROJECT_RULE)
        self.project = project
        if user is not None and user is not ALL_USERS:
            # Trigger: ``user=" alice "`` or ``user=5`` (review S16-R5).
            # Why: the write path trims a user id while reads used it as given, so a
            #   padded user's items were written and never found; a user id that is
            #   not text read as "no user", and its writes were shared with everyone.
            # Outcome: trimmed as every entry point trims it; not text, or blank, is
            #   ValidationFailed here, before anything is written.
            user = clean_user_id(user, "user")
        self.user = user
        if not is_agent_name(agent):
            # Trigger: ``agent=" planner "``, ``None``, an instruction (review S17-R2).
            # Why: a key and ``policy.allowlists`` hold an agent to one rule; a name no
            #   allowlist entry can name escaped it (every category), and anything was
            #   written as the memories' agent (``5`` and ``""`` failed at the first put).
            # Outcome: the keys' rule here, before anything is opened or written.
            raise _misnamed("agent", agent, "an agent name", AGENT_RULE)
        self.agent = agent
        self.contract = contract
        self.config = config
        allowlist = config.policy.agent_allowlist() if config is not None else None
        #: ``policy.allowlists[agent]`` (``None``: every category; S16-R3, :attr:`_caller`)
        self._categories = allowlist.categories_for(agent) if allowlist is not None else None
        self.index_config: dict[str, Any] | None = dict(index) if index else None
        self.embeddings: Any = None
        self._embedder: LangChainEmbedder | None = None
        #: the value's paths a put embeds (``None``: no ``index``, memvault's own text)
        self._indexed: tuple[str, ...] | None = None
        if self.index_config is not None:
            if "embed" not in self.index_config or "dims" not in self.index_config:
                raise ValueError("index needs 'embed' and 'dims' (LangGraph's IndexConfig)")
            self._embedder = LangChainEmbedder(
                self.index_config["embed"], self.index_config["dims"]
            )
            self.embeddings = self._embedder.embeddings
            fields = self.index_config.get("fields") or self.index_config.get("text_fields")
            self._indexed = tuple(fields) if fields else ("$",)
        self._engine_obj: MemoryEngine | None = None
        self._lock = threading.Lock()
        # Held by every batch and by close: a batch still running in a worker
        # thread (a cancelled ``abatch``) finishes before the engine closes.
        self._busy = threading.RLock()

    # -- plumbing --------------------------------------------------------------

    @property
    def _engine(self) -> MemoryEngine:
        with self._lock:
            if self._engine_obj is None:
                options: dict[str, Any] = {}
                if self._embedder is not None:
                    options["embedder"] = self._embedder
                if self.contract is not None:
                    options["contract"] = self.contract
                # The gate, store, embedder and retrieval come from the configuration
                # (MemoryEngine.open), never from objects this edge builds itself.
                self._engine_obj = MemoryEngine.open(
                    self.home, self.orchestrator, config=self.config, agent_id=self.agent, **options
                )
            return self._engine_obj

    @property
    def _caller(self) -> Caller:
        """The engine as this store's agent sees it (every call through the one façade).

        Trigger: a store opened with ``user=ALL_USERS``.
        Why: the façade holds a grant bound to no user to shared memories unless it
          names one, so the orchestrator-wide store read shared items only.
        Outcome: its grant carries ``all_users`` (the administrative choice made here).

        Trigger: ``config`` names this store's agent in ``policy.allowlists``.
        Why: the allowlist did nothing here (review S16-R3): the agent wrote and read
          every category while ``serve``, ``mcp``, ``query`` and the agent held it.
        Outcome: the grant carries those categories: a put of another is
          :class:`~memvault.errors.AccessDeniedError`, reads leave the others out.
        """
        return self._engine.as_caller(
            Grant(self.agent, categories=self._categories, all_users=self.user is ALL_USERS)
        )

    def setup(self) -> None:
        """Open (creating if needed) the orchestrator's store; optional, the first call does it."""
        _ = self._engine

    def close(self) -> None:
        """Close the engine this store opened (after any batch still running)."""
        with self._busy, self._lock:
            engine, self._engine_obj = self._engine_obj, None
            if engine is not None:
                engine.close()

    def __enter__(self) -> MemvaultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _scope(self) -> dict[str, Any]:
        """The read filter: the project, and with ``user`` that user's and shared memories.

        Trigger: a store opened for one user (``user=``).
        Why: a user's reads see theirs and shared (user-less) memories, never another
        user's (store/scope.py).
        Outcome: ``visible_to`` in every list and search of this store.
        """
        scope: dict[str, Any] = {"project_id": self.project} if self.project else {}
        if self.user is not ALL_USERS:
            scope["visible_to"] = (self._owner,) if self._owner else ()
        return scope

    @property
    def _owner(self) -> str | None:
        """The ``user_id`` this store writes (``None`` for shared and all-users stores)."""
        return self.user if isinstance(self.user, str) else None

    def _items(self) -> dict[tuple[tuple[str, ...], str], StoredItem]:
        """Every item this store reads (up to :data:`SCAN_LIMIT` memories, the newest):
        a listing's view, the newest memory of each namespace and key."""
        nodes = self._caller.list_memories(self._scope(), limit=SCAN_LIMIT)
        items: dict[tuple[tuple[str, ...], str], StoredItem] = {}
        for stored in map(decode, reversed(nodes)):  # oldest first
            where = (stored.namespace, stored.node.key)
            if where not in items or not self._shadows(items[where], stored):
                items[where] = stored
        return items

    def _shadows(self, stored: StoredItem, current: StoredItem) -> bool:
        """Whether ``stored`` is read instead of ``current`` (newer) at their key.

        Trigger: a user's store sees the user's own item and a shared one at the same
          namespace and key, the shared one newer (review S13-R1).
        Why: newest-wins hid the user's own item behind a later shared put, the user's
          next put wrote a second item of theirs, and deleting that one brought back
          the value the user had replaced.
        Outcome: the user's own item shadows the shared one, whatever their ages.
        """
        owner = self._owner
        return owner is not None and stored.node.user_id == owner and current.node.user_id != owner

    def _find(self, namespace: tuple[str, ...], key: str) -> StoredItem | None:
        """The item at ``namespace`` and ``key`` this store reads, if any.

        Trigger: every ``get`` and ``put`` (REVIEW 04:17: one get on a 5,000-memory
        store listed and decoded all of them, so loading n items one put at a time
        cost O(n²), and past 10,000 the oldest were not found — a put made a second).
        Why: the key is a column with an index (``NodeFilter(key=…)``); only the
          memories holding that key (usually one) are read.
        Outcome: the newest memory of that key whose namespace is ``namespace`` — the
          user's own before a shared one (:meth:`_shadows`) — as a listing would show
          it, at any store size.
        """
        nodes = self._caller.list_memories({**self._scope(), "key": key}, limit=SCAN_LIMIT)
        found: StoredItem | None = None
        for node in nodes:  # newest first
            stored = decode(node)
            if stored.namespace != namespace or stored.node.key != key:
                continue
            if found is None or self._shadows(stored, found):
                found = stored
        return found

    # -- operations -----------------------------------------------------------

    def _scored(
        self, op: SearchOp, wanted: Callable[[StoredItem], bool]
    ) -> list[tuple[float, StoredItem]]:
        """A query's hits that the search wants (namespace, filter, indexed), by similarity."""
        results = self._caller.search(
            op.query or "", filters=self._scope(), top_k=1000, config=_SIMILARITY, explain=True
        )
        scored: list[tuple[float, StoredItem]] = []
        for hit in results.hits:
            similarity = hit.explain.get("similarity")
            stored = decode(hit.node)
            if similarity is not None and stored.indexed and wanted(stored):
                scored.append((float(similarity), stored))
        scored.sort(key=lambda pair: -pair[0])
        return scored

    def _filled(
        self, scored: list[tuple[float, StoredItem]], need: int
    ) -> list[tuple[float, StoredItem]] | None:
        """The first ``need`` entries of a query's page when its scored hits fill them.

        Trigger: a ``search`` with a query (REVIEW 04:17: every search listed the
          whole store first).
        Why: the engine's vector leg already ranks the store's items; a page the
          scored hits fill needs no listing — only a check, by key (an index), that
          each hit is its key's current item (a user's own item shadows a shared one).
        Outcome: those entries, or ``None`` when the hits do not fill the page (the
          unscored items that follow it need the listing).
        """
        page: list[tuple[float, StoredItem]] = []
        for similarity, stored in scored:
            if len(page) == need:
                break
            current = self._find(stored.namespace, stored.node.key)
            if current is not None and current.node.memory_id == stored.node.memory_id:
                page.append((similarity, stored))
        return page if len(page) == need else None

    def _search(self, op: SearchOp) -> list[Item]:
        prefix = tuple(op.namespace_prefix)
        check = compile_filter(op.filter or {})

        def wanted(s: StoredItem) -> bool:
            return s.namespace[: len(prefix)] == prefix and bool(check(s.value))

        scored = self._scored(op, wanted) if op.query else []
        top = self._filled(scored, op.offset + op.limit) if op.query else None
        page: list[tuple[float | None, StoredItem]]
        if top is not None:
            page = list(top)
        else:
            candidates = [s for s in self._items().values() if wanted(s)]
            listed = {s.node.memory_id for s in candidates}
            ranked = [(sim, s) for sim, s in scored if s.node.memory_id in listed]
            seen = {s.node.memory_id for _, s in ranked}
            rest = [s for s in candidates if s.node.memory_id not in seen]
            page = [*ranked, *((None, s) for s in rest)]
        window = page[op.offset : op.offset + op.limit]
        return [stored.item(score, search=True) for score, stored in window]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        found = {
            s.namespace
            for s in self._items().values()
            if all(namespace_matches(s.namespace, c) for c in conditions)
        }
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        return sorted(found)[op.offset : op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations in order, each through the engine.

        Every op's namespace and put key is checked first, then every put is judged
        by the write gate: an invalid label or key, or a refused put, rejects the whole
        batch before anything is written (the error names each refused key).
        """
        ops = list(ops)
        for op in ops:
            if not isinstance(op, GetOp | PutOp | SearchOp | ListNamespacesOp):
                raise TypeError(f"unsupported store operation {type(op).__name__}")
            validate_op_namespace(op)
            if isinstance(op, SearchOp):
                compile_filter(op.filter or {})
            if isinstance(op, PutOp) and op.ttl is not None:
                # ``put(..., ttl=)`` raises this (BaseStore.put); a batch dropped the ttl
                # and kept the item for ever (review S16-R6)
                raise NotImplementedError(
                    f"TTL is not supported by {type(self).__name__} (key {op.key!r}): "
                    "memvault's TTL classes govern lifetime; set ttl=None"
                )
            if isinstance(op, PutOp) and op.value is not None:
                check_key(op)
                check_json(op.key, op.value)
        remembering = self._embedder.remembering() if self._embedder else nullcontext()
        with self._busy, remembering:
            return self._run(ops)

    def _run(self, ops: list[Op]) -> list[Result]:
        """Each op in turn, each reading the store as the ops before it left it — once
        every put of the batch is judged allowed (:meth:`_judge_puts`)."""
        vectors = self._new_vectors(ops)
        self._judge_puts(ops, vectors)
        results: list[Result] = []
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                stored = self._find(tuple(op.namespace), op.key)
                results.append(stored.item() if stored is not None else None)
            elif isinstance(op, PutOp):
                self._put(op, vectors.get(i))
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            else:
                results.append(self._list_namespaces(op))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in a worker thread (one copy of the logic)."""
        return await asyncio.to_thread(self.batch, list(ops))
