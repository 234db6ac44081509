"""Review (session 9): memory.query through a caller's façade: a non-text ``categories`` is
SCHEMA_INVALID, not a crash.

``Caller.memory_query`` reads ``categories`` before the request is validated:
``categories=5`` -> ``TypeError: 'int' object is not iterable`` (the list comprehension),
``categories=[3]`` -> ``AttributeError: 'int' object has no attribute 'strip'``
(``CallerRules.known`` -> ``expand_categories``). The engine's own memory_query answers both
with ValidationFailed (MemoryQuery types the field). Library callers of the façade get a crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memvault.engine import Grant, MemoryEngine
from memvault.errors import ValidationFailed


@pytest.mark.parametrize("categories", [5, [3], [None, 7], {"a": 1}])
def test_a_non_text_category_is_schema_invalid(tmp_path: Path, categories: Any) -> None:
    engine = MemoryEngine.open(tmp_path, "acme", embedder=None)
    try:
        for grant in (Grant("a"), Grant("b", frozenset({"TODO"}))):
            with pytest.raises(ValidationFailed):
                engine.as_caller(grant).memory_query({"query": "tea", "categories": categories})
    finally:
        engine.close()
