"""From parsed candidates to typed nodes and governance decisions (the pure part of a file).

Each candidate becomes a :class:`~memvault.model.node.MemoryNode` with a
derived id (orchestrator, content hash, chunk id) and ``CITED_SOURCE``
provenance, or a schema refusal; each node then gets exactly one decision
from the gate. Edges are built only between accepted memories.

>>> from datetime import UTC, datetime
>>> from memvault.ingest.parsers import parse_text
>>> from memvault.model.decision import Decision
>>> from memvault.model.enums import StopReason
>>> from memvault.store import InMemoryStore
>>> from memvault.write.pipeline import WritePipeline
>>> from memvault.write.spec import OpenGate
>>> writes = WritePipeline(store=InMemoryStore(), orchestrator="acme", gate=OpenGate(),
...                        clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))
>>> judge = DocumentJudge(writes, lambda draft: Decision(StopReason.SUCCESS_STORED))
>>> judged = judge.judge(parse_text("Hello.", name="a.txt"), "ab" * 32, "/h/a.txt")
>>> [n.source.source_ref for _, n, _ in judged.accepted]
['doc:sha256:abababababababababababababababababababababababababababababababab#chunk:p0001']
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from memvault.errors import ValidationFailed
from memvault.ingest.model import Candidate, EdgeSpec, ParsedDocument
from memvault.ingest.parsers import MEMORY_FIELDS
from memvault.model.clock import summarise
from memvault.model.decision import Decision
from memvault.model.enums import CapturedBy, MemoryOp, SourceKind, SourceType, StopReason
from memvault.model.node import SUMMARY_MAX, MemoryEdge, MemoryNode, Source
from memvault.model.validation import to_validation_failed
from memvault.store.base import EmbeddingRow
from memvault.write.drafts import Draft
from memvault.write.pipeline import WritePipeline

__all__ = ["WAITS", "DocumentJudge", "Judge", "JudgeMany", "Judged", "derived_id", "summarise"]

#: Refusals that say nothing about a file — the gate could not judge it (S16-R7), its user
#: has written enough today (S17-R3) — and the log event of a file held for one.
WAITS = {
    StopReason.INTERNAL_INCONSISTENCY: "ingest_gate_failed",
    StopReason.ENTITLEMENT_CAP: "ingest_over_daily_cap",
}

#: The governance seam as ingestion sees it: one draft (a node and its content's
#: vector, when the window has one) in, one decision out — ``add``'s seam.
Judge = Callable[[Draft], Decision]
#: The same seam for a file's drafts at once: exactly one ``Judge`` call per draft.
JudgeMany = Callable[[Sequence[Draft]], list[Decision]]


def derived_id(prefix: str, *parts: str) -> str:
    """A stable id from its parts: the same file and chunk always get the same id.

    >>> a = derived_id("mem", "acme", "ab" * 32, "p0001")
    >>> a == derived_id("mem", "acme", "ab" * 32, "p0001"), len(a)
    (True, 32)
    """
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    return f"{prefix}_{digest[:28]}"


@dataclass
class Judged:
    """Candidates turned into nodes and decisions (the pure part of a file)."""

    accepted: list[tuple[Candidate, MemoryNode, Decision]] = field(default_factory=list)
    refused: list[tuple[Candidate, Decision, tuple[str, ...]]] = field(default_factory=list)
    edges: list[MemoryEdge] = field(default_factory=list)
    skipped_edges: list[dict[str, Any]] = field(default_factory=list)

    def waits(self) -> StopReason | None:
        """The refusal of the file that is no answer about it (:data:`WAITS`), if any:
        the file is then held, pending and unwritten, for a later pass."""
        reasons = {d.stop_reason.value for _, d, _ in self.refused}
        reasons.update(str(e.get("reason")) for e in self.skipped_edges)
        return next((r for r in WAITS if r.value in reasons), None)


def _draft(node: MemoryNode, vectors: Mapping[str, EmbeddingRow] | None) -> Draft:
    row = vectors.get(node.memory_id) if vectors is not None else None
    if row is None:
        return Draft(node)
    return Draft(node, row.vector, vector_model=row.model_id)


class DocumentJudge:
    """Builds and judges the nodes and edges of one orchestrator's documents."""

    def __init__(
        self, writes: WritePipeline, judge: Judge, judge_many: JudgeMany | None = None
    ) -> None:
        self.writes = writes
        self.orchestrator = writes.orchestrator
        self.now = writes.now
        self.gate = judge
        self.gate_many = judge_many

    def node(self, candidate: Candidate, sha: str, source: Source) -> MemoryNode:
        data = dict(candidate.fields)
        unknown = sorted(set(data) - MEMORY_FIELDS)
        if unknown:
            raise ValidationFailed(
                f"unknown field(s): {', '.join(unknown)}",
                errors=tuple((f, "not a field a file may set") for f in unknown),
            )
        content = data.get("content")
        if isinstance(content, str):
            data["content"] = content = content.strip()
            data.setdefault("summary", summarise(content)[:SUMMARY_MAX])
            if not data.get("value"):
                # Trigger: no value of its own. Why: the gate judges a value that
                # differs from the content as a second text (~5 ms); a whitespace-
                # collapsed copy would be judged twice. Outcome: the content itself.
                data["value"] = content if len(content) <= 1024 else summarise(content, 1024)
        data.setdefault("ttl_class", "LONG")
        return self.writes.node(
            data, source, memory_id=derived_id("mem", self.orchestrator, sha, candidate.chunk_id)
        )

    def judge(self, document: ParsedDocument, sha: str, source_path: str) -> Judged:
        """Build every candidate's node, judge them (the file's nodes at once when a
        ``judge_many`` is given: the same decisions), keep the accepted, audit the rest."""
        return self.judge_documents([(document, sha, source_path)])[0]

    def judge_documents(self, documents: Sequence[tuple[ParsedDocument, str, str]]) -> list[Judged]:
        """:meth:`judge` of each ``(document, sha, source_path)``, every node of them
        judged in one batch.

        Trigger: a window of ingested files (tens of small files).
        Why: a batch per file primed the learned heads per file and never reached the
          size at which the gate's second process judges half of it.
        Outcome: one ``judge_many`` for the window's nodes; each node gets the
          decision a call per file (or per node) gives it.
        """
        return self.decide(documents, [self.build(*doc) for doc in documents])

    def decide(
        self,
        documents: Sequence[tuple[ParsedDocument, str, str]],
        built: Sequence[list[tuple[Candidate, MemoryNode | Decision, tuple[str, ...]]]],
        vectors: Mapping[str, EmbeddingRow] | None = None,
    ) -> list[Judged]:
        """The gate's half of :meth:`judge_documents`: every built node of ``documents``
        (``built``: :meth:`build` of each) judged in one batch.

        ``vectors``: the window's content vectors by memory id (the engine's
        embedder, plain space), handed to the gate with each node.

        Trigger: ingest judged its nodes before they were embedded.
        Why: without the vector the gate's English text got the n-gram heads,
          while ``add`` hands it the same content's vector (full heads): one
          text, two decisions (issue 22).
        Outcome: each node is judged with the vector ``add`` would give it —
          the same embedder, the same content text — so ingest and ``add``
          decide alike; a node without one is judged as ``add`` judges a write
          whose embedding failed.
        """
        drafts = [
            _draft(n, vectors) for each in built for _, n, _ in each if isinstance(n, MemoryNode)
        ]
        decisions = iter(self._decide(drafts))
        return [
            self._judged(document, sha, each, decisions)
            for (document, sha, _), each in zip(documents, built, strict=True)
        ]

    def build(
        self, document: ParsedDocument, sha: str, source_path: str
    ) -> list[tuple[Candidate, MemoryNode | Decision, tuple[str, ...]]]:
        """Each candidate's node, or the refusal of a candidate no node could be built from."""
        built: list[tuple[Candidate, MemoryNode | Decision, tuple[str, ...]]] = []
        for candidate in document.candidates:
            source = Source(
                source_type=SourceType.INGEST_FILE,
                captured_by=CapturedBy.EXTRACTOR,
                source_kind=SourceKind.CITED_SOURCE,
                source_path=source_path,
                source_ref=f"doc:sha256:{sha}#chunk:{candidate.chunk_id}",
            )
            try:
                built.append((candidate, self.node(candidate, sha, source), ()))
            except ValidationFailed as exc:
                raw = {
                    **candidate.fields,
                    "source_kind": source.source_kind.value,
                    "source_ref": source.source_ref,
                }
                decision = self.writes.judge_invalid(MemoryOp.STORE, exc, raw)
                built.append((candidate, decision, tuple(sorted({f for f, _ in exc.errors}))))
        return built

    def _judged(
        self,
        document: ParsedDocument,
        sha: str,
        built: list[tuple[Candidate, MemoryNode | Decision, tuple[str, ...]]],
        decisions: Iterator[Decision],
    ) -> Judged:
        judged = Judged()
        by_ref: dict[str, MemoryNode] = {}
        for candidate, built_node, fields in built:
            if not isinstance(built_node, MemoryNode):  # no node: refused as invalid
                judged.refused.append((candidate, built_node, fields))
                continue
            decision = next(decisions)
            if decision.allowed:
                judged.accepted.append((candidate, built_node, decision))
                if candidate.ref is not None:
                    by_ref[candidate.ref] = built_node
            else:
                judged.refused.append((candidate, decision, ()))
        seen: set[tuple[str, str, str]] = set()
        for spec in document.edges:
            self.edge(spec, sha, by_ref, seen, judged)
        return judged

    def _decide(self, drafts: list[Draft]) -> list[Decision]:
        """One decision per draft: the batch entry when there is one (same answers)."""
        if self.gate_many is not None and len(drafts) > 1:
            decisions = self.gate_many(drafts)
            if len(decisions) == len(drafts):
                return decisions
        return [self.gate(d) for d in drafts]

    def edge(
        self,
        spec: EdgeSpec,
        sha: str,
        by_ref: dict[str, MemoryNode],
        seen: set[tuple[str, str, str]],
        judged: Judged,
    ) -> None:
        skipped = {"index": spec.index, "from": spec.from_ref, "to": spec.to_ref}
        a, b = by_ref.get(spec.from_ref), by_ref.get(spec.to_ref)
        if a is None or b is None:
            judged.skipped_edges.append({**skipped, "reason": "ENDPOINT_REFUSED"})
            return
        try:
            edge = MemoryEdge(
                edge_id=derived_id("edge", self.orchestrator, sha, f"edges.{spec.index}"),
                orchestrator_id=self.orchestrator,
                from_memory_id=a.memory_id,
                to_memory_id=b.memory_id,
                edge_type=spec.edge_type,  # type: ignore[arg-type]  # validated by pydantic
                weight=spec.weight,
                reason=spec.reason,
                created_at=self.now(),
            )
        except ValidationError as exc:
            failed = to_validation_failed(exc)
            assert isinstance(failed, ValidationFailed)
            judged.skipped_edges.append({**skipped, "reason": failed.stop_reason.value})
            return
        triple = (edge.from_memory_id, edge.to_memory_id, edge.edge_type.value)
        if triple in seen:
            judged.skipped_edges.append({**skipped, "reason": "DUPLICATE_EDGE"})
            return
        # Trigger: an edge with a ``reason`` the file wrote.
        # Why: search, get and the HTTP/MCP reads return it with the edge; it was
        #      stored unjudged while ``link`` judges a reason (review S15-R1).
        # Outcome: a reason the gate refuses skips the edge (its memories stay), and
        #          the manifest names the stop reason and the detector.
        refused = self.writes.reason_refusal(spec.reason, a.category)
        if refused is not None:
            judged.skipped_edges.append(
                {**skipped, "reason": refused.stop_reason.value, "detector": refused.detector}
            )
            return
        seen.add(triple)
        judged.edges.append(edge)
