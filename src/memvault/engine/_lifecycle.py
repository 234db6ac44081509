"""Drop-folder ingest and the lifecycle: TTL, consolidation, consent, proposals."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memvault.ingest import IngestReport
from memvault.lifecycle import AuditReport, ForgetReport, LifecyclePolicy, LifecycleReport
from memvault.lifecycle.consolidate import ConsolidationReport
from memvault.lifecycle.proposals import ProposalResult
from memvault.lifecycle.service import EngineHooks, LifecycleService
from memvault.model.clock import format_timestamp, new_id
from memvault.model.enums import MemoryOp, StopReason
from memvault.results import WriteResult
from memvault.store.records import Proposal, ProposalStatus
from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity

if TYPE_CHECKING:
    pass
from memvault.engine._context import EngineContext
from memvault.results import EngineStats


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
        return report

    def _drop_materialised(self) -> None:
        """Purged text must not live on in materialised bulletins (right to erasure).

        Trigger: a purge. Why: ``bulletins/*.json`` quote memory text and serve
        as the last-good fallback. Outcome: they are deleted; the next bulletin
        is built from the store as it now is.
        """
        self._bulletin_keeper = None
        where = self.layout.bulletins_dir if self.layout else None
        if where is not None and where.is_dir():
            for path in where.glob("*.json"):
                path.unlink(missing_ok=True)

    def consolidate(
        self, *, now: datetime | None = None, thread_id: str = "default"
    ) -> ConsolidationReport:
        """One run of the consolidation worker: merge, link or propose similar pairs."""
        return self.lifecycle.consolidate(now, thread_id=thread_id)

    def verify_audit(self) -> AuditReport:
        """Check the hash chain of every audit event; the first broken row if any."""
        return self.lifecycle.verify()

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Right of access: the user's memories, edges, history and proposals as records."""
        return self.lifecycle.export_user(user_id)

    def forget_user(self, user_id: str, *, thread_id: str = "default") -> ForgetReport:
        """Right to erasure: purge every memory and proposal of ``user_id``; prove it."""
        report = self.lifecycle.forget_user(user_id, thread_id=thread_id)
        if report.memories_purged:
            self._drop_materialised()
        return report

    def add(
        self,
        content: str,
        *,
        thread_id: str = "default",
        index_text: Any = None,
        vector: Any = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a new memory; a consent-gated one becomes a proposal (never a silent loss).

        Everything else is :meth:`EngineBase.add <memvault.engine._base.EngineBase.add>`.
        When the only objection is the user's missing consent (``add --key
        city``, as capture's "I live in Porto"), the write is queued for the
        user to confirm and the result carries its ``proposal_id`` (stop reason
        still ``MISSING_EXPLICIT_CONSENT``: nothing is stored yet).
        """
        result = super().add(
            content, thread_id=thread_id, index_text=index_text, vector=vector, **fields
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
