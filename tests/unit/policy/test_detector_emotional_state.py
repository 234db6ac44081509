"""A lasting low mood the speaker states about themselves (issue 21, session 12).

The lead's contract decision: "I've been feeling really low since the breakup" is emotional
state tracking (contract 4.8) and mental health status (4.2), so it is refused. The pattern
detectors refuse the lasting first-person state (a duration or "lately"); a mood tied to a
moment, "down to the coast", "low on cash", a service that is down, stay stored. Sentences
written for this file, not taken from any corpus or evaluation set. The learned layer is off
here: the rule must hold without it.
"""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, GateContext, evaluate

DETECTORS_ONLY = GateContext(learned=None)

LASTING = [
    "I've been feeling really low since the breakup.",
    "I have been feeling so depressed lately, honestly.",
    "i've been really low for weeks now",
    "I've felt hopeless ever since the layoffs.",
    "I'm so down these days, nothing helps.",
    "I keep feeling numb every morning before work.",
]

NOT_A_LASTING_STATE = [
    "I'm feeling a bit down about the deadline.",
    "I've been down to the coast a lot lately.",
    "I've been low on cash since March.",
    "I've been feeling great since the move.",
    "We have been low on staff lately.",
    "The server has been down since noon.",
    "Down since noon: the staging database, again.",
]


@pytest.mark.parametrize("text", LASTING)
def test_a_lasting_low_mood_of_the_speaker_is_refused(text: str) -> None:
    d = evaluate(Candidate(text=text), DETECTORS_ONLY)
    assert d.stop_reason is StopReason.FORBIDDEN_CATEGORY
    assert d.detector == "detector.profiling.emotional_state"


@pytest.mark.parametrize("text", NOT_A_LASTING_STATE)
def test_a_momentary_mood_or_no_mood_is_not_refused_by_the_rule(text: str) -> None:
    d = evaluate(Candidate(text=text), DETECTORS_ONLY)
    assert d.detector != "detector.profiling.emotional_state"
    assert d.stop_reason is StopReason.SUCCESS_STORED
