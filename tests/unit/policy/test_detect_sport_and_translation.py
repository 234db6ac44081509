"""A sport's stroke and a translated medicine leaflet are no one's health (issue 21).

``health.attributed_condition`` and ``health.self_medical`` refused seen hard negatives
and memories by name only (a medical translation, a sport): "my freestyle stroke" is a
swimming stroke, "je traduis une notice médicale sur le diabète" is a translator's job.
Beside each, the same words about the person's own health stay refused.

Judged by the pattern detectors alone. Every sentence is written for this file.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import assert_twins, decision

# a sport's stroke or a translator's leaflet, each with the same words as the person's own
# health (refused by a health rule)
SPORT_AND_LEAFLETS = [
    (
        "My swim coach says my freestyle stroke is too short.",
        "My doctor says my stroke was a mild one.",
    ),
    (
        "I practise my forehand stroke every Saturday at the tennis club.",
        "I had a stroke last spring and my speech is still slow.",
    ),
    (
        "My stroke rate on the rowing machine is 28 per minute.",
        "My dad had a stroke in March.",
    ),
    (
        "Je traduis une notice médicale sur le diabète de type 2 pour un laboratoire.",
        "J'ai le diabète de type 2 depuis 2019.",
    ),
    (
        "Traduzco prospectos de medicamentos para el asma para una farmacéutica.",
        "Tengo asma desde niño.",
    ),
    (
        "Ich übersetze Beipackzettel für Diabetes-Medikamente ins Englische.",
        "Ich habe Diabetes und spritze Insulin.",
    ),
    (
        "Traduzo bulas de remédios para asma para uma farmacêutica.",
        "Tenho asma desde criança.",
    ),
    (
        "Traduco foglietti illustrativi sul diabete per un'azienda.",
        "Ho il diabete da dieci anni.",
    ),
]


@pytest.mark.parametrize(("topic", "person"), SPORT_AND_LEAFLETS)
def test_a_sport_or_a_translation_passes_the_persons_health_is_refused(
    topic: str, person: str
) -> None:
    assert_twins(topic, person, "detector.health.")


# ------------------------------------------------------------------------------------
# A person's own matter inside a frame that otherwise makes a topic (review S18-R12).
# Framing words (a leaflet, a translation, a report) turn a health term into a topic; "my
# own", "mon propre", "mi propio", "meine eigene" or a name's possessive before a treatment
# make it the person's again. "My own" that owns the frame ("my own novel about cancer")
# keeps it a topic.

FRAMED_TOPICS = (
    "A report on asthma inhalers for the clinic.",
    "Traduzco un prospecto de epilepsia.",
    "Übersetze einen Beipackzettel über Diabetes.",
    "I summarise the leaflet on HIV tests.",
)
OWN_IN_A_FRAME = (
    "The report on my own asthma treatment.",
    "Es el prospecto de mi propio tratamiento de epilepsia.",
    "Der Zettel meiner eigenen Diabetes-Behandlung.",
    "I summarise the leaflet for Marco's HIV medication.",
)
OWN_PAIRS = list(zip(FRAMED_TOPICS, OWN_IN_A_FRAME, strict=True))


@pytest.mark.parametrize(("topic", "own"), OWN_PAIRS)
def test_own_matter_refused_frame_stored(topic: str, own: str) -> None:
    assert_twins(topic, own, "detector.health")


def test_own_frame_is_still_a_topic() -> None:
    """A frame owned ("my own novel"), a company's possessive: no one's health."""
    texts = (
        "I'm writing my own novel about cancer survivors.",
        "I'm translating Pfizer's diabetes leaflet.",
    )
    assert [decision(t) for t in texts] == [("SUCCESS_STORED", None)] * 2
