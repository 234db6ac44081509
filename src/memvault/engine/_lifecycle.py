"""Drop-folder ingest and the lifecycle: TTL, consolidation, consent, proposals."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memvault.engine._args import check_call
from memvault.engine._context import ContextOps
from memvault.engine._core import EngineCore
from memvault.engine._reads import Reader
from memvault.errors import ValidationFailed
from memvault.ingest import IngestDisabledError, IngestReport
from memvault.lifecycle import (
    AuditReport,
    ForgetReport,
    LifecycleReport,
    erasure,
    insights,
)
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.hooks import EngineHooks
from memvault.lifecycle.proposals import ProposalResult
from memvault.lifecycle.service import LifecycleService
from memvault.model.clock import format_timestamp, new_id
from memvault.model.enums import MemoryOp, MemoryStatus
from memvault.model.node import MemoryNode
from memvault.model.validation import clean_user_id
from memvault.results import EngineStats, WriteResult
from memvault.store.anchor import StoreAnchor, read_anchor
from memvault.store.base import NodeFilter
from memvault.store.records import Proposal, ProposalStatus
from memvault.store.scope import reader_key
from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity

__all__ = ["LifecycleOps"]


class LifecycleOps:
    """Ingest, TTL, consolidation, consent, audit, export and erasure of one engine."""

    def __init__(self, core: EngineCore, reader: Reader, context: ContextOps) -> None:
        self.core = core
        self.reader = reader
        self.context = context
        self._service: LifecycleService | None = None
        #: Copies of a user's words held in this process's memory (capture's deferred
        #: candidates): each drops a user's and says how many it held (``forget_user``).
        self.in_memory_copies: list[Callable[[str], int]] = []

    # -- ingest ---
    # The drop folder (spec "Ingestion"). Thin: the logic is in memvault.ingest.

    def ingest_pending(
        self,
        *,
        enabled: bool | None = None,
        max_file_size_mb: float | None = None,
        settle_seconds: float = 0.2,
        progress: Callable[[int, int, str], None] | None = None,
        embed_threads: int = 2,
    ) -> IngestReport:
        """Ingest every file waiting in ``<home>/<orchestrator>/memory/ingest/`` once.

        Every candidate passes this engine's gate; each file commits in one
        transaction with its vectors. ``enabled``/``max_file_size_mb`` override
        ``memory.ingest.*`` of the configuration the engine was opened with;
        ``embed_threads`` embed while the next files are gated.
        """
        from memvault.errors import ConfigError
        from memvault.ingest import IngestContext, run_pass

        if self.core.layout is None:
            raise ConfigError("ingestion needs an engine opened on a runtime home")
        writes = self.core.writes
        context = IngestContext(
            store=self.core.store,
            orchestrator=self.core.orchestrator,
            layout=self.core.layout,
            judge=lambda d: writes.judge(
                MemoryOp.STORE, d.node, vector=d.vector, vector_model=d.vector_model
            ),
            judge_many=lambda drafts: writes.judge_many(MemoryOp.STORE, drafts),
            now=self.core.now,
            writes=writes,
            log=self.core.log_event,
            workspace_roots=self.core.workspace_roots,
            actor=self.core.agent_id,
            embedder=self.core.embedder,  # vectors in each file's transaction (issue 8)
            embedder_error=self.core.embedder_error,
            bands=self.core.capture_config.bands,  # merges mean what they mean in capture
            merge_nudge=self.core.capture_config.confidence_nudge,
            # the gate has a second process (policy.parallel_gate): a window is
            # judged there while this thread commits the previous window
            offload_gate=bool(getattr(self.core.gate, "parallel", False)),
        )
        if not self.core.memory_enabled:
            # memory switched off: the files stay in the drop folder, nothing is refused
            raise IngestDisabledError("memory.enabled")
        return run_pass(
            context,
            enabled=self.core.ingest_enabled if enabled is None else enabled,
            max_file_size_mb=(
                self.core.ingest_max_file_size_mb if max_file_size_mb is None else max_file_size_mb
            ),
            settle_seconds=settle_seconds,
            progress=progress,
            embed_threads=embed_threads,
        )

    # -- lifecycle ---
    # TTL and purge, consent proposals, audit, export and forget (DESIGN §7).
    # Thin: the logic is in memvault.lifecycle.

    @property
    def lifecycle(self) -> LifecycleService:
        """The lifecycle worker bound to this engine (its store, gate and clock)."""
        core = self.core
        if self._service is None or self._service.policy is not core.lifecycle_policy:
            hooks = EngineHooks(
                store=self.core.store,
                orchestrator=self.core.orchestrator,
                actor=self.core.agent_id,
                now=self.core.clock,
                stamp=format_timestamp,
                new_id=new_id,
                writes=lambda: core.writes,
                log=self.core.log_event,
                recall=lambda q, f, k: [
                    h.node for h in self.reader.search(q, filters=f, top_k=k).hits
                ],
                similarity=self._lifecycle_similarity(),
            )
            self._service = LifecycleService(hooks, core.lifecycle_policy)
        return self._service

    def _lifecycle_similarity(self) -> EmbeddingSimilarity | LexicalSimilarity:
        embedder = self.core.embedder
        return EmbeddingSimilarity(embedder) if embedder else LexicalSimilarity()

    def run_lifecycle(
        self, *, now: datetime | None = None, thread_id: str = "default"
    ) -> LifecycleReport:
        """Expire proposals, soft-delete what the TTL rules select, purge what is due.

        ``now`` defaults to the engine's clock (pass a moment to time-travel).
        """
        report = self.lifecycle.run(now, thread_id=thread_id)
        if report.purged:
            self.context.drop_materialised()
            self._erase_orphaned_files({t.memory_id for t in report.purged})
        return report

    def _erase_orphaned_files(self, purged: set[str]) -> None:
        """After a purge: ingested files none of whose memories remain go too.

        Trigger: the TTL purge hard-deleted memories that came from dropped files.
        Why: the file in ``processed/`` (and its manifest, name and log lines)
        would keep the purged words (issue 20: erasure reaches every copy).
        Outcome: a file whose every stored or merged memory is gone is removed,
        its ``ingest_files`` row becomes a tombstone, its log lines are dropped.
        """
        if self.core.layout is None:
            return
        files = erasure.user_files(
            self.core.layout.ingest_dir, memory_ids=purged, cited_hashes=set()
        )
        left = {
            n.memory_id
            for f in files
            for n in self.core.store.get_nodes(self.core.orchestrator, sorted(f.memory_ids))
        }
        orphaned = [f for f in files if not (f.memory_ids & left)]
        if not orphaned:
            return
        hashes = [f.sha256 for f in orphaned if f.sha256]
        recorded = [h for h in hashes if self.core.store.ingest_record(self.core.orchestrator, h)]
        if recorded:
            at = self.core.now()
            stones = erasure.tombstones(recorded, at)
            self.core.writes.apply(self.core.writes.builder(at).compose(ingest_records=stones))
        erasure.erase_files(orphaned)
        words = set(purged) | set(hashes) | {f.name for f in orphaned}
        erasure.scrub_log(self.core.layout.log_path, words)

    def consolidate(
        self, *, now: datetime | None = None, thread_id: str = "default"
    ) -> ConsolidationReport:
        """One run of the consolidation worker: merge, link or propose similar pairs."""
        return self.lifecycle.consolidate(now, thread_id=thread_id)

    def propose_insights(self, user_id: str, *, subject: str | None = None) -> list[ProposalResult]:
        """Insights (spec §3) over ``user_id``'s active memories, queued as consent proposals.

        Rule-based (:mod:`memvault.lifecycle.insights`): a recurring preference,
        a stable working pattern. Nothing is stored until the user confirms; an
        insight already proposed is not proposed again; personality, emotion and
        health inferences are never proposed.
        """
        user_id = clean_user_id(user_id)
        nodes = self.core.store.list_nodes(
            self.core.orchestrator, NodeFilter(user_id=user_id), limit=500
        )
        name = subject or _subject_of(nodes, user_id)
        found = insights.detect(((n.memory_id, n.type, n.content) for n in nodes), name)
        asked = [str(p.candidate.get("key", "")) for p in self.proposals(user_id=user_id)] + [
            n.key for n in nodes
        ]
        results = []
        for insight in insights.new_insights(found, asked):
            results.append(
                self.propose(
                    insight.content,
                    kind="insight",
                    user_id=user_id,
                    type="Preference" if insight.kind == "recurring_preference" else "Fact",
                    category="PREFERENCE"
                    if insight.kind == "recurring_preference"
                    else "KNOWLEDGE",
                    key=insight.key,
                    value=", ".join(insight.evidence),
                    importance=40,
                )
            )
        return results

    def verify_audit(self) -> AuditReport:
        """Check the hash chain, re-hash the live rows against it, compare the anchor file.

        Reports the first broken thing: an edited or removed history row, a memory
        row changed outside memvault, or a database behind its anchor (a rollback).
        """
        anchor = read_anchor(self.core.layout.anchor_path) if self.core.layout is not None else None
        return self.lifecycle.verify(anchor)

    def audit_anchor(self) -> StoreAnchor | None:
        """The anchor file outside the database (identity, revision, audit head), if any."""
        return read_anchor(self.core.layout.anchor_path) if self.core.layout is not None else None

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Right of access: the user's memories, edges, history, proposals and seen-marks.

        Then the copies outside the store (issue 20): the user's ingested files
        (``ingest_file``), the log lines about them (``log``) and the agent's
        thread checkpoints (``agent_thread``), before the closing ``summary``.
        ``user_id`` is checked and trimmed at once (``clean_user_id``), before
        the first record is asked for.
        """
        return self._export_records(clean_user_id(user_id))

    def _export_records(self, user_id: str) -> Iterator[dict[str, Any]]:
        records = list(self.lifecycle.export_user(user_id))
        summary = records.pop() if records and records[-1].get("record") == "summary" else None
        yield from records
        nodes = self._user_nodes(user_id)
        files, words = self._user_copies(user_id, nodes)
        for f in files:
            yield f.to_json()
        lines = (
            erasure.log_lines_about(self.core.layout.log_path, words, user_id=user_id)
            if self.core.layout
            else []
        )
        for line in lines:
            yield {"record": "log", "line": line}
        threads = self._user_threads(user_id)
        for thread, checkpoints in threads:
            yield {"record": "agent_thread", "thread_id": thread, "checkpoints": checkpoints}
        in_store = self.core.store.agent_threads(self.core.orchestrator, user_id)  # PostgreSQL
        for thread in in_store:
            yield {"record": "agent_thread", "thread_id": thread, "store": "database"}
        if summary is not None:
            yield {
                **summary,
                "ingest_files": len(files),
                "log_lines": len(lines),
                "agent_threads": len(threads) + len(in_store),
            }

    def _user_nodes(self, user_id: str) -> list[MemoryNode]:
        flt = NodeFilter.of_user_any_spelling(user_id, tuple(MemoryStatus))  # 'dana ' rows too
        out: list[MemoryNode] = []
        while True:
            page = self.core.store.list_nodes(
                self.core.orchestrator, flt, limit=5000, offset=len(out)
            )
            out.extend(page)
            if len(page) < 5000:
                return out

    def _user_copies(
        self, user_id: str, nodes: list[MemoryNode]
    ) -> tuple[list[erasure.UserFile], set[str]]:
        """The user's ingested files, and the words (ids, names, hashes) that point at them."""
        if self.core.layout is None:
            return [], set()
        ids = {n.memory_id for n in nodes}
        cited = erasure.cited_hashes(nodes)
        files = erasure.user_files(self.core.layout.ingest_dir, memory_ids=ids, cited_hashes=cited)
        words = ids | cited | {f.sha256 for f in files if f.sha256}
        words |= {f.name for f in files} | {f.stored_as.name for f in files if f.stored_as}
        return files, words

    def _checkpoints_path(self) -> Path | None:
        return self.core.layout.home / "agent" / "checkpoints.db" if self.core.layout else None

    def _user_threads(self, user_id: str) -> list[tuple[str, int]]:
        path = self._checkpoints_path()
        if path is None or not path.is_file():
            return []
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
                threads = erasure.thread_ids_of(conn, self.core.orchestrator, user_id)
                return [
                    (
                        t,
                        int(
                            conn.execute(
                                "SELECT count(*) FROM checkpoints WHERE thread_id = ?", (t,)
                            ).fetchone()[0]
                        ),
                    )
                    for t in threads
                ]
        except sqlite3.Error as exc:
            self.core.log_event("warning", "checkpoints_unreadable", error=str(exc)[:200])
            return []

    def forget_user(self, user_id: str, *, thread_id: str = "default") -> ForgetReport:
        """Right to erasure: purge every memory and proposal of ``user_id``; prove it.

        Every copy outside the memory rows goes too, and the report's ``cleaned``
        counts each place: ingested source files and their manifests, the
        ``ingest_files`` rows (kept as content-free tombstones), lines of
        ``logs/memory.log``, materialised bulletins, the agent's thread
        checkpoints in ``<home>/agent/checkpoints.db`` and the user's delta-header
        seen-marks. ``user_id`` is checked and trimmed first (``clean_user_id``).
        """
        user_id = clean_user_id(user_id)
        nodes = self._user_nodes(user_id)
        files, words = self._user_copies(user_id, nodes)
        hashes = {f.sha256 for f in files if f.sha256} | erasure.cited_hashes(nodes)
        recorded = [
            h for h in sorted(hashes) if self.core.store.ingest_record(self.core.orchestrator, h)
        ]
        at = self.core.now()
        if recorded:
            # Before the purge: its WAL checkpoint then also flushes the old names away.
            stones = erasure.tombstones(recorded, at)
            self.core.writes.apply(self.core.writes.builder(at).compose(ingest_records=stones))
        # The delta header's seen-marks of the user (which threads they read, and when);
        # before the purge, whose WAL checkpoint then also flushes the old rows away.
        marks = self.core.store.erase_reader_marks(self.core.orchestrator, reader_key(user_id))
        report = self.lifecycle.forget_user(user_id, thread_id=thread_id)
        cleaned = {"memories": report.memories_purged, "proposals": report.proposals_erased}
        cleaned["thread_marks"] = marks
        cleaned["ingest_records"] = len(recorded)
        # statements capture deferred to the user's next turn (review S12-R2)
        cleaned["deferred"] = sum(drop(user_id) for drop in self.in_memory_copies)
        if report.memories_purged or files:
            bulletins = self.context.drop_materialised()
            cleaned["bulletins"] = bulletins
        removed, manifests = erasure.erase_files(files)
        cleaned["source_files"], cleaned["manifests"] = removed, manifests
        # Other users' threads that were handed one of these memories go too.
        quoted = sorted(
            {n.memory_id for n in nodes} | {n.content for n in nodes if len(n.content) >= 12}
        )
        path = self._checkpoints_path()
        threads: list[str] = []
        if path is not None:
            try:
                threads = erasure.forget_checkpoint_threads(
                    path, self.core.orchestrator, user_id, quoted
                )
            except sqlite3.Error as exc:
                self.core.log_event("error", "checkpoints_not_erased", error=str(exc)[:200])
        # Checkpoints kept in the store's own database (PostgreSQL).
        threads += self.core.store.erase_agent_threads(self.core.orchestrator, user_id, quoted)
        cleaned["agent_threads"] = len(threads)
        words |= set(threads)
        cleaned["log_lines"] = (
            erasure.scrub_log(self.core.layout.log_path, words, user_id=user_id)
            if self.core.layout
            else 0
        )
        # The audit verdict also compares the anchor file, as ``verify_audit`` does.
        return replace(report, cleaned=cleaned, audit=self.verify_audit())

    def propose(
        self, /, content: str, *, kind: str = "insight", user_id: str | None = None, **fields: Any
    ) -> ProposalResult:
        """Queue an inferred memory for the user's consent instead of storing it."""
        return self.lifecycle.consent.propose(content, kind=kind, user_id=user_id, fields=fields)

    def proposals(
        self, *, status: ProposalStatus | str | None = None, user_id: str | None = None
    ) -> list[Proposal]:
        """Consent proposals, oldest first (unanswered ones past their date are expired).

        An unknown ``status`` is SCHEMA_INVALID (:class:`ValidationFailed`), naming the known ones.
        """
        try:
            wanted = ProposalStatus(status) if status is not None else None
        except ValueError:
            known = ", ".join(s.value for s in ProposalStatus)
            raise ValidationFailed(
                f"unknown proposal status {status!r}",
                errors=(("status", f"one of {known}"),),
            ) from None
        return self.lifecycle.consent.proposals(status=wanted, user_id=user_id)

    def confirm_proposal(self, proposal_id: str, *, thread_id: str = "default") -> WriteResult:
        """The user consents: store it as USER_EXPLICIT (the gate may still refuse)."""
        return self.lifecycle.consent.confirm(proposal_id, thread_id=thread_id)

    def reject_proposal(self, proposal_id: str) -> Proposal:
        """The user declines: nothing is stored and the proposal's text is dropped."""
        return self.lifecycle.consent.reject(proposal_id)

    def record_event(self, /, node: str, op: str, status: str = "ok", **fields: Any) -> None:
        """Record an operational event (spec §14); best effort, never raises once called
        (a field :meth:`LifecycleService.record` does not take, or a wrong type, is
        refused before: ValidationFailed).

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme", embedder=None) as engine:
        ...     engine.record_event("context", "search", best_similarity=0.42)
        """
        check_call(LifecycleService.record, (node, op, status), fields, name="record_event")
        self.lifecycle.record(node, op, status, **fields)

    def stats(self) -> EngineStats:
        store, layout = self.core.store, self.core.layout
        counts = store.counts(self.core.orchestrator)
        # Trigger: ``db_path`` was the layout's SQLite path whatever the backend.
        # Why: on PostgreSQL it named a file that was never made or read.
        # Outcome: ``db_path`` only when the store is that file; ``location`` always
        # says where the data is (a PostgreSQL DSN without its password).
        here = layout is not None and Path(store.location) == layout.db_path
        return EngineStats(
            orchestrator=self.core.orchestrator,
            db_path=str(layout.db_path) if here and layout is not None else None,
            location=store.location,
            operations=self.lifecycle.operations(),
            **asdict(counts),  # the store's counts, field for field (StoreCounts)
        )


def _subject_of(nodes: list[MemoryNode], user_id: str) -> str:
    """The name statements use for the user: the most common first word of their memories."""
    counts: dict[str, int] = {}
    for node in nodes:
        first = node.content.split(" ", 1)[0].removesuffix("'s")
        if first[:1].isupper():
            counts[first] = counts.get(first, 0) + 1
    return max(counts, key=lambda k: (counts[k], k)) if counts else user_id
