"""The daily consolidation worker: pool → pre-filters → pairs → merge, link or propose.

Neighbours come from the engine's own recall (``engine.search``, hybrid when
embeddings are on), similarity from the engine's similarity model (embedding
cosine, else lexical), and the bands from the write path's calibration
(:func:`memvault.write.config.bands_for`), so the worker and the hot path
agree on what "duplicate" and "related" mean.

>>> import tempfile
>>> from memvault.engine import MemoryEngine
>>> with MemoryEngine.open(tempfile.mkdtemp(), "acme") as engine:
...     engine.consolidate().to_json()["counts"]["pairs_checked"]
0
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from memvault.errors import StaleWriteError
from memvault.lifecycle.consolidate import (
    ConsolidationReport,
    PairView,
    classify,
    lexical_overlap,
    numbers,
    pair_key,
    top_decile_access,
)
from memvault.lifecycle.proposals import ProposalResult
from memvault.lifecycle.settings import LifecyclePolicy
from memvault.model.enums import ChangeKind, EdgeType, HistoryOp, MemoryOp, MemoryStatus
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.retrieval.text import query_terms
from memvault.store.base import ChangeEntry, NodeFilter, Store, WriteSet
from memvault.store.records import OpEvent
from memvault.write.commit import WriteBuilder
from memvault.write.config import bands_for
from memvault.write.pipeline import WritePipeline
from memvault.write.similarity import LexicalSimilarity, Similarity

__all__ = ["Consolidator", "RecallFn"]

RecallFn = Callable[[str, NodeFilter, int], list[MemoryNode]]
ProposeFn = Callable[[MemoryNode, MemoryNode], tuple[ProposalResult, WriteSet | None]]
PAIR_OP = "pair_checked"
#: Decisions written per transaction (one fsync per batch, not per pair).
BATCH = 200


class _Batch:
    """Write sets of one run, merged and applied ``BATCH`` at a time.

    A decision's part carries the ``updated_at`` of the memories it was decided on
    (``read``); :attr:`dropped` holds the labels of parts left out because one of those
    memories changed before the batch was written.
    """

    def __init__(self, writes: WritePipeline, builder: WriteBuilder) -> None:
        self.writes, self.builder = writes, builder
        self.parts: list[tuple[WriteSet, object]] = []
        self.dropped: set[object] = set()

    def add(self, write: WriteSet, read: Sequence[MemoryNode] = (), label: object = None) -> None:
        if read:
            write = replace(write, expected=tuple((n.memory_id, n.updated_at) for n in read))
        self.parts.append((write, label))
        if len(self.parts) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Apply the parts as one transaction, without those decided on a stale copy.

        Trigger: a user deletes, edits or erases a memory after the run decided on it
          (a batch is written up to ``BATCH`` decisions later).
        Why: the merge wrote its copies back: the delete undone (the memory came back
          superseded), the edit overwritten, an erased user's memories and proposal
          text written again after ``forget_user`` reported none left (review S12).
        Outcome: the store refuses the batch (:class:`StaleWriteError`); every part
          decided on that memory is left out (its pair is checked again next run) and
          the rest is written.
        """
        parts, self.parts = self.parts, []
        while parts:
            try:
                self.writes.apply(self.builder.combined([w for w, _ in parts]))
                return
            except StaleWriteError as exc:
                stale = [p for p in parts if any(m == exc.memory_id for m, _ in p[0].expected)]
                if not stale:
                    raise
                self.dropped.update(label for _, label in stale if label is not None)
                parts = [p for p in parts if p not in stale]


class Consolidator:
    """One run of the consolidation worker over one orchestrator."""

    def __init__(
        self,
        *,
        store: Store,
        orchestrator: str,
        policy: LifecyclePolicy,
        stamp: Callable[[datetime], str],
        new_id: Callable[[str], str],
        writes: Callable[[], WritePipeline],
        gate_allows: Callable[[MemoryOp, MemoryNode], bool],
        propose: ProposeFn,
        recall: RecallFn | None = None,
        similarity: Similarity | None = None,
    ) -> None:
        self.store = store
        self.orch = orchestrator
        self.cfg = policy.consolidation
        self.stamp = stamp
        self.new_id = new_id
        self.writes = writes
        self.gate_allows = gate_allows
        self.propose = propose
        self.recall = recall or self._text_recall
        self.similarity: Similarity = similarity or LexicalSimilarity()
        self.bands = bands_for(self.similarity.model_id)

    def _text_recall(self, query: str, flt: NodeFilter, k: int) -> list[MemoryNode]:
        hits = self.store.search_text(self.orch, query_terms(query), flt, limit=k)
        found = {
            n.memory_id: n for n in self.store.get_nodes(self.orch, [h.memory_id for h in hits])
        }
        return [found[h.memory_id] for h in hits if h.memory_id in found]

    # -- the pool --------------------------------------------------------------

    def _eligible(self, moment: datetime) -> list[MemoryNode]:
        since = self.stamp(moment - self.cfg.max_age)
        out: list[MemoryNode] = []
        flt = NodeFilter(updated_after=since)
        while True:
            page = self.store.list_nodes(self.orch, flt, limit=5000, offset=len(out))
            out.extend(page)
            if len(page) < 5000:
                return out

    def _pool(self, nodes: list[MemoryNode], moment: datetime) -> list[MemoryNode]:
        """Recently changed, important, or frequently retrieved — most recent first."""
        frequent = top_decile_access([n.access_count for n in nodes], self.cfg.frequent_fraction)
        recent = self.stamp(moment - self.cfg.recent_window)
        pool = [
            n
            for n in nodes
            if n.updated_at >= recent
            or n.importance >= self.cfg.important_min
            or n.access_count >= frequent
        ]
        pool.sort(key=lambda n: n.memory_id)
        pool.sort(key=lambda n: n.updated_at, reverse=True)
        return pool[: self.cfg.max_candidates]

    def _history(self, moment: datetime) -> tuple[set[tuple[str, float]], Counter[str]]:
        """Fingerprints of the last ``fingerprint_ttl`` and today's pairs per user."""
        events = self.store.op_events(
            self.orch, op=PAIR_OP, since=self.stamp(moment - self.cfg.fingerprint_ttl)
        )
        prints = {(e.memory_id or "", round(e.best_similarity or 0.0, 2)) for e in events}
        today = self.stamp(moment)[:10]
        firsts = [
            (e.memory_id or "").split("+")[0] for e in events if e.at[:10] == today and e.memory_id
        ]
        owners = {n.memory_id: n.user_id for n in self.store.get_nodes(self.orch, firsts)}
        used: Counter[str] = Counter(owners.get(i) or "" for i in firsts)
        return prints, used

    # -- the run ----------------------------------------------------------------

    def run(self, moment: datetime, *, thread_id: str = "default") -> ConsolidationReport:
        started = time.monotonic()
        at = self.stamp(moment)
        nodes = self._eligible(moment)
        live = {n.memory_id: n for n in nodes}
        pool = self._pool(nodes, moment)
        prints, used = self._history(moment)
        cap = self.cfg.pairs_per_user_per_day
        budget = self.cfg.time_budget.total_seconds()
        consumed: set[str] = set()
        seen: set[str] = set()
        capped: set[str] = set()
        merged: list[tuple[str, str, float]] = []
        linked: list[tuple[str, str, float]] = []
        contradicted: list[tuple[str, str, float]] = []
        proposed: list[tuple[str, str, str]] = []
        checked = skipped = 0
        truncated = False
        writes = self.writes()
        self.builder = writes.builder(at, thread_id)
        self.batch = _Batch(writes, self.builder)
        for candidate in pool:
            if time.monotonic() - started > budget:
                # Trigger: the run's wall-time budget is spent. Why: spec §4 —
                # daily runtime bounded. Outcome: stop; the rest waits for tomorrow.
                truncated = True
                break
            if candidate.memory_id in consumed:
                continue
            bucket = candidate.user_id or ""
            if used[bucket] >= cap:
                capped.add(bucket)
                continue
            c = live.get(candidate.memory_id, candidate)
            neighbours = [
                h
                for h in self.recall(
                    c.content,
                    NodeFilter(user_id=c.user_id, project_id=c.project_id),
                    self.cfg.neighbours + 1,
                )
                if h.memory_id != c.memory_id
                and h.user_id == c.user_id
                and h.project_id == c.project_id
                and h.memory_id in live
                and h.memory_id not in consumed
                and pair_key(c.memory_id, h.memory_id) not in seen
            ][: self.cfg.neighbours]
            # Pre-filters without a model: a shared content word, or numbers on both sides.
            neighbours = [
                h
                for h in neighbours
                if lexical_overlap(c.content, h.content)
                or (numbers(c.content) and numbers(h.content))
            ]
            if not neighbours:
                continue
            scores = self.similarity.scores(c.content, [h.content for h in neighbours])
            linked_to = {
                frozenset((e.from_memory_id, e.to_memory_id))
                for e in self.store.edges_of(self.orch, [c.memory_id])
            }
            for h, score in zip(neighbours, scores, strict=True):
                key = pair_key(c.memory_id, h.memory_id)
                seen.add(key)
                if score < self.bands.related:
                    continue
                if (key, round(score, 2)) in prints:
                    skipped += 1
                    continue
                if used[bucket] >= cap:
                    capped.add(bucket)
                    break
                used[bucket] += 1
                checked += 1
                older, newer = sorted(
                    (live[c.memory_id], live[h.memory_id]),
                    key=lambda n: (n.updated_at, n.memory_id),
                )
                decision = classify(_view(older), _view(newer), score, self.bands)
                mark = OpEvent(at, "worker", PAIR_OP, "ok", key, None, round(score, 2))
                if decision == "merge":
                    kept = self._merge(older, newer, score, at, mark, thread_id)
                    if kept is not None:
                        gone = (
                            newer.memory_id
                            if kept.memory_id == older.memory_id
                            else older.memory_id
                        )
                        consumed.add(gone)
                        live[kept.memory_id] = kept
                        merged.append((kept.memory_id, gone, round(score, 4)))
                        if gone == c.memory_id:
                            break
                        continue
                elif (
                    decision in ("link", "contradict")
                    and frozenset((older.memory_id, newer.memory_id)) not in linked_to
                ):
                    edge_type = EdgeType.RELATED_TO if decision == "link" else EdgeType.CONTRADICTS
                    target = linked if decision == "link" else contradicted
                    entry = (newer.memory_id, older.memory_id, round(score, 4))
                    self._link(newer, older, edge_type, score, at, mark, entry)
                    linked_to.add(frozenset((older.memory_id, newer.memory_id)))
                    target.append(entry)
                    continue
                elif decision == "propose":
                    result, write = self.propose(older, newer)
                    entry3 = (result.proposal_id or "", older.memory_id, newer.memory_id)
                    if write is not None:
                        self.batch.add(write, (older, newer), entry3)
                    if result.proposal_id is not None:
                        proposed.append(entry3)
                    # the pair's mark goes (or is left out) with its proposal
                    self.batch.add(self.builder.compose(op_events=(mark,)), (older, newer), entry3)
                    continue
                self.batch.add(self.builder.compose(op_events=(mark,)))
        self.batch.flush()
        dropped = self.batch.dropped  # decided on a memory that changed before the write
        return ConsolidationReport(
            now=at,
            candidates=len(pool),
            pairs_checked=checked,
            skipped_fingerprint=skipped,
            merged=tuple(m for m in merged if m not in dropped),
            linked=tuple(m for m in linked if m not in dropped),
            contradicted=tuple(m for m in contradicted if m not in dropped),
            proposed=tuple(m for m in proposed if m not in dropped),
            capped_users=tuple(sorted(capped)),
            truncated=truncated,
            seconds=time.monotonic() - started,
            similarity_model=self.similarity.model_id,
        )

    # -- the writes ---------------------------------------------------------------

    def _merge(
        self,
        older: MemoryNode,
        newer: MemoryNode,
        score: float,
        at: str,
        mark: OpEvent,
        thread_id: str,
    ) -> MemoryNode | None:
        """Keep the stronger node (importance, then age), supersede the other."""
        keep, drop = sorted(
            (older, newer), key=lambda n: (-n.importance, n.created_at, n.memory_id)
        )
        kept = keep.model_copy(
            update={
                "importance": max(keep.importance, drop.importance),
                "confidence": max(keep.confidence, drop.confidence),
                "pinned": keep.pinned or drop.pinned,
                "access_count": keep.access_count + drop.access_count,
                "updated_at": at,
            }
        )
        superseded = drop.model_copy(update={"status": MemoryStatus.SUPERSEDED, "updated_at": at})
        if not (
            self.gate_allows(MemoryOp.UPDATE, kept)
            and self.gate_allows(MemoryOp.UPDATE, superseded)
        ):
            self.batch.add(self.builder.compose(op_events=(replace(mark, status="skipped"),)))
            return None
        edge = self._edge(kept, drop, EdgeType.UPDATES, score, "consolidation: same statement", at)
        weight = edge.weight
        existing = {
            (e.from_memory_id, e.to_memory_id, e.edge_type)
            for e in self.store.edges_of(self.orch, [kept.memory_id])
        }
        edges = (
            () if (edge.from_memory_id, edge.to_memory_id, edge.edge_type) in existing else (edge,)
        )
        self.batch.add(
            self.builder.compose(
                nodes=(kept, superseded),
                edges=edges,
                extra_sources=((kept.memory_id, drop.source),),
                events=(
                    self.builder.event(
                        HistoryOp.MERGE,
                        kept.memory_id,
                        detail={"merged": drop.memory_id, "similarity": weight},
                    ),
                    self.builder.event(
                        HistoryOp.SUPERSEDE,
                        drop.memory_id,
                        detail={"by": kept.memory_id, "reason": "consolidation"},
                    ),
                ),
                changes=(ChangeEntry(drop.memory_id, ChangeKind.MERGED, drop.summary),),
                op_events=(
                    mark,
                    OpEvent(at, "worker", "merge", "ok", kept.memory_id, kept.category, weight),
                ),
            ),
            (keep, drop),
            (kept.memory_id, drop.memory_id, round(score, 4)),
        )
        return kept

    def _edge(
        self,
        source: MemoryNode,
        target: MemoryNode,
        edge_type: EdgeType,
        score: float,
        reason: str,
        at: str,
    ) -> MemoryEdge:
        """A new consolidation edge ``source`` -> ``target`` weighted by ``score`` in [0, 1]."""
        return MemoryEdge(
            edge_id=self.new_id("edge"),
            orchestrator_id=self.orch,
            from_memory_id=source.memory_id,
            to_memory_id=target.memory_id,
            edge_type=edge_type,
            weight=round(max(0.0, min(1.0, score)), 4),
            reason=reason,
            created_at=at,
        )

    def _link(
        self,
        source: MemoryNode,
        target: MemoryNode,
        edge_type: EdgeType,
        score: float,
        at: str,
        mark: OpEvent,
        label: tuple[str, str, float],
    ) -> None:
        edge = self._edge(source, target, edge_type, score, "consolidation", at)
        weight = edge.weight
        op = "link" if edge_type is EdgeType.RELATED_TO else "contradict"
        self.batch.add(
            self.builder.compose(
                edges=(edge,),
                events=(
                    self.builder.event(
                        HistoryOp.LINK,
                        source.memory_id,
                        detail={
                            "edge_id": edge.edge_id,
                            "edge_type": edge_type.value,
                            "to": target.memory_id,
                            "reason": "consolidation",
                        },
                    ),
                ),
                op_events=(
                    mark,
                    OpEvent(at, "worker", op, "ok", source.memory_id, source.category, weight),
                ),
            ),
            (source, target),
            label,
        )


def _view(node: MemoryNode) -> PairView:
    return PairView(node.memory_id, node.content, node.type.value, node.user_id)
