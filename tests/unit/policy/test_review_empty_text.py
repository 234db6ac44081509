"""REVIEW S13-R8: an empty text is refused for being empty, not for an empty key.

``memvault policy check`` and ``policy explain`` answered ``{"text": ""}`` with
"key is required and empty": both schema findings were raised and the tie between
them went to the alphabetically first reason.
"""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, evaluate


@pytest.mark.parametrize("text", ["", "   \n"])
def test_an_empty_text_is_named_as_the_mistake(text: str) -> None:
    decision = evaluate(Candidate(text=text))
    assert decision.stop_reason is StopReason.SCHEMA_INVALID
    assert decision.reason == "text is empty"


def test_a_blank_key_beside_a_text_is_still_refused() -> None:
    decision = evaluate(Candidate(text="The canteen closes at three", key="  "))
    assert decision.stop_reason is StopReason.SCHEMA_INVALID, decision
