"""Review S16-R6: a ``batch`` put with a ``ttl`` was written to live for ever.

``supports_ttl = False``: ``put(..., ttl=5)`` raises NotImplementedError (LangGraph's
``BaseStore.put``), but ``batch([PutOp(..., ttl=5)])`` — what ``put`` itself calls, and
what an application batching its writes calls — dropped the ttl and stored the item
with no end: a caller that asked for an item to expire in five minutes kept it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.store.base import PutOp

from memvault.integrations.langgraph_store import MemvaultStore

NOTE = {"content": "The door code is rotated on Mondays"}


def test_a_batch_put_with_a_ttl_is_refused_whole(tmp_path: Path) -> None:
    with MemvaultStore(tmp_path) as store:
        with pytest.raises(NotImplementedError, match="TTL"):
            store.batch([PutOp(("t",), "a", NOTE), PutOp(("t",), "b", NOTE, ttl=5.0)])
        assert store.search(("t",)) == []
        store.batch([PutOp(("t",), "a", NOTE, ttl=None)])  # no ttl: written
        assert [i.key for i in store.search(("t",))] == ["a"]
