"""Where an ingested file ends: its manifest, its destination, its record and its log line.

Every file a pass decides leaves the drop folder the same way (spec "Ingestion",
step 6): a manifest is written beside its destination in ``processed/`` or
``rejected/`` and the file is moved there (:meth:`Placing._place`). A file that
commits memories names both in its ``ingest_files`` record
(:meth:`Placing._new_record`), so that a rerun recognises its content
(:meth:`Placing._recorded`: a duplicate, or a crash to finish); a file refused
before any database write is placed from the file alone (:meth:`Placing._reject`).
:class:`~memvault.ingest.pipeline._Pass` reads, embeds, gates and commits; this
base class places.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memvault.ingest import manifest as manifests
from memvault.ingest.commit import Embedded, FilePlan
from memvault.ingest.context import IngestContext
from memvault.ingest.judge import Judged
from memvault.ingest.model import ParsedDocument, Rejection, RejectReason
from memvault.ingest.report import DUPLICATE, PROCESSED, REJECTED, FileOutcome
from memvault.ingest.safety import Entry
from memvault.model.enums import MemoryOp
from memvault.store.base import IngestRecord

__all__ = ["Placing", "Prepared", "elapsed_ms"]


def elapsed_ms(since: float) -> float:
    """Milliseconds since ``since`` (a ``time.perf_counter()`` reading)."""
    return (time.perf_counter() - since) * 1000


@dataclass
class Prepared:
    """A file read and parsed, gated with its window, then waiting for the window's vectors."""

    index: int
    entry: Entry
    document: ParsedDocument
    sha: str
    source_path: str
    timings: dict[str, float]
    started: float
    #: the gate's decisions, set when the file's window is judged
    #: (:meth:`~memvault.ingest.pipeline._Pass.gated`)
    judged: Judged = field(default_factory=Judged)


class Placing:
    """A pass's placing of files: manifests, moves, records, outcomes, log lines and stage
    totals (the base of :class:`~memvault.ingest.pipeline._Pass`)."""

    def __init__(self, ctx: IngestContext) -> None:
        self.ctx = ctx
        self.layout = ctx.layout
        self.totals: dict[str, float] = {}

    def _log(self, level: str, event: str, **fields: Any) -> None:
        if self.ctx.log is not None:
            self.ctx.log(level, event, **fields)

    def _count(self, timings: Mapping[str, float]) -> None:
        """Add a file's stage times (ms) to the pass totals (seconds, by stage)."""
        for name, ms in timings.items():
            if name not in {"total_ms", "embed_batch_ms"}:  # a window's, not a file's
                stage = name.removesuffix("_ms")
                self.totals[stage] = self.totals.get(stage, 0.0) + ms / 1000

    def _duplicate_of(self, entry: Entry, sha: str, started: float) -> FileOutcome | None:
        record = self.ctx.store.ingest_record(self.ctx.orchestrator, sha)
        if (
            record is not None
            and record.manifest_path is not None
            and os.path.lexists(self._recorded(record)[1])
        ):
            return self._duplicate(entry, sha, record, started)
        return None

    def _new_record(self, p: Prepared, at: str, taken: set[Path] | None = None) -> IngestRecord:
        """The ``ingest_files`` row of a file about to commit (its destination reserved
        in ``taken`` when it moves after a window's commit)."""
        status = PROCESSED if p.judged.accepted else REJECTED
        directory = self.layout.processed_dir if status == PROCESSED else self.layout.rejected_dir
        destination = manifests.free_destination(directory, p.entry.name, taken or ())
        if taken is not None:
            taken.add(destination)
        return IngestRecord(
            content_sha256=p.sha,
            original_name=p.entry.name,
            size_bytes=p.entry.st.st_size,
            status=status,
            manifest_path=str(
                manifests.manifest_path(destination).relative_to(self.layout.ingest_dir)
            ),
            received_at=at,
            processed_at=at,
        )

    def _stored(
        self, p: Prepared, plan: FilePlan, embedded: Embedded, record: IngestRecord
    ) -> FileOutcome:
        """A committed file: its refusals logged (their REFUSE rows were in its write),
        its manifest written and the file moved."""
        for _candidate, decision, _fields in p.judged.refused:
            self.ctx.writes.log_refusal(MemoryOp.STORE, decision)
        return self._finish(p, plan, embedded, record)

    def _recorded(self, record: IngestRecord) -> tuple[Path, Path]:
        """(manifest, destination) a record names, relative to the drop folder.

        Trigger: paths are stored relative to ``ingest/``. Why: a home that is
        moved or restored elsewhere must still recognise its own files.
        Outcome: joined with this layout's drop folder (absolute paths pass through).
        """
        assert record.manifest_path is not None
        manifest = self.layout.ingest_dir / record.manifest_path
        return manifest, manifest.with_name(manifest.name[: -len(manifests.MANIFEST_SUFFIX)])

    def _finish(
        self,
        p: Prepared,
        plan: FilePlan,
        embedded: Embedded,
        record: IngestRecord,
        *,
        recovered: bool = False,
    ) -> FileOutcome:
        judged = p.judged
        manifest, destination = self._recorded(record)
        refused = manifests.refusal_entries(judged)
        reasons: list[Rejection] = []
        if record.status == REJECTED:
            stops = sorted({d.stop_reason.value for _, d, _ in judged.refused})
            reasons.append(
                Rejection(
                    RejectReason.ALL_CANDIDATES_REFUSED,
                    f"all {len(judged.refused)} candidates were refused",
                    detail={"stop_reasons": stops},
                )
            )
        created_ids = [n.memory_id for _, n, _ in plan.created]
        candidates = manifests.candidate_entries(plan)
        merged_ids = tuple(t for *_, t, _ in plan.merged if t is not None)
        p.timings["total_ms"] = elapsed_ms(p.started)
        self._count(p.timings)
        data = self._manifest_base(p.entry, p.sha, p.source_path, destination, record.status)
        data.update(
            {
                "document_id": f"sha256:{p.sha}",
                "format": p.document.format,
                "reasons": [r.code.value for r in reasons],
                "reason_details": [r.to_json() for r in reasons],
                "candidates": candidates + [dict(r, memory_id=None) for r in refused],
                "refused": list(refused),
                "edges": [e.to_json() for e in plan.edges],
                "skipped_edges": plan.skipped_edges,
                "counts": {
                    "candidates": len(judged.accepted) + len(judged.refused),
                    "stored": len(plan.created),
                    "merged": len(plan.merged),
                    "refused": len(judged.refused),
                    "edges": len(plan.edges),
                },
                "embeddings": embedded.summary(created_ids),
                "notes": dict(p.document.notes),
                "recovered": recovered,
                "timings_ms": {k: round(v, 3) for k, v in p.timings.items()},
            }
        )
        self._place(p.entry, manifest, destination, data)
        outcome = FileOutcome(
            p.entry.name,
            PROCESSED if record.status == PROCESSED else REJECTED,
            reasons=tuple(reasons),
            memory_ids=tuple(created_ids),
            merged_ids=merged_ids,
            refused=refused,
            edge_ids=tuple(e.edge_id for e in plan.edges),
            manifest=str(manifest),
            sha256=p.sha,
            recovered=recovered,
        )
        self._log_outcome(outcome)
        return outcome

    def _manifest_base(
        self, entry: Entry, sha: str | None, source: str | None, destination: Path, status: str
    ) -> dict[str, Any]:
        return {
            "manifest_version": manifests.MANIFEST_VERSION,
            "orchestrator": self.ctx.orchestrator,
            "status": status,
            "duplicate": status == DUPLICATE,
            "file": {
                "name": entry.name,
                "source_path": source or str(entry.path),
                "stored_as": str(destination),
                "sha256": sha,
                "size_bytes": entry.st.st_size,
            },
            "at": self.ctx.now(),
        }

    def _place(self, entry: Entry, manifest: Path, destination: Path, data: dict[str, Any]) -> None:
        manifests.write_manifest(manifest, data)
        manifests.move(entry.path, destination)

    def _reject(
        self,
        entry: Entry,
        reasons: Sequence[Rejection],
        sha: str | None,
        timings: dict[str, float],
        started: float,
    ) -> FileOutcome:
        destination = manifests.free_destination(self.layout.rejected_dir, entry.name)
        manifest = manifests.manifest_path(destination)
        timings["total_ms"] = elapsed_ms(started)
        self._count(timings)
        data = self._manifest_base(entry, sha, None, destination, REJECTED)
        data.update(
            {
                "reasons": [r.code.value for r in reasons],
                "reason_details": [r.to_json() for r in reasons],
                "candidates": [],
                "edges": [],
                "timings_ms": {k: round(v, 3) for k, v in timings.items()},
            }
        )
        self._place(entry, manifest, destination, data)
        outcome = FileOutcome(
            entry.name, REJECTED, reasons=tuple(reasons), manifest=str(manifest), sha256=sha
        )
        self._log_outcome(outcome)
        return outcome

    def _duplicate(
        self, entry: Entry, sha: str, record: IngestRecord, started: float
    ) -> FileOutcome:
        directory = (
            self.layout.processed_dir if record.status == PROCESSED else self.layout.rejected_dir
        )
        destination = manifests.free_destination(directory, entry.name)
        manifest = manifests.manifest_path(destination)
        data = self._manifest_base(entry, sha, None, destination, DUPLICATE)
        data.update(
            {
                "document_id": f"sha256:{sha}",
                "duplicate_of": {
                    "original_name": record.original_name,
                    "status": record.status,
                    "manifest": str(self._recorded(record)[0]),
                    "received_at": record.received_at,
                },
                "reasons": [],
                "candidates": [],
                "edges": [],
                "timings_ms": {"total_ms": round(elapsed_ms(started), 3)},
            }
        )
        self._place(entry, manifest, destination, data)
        outcome = FileOutcome(
            entry.name,
            DUPLICATE,
            manifest=str(manifest),
            sha256=sha,
            duplicate_of=str(self._recorded(record)[0]),
        )
        self._log_outcome(outcome)
        return outcome

    def _log_outcome(self, outcome: FileOutcome) -> None:
        self._log(
            "info" if outcome.status != REJECTED else "warning",
            "ingest_file",
            file=outcome.name,
            status=outcome.status,
            sha256=outcome.sha256,
            memories=outcome.memory_count,
            merged=len(outcome.merged_ids),
            refused=len(outcome.refused),
            reasons=[r.code.value for r in outcome.reasons],
            recovered=outcome.recovered,
            manifest=outcome.manifest,
        )
