"""Ingest's chunk → candidate step: one statement each, in the author's words."""

from __future__ import annotations

import re

import pytest

from memvault.ingest.statements import STATEMENT_CHARS, statements
from memvault.write.validators import problems_of

TEXTS = [
    "Our billing service runs on PostgreSQL 16. It is deployed every Tuesday. "
    "The on-call rotation changes weekly! Does it page? Alerts page the primary.",
    "Die Datenbank läuft in Frankfurt. Backups laufen nachts um 2 Uhr. "
    "Der Zugang erfolgt über VPN. Wartung ist am Sonntag.",
    "El equipo usa Kafka para eventos. Los mensajes se guardan 7 días. "
    "La versión 3.5 es la actual. Nadie usa la 2.x.",
    "東京オフィスは9時に開きます。会議は月曜日です。予算は四半期ごとに見直します。",
    "Use e.g. `make test` vs. `pytest` locally. Set FOO=1. Run ./deploy.sh --dry-run. "
    "Check v2.1.0.",
    "1. Build the image.\n2. Push it to the registry.\n3. Roll out with helm.",
]


@pytest.mark.parametrize("text", TEXTS)
def test_every_statement_passes_the_one_validator_and_keeps_every_word(text: str) -> None:
    pieces = statements(text)
    assert all(problems_of(p.text) == () for p in pieces)
    assert all(p.text in text for p in pieces)  # exact slices: never reworded
    # never truncated: the pieces hold every non-space character, in order
    assert "".join(p.text for p in pieces).replace(" ", "").replace("\n", "") == re.sub(
        r"\s", "", text
    )


def test_a_paragraph_of_four_sentences_is_four_candidates() -> None:
    assert len(statements(TEXTS[0])) == 5
    assert [p.line for p in statements(TEXTS[-1])] == [0, 1, 2]


def test_an_overlong_sentence_is_cut_at_whitespace_not_dropped() -> None:
    sentence = " ".join(f"word{i}" for i in range(600)) + "."
    pieces = statements(sentence)
    assert len(pieces) > 1 and all(len(p.text) <= STATEMENT_CHARS for p in pieces)
    assert " ".join(p.text for p in pieces) == sentence


def test_code_and_short_lists_stay_whole() -> None:
    code = "```sh\n# Build it. Test it. Ship it.\nmake all\n```"
    assert [p.text for p in statements(code)] == [code]
    assert [p.text for p in statements("- build\n- test")] == ["- build\n- test"]
