"""The examples in the controller's and the agent's docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "memvault.controller",
    "memvault.controller.base",
    "memvault.controller.types",
    "memvault.controller.simple",
    "memvault.controller.engine_backed",
    "memvault.agent.model",
    "memvault.agent.graph",
    "memvault.agent.runtime",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
