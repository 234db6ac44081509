"""The ingestion pipeline: one pass over the drop folder, one transaction per window.

For each file (spec "Ingestion", steps 1–6)::

    discover → safety checks (lstat) → read (stable?) → decode → parse
      → build typed nodes (validation)
      → vectors (batched over a window of files, on worker threads)
      → governance gate, per candidate, with its content's vector (as ``add``)
      → resolve against stored memories (the write path's: merge or create)
      → ONE WriteSet: new nodes with their vectors, merge touches, edges,
        history, change log and the ``ingest_files`` record (by content hash)
      → manifest → move to processed/ or rejected/

A window's write sets commit in one transaction, each file resolved as if
the files before it had committed on their own
(:meth:`_Pass._complete_window`, :mod:`memvault.ingest.window`); a window
without every vector, or one the store refuses, commits file by file.

Files are read on the calling thread, a *window* of files at a time. When a
window closes, its nodes are embedded on worker threads (numpy and
onnxruntime release the GIL), then gated in one batch with those vectors — on
a gate thread that hands the batch to the gate's second process when the
engine's gate has one (``policy.parallel_gate``), else on the calling thread
when the window completes — while the calling thread resolves and commits the
previous window file by file, in discovery order. A file's write set still
holds its nodes *and* their vectors.

Idempotency and crash safety rest on two facts:

* memory and edge ids are derived from (orchestrator, content hash, chunk
  id), and the ``ingest_files`` record commits in the same transaction as the
  file's memories (its window's) — so the database either has all of a file
  or none of it;
* the record names the file's destination. On a rerun, a file whose hash is
  recorded but whose destination is still free was committed and not moved
  (a crash): the pass finishes the move, writing the same manifest. A file
  whose hash is recorded *and* whose destination holds a file is a duplicate:
  no memory is created and its manifest says ``"duplicate": true``.

Files rejected before any database write (unsafe, unsupported, too large,
unparseable, empty) are decided from the file alone, so a rerun decides the
same way. Where each file ends — its manifest, its destination, its record —
is :mod:`memvault.ingest.placing` (the base of this module's pass).

>>> import tempfile, pathlib
>>> from memvault.engine import MemoryEngine
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> with MemoryEngine.open(home, "acme", embedder="hashing") as engine:
...     _ = (engine.layout.ingest_dir / "notes.txt").write_text("Deploys run on Fridays.")
...     report = engine.ingest_pending(settle_seconds=0)
>>> [p.name for p in report.processed], report.processed[0].memory_count
(['notes.txt'], 1)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from memvault.errors import (
    ConfigError,
    StaleWriteError,
    StoreError,
    StoreUnavailableError,
    UnsafePathError,
)
from memvault.ingest.commit import (
    THREAD,
    Embedded,
    FilePlan,
    embed_nodes,
    merge_embedded,
    plan_file,
    shares,
    write_set,
)
from memvault.ingest.context import IngestContext, IngestDisabledError, Progress
from memvault.ingest.dedup import Deduper
from memvault.ingest.judge import WAITS, DocumentJudge, Judge, Judged
from memvault.ingest.manifest import clean_temporaries
from memvault.ingest.model import ParseFailure, Rejection, RejectReason
from memvault.ingest.parsers import PARSERS, decode
from memvault.ingest.placing import Placing, Prepared, elapsed_ms
from memvault.ingest.report import PENDING, FileOutcome, IngestReport
from memvault.ingest.safety import Entry, discover, pass_lock, precheck, read_stable, still
from memvault.ingest.window import PendingView
from memvault.model.node import MemoryNode
from memvault.model.validation import canonical_source_path
from memvault.policy.parallel import offloaded
from memvault.store.base import IngestRecord, WriteSet
from memvault.store.scope import same_owner

__all__ = [
    "FileOutcome",
    "IngestContext",
    "IngestDisabledError",
    "IngestReport",
    "Judge",
    "Progress",
    "run_pass",
]

#: A window closes at this many candidates or files, whichever first (its gate batch).
WINDOW_MEMORIES = 96
#: Texts whose vectors a pass keeps for later windows (:meth:`_Pass.recent`; ~1.5 KB each).
RECENT_VECTORS = 8192
WINDOW_FILES = 32
#: How many times a file is planned again when a merge target changed under it.
_FRESH_PLANS = 3


@dataclass
class _Window:
    files: list[Prepared] = field(default_factory=list)
    memories: int = 0
    futures: list[Future[Embedded]] = field(default_factory=list)
    #: the window's nodes by memory id (what its futures embed)
    nodes: dict[str, MemoryNode] = field(default_factory=dict)
    #: the gate's decisions on the window's files and the milliseconds it took
    gate: Future[tuple[list[Judged], float]] | None = None
    #: without a gate thread: what :meth:`_Pass.gated` runs to judge the window
    decide: Callable[[], tuple[list[Judged], float]] | None = None


class _Pass(Placing):
    def __init__(self, ctx: IngestContext, max_bytes: int) -> None:
        super().__init__(ctx)
        self.max_bytes = max_bytes
        model = ctx.embedder.model_id if ctx.embedder is not None else None
        self.deduper = Deduper(ctx.store, ctx.orchestrator, model_id=model, overrides=ctx.bands)
        #: the window whose embedding started last, and the pass's vectors (:meth:`recent`)
        self.last: _Window | None = None
        self.vectors: OrderedDict[str, Any] = OrderedDict()

    # -- stage 1: read, parse, gate (calling thread) -------------------------

    def prepare(self, index: int, entry: Entry) -> FileOutcome | Prepared:
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
        timings["read_ms"] = elapsed_ms(started)
        sha = hashlib.sha256(read.data).hexdigest()
        try:
            text = decode(read.data)
            parser = PARSERS[os.path.splitext(entry.name)[1].lower()]
            document = parser(text, name=entry.name)
        except ParseFailure as exc:
            return self._reject(entry, [exc.rejection], sha, timings, started)
        timings["parse_ms"] = elapsed_ms(started) - timings["read_ms"]
        if not document.candidates:
            empty = Rejection(RejectReason.EMPTY, "no text to remember in the file")
            return self._reject(entry, [empty], sha, timings, started)
        try:
            source_path = canonical_source_path(entry.path, self.ctx.workspace_roots)
        except UnsafePathError as exc:
            unsafe = Rejection(RejectReason.UNSAFE_PATH, exc.reason, detail={"kind": "outside"})
            return self._reject(entry, [unsafe], sha, timings, started)
        duplicate = self._duplicate_of(entry, sha, started)
        if duplicate is not None:  # known content: not gated again
            return duplicate
        return Prepared(index, entry, document, sha, source_path, timings, started)

    def start(
        self,
        window: _Window,
        gate_pool: ThreadPoolExecutor | None,
        pool: ThreadPoolExecutor | None,
        threads: int,
    ) -> None:
        """Build the window's nodes, start embedding them and start gating them.

        Trigger: a window closes (the previous one waits to be resolved and
          committed on this thread).
        Why: gated here, the window's batch held this thread while the workers
          and the gate's second process had little to do.
        Outcome: the nodes are embedded on the workers (the refused ones too:
          their vectors are never stored); ``gate_pool``'s thread waits for
          those vectors and hands the whole batch, each node with its vector,
          to the gate's second process (:func:`offloaded`) — one batch, each
          node's own decision, the one ``add`` gives the same text — while this
          thread resolves and commits the previous window. Without
          ``gate_pool`` the batch is judged here when the window completes.
        """
        files = window.files
        if not files:
            return
        judge = DocumentJudge(self.ctx.writes, self.ctx.judge, self.ctx.judge_many)
        documents = [(p.document, p.sha, p.source_path) for p in files]
        built = [judge.build(*doc) for doc in documents]
        nodes = [n for each in built for _, n, _ in each if isinstance(n, MemoryNode)]
        known = self.recent()
        window.nodes = {n.memory_id: n for n in nodes}
        futures = window.futures = self.submit(pool, nodes, threads, known)
        self.last = window

        def decide() -> tuple[list[Judged], float]:
            vectors = {k: v for f in futures for k, v in f.result().vectors.items()}
            started = time.perf_counter()
            if gate_pool is None:
                return judge.decide(documents, built, vectors), elapsed_ms(started)
            with offloaded():
                return judge.decide(documents, built, vectors), elapsed_ms(started)

        if gate_pool is not None:
            window.gate = gate_pool.submit(decide)
        else:
            window.decide = decide

    def gated(self, window: _Window) -> None:
        """Wait for the window's decisions; its gate time is shared by candidate counts."""
        if window.gate is not None:
            judged, spent = window.gate.result()
        elif window.decide is not None:
            judged, spent = window.decide()
        else:
            return
        total = sum(len(p.document.candidates) for p in window.files) or 1
        for p, result in zip(window.files, judged, strict=True):
            p.judged = result
            p.timings["gate_ms"] = spent * len(p.document.candidates) / total

    # -- stage 2: vectors (worker threads) -----------------------------------

    def recent(self) -> dict[str, Any]:
        """The vectors this pass has made so far, by text (:data:`RECENT_VECTORS` at most).

        Trigger: a window's embedding starts while the window before it is still
          to commit, and a candidate merged into a stored memory leaves no vector
          in the store's cache.
        Why: a text seen earlier in the pass (a repeated sentence) was embedded
          again (~7% of the bench's texts).
        Outcome: every window's vectors are kept (the same embedder, the same
          text: the same vector) and handed to the next window's workers. The
          previous window's shares are waited for: they hold the workers the next
          window's shares would queue for, and its commit waits for them next.
        """
        last = self.last
        if last is not None:
            for future in last.futures:
                if future.exception() is None:
                    self.remember(last, future.result())
        return dict(self.vectors)

    def remember(self, window: _Window, embedded: Embedded) -> None:
        """Keep ``embedded``'s vectors by text for :meth:`recent` (oldest dropped first)."""
        for memory_id, row in embedded.vectors.items():
            node = window.nodes.get(memory_id)
            if node is None:
                continue
            self.vectors[node.content] = row.vector
            self.vectors.move_to_end(node.content)
        while len(self.vectors) > RECENT_VECTORS:
            self.vectors.popitem(last=False)

    def submit(
        self,
        pool: ThreadPoolExecutor | None,
        nodes: Sequence[MemoryNode],
        threads: int,
        known: Mapping[str, Any] | None = None,
    ) -> list[Future[Embedded]]:
        """Start embedding ``nodes``: one share per worker thread (``known``: vectors
        by text, not embedded again)."""
        embedder = self.ctx.embedder
        if embedder is None or not nodes or pool is None:
            return []
        return [
            pool.submit(embed_nodes, self.ctx.store, embedder, share, known=known)
            for share in shares(nodes, threads)
        ]

    # -- stage 3: resolve, commit, place (calling thread, discovery order) ----

    def complete(self, window: _Window) -> list[tuple[int, FileOutcome]]:
        self.gated(window)
        why_none = self.ctx.embedder_error or "no embedder configured"
        embedded = merge_embedded([f.result() for f in window.futures], why_none)
        self.remember(window, embedded)
        batch_ms = embedded.seconds * 1000
        for p in window.files:
            p.timings["embed_batch_ms"] = batch_ms
        # Trigger: a file with a decision the gate could not make (its weights missing,
        #   an exception: fail closed, INTERNAL_INCONSISTENCY) — review S16-R7 — or a
        #   memory the per-user daily cap refused (ENTITLEMENT_CAP) — review S17-R3.
        # Why: rejected and recorded, the same file dropped again once the gate was
        #   repaired (or the next day) was a duplicate of the rejected one: its memories
        #   never got in; partly capped, the rest was lost the same way.
        # Outcome: nothing of it is written or moved; it stays pending for the next pass.
        held = [p for p in window.files if p.judged.waits()]
        for reason, event in WAITS.items():
            names = [p.entry.name for p in held if p.judged.waits() is reason]
            if names:
                self._log("warning", event, files=names)
        files = [p for p in window.files if p.judged.waits() is None]
        if self._one_transaction(files, embedded):
            out = self._complete_window(files, embedded)
        else:
            out = [self._complete_one(p, embedded) for p in files]
        self.totals["embed"] = self.totals.get("embed", 0.0) + embedded.seconds
        return out + [(p.index, FileOutcome(p.entry.name, PENDING)) for p in held]

    def _complete_one(
        self, p: Prepared, embedded: Embedded, deduper: Deduper | None = None
    ) -> tuple[int, FileOutcome]:
        try:
            return p.index, self._complete_file(p, embedded, deduper)
        except FileNotFoundError:
            return p.index, FileOutcome(p.entry.name, PENDING)  # vanished mid-pass

    def _one_transaction(self, files: Sequence[Prepared], embedded: Embedded) -> bool:
        """True when a window's files can commit together (see :meth:`_complete_window`).

        Every accepted candidate needs its vector: resolve reads staged files by
        vector only (:class:`~memvault.ingest.window.PendingView`); without one a
        candidate is matched by full text, which staged files do not have yet.
        """
        return (
            len(files) > 1
            and self.deduper.model_id is not None
            and embedded.error is None
            and all(n.memory_id in embedded.vectors for p in files for _, n, _ in p.judged.accepted)
        )

    def _complete_window(
        self, files: Sequence[Prepared], embedded: Embedded
    ) -> list[tuple[int, FileOutcome]]:
        """A window's files resolved in order and committed in ONE transaction.

        Trigger: a window of files whose candidates all have vectors.
        Why: one transaction (one fsync, one revision) a file was about half
          of a pass's wall time on small files.
        Outcome: each file is resolved as the file-by-file commits resolved it —
          against the store plus the files staged before it
          (:class:`~memvault.ingest.window.PendingView`) — and the window's
          write sets commit together, then every file is placed. A file with
          the same content as a staged one waits for the commit (it is then a
          duplicate). When the store refuses the window's write (nothing was
          written) every file is committed on its own, as before, so only a
          failing file is rejected; a store that is unavailable stops the pass.
        """
        model = self.deduper.model_id
        assert model is not None  # _one_transaction
        view = PendingView(self.ctx.store, self.ctx.orchestrator, model_id=model)
        deduper = replace(self.deduper, window=view)
        view.prefetch(
            [
                (same_owner(n.user_id, n.project_id), embedded.vectors[n.memory_id].vector)
                for p in files
                for _, n, _ in p.judged.accepted
            ],
            deduper.neighbours,
        )
        at = self.ctx.now()
        builder = self.ctx.writes.builder(at, THREAD)
        outcomes: dict[int, FileOutcome] = {}
        staged: list[tuple[Prepared, FilePlan, IngestRecord, WriteSet]] = []
        later: list[Prepared] = []
        taken: set[Path] = set()
        for p in files:
            try:
                if p.sha in view.shas:
                    later.append(p)
                    continue
                early = self._recorded_outcome(p, embedded, deduper)
                if early is not None:
                    outcomes[p.index] = early
                    continue
                plan = self._plan(p, embedded, deduper)
                record = self._new_record(p, at, taken)
                write = write_set(builder, p.judged, plan, embedded, record, sha=p.sha)
                staged.append((p, plan, record, write))
                view.stage(
                    p.sha,
                    [n for _, n, _ in plan.created],
                    plan.touched,
                    plan.edges,
                    embedded.vectors,
                )
            except FileNotFoundError:
                outcomes[p.index] = FileOutcome(p.entry.name, PENDING)  # vanished mid-pass
        if staged:
            started = time.perf_counter()
            try:
                self.ctx.writes.apply(builder.combined([w for *_, w in staged]))
            except StoreUnavailableError:
                raise
            except StoreError as exc:
                self._log("warning", "ingest_window_failed", files=len(staged), error=str(exc))
                for p, *_ in staged:
                    outcomes.update([self._complete_one(p, embedded)])
                staged = []
            spent = elapsed_ms(started)
            total = sum(len(p.document.candidates) for p, *_ in staged) or 1
            for p, plan, record, _ in staged:
                p.timings["commit_ms"] = spent * len(p.document.candidates) / total
                try:
                    outcomes[p.index] = self._stored(p, plan, embedded, record)
                except FileNotFoundError:  # committed; a rerun finishes its move
                    outcomes[p.index] = FileOutcome(p.entry.name, PENDING)
        for p in later:
            outcomes.update([self._complete_one(p, embedded)])
        return [(p.index, outcomes[p.index]) for p in files]

    def _complete_file(
        self, p: Prepared, embedded: Embedded, deduper: Deduper | None = None
    ) -> FileOutcome:
        early = self._recorded_outcome(p, embedded, deduper)
        if early is not None:
            return early
        for attempt in range(_FRESH_PLANS):
            plan = self._plan(p, embedded, deduper)
            record = self._new_record(p, self.ctx.now())
            commit_started = time.perf_counter()
            builder = self.ctx.writes.builder(record.processed_at, THREAD)
            write = write_set(builder, p.judged, plan, embedded, record, sha=p.sha)
            try:
                self.ctx.writes.apply(write)
                break
            except StaleWriteError:
                # Trigger: a merge target changed (a delete, an edit) since the plan read it.
                # Why: the merge wrote the copy back, undoing that change (review S12-R4).
                # Outcome: rolled back; planned again on a fresh read (then rejected).
                if attempt + 1 < _FRESH_PLANS:
                    deduper = None  # the store, not a window's staged view
                    continue
                failed = Rejection(RejectReason.STORE_FAILED, "merge targets kept changing")
                return self._reject(p.entry, [failed], p.sha, p.timings, p.started)
            except StoreUnavailableError:
                raise
            except StoreError as exc:
                # Trigger: the store refused the file's write set (nothing was written).
                # Why: one transaction per file — a file is all in or all out.
                # Outcome: the file is rejected with STORE_FAILED and its manifest.
                failed = Rejection(RejectReason.STORE_FAILED, f"{type(exc).__name__}: {exc}")
                return self._reject(p.entry, [failed], p.sha, p.timings, p.started)
        p.timings["commit_ms"] = elapsed_ms(commit_started)
        return self._stored(p, plan, embedded, record)

    def _plan(
        self,
        p: Prepared,
        embedded: Embedded,
        deduper: Deduper | None = None,
        *,
        recovered: bool = False,
    ) -> FilePlan:
        plan = plan_file(
            p.judged,
            embedded,
            deduper or self.deduper,
            sha=p.sha,
            at=self.ctx.now(),
            nudge=self.ctx.merge_nudge,
            recovered=recovered,
        )
        p.timings["resolve_ms"] = plan.resolve_seconds * 1000
        return plan

    def _recorded_outcome(
        self, p: Prepared, embedded: Embedded, deduper: Deduper | None
    ) -> FileOutcome | None:
        """The outcome of a file that writes nothing (changed, duplicate, recovered), or None."""
        entry = p.entry
        if not still(entry):
            return FileOutcome(entry.name, PENDING)  # changed while its window was embedded
        # Trigger: the same content may have been committed since this file was
        # read (an identical file earlier in the window). Outcome: checked again.
        record = self.ctx.store.ingest_record(self.ctx.orchestrator, p.sha)
        if record is None or record.manifest_path is None:
            return None
        if os.path.lexists(self._recorded(record)[1]):
            return self._duplicate(entry, p.sha, record, p.started)
        # Trigger: the content is recorded but its file was never moved.
        # Why: a crash after the commit and before the move; the memories
        #      exist (same derived ids) and must not be written twice.
        # Outcome: finish exactly as the interrupted pass would have.
        plan = self._plan(p, embedded, deduper, recovered=True)
        return self._finish(p, plan, embedded, record, recovered=True)


def run_pass(
    ctx: IngestContext,
    *,
    enabled: bool = True,
    max_file_size_mb: float = 10.0,
    settle_seconds: float = 0.2,
    progress: Progress | None = None,
    embed_threads: int = 2,
) -> IngestReport:
    """Process everything pending in the drop folder once.

    ``settle_seconds`` is the pause between the discovery ``lstat`` and the
    second check that tells a finished file from one still being written.
    ``embed_threads`` workers embed a window of files while the calling thread
    reads and gates the next. Raises :class:`IngestDisabledError` when
    ``enabled`` is false.
    """
    if not enabled:
        raise IngestDisabledError()
    if max_file_size_mb <= 0:
        raise ConfigError(
            f"memory.ingest.max_file_size_mb must be positive, got {max_file_size_mb}"
        )
    if embed_threads < 1:
        raise ConfigError(f"embed_threads must be at least 1, got {embed_threads}")
    started = time.perf_counter()
    layout = ctx.layout.ensure()
    work = _Pass(ctx, int(max_file_size_mb * 1024 * 1024))
    results: list[FileOutcome | None] = []
    with pass_lock(layout.ingest_dir / ".lock"):
        clean_temporaries((layout.processed_dir, layout.rejected_dir))
        entries = discover(layout.ingest_dir)
        if entries and settle_seconds > 0:
            time.sleep(settle_seconds)
        results = [None] * len(entries)
        done = 0

        def place(pairs: Sequence[tuple[int, FileOutcome]]) -> None:
            nonlocal done
            for index, outcome in pairs:
                results[index] = outcome
                done += 1
                if progress is not None:
                    progress(done, len(entries), outcome.name)

        with contextlib.ExitStack() as resources:
            pool: ThreadPoolExecutor | None = None
            if ctx.embedder is not None:
                # Trigger: embedding workers run numpy matmuls in parallel. Why:
                # OpenBLAS's own threads on top of them oversubscribe the cores
                # (spinning; on the shared 2-core box a 16-text batch took 1.1 s
                # instead of 0.18 s). Outcome: one BLAS thread each during the
                # pass, restored after it (process-wide while the pass runs).
                resources.enter_context(threadpool_limits(limits=1, user_api="blas"))
                pool = resources.enter_context(ThreadPoolExecutor(embed_threads, "ingest-embed"))
            gate_pool: ThreadPoolExecutor | None = None
            if ctx.offload_gate:
                gate_pool = resources.enter_context(ThreadPoolExecutor(1, "ingest-gate"))
            waiting: _Window | None = None  # embedding on the workers
            window = _Window()
            for index, entry in enumerate(entries):
                try:
                    prepared = work.prepare(index, entry)
                except FileNotFoundError:
                    prepared = FileOutcome(entry.name, PENDING)  # vanished mid-pass
                if isinstance(prepared, FileOutcome):
                    place([(index, prepared)])
                    continue
                window.files.append(prepared)
                window.memories += len(prepared.document.candidates)
                if window.memories >= WINDOW_MEMORIES or len(window.files) >= WINDOW_FILES:
                    work.start(window, gate_pool, pool, embed_threads)
                    if waiting is not None:
                        place(work.complete(waiting))
                    waiting, window = window, _Window()
            work.start(window, gate_pool, pool, embed_threads)
            for last in (waiting, window):
                if last is not None and last.files:
                    place(work.complete(last))
    outcomes = tuple(o for o in results if o is not None)
    report = IngestReport(
        outcomes,
        time.perf_counter() - started,
        timings={k: round(v, 3) for k, v in sorted(work.totals.items())},
    )
    if outcomes:
        work._log(
            "info",
            "ingest_pass",
            processed=len(report.processed),
            rejected=len(report.rejected),
            duplicates=len(report.duplicates),
            pending=len(report.pending),
            memories=report.memories,
            merged=report.merged,
            seconds=round(report.seconds, 3),
        )
    return report
