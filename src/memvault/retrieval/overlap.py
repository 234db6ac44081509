"""Run the vector leg (query embedding + vector search) on a worker thread during the text leg.

The vector leg is numpy or faiss work (BLAS releases the GIL) and the
full-text leg is one SQLite statement (``sqlite3`` releases the GIL while it
executes), so on two cores they overlap instead of adding up. One small
shared pool serves every search of the process; threads start on first use.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from memvault.embed.base import Embedder, FloatVector

__all__ = ["run_on_pool", "start_query_embedding"]

P = ParamSpec("P")
T = TypeVar("T")

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            # One worker per core (at most 4): concurrent searches from several
            # threads (the HTTP server) must not queue behind each other here.
            workers = max(1, min(4, os.cpu_count() or 1))
            _POOL = ThreadPoolExecutor(workers, thread_name_prefix="memvault-embed")
        return _POOL


def start_query_embedding(embedder: Embedder, query: str) -> Future[FloatVector]:
    """``embedder.embed_query(query)`` started on the shared pool.

    ``result()`` returns the vector or raises what the embedder raised.

    >>> from memvault.embed import HashingEmbedder
    >>> start_query_embedding(HashingEmbedder(dimension=8), "hi").result().shape
    (8,)
    """
    return _pool().submit(embedder.embed_query, query)


def run_on_pool(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """``fn(*args, **kwargs)`` started on the shared pool (a search leg).

    >>> run_on_pool(sum, [1, 2, 3]).result()
    6
    """
    return _pool().submit(fn, *args, **kwargs)
