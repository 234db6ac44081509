"""Review S18-R12: a translated leaflet of a person's own medication passes as a topic.

4a53892 (session 17) reads translating a medicine leaflet as a topic ("je traduis une notice
médicale sur le diabète" is stored), and the release log says "the same words about a person
stay refused". Said of the speaker's or a named person's own medication, they are stored:
"I'm translating the leaflet for my own diabetes medication", "I'm translating the leaflet
for Dana's HIV medication", "Je traduis la notice de mon propre traitement contre le
diabète" — while "My own diabetes medication gives me headaches" is refused.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_review_shifted_letters import _decision

OWN = [
    "I'm translating the leaflet for my own diabetes medication.",
    "I'm translating the leaflet for Dana's HIV medication.",
    "Je traduis la notice de mon propre traitement contre le diabète.",
]
HELD = {
    "My own diabetes medication gives me headaches.": "FORBIDDEN_CATEGORY",
    "I'm translating a medicine leaflet about diabetes for a client.": "SUCCESS_STORED",
    "je traduis une notice médicale sur le diabète": "SUCCESS_STORED",
}


@pytest.mark.parametrize("text", OWN)
def test_the_leaflet_of_a_persons_own_medication_is_refused(text: str) -> None:
    assert _decision(text) == "FORBIDDEN_CATEGORY"


@pytest.mark.parametrize(("text", "expected"), HELD.items())
def test_a_persons_medication_and_a_leaflet_as_a_topic(text: str, expected: str) -> None:
    """Refused today (the medication said of the speaker), and the topic 4a53892 allows."""
    assert _decision(text) == expected
