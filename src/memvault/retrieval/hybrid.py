"""Hybrid recall: full-text leg + vector leg → fusion → modifiers → top N.

The two legs run against the store with the caller's filters inside their
queries; fusion and modifiers are pure functions of what the legs returned.
If the vector leg cannot run (no embedder, embedding failure) the text leg
answers alone and the outcome says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memvault.embed.base import Embedder, FloatVector
from memvault.model.clock import parse_timestamp
from memvault.model.enums import EdgeType
from memvault.model.node import MemoryEdge, MemoryNode
from memvault.retrieval.calibration import (
    calibration_for,
    fused_probabilities,
    legs_of,
    names_actor,
)
from memvault.retrieval.config import Modifiers, RetrievalConfig
from memvault.retrieval.fusion import Ranking, minmax_fuse, rrf_fuse
from memvault.retrieval.overlap import run_on_pool
from memvault.retrieval.rerank import (
    ABSENT_RANK,
    FOLLOWS,
    RerankInput,
    follows,
    query_window,
    rerank,
    reranker_for,
)
from memvault.retrieval.text import query_terms
from memvault.store.base import CONTEXT_SPACE_SUFFIX, NodeFilter, RankFields, Store
from memvault.store.filtering import tokenize
from memvault.store.ordering import best_first

__all__ = ["CONTEXT_SPACE_SUFFIX", "HybridOutcome", "Ranked", "apply_modifiers", "hybrid_search"]


@dataclass(frozen=True, slots=True)
class Ranked:
    """One selected memory with its final score and how it got there."""

    node: MemoryNode
    score: float
    explain: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HybridOutcome:
    ranked: tuple[Ranked, ...]
    legs: tuple[str, ...]
    edges: tuple[MemoryEdge, ...]
    degraded: str | None = None


def apply_modifiers(
    fused: Sequence[tuple[str, float]],
    nodes: Mapping[str, MemoryNode] | Mapping[str, RankFields],
    edges: Sequence[MemoryEdge],
    modifiers: Modifiers,
    now: datetime,
    query: str = "",
    *,
    normalise: bool = True,
) -> list[tuple[str, float, dict[str, float]]]:
    """Scale fused scores by the ranking modifiers.

    ``nodes``: each candidate's node, or just its :class:`RankFields` (what the
    modifiers read). Returns ``(memory_id, score, contributions)`` sorted best
    first, ties by id.
    Every factor is 1.0 (no effect) for a memory of importance 50, confidence
    1, created now, without edges, whose actor ``query`` does not name.
    ``normalise``: divide by the best fused score first (rank fusions, whose
    scores mean nothing across queries); calibrated probabilities are kept
    as they are and the final score is capped at 1.0.
    """
    query_words = frozenset(tokenize(query)) if modifiers.actor_match_boost else frozenset()
    if not fused:
        return []
    top = (max(score for _, score in fused) or 1.0) if normalise else 1.0
    candidate_ids = {memory_id for memory_id, _ in fused}
    links: dict[str, int] = {}
    contested: set[str] = set()
    for edge in edges:
        ends = (edge.from_memory_id, edge.to_memory_id)
        if edge.edge_type is EdgeType.CONTRADICTS and not edge.resolved:
            contested.update(ends)
        if edge.reason == FOLLOWS:
            continue  # consecutive in a conversation: the reranker's, not a relation
        if edge.from_memory_id in candidate_ids and edge.to_memory_id in candidate_ids:
            for end in ends:
                links[end] = links.get(end, 0) + 1
    aware_now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    out: list[tuple[str, float, dict[str, float]]] = []
    # the settings read once, not once per candidate (pydantic attribute reads)
    importance_boost, half_life = modifiers.importance_boost, modifiers.recency_half_life_days
    recency_weight, confidence_weight = modifiers.recency_weight, modifiers.confidence_weight
    contested_factor = 1.0 - modifiers.contradiction_penalty
    actor_factor, relation_boost = 1.0 + modifiers.actor_match_boost, modifiers.relation_boost
    for memory_id, score in fused:
        node = nodes.get(memory_id)
        if node is None:
            continue
        base = score / top
        importance = 1.0 + importance_boost * (node.importance / 100.0 - 0.5) * 2
        parts = {"fused": base, "importance": importance}
        final = base * importance
        if half_life:
            age = (aware_now - parse_timestamp(node.updated_at)).total_seconds() / 86400
            decay = math.pow(0.5, max(age, 0.0) / half_life)
            parts["recency"] = recency = 1.0 - recency_weight * (1.0 - decay)
            final *= recency
        parts["confidence"] = confidence = 1.0 - confidence_weight * (1.0 - node.confidence)
        parts["contradiction"] = contradiction = contested_factor if memory_id in contested else 1.0
        final = final * confidence * contradiction
        if query_words and _names_actor(query_words, node.actor_id):
            parts["actor"] = actor_factor
            final *= actor_factor
        parts["relation"] = relation = relation_boost * min(3, links.get(memory_id, 0))
        final += relation
        if not normalise:
            final = min(1.0, final)
        out.append((memory_id, final, parts))
    out.sort(key=lambda item: (-item[1], item[0]))
    return out


def _names_actor(query_words: frozenset[str], actor_id: str | None) -> bool:
    """Whether the query names ``actor_id`` as whole words ("Caroline", "mary-jane").

    Trigger: a query that names the memory's actor (who said or did it).
    Why: on conversational memory, 97% of LoCoMo's evidence turns are by the
      person the question names; bm25 gives a name shared by half the corpus
      almost no weight.
    Outcome: alphabetic actor names only; opaque ids ("u_123") never match.

    >>> _names_actor(frozenset({"what", "did", "caroline", "paint"}), "Caroline")
    True
    """
    return names_actor(query_words, actor_id)


def hybrid_search(
    store: Store,
    orchestrator_id: str,
    query: str,
    filters: NodeFilter,
    config: RetrievalConfig,
    *,
    embedder: Embedder | None,
    now: datetime,
    top_n: int | None = None,
    query_vector: FloatVector | None = None,
    explain: bool = True,
) -> HybridOutcome:
    """Run the legs the config asks for and return the selected memories.

    ``query_vector``: the query's vector when the caller already has it (from
    ``embedder``'s model), so the vector leg does not embed the query again.
    ``explain``: fill each :class:`Ranked`'s ``explain`` (leg ranks, modifier
    contributions, cosine); without it ``explain`` is empty and the per-leg
    rank tables are not built (a few hundred dictionary entries per search).
    """
    legs: list[str] = []
    rankings: list[Ranking] = []
    weights: list[float] = []
    per_leg: dict[str, dict[str, int]] = {}
    degraded: str | None = None

    similarity: dict[str, float] = {}  # raw cosine of the vector leg, for explain

    def vector_ranking(embedder: Embedder) -> Sequence[tuple[str, float]]:
        """The vector leg: the query's vector (given or embedded), best per memory."""
        vector = query_vector if query_vector is not None else embedder.embed_query(query)
        spaces = [embedder.model_id]
        if config.use_context_vectors:
            spaces.append(embedder.model_id + CONTEXT_SPACE_SUFFIX)
        if len(spaces) == 1:  # the store's hits come best first, ties by id
            hits = store.search_vectors(
                orchestrator_id, spaces[0], vector, filters, limit=config.top_k_vector
            )
            return hits  # named (memory_id, similarity) pairs
        best: dict[str, float] = {}
        for space in spaces:
            for v in store.search_vectors(
                orchestrator_id, space, vector, filters, limit=config.top_k_vector
            ):
                best[v.memory_id] = max(v.similarity, best.get(v.memory_id, -1.0))
        ranking = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return ranking[: config.top_k_vector]

    # Trigger: both legs run and the query still has to be embedded.
    # Why: the vector leg (query embedding, then the matrix or ANN search: numpy,
    #   onnxruntime, faiss) and the text leg (one SQLite statement) release the GIL.
    # Outcome: the vector leg runs on a worker thread during the text leg; its
    #   error, if any, is raised by ``result()`` inside the vector leg's handler.
    #   With the vector given, the leg is a sub-ms ANN search: a thread hop costs
    #   more than it saves on a busy box, so it runs inline.
    pending = None
    if config.uses_text and config.uses_vector and embedder is not None and query_vector is None:
        pending = run_on_pool(vector_ranking, embedder)

    if config.uses_text:
        terms = query_terms(query)
        hits = store.search_text(
            orchestrator_id,
            terms,
            filters,
            limit=config.top_k_text,
            column_weights=config.column_weights,
        )
        rankings.append(hits)  # named (memory_id, score) pairs
        weights.append(config.text_weight)
        if explain:
            per_leg["text"] = {h.memory_id: i for i, h in enumerate(hits, start=1)}
        legs.append("text")

    if config.uses_vector:
        if embedder is None:
            degraded = "no embedder configured: full-text only"
        else:
            try:
                ranking = pending.result() if pending else vector_ranking(embedder)
                rankings.append(ranking)
                weights.append(config.vector_weight)
                if explain:
                    similarity = dict(ranking)
                    per_leg["vector"] = {m: i for i, (m, _) in enumerate(ranking, start=1)}
                legs.append("vector")
            except Exception as exc:
                degraded = f"vector leg failed ({type(exc).__name__}): full-text only"
        if degraded and not config.uses_text:
            # Trigger: a vector-only search whose vector leg cannot run.
            # Why: memory is advisory; a failed leg must not fail the caller.
            # Outcome: fall back to the text leg with default weights.
            hits = store.search_text(orchestrator_id, query_terms(query), filters, limit=50)
            rankings.append([(h.memory_id, h.score) for h in hits])
            weights.append(1.0)
            if explain:
                per_leg["text"] = {h.memory_id: i for i, h in enumerate(hits, start=1)}
            legs.append("text")

    limit = top_n or config.top_n
    calibrated = config.fusion == "calibrated"
    read: set[str] = set()  # memories whose edges are in ``known`` (one read serves both)
    known: list[MemoryEdge] = []
    fields: dict[str, RankFields] = {}
    if calibrated:
        # Trigger: the calibrated preset (scores comparable across queries).
        # Why: each leg's raw score maps to a probability of relevance; whether
        #   the query names the memory's actor is part of that evidence, so the
        #   actors of a wider pool are read first (their ranking fields only,
        #   no nodes: hydrating 100 candidates cost more than both legs).
        # Outcome: probabilities, best first; the threshold is absolute.
        text_leg = dict(zip(legs, rankings, strict=True)).get("text")
        vector_leg = dict(zip(legs, rankings, strict=True)).get("vector")
        cal = calibration_for(embedder.model_id if embedder is not None else None)
        # both legs as arrays once: the fusion, its second pass and the rerank read them
        arrays = legs_of(
            text_leg, vector_leg, vector_leg is not None and cal is not None, ABSENT_RANK
        )
        ids, probabilities = fused_probabilities(text_leg, vector_leg, {}, query, cal, legs=arrays)
        first = best_first(ids, probabilities) if ids else []
        second = reranker_for(embedder.model_id) if embedder is not None else None
        reranks = (
            config.rerank and second is not None and cal is not None and vector_leg is not None
        )
        pool_size = max(second.pool, limit * 3) if reranks and second is not None else 0
        # Trigger: the reranker boosts candidates inside a time the query names.
        # Why: it then picks its pool among twice as many (a boosted candidate
        #   may climb); without a time it takes the best ``pool_size`` alone.
        # Outcome: ranking fields are read for as many as it will look at.
        span = pool_size * 2 if pool_size and query_window(query, now) is not None else pool_size
        wide = [m for m, _ in first[: max(limit * 5, 100)]]
        # one read for the wide pool and the reranker's (mostly the same memories)
        fields = store.rank_fields(orchestrator_id, [m for m, _ in first[: max(len(wide), span)]])
        words = frozenset(tokenize(query))
        actors = {m: fields[m].actor_id for m in wide if m in fields}
        if any(names_actor(words, a) for a in set(actors.values())):
            ids, probabilities = fused_probabilities(
                text_leg, vector_leg, actors, query, cal, legs=arrays
            )
            fused = best_first(ids, probabilities)
        else:
            fused = first  # no candidate's actor is named: the same probabilities
        if reranks and second is not None and cal is not None:
            # Trigger: both legs ran and the embedder has a fitted reranker.
            # Why: time named in the query, conversation neighbours and leg ranks
            #   decide questions the per-candidate calibration cannot (issue 17).
            # Outcome: the best candidates reordered from leg scores and ranking
            #   fields only (those of the wide pool were read above).
            missing = [m for m, _ in fused[:span] if m not in fields]
            if missing:
                fields.update(store.rank_fields(orchestrator_id, missing))

            def linked(ids: Sequence[str]) -> dict[str, list[str]]:
                read.update(ids)
                known.extend(store.edges_of(orchestrator_id, list(ids)))
                return follows(known)

            fused = rerank(
                RerankInput(fused, text_leg, vector_leg, fields, query, now, arrays, probabilities),
                cal,
                second,
                pool=pool_size,
                linked=linked,
            )
    elif config.fusion == "rrf":
        fused = rrf_fuse(rankings, k=config.rrf_k, weights=weights)
    else:
        fused = minmax_fuse(rankings, weights=weights)
    pool = fused[: max(limit * 3, limit)]
    ids = [memory_id for memory_id, _ in pool]
    missing = [m for m in ids if m not in fields]
    if missing:
        fields.update(store.rank_fields(orchestrator_id, missing))
    if read.issuperset(ids):
        wanted = set(ids)
        edges = [e for e in known if e.from_memory_id in wanted or e.to_memory_id in wanted]
    else:
        edges = store.edges_of(orchestrator_id, ids) if ids else []
    modified = apply_modifiers(
        pool, fields, edges, config.modifiers, now, query, normalise=not calibrated
    )[:limit]
    # only the final top k become nodes (one may have vanished since: it is left out)
    nodes = {n.memory_id: n for n in store.get_nodes(orchestrator_id, [m for m, _, _ in modified])}
    modified = [item for item in modified if item[0] in nodes]
    ranked = tuple(
        Ranked(
            nodes[memory_id],
            score,
            {
                "ranks": {leg: per_leg[leg].get(memory_id) for leg in per_leg},
                "modifiers": parts,
                "similarity": similarity.get(memory_id),
            }
            if explain
            else {},
        )
        for memory_id, score, parts in modified
    )
    chosen = {r.node.memory_id for r in ranked}
    # A conversation link may cross owners (two people in one conversation):
    # it is returned only between memories this search could see.
    touching = [e for e in edges if e.from_memory_id in chosen or e.to_memory_id in chosen]
    seen = (
        {m for ranking in rankings for m, _ in ranking}
        if any(e.reason == FOLLOWS for e in touching)
        else set()
    )
    related = tuple(
        e for e in touching if e.reason != FOLLOWS or {e.from_memory_id, e.to_memory_id} <= seen
    )
    return HybridOutcome(ranked, tuple(legs), related, degraded)
