"""The examples in the engine's docstrings run (one module per engine layer)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "memvault.engine",
    "memvault.engine._base",
    "memvault.engine._context",
    "memvault.engine._capture",
    "memvault.config",
    "memvault.retrieval.hybrid",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
