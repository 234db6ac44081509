"""Filter semantics shared by backends that evaluate filters in Python.

Only the in-memory reference store uses :func:`matches`; SQL backends compile
the same :class:`NodeFilter` into their ``WHERE`` clause. The conformance
suite checks that both agree.
"""

from __future__ import annotations

import re

from memvault.model.node import MemoryNode
from memvault.store.base import SCALAR_FILTERS, NodeFilter

__all__ = ["matches", "tokenize"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def matches(node: MemoryNode, f: NodeFilter) -> bool:
    """True when ``node`` satisfies every condition of ``f``."""
    for name in SCALAR_FILTERS:
        wanted = getattr(f, name)
        value = getattr(node, name)
        if name == "user_id" and f.padded_too and value is not None:
            value = value.strip()  # erasure/export: 'dana ' stored before ids were trimmed
        if wanted is not None and value != wanted:
            return False
    if f.visible_to is not None and not (node.user_id is None or node.user_id in f.visible_to):
        return False
    if f.type is not None and node.type not in f.type:
        return False
    if f.category is not None and node.category not in f.category:
        return False
    if node.status not in f.status:
        return False
    if f.pinned is not None and node.pinned != f.pinned:
        return False
    if f.importance_min is not None and node.importance < f.importance_min:
        return False
    if f.importance_max is not None and node.importance > f.importance_max:
        return False
    if f.updated_after is not None and not node.updated_at > f.updated_after:
        return False
    return not (f.updated_before is not None and not node.updated_at < f.updated_before)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits)."""
    return [t.lower() for t in _WORD.findall(text)]
