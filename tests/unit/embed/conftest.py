"""Shared fixtures for the embedder tests: one loaded MiniLM per session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memvault.embed.minilm import MiniLMEmbedder

REFERENCE_FILE = Path(__file__).with_name("reference_vectors.json")


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The default embedder, loaded (and its weights verified) once."""
    return MiniLMEmbedder().load()


@pytest.fixture(scope="session")
def reference() -> dict[str, Any]:
    """sentence-transformers' own vectors for a few sentences (see make_reference_vectors.py)."""
    with REFERENCE_FILE.open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data
