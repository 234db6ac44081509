"""The capture pipeline: extract → gate → resolve → cap → commit (DESIGN §4).

:class:`CapturePipeline` is what the engine's ``capture_message``,
``capture_workflow_output`` and ``capture_diagnostics`` delegate to, and what
the document ingester reuses through :meth:`CapturePipeline.capture_candidates`.
It sits below the engine, so the engine hands it the pieces it needs (store,
orchestrator, gate, clock, recall) instead of itself.

Every candidate is handled on its own: its outcome (a new node with its
``Updates`` / ``Contradicts`` / ``RelatedTo`` edges, the superseded old node,
history events and change-log rows — or a merge touch) is **one** ``WriteSet``,
so one store transaction; a candidate that fails leaves nothing behind and the
turn's other candidates are still written.

>>> import tempfile, pathlib
>>> from datetime import UTC, datetime
>>> from memvault.store import SQLiteStore
>>> from memvault.model.decision import Decision
>>> from memvault.model.enums import StopReason
>>> store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "m.db")
>>> p = CapturePipeline(store=store, orchestrator="acme",
...     gate=lambda op, node: Decision(StopReason.SUCCESS_STORED),
...     clock=lambda: datetime(2026, 1, 15, tzinfo=UTC))
>>> r = p.capture_message(Message(text="I live in Lisbon", user_id="dana", speaker="Dana"))
>>> r = p.capture_message(Message(text="I moved from Lisbon to Porto", user_id="dana",
...                               speaker="Dana"))
>>> r.candidates[0].outcome.value, r.candidates[0].edges[0].type
('updated', 'Updates')
>>> store.close()
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from memvault.embed.base import FloatVector
from memvault.errors import StaleWriteError, StoreUnavailableError, ValidationFailed
from memvault.extract.base import Candidate, Extraction, Extractor, Message
from memvault.extract.diagnostics import parse_findings
from memvault.extract.rules import RuleExtractor
from memvault.extract.workflow import parse_workflow_output
from memvault.model.clock import format_timestamp as _timestamp
from memvault.model.clock import summarise as _summary
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, MemoryStatus, StopReason
from memvault.model.node import SUMMARY_MAX, MemoryNode
from memvault.results import WriteResult
from memvault.retrieval.indexing import text_sha256
from memvault.retrieval.text import query_terms
from memvault.store.base import NodeFilter, Store, WriteSet
from memvault.store.scope import same_owner
from memvault.write.commit import WriteBuilder
from memvault.write.config import CaptureConfig, bands_for
from memvault.write.drafts import Draft
from memvault.write.gating import FnGate
from memvault.write.judge import CallJudge, GateFn, raw_words_check
from memvault.write.pipeline import WritePipeline
from memvault.write.report import CandidateReport, CaptureResult, EdgeRef
from memvault.write.resolve import NeighbourView, Outcome, Resolution, resolve
from memvault.write.similarity import (
    EmbeddingSimilarity,
    LexicalSimilarity,
    Similarity,
    TextEmbedder,
)
from memvault.write.vectors import TurnVectors

__all__ = [
    "CapturePipeline",
    "EmbedFn",
    "GateFn",
    "ProposeFn",
    "Provenance",
    "RecallFn",
    "candidate_priority",
    "rank_candidates",
]


class RecallFn(Protocol):
    """Neighbour recall: ``(query, filters, top_k[, vector]) → nodes`` (the engine's search).

    ``vector`` (the query's vector, passed only when the pipeline has one) is
    optional: a three-argument recall is never handed one.
    """

    def __call__(
        self, query: str, filters: NodeFilter, top_k: int, vector: FloatVector = ..., /
    ) -> Sequence[MemoryNode]: ...


class EmbedFn(Protocol):
    """Optional: embedding rows for nodes about to be written (the engine's ``_embed``).

    ``known`` holds document vectors the pipeline already computed, by text.
    """

    def __call__(
        self, nodes: tuple[MemoryNode, ...], /, *, known: Mapping[str, FloatVector] = ...
    ) -> tuple[Any, ...]: ...


LogFn = Callable[..., None]
#: Queue a consent proposal for a candidate: its id, or the gate's refusal.
#: ``replaces``: the memories a confirmation supersedes (Updates edges).
ProposeFn = Callable[[Candidate, "Provenance", tuple[str, ...]], "str | Decision"]

_ALL_STATUSES = tuple(MemoryStatus)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Scope and provenance every candidate of one capture call shares."""

    user_id: str | None = None
    conversation_id: str | None = None
    project_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    role: str | None = None
    workflow_run_id: str | None = None
    step_id: str | None = None
    source_path: str | None = None
    source_ref: str | None = None


_DEFER_MAX = 10
#: How many conversations' deferred lists are kept (the oldest goes first).
_DEFER_KEYS = 1024
#: A write built from a stored memory that changed before it committed is rebuilt on a
#: fresh read this many times in all (then reported, never an internal error).
_STALE_TRIES = 3


@dataclass(frozen=True, slots=True)
class _Waiting:
    """Candidates the per-turn cap deferred, and the memories their turn wrote.

    ``anchors``: the ids the deferring turn stored, merged into or updated. When none
    of them is in the store any more, the user was erased (``forget_user``, in this
    process or another one on the same home) — or every memory of that turn was purged:
    the list is dropped, never written (review S12-R2).
    """

    candidates: tuple[Candidate, ...]
    anchors: tuple[str, ...]


_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def candidate_priority(candidate: Candidate) -> int:
    """How much a candidate matters when a turn has more than the cap allows.

    Dated todos and decisions first, then by the extractor's importance.

    >>> from memvault.model.enums import MemoryType
    >>> todo = Candidate("Dana needs to pay rent by 2026-01-31.", MemoryType.TODO, "TODO",
    ...                  "todo.rent", "pay rent", importance=60)
    >>> pref = Candidate("Dana's favourite editor is Helix.", MemoryType.PREFERENCE,
    ...                  "PREFERENCE", "favourite.editor", "Helix", importance=60)
    >>> candidate_priority(todo) > candidate_priority(pref)
    True
    """
    bonus = 0
    if candidate.type.value == "Todo" and _ISO_DATE.search(candidate.content):
        bonus = 20
    elif candidate.type.value == "Decision":
        bonus = 10
    return candidate.importance + bonus


def rank_candidates(candidates: Iterable[Candidate]) -> list[Candidate]:
    """``candidates`` by :func:`candidate_priority`, highest first (stable among equals)."""
    return sorted(candidates, key=candidate_priority, reverse=True)


@dataclass
class _Budget:
    per_call: int
    used: int = 0
    today: int | None = None


class CapturePipeline:
    """Capture for one orchestrator. Thread-compatible (one call at a time per turn).

    ``recall`` defaults to the store's full-text search; the engine passes its
    own (hybrid) search. ``similarity`` defaults to :class:`LexicalSimilarity`;
    pass :class:`~memvault.write.similarity.EmbeddingSimilarity` to use an
    embedder — the bands follow its ``model_id``.

    ``embedder`` (the engine's, the one ``embed`` stores vectors of): when set,
    each call's candidate texts are embedded once, in one batch
    (:class:`~memvault.write.vectors.TurnVectors`), and that vector serves the
    neighbour search (symmetric embedders only), the similarity bands (same
    ``model_id`` only) and the stored embedding.

    ``wary`` judges a candidate the clause reader kept in the user's own words
    (no rule parsed the clause) on top of the gate: the default,
    :func:`~memvault.write.judge.raw_words_check`, refuses it when a personal
    learned gate head's log-odds come within ``RAW_WORDS_MARGIN`` of its threshold's.
    """

    def __init__(
        self,
        *,
        store: Store,
        orchestrator: str,
        gate: GateFn,
        clock: Callable[[], datetime],
        recall: RecallFn | None = None,
        extractor: Extractor | None = None,
        similarity: Similarity | None = None,
        config: CaptureConfig | None = None,
        actor: str | None = None,
        log: LogFn | None = None,
        embed: EmbedFn | None = None,
        embedder: TextEmbedder | None = None,
        writes: Callable[[], WritePipeline] | None = None,
        propose: ProposeFn | None = None,
        wary: Callable[[str], Decision | None] | None = raw_words_check,
    ) -> None:
        self.store = store
        # Judges candidates kept in the user's own words more strictly (None: off).
        self.wary = wary
        self.orchestrator = orchestrator
        self.gate = gate
        self.clock = clock
        self.recall: RecallFn = recall or self._text_recall
        self.extractor: Extractor = extractor or RuleExtractor()
        self.fallback = RuleExtractor()
        self.similarity: Similarity = similarity or LexicalSimilarity()
        self.config = config or CaptureConfig()
        self.bands = bands_for(self.similarity.model_id, self.config.bands)
        self.actor = actor
        self.log = log
        self.embed = embed
        self.embedder = embedder
        self.propose = propose
        # Candidates the per-turn cap deferred, by the provenance they were extracted
        # under (agent, project, user, conversation): written first on that
        # conversation's next turn (in memory; the newest _DEFER_KEYS lists only).
        self._deferred: OrderedDict[tuple[str, str, str, str], _Waiting] = OrderedDict()
        self._writes = writes or self._own_pipeline

    def _own_pipeline(self) -> WritePipeline:
        """The write pipeline of a stand-alone capture (the engine hands its own)."""
        return WritePipeline(
            store=self.store,
            orchestrator=self.orchestrator,
            gate=FnGate(self.gate),
            clock=self.clock,
            agent_id=self.actor,
            log=self.log,
            embed=self.embed,  # type: ignore[arg-type]  # extras are never passed here
        )

    def use_similarity(self, similarity: Similarity) -> None:
        """Switch the similarity model (and the bands calibrated for it)."""
        self.similarity = similarity
        self.bands = bands_for(similarity.model_id, self.config.bands)

    def forget_user(self, user_id: str) -> int:
        """Drop every deferred list of ``user_id`` (erasure); return how many statements.

        The store's erasure already makes a list unusable (its anchors are gone, see
        :class:`_Waiting`); this frees it at once in the process that holds it.

        >>> from memvault.store.memory import InMemoryStore
        >>> pipeline = CapturePipeline(store=InMemoryStore(), orchestrator="o",
        ...     gate=lambda op, node: None, clock=lambda: datetime.now(UTC))
        >>> pipeline.forget_user("alice")
        0
        """
        keys = [k for k in self._deferred if k[2] == user_id]
        return sum(len(self._deferred.pop(k).candidates) for k in keys)

    def _still_waiting(self, waiting: _Waiting | None) -> list[Candidate]:
        """The deferred candidates, if their turn's memories are still stored."""
        if waiting is None:
            return []
        if waiting.anchors and self.store.get_nodes(self.orchestrator, list(waiting.anchors)):
            return list(waiting.candidates)
        # Trigger: none of the memories the deferring turn wrote is stored any more.
        # Why: the user was erased since (forget_user here or in another process on
        #      the same home); writing the list would bring the erased words back.
        # Outcome: the list is dropped (counted in the log, no words).
        self._log("info", "deferred_dropped", statements=len(waiting.candidates))
        return []

    # -- triggers --------------------------------------------------------------

    def capture_message(
        self,
        message: Message,
        *,
        project_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Extract candidates from one transcript turn and write what survives."""
        now = self.clock()
        extraction = self._extract(message, now)
        if extraction.skipped:
            # Trigger: an assistant, tool or system turn.
            # Why: INV-4 — only the user's own statements are write triggers.
            # Outcome: nothing extracted, nothing written; the reason is reported.
            return CaptureResult(
                "message",
                extractor=extraction.extractor,
                errors=extraction.errors,
                skipped=f"{extraction.skipped} is never a write trigger",
            )
        provenance = Provenance(
            user_id=message.user_id,
            conversation_id=message.conversation_id,
            project_id=project_id,
            agent_id=agent_id,
            run_id=run_id,
            role=message.role.value,
            source_ref=f"channel:{message.channel}" if message.channel else None,
        )
        # Trigger: more candidates than the per-turn cap allows.
        # Why: the cap must keep what matters (a dated todo before a favourite
        #      editor) and lose nothing: what does not fit waits for the next turn.
        # Outcome: candidates ranked by importance, earlier deferred ones first among
        #          equals; those the cap refuses are deferred (reported, not dropped).
        # keyed by who extracted them, where, for whom: another agent or project never
        # takes (and stores as its own) what this one deferred (review S11-R2)
        waiting_key = (
            agent_id or "",
            project_id or "",
            message.user_id or "",
            message.conversation_id or "",
        )
        waiting = self._still_waiting(self._deferred.pop(waiting_key, None))
        ranked = [*waiting, *extraction.candidates]
        if len(ranked) > self.config.max_writes_per_turn:
            ranked = rank_candidates(ranked)  # sentence order otherwise
        result = self.capture_candidates(
            ranked,
            provenance,
            trigger="message",
            max_writes=self.config.max_writes_per_turn,
            thread_id=thread_id,
            extraction=extraction,
            source_text=message.text,
        )
        deferred = [
            c
            for c, r in zip(ranked, result.candidates[len(extraction.dropped) :], strict=False)
            if r.detector == "cap.per_turn"
        ]
        if deferred:
            anchors = tuple(dict.fromkeys(i for r in result.candidates for i in r.memory_ids))
            self._deferred[waiting_key] = _Waiting(tuple(deferred[:_DEFER_MAX]), anchors)
            while len(self._deferred) > _DEFER_KEYS:  # a conversation that never speaks again
                self._deferred.popitem(last=False)
            result = replace(
                result,
                candidates=tuple(
                    replace(r, reason="deferred to the next turn (per-turn cap)")
                    if r.detector == "cap.per_turn"
                    else r
                    for r in result.candidates
                ),
            )
        return result

    def capture_workflow_output(
        self,
        run_id: str,
        step_id: str,
        output: str | Mapping[str, Any],
        *,
        user_id: str | None = None,
        project_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Decisions, todos and goals from a workflow step's output (SYSTEM_KNOWN)."""
        extraction = parse_workflow_output(output)
        provenance = Provenance(
            user_id=user_id, project_id=project_id, workflow_run_id=run_id, step_id=step_id
        )
        return self._capture_output(extraction, provenance, "workflow", thread_id)

    def capture_diagnostics(
        self,
        finding: str | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        project_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Observation memories from diagnostics findings, with bounded evidence."""
        extraction = parse_findings(finding, evidence_max=self.config.evidence_max_chars)
        provenance = Provenance(user_id=user_id, project_id=project_id)
        return self._capture_output(extraction, provenance, "diagnostics", thread_id)

    def _capture_output(
        self, extraction: Extraction, provenance: Provenance, trigger: str, thread_id: str
    ) -> CaptureResult:
        """Capture a parsed workflow output or diagnostics finding (the per-output cap)."""
        return self.capture_candidates(
            extraction.candidates,
            provenance,
            trigger=trigger,
            max_writes=self.config.max_writes_per_output,
            thread_id=thread_id,
            extraction=extraction,
        )

    # -- the reusable step (also used by ingest) -------------------------------

    def capture_candidates(
        self,
        candidates: Iterable[Candidate],
        provenance: Provenance,
        *,
        trigger: str,
        max_writes: int,
        thread_id: str = "default",
        extraction: Extraction | None = None,
        source_text: str | None = None,
    ) -> CaptureResult:
        """Gate, resolve, cap and commit ``candidates``; one transaction per candidate.

        ``source_text``: the words every candidate was extracted from (a user's
        turn). The gate judges them too, once per call: forbidden content
        anywhere in them refuses every candidate (see :class:`~memvault.write.judge.CallJudge`).
        """
        budget = _Budget(per_call=max_writes)
        writes = self._writes()
        candidates = list(candidates)

        def gate(op: MemoryOp, node: MemoryNode) -> Decision:
            # Trigger: the gate reads vectors (the learned layer's full heads).
            # Why: one vector per candidate — the call's batch already holds the
            #   candidate's document vector (neighbour search, stored embedding).
            # Outcome: a candidate (STORE) is judged with its vector; a probe of
            #   the clause said (UPDATE) is judged without one (n-gram heads).
            if op is MemoryOp.STORE and vectors is not None:
                vector = vectors.document(node.content)
                if vector is not None:
                    return writes.judge(op, node, vector=vector, vector_model=vectors.model_id)
            return writes.judge(op, node)

        judge = CallJudge(gate, source=source_text, log=self.log, wary=self.wary)
        vectors = (
            TurnVectors(
                self.embedder,
                (c.content for c in candidates),
                on_error=lambda e: self._log(
                    "warning", "embedding_failed", error=f"{type(e).__name__}: {e}"
                ),
            )
            if self.embedder is not None
            else None
        )
        reports: list[CandidateReport] = []
        if extraction is not None:
            for content, problems in extraction.dropped:
                reports.append(
                    CandidateReport(
                        content,
                        "",
                        "",
                        StopReason.SCHEMA_INVALID,
                        Outcome.REJECTED,
                        reason=f"writing constraints: {problems}",
                    )
                )
        with writes.batched_refusals():  # a refusal's REFUSE row rides with the next commit
            for candidate in candidates:
                try:
                    reports.append(
                        self._fresh(
                            candidate, provenance, budget, thread_id, vectors, judge, writes
                        )
                    )
                except Exception as exc:
                    # Trigger: a bug or fault anywhere in this candidate's path.
                    # Why: fail closed for this candidate only; its WriteSet was never
                    #      applied (or was rolled back), and the others still get written.
                    # Outcome: rejected with INTERNAL_INCONSISTENCY. An unavailable store
                    #      with nothing written yet in this call is the call's answer
                    #      (StoreUnavailableError: HTTP 503, exit 4), never a quiet
                    #      "rejected" per candidate.
                    self._log("error", "capture_failed", error=f"{type(exc).__name__}: {exc}")
                    if isinstance(exc, StoreUnavailableError) and not any(
                        r.memory_ids for r in reports
                    ):
                        raise
                    reports.append(self._report(candidate, StopReason.INTERNAL_INCONSISTENCY))
        clauses = tuple({"clause": t.to_json()} for t in (extraction.trace if extraction else ()))
        return CaptureResult(
            trigger,
            tuple(reports),
            extractor=extraction.extractor if extraction else "",
            errors=extraction.errors if extraction else (),
            trace=clauses + tuple({"gate": g} for g in judge.trace),
        )

    # -- internals -------------------------------------------------------------

    def _fresh(self, candidate: Candidate, *args: Any) -> CandidateReport:
        """:meth:`_one`, rebuilt on a fresh read when a memory it rewrites changed first.

        A merge or a supersede is built from a copy of the stored memory; the store
        rolls it back if another write changed that memory in between
        (:class:`~memvault.errors.StaleWriteError`): the first write wins, and the
        candidate is resolved again against what is stored now.
        """
        for _ in range(_STALE_TRIES - 1):
            try:
                return self._one(candidate, *args)
            except StaleWriteError:
                self._log("info", "capture_retried", reason="stale copy")
        try:
            return self._one(candidate, *args)
        except StaleWriteError:
            return self._report(
                candidate,
                StopReason.INTERNAL_INCONSISTENCY,
                reason=f"the memory it changes kept changing ({_STALE_TRIES} tries)",
            )

    def _extract(self, message: Message, now: datetime) -> Extraction:
        try:
            return self.extractor.extract(message, now=now)
        except Exception as exc:
            # Trigger: the configured extractor (e.g. the LLM one) raised.
            # Why: capture works without any LLM; a turn is never lost to it.
            # Outcome: the rule extractor answers; the error is reported.
            fallback = self.fallback.extract(message, now=now)
            error = f"{self.extractor.name}: {type(exc).__name__}: {exc}"[:200]
            return replace(fallback, errors=(error, *fallback.errors))

    def _log(self, level: str, event: str, **fields: Any) -> None:
        if self.log is not None:
            self.log(level, event, **fields)

    def _text_recall(
        self, query: str, filters: NodeFilter, top_k: int, vector: FloatVector | None = None
    ) -> list[MemoryNode]:
        # ``vector`` is unused: full text needs none (RecallFn's optional argument).
        hits = self.store.search_text(self.orchestrator, query_terms(query), filters, limit=top_k)
        return self.store.get_nodes(self.orchestrator, [h.memory_id for h in hits])

    @staticmethod
    def _report(
        candidate: Candidate,
        stop_reason: StopReason,
        outcome: Outcome = Outcome.REJECTED,
        ids: tuple[str, ...] = (),
        edges: tuple[EdgeRef, ...] = (),
        reason: str = "",
        detector: str | None = None,
    ) -> CandidateReport:
        return CandidateReport(
            candidate.content,
            candidate.type.value,
            candidate.category,
            stop_reason,
            outcome,
            ids,
            edges,
            reason,
            candidate.rule,
            detector,
        )

    @staticmethod
    def _fields(candidate: Candidate, prov: Provenance) -> dict[str, Any]:
        """The node fields of a candidate (its words kept as extracted)."""
        return {
            "project_id": prov.project_id,
            "type": candidate.type,
            "category": candidate.category,
            "key": candidate.key[:128],
            "value": candidate.value,
            "content": candidate.content,
            "summary": _summary(candidate.content)[:SUMMARY_MAX],
            "importance": candidate.importance,
            "confidence": candidate.confidence,
            "ttl_class": candidate.ttl_class,
            "user_id": prov.user_id,
            "agent_id": prov.agent_id,
            "run_id": prov.run_id,
            "role": prov.role,
            "conversation_id": prov.conversation_id,
        }

    @staticmethod
    def _source(candidate: Candidate, prov: Provenance) -> dict[str, Any]:
        return {
            "source_type": candidate.source_type,
            "captured_by": candidate.captured_by,
            "source_kind": candidate.source_kind,
            "source_path": prov.source_path,
            "conversation_id": prov.conversation_id,
            "workflow_run_id": prov.workflow_run_id,
            "step_id": prov.step_id,
            "source_ref": prov.source_ref,
        }

    def _proposal(
        self,
        candidate: Candidate,
        prov: Provenance,
        decision: Decision,
        writes: WritePipeline,
        resolution: Resolution,
    ) -> CandidateReport:
        """A consent-gated statement ("call me Ana", "I live in Porto") becomes a
        proposal the user can confirm — never a silent loss. What it would update
        (or, for a one-value slot, contradict) is superseded when it is confirmed."""
        assert self.propose is not None
        replaces = resolution.supersedes + (resolution.contradicts if candidate.exclusive else ())
        queued = self.propose(candidate, prov, tuple(dict.fromkeys(replaces)))
        if isinstance(queued, Decision):  # the gate refuses it even with consent
            return self._refuse(candidate, queued, writes)
        return replace(
            self._report(
                candidate,
                StopReason.MISSING_EXPLICIT_CONSENT,
                Outcome.PROPOSED,
                reason=f"awaiting the user's consent ({decision.reason})",
                detector=decision.detector,
            ),
            proposal_id=queued,
        )

    def _refuse(
        self, candidate: Candidate, decision: Decision, writes: WritePipeline
    ) -> CandidateReport:
        writes.record_refusal(
            MemoryOp.STORE,
            decision,
            trigger="capture",
            rule=candidate.rule,
            category=candidate.category,
        )
        return self._report(
            candidate,
            decision.stop_reason,
            reason=decision.reason,
            detector=decision.detector,
        )

    def _scope(self, prov: Provenance) -> NodeFilter:
        return same_owner(prov.user_id, prov.project_id)

    def _neighbours(
        self,
        candidate: Candidate,
        node: MemoryNode,
        prov: Provenance,
        vectors: TurnVectors | None = None,
    ) -> list[NeighbourView]:
        scope = self._scope(prov)
        found: dict[str, MemoryNode] = {}
        # Meaning: the engine's recall (hybrid when an embedder is configured).
        # Slot: a cheap full-text query on the key words and value, no embedding.
        query_vector = vectors.query(candidate.content) if vectors is not None else None
        hits = list(
            self.recall(candidate.content, scope, self.config.neighbours)
            if query_vector is None
            else self.recall(candidate.content, scope, self.config.neighbours, query_vector)
        )
        if candidate.key:
            key_query = " ".join(re.split(r"[._]+", candidate.key)) + " " + candidate.value
            hits += self._text_recall(key_query, scope, self.config.neighbours)
        if candidate.previous_value:
            # "zamiast Jira używamy Lineara": the old value a change names finds the
            # memory it changes in any language, however far apart the two read
            hits += self._text_recall(candidate.previous_value, scope, self.config.neighbours)
        for n in hits:
            if n.status is MemoryStatus.ACTIVE and n.memory_id != node.memory_id:
                found.setdefault(n.memory_id, n)
        if not found:
            return []
        nodes = list(found.values())
        self._prime_similarity(node.content, [n.content for n in nodes], vectors)
        ignore = (candidate.subject,) if candidate.subject else ()
        scores = self.similarity.scores(node.content, [n.content for n in nodes], ignore=ignore)
        return [
            NeighbourView(n.memory_id, n.content, n.key, n.value, n.type.value, s)
            for n, s in zip(nodes, scores, strict=True)
        ]

    def _prime_similarity(
        self, text: str, others: Sequence[str], vectors: TurnVectors | None
    ) -> None:
        """Hand the similarity model the vectors that already exist for these texts.

        Trigger: embedding similarity in the same vector space as the call's
        vectors and the store's embedding cache.
        Why: the candidate was embedded once for the whole call, and a stored
        neighbour's text was embedded when it was written; embedding either
        again is the dominant cost of capture.
        Outcome: the candidate's vector comes from the call's batch, the
        neighbours' from the store cache (by ``sha256(text)``); only texts found
        in neither are embedded by the similarity model.
        """
        sim = self.similarity
        if not isinstance(sim, EmbeddingSimilarity):
            return
        known: dict[str, FloatVector] = {}
        if vectors is not None and vectors.model_id == sim.model_id:
            vector = vectors.document(text)
            if vector is not None:
                known[text] = vector
        missing = [t for t in sim.missing(others) if t not in known]
        if missing:
            by_sha = {text_sha256(t): t for t in missing}
            for sha, vector in self.store.cached_embeddings(sim.model_id, list(by_sha)).items():
                known[by_sha[sha]] = vector
        sim.remember(known)

    def _written_today(self, user_id: str, now: datetime) -> int:
        midnight = _timestamp(
            now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        )
        rows = self.store.list_nodes(
            self.orchestrator,
            NodeFilter(user_id=user_id, status=_ALL_STATUSES, updated_after=midnight),
            limit=10_000,
        )
        return sum(
            1 for n in rows if n.created_at >= midnight and n.source.captured_by.value != "user"
        )

    def _cap(self, prov: Provenance, budget: _Budget, now: datetime) -> Decision | None:
        if budget.used >= budget.per_call:
            return Decision(
                StopReason.ENTITLEMENT_CAP,
                detector="cap.per_turn",
                reason=f"at most {budget.per_call} writes per capture call",
            )
        if prov.user_id is not None:
            if budget.today is None:
                budget.today = self._written_today(prov.user_id, now)
            if budget.today >= self.config.daily_cap_per_user:
                return Decision(
                    StopReason.ENTITLEMENT_CAP,
                    detector="cap.daily_per_user",
                    reason=f"daily cap of {self.config.daily_cap_per_user} captured memories",
                )
        return None

    def _one(
        self,
        candidate: Candidate,
        prov: Provenance,
        budget: _Budget,
        thread_id: str,
        vectors: TurnVectors | None = None,
        judge: CallJudge | None = None,
        writes: WritePipeline | None = None,
    ) -> CandidateReport:
        writes = writes or self._writes()
        now = self.clock()
        at = _timestamp(now)
        fields = self._fields(candidate, prov)
        try:
            node = writes.node(fields, self._source(candidate, prov), at=at)
        except ValidationFailed as exc:
            raw = {**fields, "source_kind": candidate.source_kind.value}
            return self._refuse(candidate, writes.judge_invalid(MemoryOp.STORE, exc, raw), writes)
        judge = judge if judge is not None else CallJudge(writes.judge, log=self.log)
        decision = judge.judge(candidate, node)
        consent = (
            decision.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT and self.propose is not None
        )
        resolution = resolve(
            candidate,
            self._neighbours(candidate, node, prov, vectors) if decision.allowed or consent else [],
            self.bands,
            related_top_k=self.config.related_top_k,
        )
        if consent and resolution.outcome is Outcome.MERGED:
            # Said again: the (already confirmed) memory is touched, nothing new is asked.
            return self._merge(candidate, node, resolution, at, thread_id, writes)
        if consent:
            return self._proposal(candidate, prov, decision, writes, resolution)
        if resolution.outcome is not Outcome.MERGED:
            cap = self._cap(prov, budget, now)
            if cap is not None and cap.stop_reason.priority < decision.stop_reason.priority:
                decision = cap
        if not decision.allowed:
            return self._refuse(candidate, decision, writes)
        if resolution.outcome is Outcome.MERGED:
            return self._merge(candidate, node, resolution, at, thread_id, writes)
        write, report = self._new_node(
            candidate, node, resolution, decision, writes.builder(at, thread_id)
        )
        vector = vectors.document(node.content) if vectors is not None else None
        rows = writes.rows([Draft(node, vector)])
        if rows:
            # Same transaction as the node (DESIGN §4); without rows the vector
            # leg's backfill queue picks the node up later.
            extra: dict[str, Any] = {"embeddings": tuple(rows)}
            write = replace(write, **extra)
        committed = writes.commit(write, WriteResult(report.stop_reason), node=None)
        if not committed.ok:
            return self._report(
                candidate,
                committed.stop_reason,
                reason=committed.reason,
                detector=committed.detector,
            )
        budget.used += 1
        if budget.today is not None:
            budget.today += 1
        return report

    def _merge(
        self,
        candidate: Candidate,
        node: MemoryNode,
        resolution: Resolution,
        at: str,
        thread_id: str,
        writes: WritePipeline,
    ) -> CandidateReport:
        target_id = resolution.merge_into or ""
        existing = self.store.get_nodes(self.orchestrator, [target_id])
        if not existing or existing[0].status is not MemoryStatus.ACTIVE:
            return self._report(
                candidate, StopReason.INTERNAL_INCONSISTENCY, reason="merge target vanished"
            )
        old = existing[0]
        write = writes.builder(at, thread_id).merge(
            candidate, old, node.source, resolution, confidence_nudge=self.config.confidence_nudge
        )
        # built from the copy read above: rolled back if the memory changed meanwhile
        write = replace(write, expected=((old.memory_id, old.updated_at),))
        committed = writes.commit(write, WriteResult(StopReason.SUCCESS_UPDATED), node=None)
        if not committed.ok:
            return self._report(
                candidate,
                committed.stop_reason,
                reason=committed.reason,
                detector=committed.detector,
            )
        return self._report(
            candidate,
            StopReason.SUCCESS_UPDATED,
            Outcome.MERGED,
            (old.memory_id,),
            reason=resolution.reason,
        )

    def _new_node(
        self,
        candidate: Candidate,
        node: MemoryNode,
        resolution: Resolution,
        decision: Decision,
        builder: WriteBuilder,
    ) -> tuple[WriteSet, CandidateReport]:
        superseded = self.store.get_nodes(self.orchestrator, list(resolution.supersedes))
        write, ids, refs = builder.new_node(candidate, node, resolution, decision, superseded)
        if superseded:
            # the superseded memories are rewritten from these copies: rolled back (and
            # retried on a fresh read) if one changed before the commit
            write = replace(write, expected=tuple((n.memory_id, n.updated_at) for n in superseded))
        stop = (
            StopReason.SUCCESS_UPDATED
            if resolution.outcome is Outcome.UPDATED
            else decision.stop_reason
        )
        return write, self._report(
            candidate, stop, resolution.outcome, ids, refs, resolution.reason, decision.detector
        )
