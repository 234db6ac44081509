"""pgvector SQL for the PostgreSQL backend (pure builders, text wire format).

Vectors travel as pgvector's text form ``[v1,v2,...]``: a float32 printed
with Python's shortest ``repr`` of its exact double value parses back to the
same float32 in PostgreSQL, and pgvector prints float4 values in their
shortest round-tripping form, so a vector survives a round trip bit for bit
without a binary adapter.

Search is approximate (HNSW, cosine) when the planner uses the index of the
query's dimension (:func:`~memvault.store.postgres.schema.vector_index_ddl`).
Connections set ``hnsw.iterative_scan = strict_order`` so a filtered search
keeps scanning the graph until it has ``limit`` rows that pass the filters
(pgvector >= 0.8), instead of returning fewer than asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.errors import ValidationFailed
from memvault.store.base import EmbeddingRow, NodeFilter
from memvault.store.postgres.queries import Query, filter_clause

__all__ = [
    "INDEXED_DIMS",
    "INSERT_CACHE",
    "UPSERT_EMBEDDING",
    "cache_params",
    "cached_embeddings_query",
    "decode_vector",
    "embedding_params",
    "encode_vector",
    "search_vectors_query",
    "vector_dim",
]

F32 = npt.NDArray[np.float32]


def vector_dim(vector: F32) -> int:
    """The length of a 1-d vector; anything else is a validation error.

    >>> vector_dim(np.zeros(3, dtype=np.float32))
    3
    """
    array = np.asarray(vector)
    if array.ndim != 1 or array.shape[0] < 1:
        raise ValidationFailed(f"a vector must be 1-d and non-empty, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValidationFailed("a vector must not contain NaN or infinity")
    return int(array.shape[0])


def encode_vector(vector: F32) -> str:
    """pgvector's text form of ``vector`` (float32 values, exact).

    >>> encode_vector(np.array([0.5, -1.25], dtype=np.float32))
    '[0.5,-1.25]'
    """
    vector_dim(vector)
    values = np.asarray(vector, dtype=np.float32).tolist()
    return "[" + ",".join(repr(v) for v in values) + "]"


def decode_vector(text: str) -> F32:
    """Parse pgvector's text form into float32.

    >>> decode_vector("[0.5,-1.25]").tolist()
    [0.5, -1.25]
    """
    body = text.strip()[1:-1]
    return np.array(body.split(","), dtype=np.float32) if body else np.zeros(0, np.float32)


UPSERT_EMBEDDING = (
    "INSERT INTO memory_embeddings (orchestrator_id, memory_id, model_id, dim, embedding,"
    " text_sha256, created_at) VALUES (%s, %s, %s, %s, %s::vector, %s, %s) "
    "ON CONFLICT (orchestrator_id, memory_id, model_id) DO UPDATE SET dim = excluded.dim, "
    "embedding = excluded.embedding, text_sha256 = excluded.text_sha256, "
    "created_at = excluded.created_at"
)
INSERT_CACHE = (
    "INSERT INTO embedding_cache (orchestrator_id, model_id, text_sha256, dim, embedding) "
    "VALUES (%s, %s, %s, %s, %s::vector) ON CONFLICT DO NOTHING"
)
#: The per-dimension HNSW indexes of this schema: ``(name, usable)`` — valid, or being
#: built by another session right now. A concurrent build that failed (cancelled, its
#: process killed) leaves its index behind, invalid and never used by the planner.
INDEXED_DIMS = (
    "SELECT c.relname, i.indisvalid OR EXISTS (SELECT 1 FROM pg_stat_progress_create_index p"
    " WHERE p.index_relid = i.indexrelid) FROM pg_index i "
    "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid "
    "WHERE c.relnamespace = current_schema()::regnamespace "
    "AND t.relname = 'memory_embeddings' AND c.relname LIKE 'memory_embeddings_hnsw_%'"
)


def embedding_params(orch: str, row: EmbeddingRow, at: str) -> list[Any]:
    """Row values for :data:`UPSERT_EMBEDDING`."""
    return [
        orch,
        row.memory_id,
        row.model_id,
        vector_dim(row.vector),
        encode_vector(row.vector),
        row.text_sha256,
        at,
    ]


def cache_params(orch: str, row: EmbeddingRow) -> list[Any]:
    """Row values for :data:`INSERT_CACHE`."""
    return [orch, row.model_id, row.text_sha256, vector_dim(row.vector), encode_vector(row.vector)]


def search_vectors_query(
    orchestrator_id: str, model_id: str, query: F32, f: NodeFilter, limit: int
) -> Query:
    """Nearest nodes by cosine among those matching ``f`` (filters inside the SQL).

    The cast ``embedding::vector(N)`` and ``dim = N`` are the expression and
    predicate of the HNSW index for dimension N, so the planner can use it.

    >>> sql, params = search_vectors_query("acme", "m1", np.ones(3, np.float32), NodeFilter(), 5)
    >>> "ORDER BY e.embedding::vector(3) <=> %s::vector(3)" in sql
    True
    """
    dim = vector_dim(query)
    literal = encode_vector(query)
    where, params = filter_clause(orchestrator_id, f)
    distance = f"e.embedding::vector({dim}) <=> %s::vector({dim})"
    sql = (
        f"SELECT e.memory_id, 1 - ({distance}) AS similarity "
        "FROM memory_embeddings e JOIN memories m ON m.orchestrator_id = e.orchestrator_id "
        "AND m.memory_id = e.memory_id "
        f"WHERE e.orchestrator_id = %s AND e.model_id = %s AND e.dim = {dim} AND {where} "
        f"ORDER BY {distance}, e.memory_id LIMIT %s"
    )
    return sql, [literal, orchestrator_id, model_id, *params, literal, limit]


def cached_embeddings_query(model_id: str, text_hashes: Sequence[str]) -> Query:
    """Cached vectors of these text hashes in ``model_id``.

    The protocol's cache lookup carries no orchestrator: a vector is a pure
    function of (model, text), so any tenant's cached row is the right one.

    >>> cached_embeddings_query("m1", ["ab"])[1]
    ['m1', ['ab']]
    """
    sql = (
        "SELECT DISTINCT ON (text_sha256) text_sha256, embedding::text FROM embedding_cache "
        "WHERE model_id = %s AND text_sha256 = ANY(%s) ORDER BY text_sha256"
    )
    return sql, [model_id, list(text_hashes)]
