"""A vector from the network is judged as the server's own vector of the content (review S10-R3b).

The check (cosine >= 0.95 with the server's own vector) let the true vector pushed toward a
harmless text's vector, to a cosine of 0.952, carry refused text past the heads. This replays
what POST /v1/memories does (api/routes.py add_memory): agreeing_vector, then add.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import ValidationFailed
from memvault.write.precomputed import AGREEMENT_FLOOR

HARMLESS = "The standup is at nine on weekdays."
TEXTS = [
    "Julia is at the mosque every Friday afternoon, so she leaves early.",
    "I've been feeling really low since the breakup.",
]


def _note(content: str) -> NewMemory:
    return NewMemory(
        content=content, type="Fact", category="KNOWLEDGE", source_kind="USER_EXPLICIT"
    )


@pytest.mark.parametrize("text", TEXTS)
def test_a_vector_near_the_floor_cannot_carry_refused_text(tmp_path: Path, text: str) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        embedder = engine.embedder
        assert embedder is not None
        plain = engine.add(_note(text)).stop_reason
        assert plain.value == "FORBIDDEN_CATEGORY"
        true = np.asarray(embedder.embed_documents([text])[0], dtype=np.float32)
        benign = np.asarray(embedder.embed_documents([HARMLESS])[0], dtype=np.float32)
        forged = true
        for s in np.linspace(0.0, 1.0, 201):  # as far toward the harmless text as accepted
            w = (1 - s) * true + s * benign
            w = w / np.linalg.norm(w)
            if float(w @ true) >= AGREEMENT_FLOOR + 0.001:
                forged = w
        key = engine.as_caller(Grant("http-client"))
        try:
            checked = key.agreeing_vector(text, forged.tolist(), embedder.model_id)
        except ValidationFailed:
            return  # refused at the edge: fine
        result = key.add(_note(text), vector=checked, vector_model=embedder.model_id)
        assert result.stop_reason == plain, "an accepted near-floor vector flipped the verdict"
