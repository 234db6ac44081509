"""Drop-folder ingest and the lifecycle: TTL, consolidation, consent, proposals."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memvault.ingest import IngestReport
from memvault.lifecycle import (
    AuditReport,
    ForgetReport,
    LifecyclePolicy,
    LifecycleReport,
    erasure,
    insights,
)
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.proposals import ProposalResult
from memvault.lifecycle.service import EngineHooks, LifecycleService
from memvault.model.clock import format_timestamp, new_id
from memvault.model.enums import MemoryOp, MemoryStatus, StopReason
from memvault.model.node import MemoryNode
from memvault.results import WriteResult
from memvault.store.anchor import StoreAnchor, read_anchor
from memvault.store.base import NodeFilter
from memvault.store.records import Proposal, ProposalStatus
from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity

if TYPE_CHECKING:
    pass
from memvault.engine._base import _unpack
from memvault.engine._context import EngineContext
from memvault.results import EngineStats
from memvault.write.spec import NewMemory


class EngineLifecycle(EngineContext):
    """The ingest and lifecycle operations of :class:`~memvault.engine.MemoryEngine`."""

    # -- ingest ---
    # The drop folder (spec "Ingestion"). Thin: the logic is in memvault.ingest.

    def ingest_pending(
        self,
        *,
        enabled: bool = True,
        max_file_size_mb: float = 10.0,
        settle_seconds: float = 0.2,
        progress: Callable[[int, int, str], None] | None = None,
        embed_threads: int = 2,
    ) -> IngestReport:
        """Ingest every file waiting in ``<home>/<orchestrator>/memory/ingest/`` once.

        Every candidate passes this engine's gate; each file commits in one
        transaction with its vectors. ``enabled``/``max_file_size_mb`` are
        ``memory.ingest.*``; ``embed_threads`` embed while the next files are gated.
        """
        from memvault.errors import ConfigError
        from memvault.ingest import IngestContext, run_pass

        if self.layout is None:
            raise ConfigError("ingestion needs an engine opened on a runtime home")
        writes = self.writes
        context = IngestContext(
            store=self.store,
            orchestrator=self.orchestrator,
            layout=self.layout,
            judge=lambda node: writes.judge(MemoryOp.STORE, node),
            now=self._now,
            writes=writes,
            log=self._log,
            workspace_roots=self.workspace_roots,
            actor=self.agent_id,
            embedder=self.embedder,  # vectors in each file's transaction (issue 8)
            embedder_error=self._embedder_error,
            bands=self.capture_config.bands,  # merges mean what they mean in capture
            merge_nudge=self.capture_config.confidence_nudge,
        )
        return run_pass(
            context,
            enabled=enabled,
            max_file_size_mb=max_file_size_mb,
            settle_seconds=settle_seconds,
            progress=progress,
            embed_threads=embed_threads,
        )

    # -- lifecycle ---
    # TTL and purge, consent proposals, audit, export and forget (DESIGN §7).
    # Thin: the logic is in memvault.lifecycle.

    #: TTL, purge and consent settings (assign a new frozen policy to change them).
    lifecycle_policy: LifecyclePolicy = LifecyclePolicy()
    _lifecycle: LifecycleService | None = None

    @property
    def lifecycle(self) -> LifecycleService:
        """The lifecycle worker bound to this engine (its store, gate and clock)."""
        if self._lifecycle is None or self._lifecycle.policy is not self.lifecycle_policy:
            hooks = EngineHooks(
                store=self.store,
                orchestrator=self.orchestrator,
                actor=self.agent_id,
                now=self.clock,
                stamp=format_timestamp,
                new_id=new_id,
                writes=lambda: self.writes,
                log=self._log,
                recall=lambda q, f, k: [h.node for h in self.search(q, filters=f, top_k=k).hits],
                similarity=self._lifecycle_similarity(),
            )
            self._lifecycle = LifecycleService(hooks, self.lifecycle_policy)
        return self._lifecycle

    def _lifecycle_similarity(self) -> EmbeddingSimilarity | LexicalSimilarity:
        embedder = getattr(self, "embedder", None)  # the engine's embedder, if any
        return EmbeddingSimilarity(embedder) if embedder else LexicalSimilarity()

    def run_lifecycle(
        self, *, now: datetime | None = None, thread_id: str = "default"
    ) -> LifecycleReport:
        """Expire proposals, soft-delete what the TTL rules select, purge what is due.

        ``now`` defaults to the engine's clock (pass a moment to time-travel).
        """
        report = self.lifecycle.run(now, thread_id=thread_id)
        if report.purged:
            self._drop_materialised()
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
        if self.layout is None:
            return
        files = erasure.user_files(self.layout.ingest_dir, memory_ids=purged, cited_hashes=set())
        left = {
            n.memory_id
            for f in files
            for n in self.store.get_nodes(self.orchestrator, sorted(f.memory_ids))
        }
        orphaned = [f for f in files if not (f.memory_ids & left)]
        if not orphaned:
            return
        hashes = [f.sha256 for f in orphaned if f.sha256]
        recorded = [h for h in hashes if self.store.ingest_record(self.orchestrator, h)]
        if recorded:
            at = self._now()
            stones = erasure.tombstones(recorded, at)
            self.writes.apply(self.writes.builder(at).compose(ingest_records=stones))
        erasure.erase_files(orphaned)
        words = set(purged) | set(hashes) | {f.name for f in orphaned}
        erasure.scrub_log(self.layout.log_path, words)

    def _drop_materialised(self) -> int:
        """Purged text must not live on in materialised bulletins (right to erasure).

        Trigger: a purge. Why: ``bulletins/*.json`` quote memory text and serve
        as the last-good fallback. Outcome: they are deleted; the next bulletin
        is built from the store as it now is.
        """
        self._bulletin_keeper = None
        where = self.layout.bulletins_dir if self.layout else None
        dropped = 0
        if where is not None and where.is_dir():
            for path in where.glob("*.json"):
                path.unlink(missing_ok=True)
                dropped += 1
        return dropped

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
        nodes = self.store.list_nodes(self.orchestrator, NodeFilter(user_id=user_id), limit=500)
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
        anchor = read_anchor(self.layout.anchor_path) if self.layout is not None else None
        return self.lifecycle.verify(anchor)

    def audit_anchor(self) -> StoreAnchor | None:
        """The anchor file outside the database (identity, revision, audit head), if any."""
        return read_anchor(self.layout.anchor_path) if self.layout is not None else None

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Right of access: the user's memories, edges, history and proposals as records.

        Then the copies outside the store (issue 20): the user's ingested files
        (``ingest_file``), the log lines about them (``log``) and the agent's
        thread checkpoints (``agent_thread``), before the closing ``summary``.
        """
        records = list(self.lifecycle.export_user(user_id))
        summary = records.pop() if records and records[-1].get("record") == "summary" else None
        yield from records
        nodes = self._user_nodes(user_id)
        files, words = self._user_copies(user_id, nodes)
        for f in files:
            yield f.to_json()
        lines = (
            erasure.log_lines_about(self.layout.log_path, words, user_id=user_id)
            if self.layout
            else []
        )
        for line in lines:
            yield {"record": "log", "line": line}
        threads = self._user_threads(user_id)
        for thread, checkpoints in threads:
            yield {"record": "agent_thread", "thread_id": thread, "checkpoints": checkpoints}
        in_store = self.store.agent_threads(self.orchestrator, user_id)  # PostgreSQL
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
        flt = NodeFilter(user_id=user_id, status=tuple(MemoryStatus))
        out: list[MemoryNode] = []
        while True:
            page = self.store.list_nodes(self.orchestrator, flt, limit=5000, offset=len(out))
            out.extend(page)
            if len(page) < 5000:
                return out

    def _user_copies(
        self, user_id: str, nodes: list[MemoryNode]
    ) -> tuple[list[erasure.UserFile], set[str]]:
        """The user's ingested files, and the words (ids, names, hashes) that point at them."""
        if self.layout is None:
            return [], set()
        ids = {n.memory_id for n in nodes}
        cited = erasure.cited_hashes(nodes)
        files = erasure.user_files(self.layout.ingest_dir, memory_ids=ids, cited_hashes=cited)
        words = ids | cited | {f.sha256 for f in files if f.sha256}
        words |= {f.name for f in files} | {f.stored_as.name for f in files if f.stored_as}
        return files, words

    def _checkpoints_path(self) -> Path | None:
        return self.layout.home / "agent" / "checkpoints.db" if self.layout else None

    def _user_threads(self, user_id: str) -> list[tuple[str, int]]:
        path = self._checkpoints_path()
        if path is None or not path.is_file():
            return []
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
                threads = erasure.thread_ids_of(conn, self.orchestrator, user_id)
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
            self._log("warning", "checkpoints_unreadable", error=str(exc)[:200])
            return []

    def forget_user(self, user_id: str, *, thread_id: str = "default") -> ForgetReport:
        """Right to erasure: purge every memory and proposal of ``user_id``; prove it.

        Every copy outside the memory rows goes too, and the report's ``cleaned``
        counts each place: ingested source files and their manifests, the
        ``ingest_files`` rows (kept as content-free tombstones), lines of
        ``logs/memory.log``, materialised bulletins and the agent's thread
        checkpoints in ``<home>/agent/checkpoints.db``.
        """
        nodes = self._user_nodes(user_id)
        files, words = self._user_copies(user_id, nodes)
        hashes = {f.sha256 for f in files if f.sha256} | erasure.cited_hashes(nodes)
        recorded = [h for h in sorted(hashes) if self.store.ingest_record(self.orchestrator, h)]
        at = self._now()
        if recorded:
            # Before the purge: its WAL checkpoint then also flushes the old names away.
            stones = erasure.tombstones(recorded, at)
            self.writes.apply(self.writes.builder(at).compose(ingest_records=stones))
        report = self.lifecycle.forget_user(user_id, thread_id=thread_id)
        cleaned = {"memories": report.memories_purged, "proposals": report.proposals_erased}
        cleaned["ingest_records"] = len(recorded)
        if report.memories_purged or files:
            bulletins = self._drop_materialised()
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
                    path, self.orchestrator, user_id, quoted
                )
            except sqlite3.Error as exc:
                self._log("error", "checkpoints_not_erased", error=str(exc)[:200])
        # Checkpoints kept in the store's own database (PostgreSQL).
        threads += self.store.erase_agent_threads(self.orchestrator, user_id, quoted)
        cleaned["agent_threads"] = len(threads)
        words |= set(threads)
        cleaned["log_lines"] = (
            erasure.scrub_log(self.layout.log_path, words, user_id=user_id) if self.layout else 0
        )
        # The audit verdict also compares the anchor file, as ``verify_audit`` does.
        return replace(report, cleaned=cleaned, audit=self.verify_audit())

    def add(
        self,
        content: str | NewMemory,
        *,
        thread_id: str = "default",
        index_text: Any = None,
        vector: Any = None,
        vector_model: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a new memory; a consent-gated one becomes a proposal (never a silent loss).

        Everything else is :meth:`EngineBase.add <memvault.engine._base.EngineBase.add>`.
        When the only objection is the user's missing consent (``add --key
        city``, as capture's "I live in Porto"), the write is queued for the
        user to confirm and the result carries its ``proposal_id`` (stop reason
        still ``MISSING_EXPLICIT_CONSENT``: nothing is stored yet).
        """
        content, fields = _unpack(content, fields)
        result = super().add(
            content,
            thread_id=thread_id,
            index_text=index_text,
            vector=vector,
            vector_model=vector_model,
            **fields,
        )
        if (
            result.stop_reason is not StopReason.MISSING_EXPLICIT_CONSENT
            or result.detector != "consent"
            or fields.get("proposal")
        ):
            return result
        user_id = fields.pop("user_id", None)
        queued = self.propose(content, kind="profile_field", user_id=user_id, **fields)
        if queued.proposal_id is None:
            return result
        return replace(
            result,
            proposal_id=queued.proposal_id,
            reason=f"{result.reason}; queued for the user's consent ({queued.proposal_id})",
        )

    def propose(
        self, content: str, *, kind: str = "insight", user_id: str | None = None, **fields: Any
    ) -> ProposalResult:
        """Queue an inferred memory for the user's consent instead of storing it."""
        return self.lifecycle.propose(content, kind=kind, user_id=user_id, fields=fields)

    def proposals(
        self, *, status: ProposalStatus | str | None = None, user_id: str | None = None
    ) -> list[Proposal]:
        """Consent proposals, oldest first (unanswered ones past their date are expired)."""
        wanted = ProposalStatus(status) if status is not None else None
        return self.lifecycle.proposals(status=wanted, user_id=user_id)

    def confirm_proposal(self, proposal_id: str, *, thread_id: str = "default") -> WriteResult:
        """The user consents: store it as USER_EXPLICIT (the gate may still refuse)."""
        return self.lifecycle.confirm(proposal_id, thread_id=thread_id)

    def reject_proposal(self, proposal_id: str) -> Proposal:
        """The user declines: nothing is stored and the proposal's text is dropped."""
        return self.lifecycle.reject(proposal_id)

    def record_event(self, node: str, op: str, status: str = "ok", **fields: Any) -> None:
        """Record an operational event (spec §14); best effort, never raises."""
        self.lifecycle.record(node, op, status, **fields)

    def stats(self) -> EngineStats:
        counts = self.store.counts(self.orchestrator)
        return EngineStats(
            orchestrator=self.orchestrator,
            db_path=str(self.layout.db_path) if self.layout else None,
            revision=counts.revision,
            memories_by_status=counts.memories_by_status,
            memories_by_type=counts.memories_by_type,
            edges_by_type=counts.edges_by_type,
            history_events=counts.history_events,
            operations=self.lifecycle.operations(),
        )


def _subject_of(nodes: list[MemoryNode], user_id: str) -> str:
    """The name statements use for the user: the most common first word of their memories."""
    counts: dict[str, int] = {}
    for node in nodes:
        first = node.content.split(" ", 1)[0].removesuffix("'s")
        if first[:1].isupper():
            counts[first] = counts.get(first, 0) + 1
    return max(counts, key=lambda k: (counts[k], k)) if counts else user_id
