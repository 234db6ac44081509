"""Capture: transcript turns, workflow outputs and diagnostics into memories."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from memvault.engine._core import EngineCore
from memvault.engine._lifecycle import LifecycleOps
from memvault.engine._reads import Reader
from memvault.extract.base import MESSAGE_MAX, Candidate, Message
from memvault.ingest.parsers import split_long
from memvault.model.decision import Decision
from memvault.model.text import clean_text
from memvault.model.validation import clean_user_id, require_text, to_validation_failed
from memvault.write import CapturePipeline, CaptureResult
from memvault.write.capture import Provenance
from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity

__all__ = ["CaptureOps"]


class CaptureOps:
    """Write-back triggers (issue 5): transcript turns, workflow outputs, diagnostics.

    Thin: extraction is in :mod:`memvault.extract`; resolve and commit in
    :mod:`memvault.write`; recall through the reader, consent through the lifecycle.
    """

    def __init__(self, core: EngineCore, reader: Reader, lifecycle: LifecycleOps) -> None:
        self.core = core
        self.reader = reader
        self.lifecycle = lifecycle
        self._capture: CapturePipeline | None = None
        lifecycle.in_memory_copies.append(self._forget_deferred)

    def _forget_deferred(self, user_id: str) -> int:
        """The erasure's part here: the user's deferred candidates (none without a pipeline)."""
        return self._capture.forget_user(user_id) if self._capture is not None else 0

    @property
    def capture(self) -> CapturePipeline:
        """The capture pipeline bound to this engine (store, gate, clock, recall)."""
        core = self.core
        current = self._capture
        if (
            current is None
            or current.config is not core.capture_config
            or current.extractor is not (core.capture_extractor or current.extractor)
        ):
            embedder = core.embedder
            current = self._capture = CapturePipeline(
                store=core.store,
                orchestrator=core.orchestrator,
                gate=core.check,
                clock=core.clock,
                recall=lambda q, f, k, v=None: [
                    h.node for h in self.reader.search(q, filters=f, top_k=k, query_vector=v).hits
                ],
                extractor=core.capture_extractor,
                similarity=EmbeddingSimilarity(embedder) if embedder else LexicalSimilarity(),
                config=core.capture_config,
                actor=core.agent_id,
                log=core.log_event,
                embed=core.embed_rows if embedder is not None else None,
                embedder=embedder,
                writes=lambda: core.writes,
                propose=self._propose_candidate,
            )
        return current

    def _propose_candidate(
        self, candidate: Candidate, prov: Provenance, replaces: tuple[str, ...]
    ) -> str | Decision:
        """Queue a consent-gated candidate for the user's confirmation (capture's seam)."""
        extra: dict[str, Any] = {"replaces": list(replaces)} if replaces else {}
        result = self.lifecycle.propose(
            candidate.content,
            kind="profile_field",
            user_id=prov.user_id,
            type=candidate.type.value,
            category=candidate.category,
            key=candidate.key,
            value=candidate.value,
            importance=candidate.importance,
            project_id=prov.project_id,
            conversation_id=prov.conversation_id,
            **extra,
        )
        if result.proposal_id is not None:
            return result.proposal_id
        return Decision(result.stop_reason, detector=result.detector, reason=result.reason)

    def capture_message(
        self,
        message: Message | Mapping[str, Any],
        *,
        project_id: str | None = None,
        thread_id: str = "default",
    ) -> CaptureResult:
        """Capture one transcript turn: 0–5 candidates, gated, resolved, committed.

        Only the user's own turns are write triggers; ``message`` is a
        :class:`~memvault.extract.Message` or a mapping of its fields.

        >>> import tempfile
        >>> from memvault.engine import MemoryEngine
        >>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as e:
        ...     r = e.capture_message({"text": "I prefer tabs over spaces", "user_id": "dana"})
        ...     [(c.type, c.outcome.value) for c in r.candidates]
        [('Preference', 'stored')]
        """
        # Trigger: control characters in the turn, or a turn longer than one message.
        # Why: real users paste terminal output and long documents; refusing the
        #      turn (or cutting it) would silently lose what they said (issue 17).
        # Outcome: control characters other than tabs and line breaks are removed
        #   (the count is logged); a long turn is captured as consecutive parts,
        #   each extracted on its own, and the results are concatenated.
        fields = dict(message.model_dump() if isinstance(message, Message) else message)
        if isinstance(fields.get("user_id"), str):
            fields["user_id"] = clean_user_id(fields["user_id"], "message.user_id")
        text = fields.get("text")
        removed = 0
        if isinstance(text, str):
            cleaned = clean_text(text)
            text, removed = cleaned.text, cleaned.removed
        if isinstance(text, str):
            # Trigger: ``capture message ""`` (or a turn of only blanks / control characters).
            # Why: it answered "0 candidates" like a turn that said nothing worth keeping,
            #      hiding a lost argument or an unset variable.
            # Outcome: SCHEMA_INVALID naming ``message.text`` (CLI exit 2, HTTP 422).
            require_text(
                text,
                "message.text",
                why="must hold a visible character (a blank turn says nothing)",
                hint="pass the words of the transcript turn",
            )
        parts = split_long(text, MESSAGE_MAX) if isinstance(text, str) else [text]
        messages: list[Message] = []
        for part in parts or [text]:
            try:
                messages.append(Message.model_validate({**fields, "text": part}))
            except ValidationError as exc:
                raise to_validation_failed(exc, prefix="message.") from None
        if removed:
            self.core.log_event("info", "control_chars_removed", trigger="message", removed=removed)
        results = [
            self.capture.capture_message(
                msg, project_id=project_id, agent_id=self.core.agent_id, thread_id=thread_id
            )
            for msg in messages
        ]
        if len(results) == 1:
            return results[0]
        return CaptureResult(
            results[0].trigger,
            tuple(c for r in results for c in r.candidates),
            extractor=results[0].extractor,
            errors=tuple(e for r in results for e in r.errors),
            skipped=next((r.skipped for r in results if r.skipped), ""),
            trace=tuple(t for r in results for t in r.trace),
        )
