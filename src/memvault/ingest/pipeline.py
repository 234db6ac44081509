"""The ingestion pipeline: one pass over the drop folder, one transaction per file.

For each file (spec "Ingestion", steps 1–6)::

    discover → safety checks (lstat) → read (stable?) → decode → parse
      → build typed nodes (validation) → governance gate, per candidate
      → ONE WriteSet: accepted nodes, edges, history, change log and the
        ``ingest_files`` record (keyed by content hash)
      → manifest → move to processed/ or rejected/

Idempotency and crash safety rest on two facts:

* memory and edge ids are derived from (orchestrator, content hash, chunk
  id), and the ``ingest_files`` record commits in the same transaction as the
  file's memories — so the database either has all of a file or none of it;
* the record names the file's destination. On a rerun, a file whose hash is
  recorded but whose destination is still free was committed and not moved
  (a crash): the pass finishes the move, writing the same manifest. A file
  whose hash is recorded *and* whose destination holds a file is a duplicate:
  no memory is created and its manifest says ``"duplicate": true``.

Files rejected before any database write (unsafe, unsupported, too large,
unparseable, empty) are decided from the file alone, so a rerun decides the
same way.

>>> import tempfile, pathlib
>>> from memvault.engine import MemoryEngine
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> with MemoryEngine.open(home, "acme") as engine:
...     _ = (engine.layout.ingest_dir / "notes.txt").write_text("Deploys run on Fridays.")
...     report = engine.ingest_pending(settle_seconds=0)
>>> [p.name for p in report.processed], report.processed[0].memory_count
(['notes.txt'], 1)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.errors import (
    ConfigError,
    StoreError,
    StoreUnavailableError,
    UnsafePathError,
)
from memvault.ingest.judge import DocumentJudge, Judge, Judged
from memvault.ingest.manifest import (
    MANIFEST_SUFFIX,
    MANIFEST_VERSION,
    clean_temporaries,
    free_destination,
    manifest_path,
    move,
    write_manifest,
)
from memvault.ingest.model import (
    ParsedDocument,
    ParseFailure,
    Rejection,
    RejectReason,
)
from memvault.ingest.parsers import PARSERS, decode
from memvault.ingest.report import (
    DUPLICATE,
    PENDING,
    PROCESSED,
    REJECTED,
    FileOutcome,
    IngestReport,
)
from memvault.ingest.safety import Entry, discover, precheck, read_stable, still
from memvault.model.enums import (
    ChangeKind,
    HistoryOp,
    StopReason,
)
from memvault.model.validation import canonical_source_path
from memvault.runtime import RuntimeLayout
from memvault.store.base import ChangeEntry, HistoryEvent, IngestRecord, Store, WriteSet

__all__ = [
    "FileOutcome",
    "IngestContext",
    "IngestDisabledError",
    "IngestReport",
    "Judge",
    "Progress",
    "run_pass",
]

#: ``(files done, files total, name of the file just finished)``.
Progress = Callable[[int, int, str], None]
#: ``log(level, event, **fields)`` — a JSON line in ``logs/memory.log``.
LogFn = Callable[..., None]

THREAD = "ingest"


class IngestDisabledError(ConfigError):
    """``memory.ingest.enabled`` is false: the drop folder is not read."""

    def __init__(self) -> None:
        super().__init__(
            "ingestion is disabled (memory.ingest.enabled = false); nothing was read",
            hint="set memory.ingest.enabled = true to process the drop folder",
        )


@dataclass(frozen=True)
class IngestContext:
    """What a pass needs from the engine: store, scope, gate, clock and log."""

    store: Store
    orchestrator: str
    layout: RuntimeLayout
    judge: Judge
    now: Callable[[], str]
    log: LogFn | None = None
    workspace_roots: tuple[Path, ...] = ()
    actor: str | None = None


# -- helpers -------------------------------------------------------------------


@contextlib.contextmanager
def _pass_lock(path: Path) -> Iterator[None]:
    """One pass at a time per drop folder (a watcher and a ``--once`` may overlap)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


# -- the pass --------------------------------------------------------------------


class _Pass:
    def __init__(self, ctx: IngestContext, max_bytes: int) -> None:
        self.ctx = ctx
        self.max_bytes = max_bytes
        self.layout = ctx.layout

    def _log(self, level: str, event: str, **fields: Any) -> None:
        if self.ctx.log is not None:
            self.ctx.log(level, event, **fields)

    # -- per file ------------------------------------------------------------

    def process(self, entry: Entry) -> FileOutcome:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        rejection = precheck(entry, self.max_bytes)
        if rejection is not None:
            return self._reject(entry, [rejection], None, timings, started)
        read = read_stable(entry, self.max_bytes)
        if read.error is not None:
            unreadable = Rejection(RejectReason.UNREADABLE, read.error)
            return self._reject(entry, [unreadable], None, timings, started)
        if read.changed or not still(entry):
            # Trigger: size, mtime or inode moved between discovery and reading.
            # Why: a half-written file would be ingested (and hashed) half.
            # Outcome: left in place for the next pass.
            return FileOutcome(entry.name, PENDING)
        timings["read_ms"] = _ms(started)
        sha = hashlib.sha256(read.data).hexdigest()
        try:
            text = decode(read.data)
            parser = PARSERS[os.path.splitext(entry.name)[1].lower()]
            document = parser(text, name=entry.name)
        except ParseFailure as exc:
            return self._reject(entry, [exc.rejection], sha, timings, started)
        timings["parse_ms"] = _ms(started) - timings["read_ms"]
        if not document.candidates:
            empty = Rejection(RejectReason.EMPTY, "no text to remember in the file")
            return self._reject(entry, [empty], sha, timings, started)
        try:
            source_path = canonical_source_path(entry.path, self.ctx.workspace_roots)
        except UnsafePathError as exc:
            unsafe = Rejection(RejectReason.UNSAFE_PATH, exc.reason, detail={"kind": "outside"})
            return self._reject(entry, [unsafe], sha, timings, started)
        record = self.ctx.store.ingest_record(self.ctx.orchestrator, sha)
        if record is not None and record.manifest_path is not None:
            destination = self._recorded(record)[1]
            if os.path.lexists(destination):
                return self._duplicate(entry, sha, record, started)
        gate_started = time.perf_counter()
        judged = DocumentJudge(self.ctx.orchestrator, self.ctx.now, self.ctx.judge).judge(
            document, sha, source_path
        )
        timings["gate_ms"] = _ms(gate_started)
        if record is not None and record.manifest_path is not None:
            # Trigger: the content is recorded but its file was never moved.
            # Why: a crash after the commit and before the move; the memories
            #      exist (same derived ids) and must not be written twice.
            # Outcome: finish exactly as the interrupted pass would have.
            return self._finish(
                entry, document, judged, sha, source_path, record, timings, started, recovered=True
            )
        return self._commit(entry, document, judged, sha, source_path, timings, started)

    def _recorded(self, record: IngestRecord) -> tuple[Path, Path]:
        """(manifest, destination) a record names, relative to the drop folder.

        Trigger: paths are stored relative to ``ingest/``. Why: a home that is
        moved or restored elsewhere must still recognise its own files.
        Outcome: joined with this layout's drop folder (absolute paths pass through).
        """
        assert record.manifest_path is not None
        manifest = self.layout.ingest_dir / record.manifest_path
        return manifest, manifest.with_name(manifest.name[: -len(MANIFEST_SUFFIX)])

    def _event(self, op: HistoryOp, at: str, **fields: Any) -> HistoryEvent:
        return HistoryEvent(
            event_id=f"evt_{int(time.time() * 1000):012x}{secrets.token_hex(8)}",
            orchestrator_id=self.ctx.orchestrator,
            op=op,
            at=at,
            actor=self.ctx.actor,
            **fields,
        )

    def _write_set(
        self, entry: Entry, judged: Judged, sha: str, record: IngestRecord, at: str
    ) -> WriteSet:
        document = f"sha256:{sha}"
        events: list[HistoryEvent] = []
        changes: list[ChangeEntry] = []
        for candidate, node, decision in judged.accepted:
            events.append(
                self._event(
                    HistoryOp.CREATE,
                    at,
                    memory_id=node.memory_id,
                    stop_reason=decision.stop_reason,
                    detector=decision.detector,
                    detail={
                        "type": node.type.value,
                        "category": node.category,
                        "ingest": {"document": document, "chunk": candidate.chunk_id},
                    },
                )
            )
            changes.append(ChangeEntry(node.memory_id, ChangeKind.CREATED, node.summary))
        for edge in judged.edges:
            events.append(
                self._event(
                    HistoryOp.LINK,
                    at,
                    memory_id=edge.from_memory_id,
                    stop_reason=StopReason.SUCCESS_STORED,
                    detail={
                        "edge_id": edge.edge_id,
                        "edge_type": edge.edge_type.value,
                        "to": edge.to_memory_id,
                    },
                )
            )
        for candidate, decision, fields in judged.refused:
            # A refusal records stop reason, detector and field names — never content.
            events.append(
                self._event(
                    HistoryOp.REFUSE,
                    at,
                    stop_reason=decision.stop_reason,
                    detector=decision.detector,
                    detail={
                        "op": "STORE",
                        "fields": list(fields),
                        "ingest": {"document": document, "chunk": candidate.chunk_id},
                    },
                )
            )
        return WriteSet(
            self.ctx.orchestrator,
            at,
            nodes=tuple(node for _, node, _ in judged.accepted),
            edges=tuple(judged.edges),
            ingest_records=(record,),
            events=tuple(events),
            changes=tuple(changes),
            thread_id=THREAD,
        )

    def _commit(
        self,
        entry: Entry,
        document: ParsedDocument,
        judged: Judged,
        sha: str,
        source_path: str,
        timings: dict[str, float],
        started: float,
    ) -> FileOutcome:
        status = PROCESSED if judged.accepted else REJECTED
        directory = self.layout.processed_dir if status == PROCESSED else self.layout.rejected_dir
        destination = free_destination(directory, entry.name)
        at = self.ctx.now()
        record = IngestRecord(
            content_sha256=sha,
            original_name=entry.name,
            size_bytes=entry.st.st_size,
            status=status,
            manifest_path=str(manifest_path(destination).relative_to(self.layout.ingest_dir)),
            received_at=at,
            processed_at=at,
        )
        commit_started = time.perf_counter()
        try:
            self.ctx.store.apply(self._write_set(entry, judged, sha, record, at))
        except StoreUnavailableError:
            raise
        except StoreError as exc:
            # Trigger: the store refused the file's write set (nothing was written).
            # Why: one transaction per file — a file is all in or all out.
            # Outcome: the file is rejected with STORE_FAILED and its manifest.
            failed = Rejection(RejectReason.STORE_FAILED, f"{type(exc).__name__}: {exc}")
            return self._reject(entry, [failed], sha, timings, started)
        timings["commit_ms"] = _ms(commit_started)
        return self._finish(entry, document, judged, sha, source_path, record, timings, started)

    def _finish(
        self,
        entry: Entry,
        document: ParsedDocument,
        judged: Judged,
        sha: str,
        source_path: str,
        record: IngestRecord,
        timings: dict[str, float],
        started: float,
        *,
        recovered: bool = False,
    ) -> FileOutcome:
        manifest, destination = self._recorded(record)
        refused = tuple(
            {
                "chunk_id": c.chunk_id,
                "line": c.line,
                "ref": c.ref,
                "stop_reason": d.stop_reason.value,
                "detector": d.detector,
                "fields": list(fields),
            }
            for c, d, fields in judged.refused
        )
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
        candidates = [
            {
                "chunk_id": c.chunk_id,
                "line": c.line,
                "ref": c.ref,
                "memory_id": n.memory_id,
                "type": n.type.value,
                "category": n.category,
                "stop_reason": d.stop_reason.value,
                "detector": d.detector,
            }
            for c, n, d in judged.accepted
        ]
        timings["total_ms"] = _ms(started)
        data = self._manifest_base(entry, sha, source_path, destination, record.status)
        data.update(
            {
                "document_id": f"sha256:{sha}",
                "format": document.format,
                "reasons": [r.code.value for r in reasons],
                "reason_details": [r.to_json() for r in reasons],
                "candidates": candidates + [dict(r, memory_id=None) for r in refused],
                "refused": list(refused),
                "edges": [e.to_json() for e in judged.edges],
                "skipped_edges": judged.skipped_edges,
                "counts": {
                    "candidates": len(judged.accepted) + len(judged.refused),
                    "stored": len(judged.accepted),
                    "refused": len(judged.refused),
                    "edges": len(judged.edges),
                },
                "notes": dict(document.notes),
                "recovered": recovered,
                "timings_ms": {k: round(v, 3) for k, v in timings.items()},
            }
        )
        self._place(entry, manifest, destination, data)
        outcome = FileOutcome(
            entry.name,
            PROCESSED if record.status == PROCESSED else REJECTED,
            reasons=tuple(reasons),
            memory_ids=tuple(n.memory_id for _, n, _ in judged.accepted),
            refused=refused,
            edge_ids=tuple(e.edge_id for e in judged.edges),
            manifest=str(manifest),
            sha256=sha,
            recovered=recovered,
        )
        self._log_outcome(outcome)
        return outcome

    def _manifest_base(
        self, entry: Entry, sha: str | None, source: str | None, destination: Path, status: str
    ) -> dict[str, Any]:
        return {
            "manifest_version": MANIFEST_VERSION,
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
        write_manifest(manifest, data)
        move(entry.path, destination)

    def _reject(
        self,
        entry: Entry,
        reasons: Sequence[Rejection],
        sha: str | None,
        timings: dict[str, float],
        started: float,
    ) -> FileOutcome:
        destination = free_destination(self.layout.rejected_dir, entry.name)
        manifest = manifest_path(destination)
        timings["total_ms"] = _ms(started)
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
        destination = free_destination(directory, entry.name)
        manifest = manifest_path(destination)
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
                "timings_ms": {"total_ms": round(_ms(started), 3)},
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
            refused=len(outcome.refused),
            reasons=[r.code.value for r in outcome.reasons],
            recovered=outcome.recovered,
            manifest=outcome.manifest,
        )


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def run_pass(
    ctx: IngestContext,
    *,
    enabled: bool = True,
    max_file_size_mb: float = 10.0,
    settle_seconds: float = 0.2,
    progress: Progress | None = None,
) -> IngestReport:
    """Process everything pending in the drop folder once.

    ``settle_seconds`` is the pause between the discovery ``lstat`` and the
    second check that tells a finished file from one still being written.
    Raises :class:`IngestDisabledError` when ``enabled`` is false.
    """
    if not enabled:
        raise IngestDisabledError()
    if max_file_size_mb <= 0:
        raise ConfigError(
            f"memory.ingest.max_file_size_mb must be positive, got {max_file_size_mb}"
        )
    started = time.perf_counter()
    layout = ctx.layout.ensure()
    work = _Pass(ctx, int(max_file_size_mb * 1024 * 1024))
    outcomes: list[FileOutcome] = []
    with _pass_lock(layout.ingest_dir / ".lock"):
        clean_temporaries((layout.processed_dir, layout.rejected_dir))
        entries = discover(layout.ingest_dir)
        if entries and settle_seconds > 0:
            time.sleep(settle_seconds)
        for done, entry in enumerate(entries, start=1):
            try:
                outcomes.append(work.process(entry))
            except FileNotFoundError:
                outcomes.append(FileOutcome(entry.name, PENDING))  # vanished mid-pass
            if progress is not None:
                progress(done, len(entries), entry.name)
    report = IngestReport(tuple(outcomes), time.perf_counter() - started)
    if outcomes:
        work._log(
            "info",
            "ingest_pass",
            processed=len(report.processed),
            rejected=len(report.rejected),
            duplicates=len(report.duplicates),
            pending=len(report.pending),
            memories=report.memories,
            seconds=round(report.seconds, 3),
        )
    return report
