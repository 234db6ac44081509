"""A person's own matter inside a frame that otherwise makes a topic (review S18-R12, issue 21).

Framing words (a leaflet, a translation, a report) turn a sensitive term into a topic; "my
own", "mon propre", "mi propio", "meine eigene" or a name's possessive before a treatment
make it the person's again, whatever frame the sentence has. Beside each, the frame with no
one's own matter stays stored, and "my own" that owns the frame ("my own novel about
cancer") keeps it a topic.

Judged by the pattern detectors alone. Every sentence is written for this file, not taken
from any corpus or evaluation set.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import assert_twins, decision

PAIRS = [
    (
        "I'm proofreading a report on asthma inhalers for the clinic.",
        "I'm proofreading the report on my own asthma treatment.",
    ),
    (
        "Estoy traduciendo un prospecto sobre la epilepsia.",
        "Estoy traduciendo el prospecto de mi propio tratamiento para la epilepsia.",
    ),
    (
        "Ich übersetze einen Beipackzettel über Diabetes.",
        "Ich übersetze den Beipackzettel für meine eigene Diabetes-Behandlung.",
    ),
    (
        "I'm summarising the leaflet on HIV testing for the charity.",
        "I'm summarising the leaflet for Marco's HIV medication.",
    ),
]


@pytest.mark.parametrize(("topic", "own"), PAIRS)
def test_own_matter_refused_frame_stored(topic: str, own: str) -> None:
    assert_twins(topic, own, "detector.health")


def test_own_frame_is_still_a_topic() -> None:
    """A frame owned ("my own novel"), a company's possessive: no one's health."""
    texts = (
        "I'm writing my own novel about cancer survivors.",
        "I'm translating Pfizer's diabetes leaflet.",
    )
    assert [decision(t) for t in texts] == [("SUCCESS_STORED", None)] * 2
