"""The gov_id head on a few words needs the number, and an envelope is read as one (review S17-R6).

LangGraph's own store tests write "test document number 0" and a Russian text under a
JSON envelope; both were refused by the learned heads. A text of fewer than eight words
that holds fewer than three digits is not flagged by the gov_id head; a value that holds
the text as written is read as its wrapper even when normalisation folds the two apart.
"""

from __future__ import annotations

import json
import math

import pytest

from memvault.model.enums import StopReason
from memvault.policy.candidate import Candidate, GateContext
from memvault.policy.gate import evaluate
from memvault.policy.learned import default_layer, says_a_number


def _gov_id(text: str) -> tuple[float, float]:
    layer = default_layer()
    vector = layer.vector(text)
    (head,) = [
        h
        for h in layer.judge_text(text, vector=vector, vector_model=layer.encoder_model_id)
        if h.family == "gov_id"
    ]
    return head.score, head.threshold


@pytest.mark.parametrize("text", ["test document number 0", "test document number 7"])
def test_a_few_words_without_a_number_are_not_an_id(text: str) -> None:
    score, threshold = _gov_id(text)
    assert score > 0.5  # the head alone would flag it
    assert math.isinf(threshold)


@pytest.mark.parametrize(
    "text",
    [
        "Rahul's passport number is K8821934",  # the near miss: the number is there
        "my driving licence number: 4471 2290 18",
    ],
)
def test_a_few_words_with_the_number_are_still_an_id(text: str) -> None:
    score, threshold = _gov_id(text)
    assert score >= threshold
    assert evaluate(Candidate(text=text), GateContext()).stop_reason is (
        StopReason.FORBIDDEN_CATEGORY
    )


def test_a_longer_text_keeps_the_heads_threshold() -> None:
    _score, threshold = _gov_id(
        "Ahmed never shares his national ID card details with anyone at work"
    )
    assert threshold < 1


def test_spelled_numerals_count_as_digits() -> None:
    assert says_a_number("주민번호 구공공삼일이")
    assert says_a_number("身份证后六位是一二零三二四")
    assert not says_a_number("passport photo due Friday")


def _envelope(**fields: str) -> str:
    return json.dumps(
        {"namespace": ["user_123", "memories"], "value": fields, "indexed": True},
        ensure_ascii=False,
    )


def test_an_envelope_around_a_russian_text_is_stored() -> None:
    decision = evaluate(
        Candidate(text="Это русский", value=_envelope(text="Это русский")), GateContext()
    )
    assert decision.stop_reason is StopReason.SUCCESS_STORED


def test_what_the_envelope_adds_is_still_judged() -> None:
    value = _envelope(text="Это русский", note="у Марии ВИЧ, она принимает антиретровирусные")
    decision = evaluate(Candidate(text="Это русский", value=value), GateContext())
    assert decision.stop_reason is StopReason.FORBIDDEN_CATEGORY
    assert decision.detector == "classifier.health"


def test_a_batch_reads_each_texts_own_number() -> None:
    """judge_many answers as one judge per text: the number rule reads each text, not the last."""
    layer = default_layer()
    texts = ["Passport number: X4829175", "test document number 0"]
    vectors = [layer.vector(t) for t in texts]
    batch = layer.judge_many(texts, vectors=vectors, vector_model=layer.encoder_model_id)
    single = [
        layer.judge_text(t, vector=v, vector_model=layer.encoder_model_id)
        for t, v in zip(texts, vectors, strict=True)
    ]
    assert batch == single
    assert any(s.family == "gov_id" and s.flagged for s in batch[0])
