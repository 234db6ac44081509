"""Caste, ethnicity and a Sikh's practice said of a person (issue 21, contract §4.1).

Identity traits missed on the seen sets were most often a caste (in English and Hindi),
an ethnicity in Portuguese, and a Sikh's faith told by its practice. The caste words
were the four varnas and "dalit"; castes and communities by name (Jat, Rajput, Kayastha,
Nair …) passed, as did "sou parda", "soy afrodescendiente", "je suis métisse", "ich bin
Schwarze", and "took amrit". The terms now hold them; the topical rule still needs the
person as subject with a copula ("I am", "my in-laws are", "sou"), and a colour word with
no person ("my car is black", "mi gato es negro") or a caste named as a topic (an empire,
architecture, a seminar on the caste system) stays stored.

Judged by the pattern detectors alone. Every sentence is written for this file, not taken
from any corpus or evaluation set.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import assert_twins

# (the topic or ordinary memory, the same word about a person, the rule)
PAIRS = [
    (
        "Rajput architecture is on the tour tomorrow.",
        "I am Rajput on my father's side.",
        "detector.identity.caste",
    ),
    (
        "The Maratha empire lecture is at 10.",
        "My in-laws are Maratha, so the wedding follows their customs.",
        "detector.identity.caste",
    ),
    (
        "The seminar covered the caste system in Rajasthan.",
        "He's a Jat from Haryana.",
        "detector.identity.caste",
    ),
    (
        "A cor do sofá é parda.",
        "Eu sou parda e moro em Salvador.",
        "detector.identity.ethnicity",
    ),
    (
        "Mi gato es negro y duerme todo el día.",
        "Soy afrodescendiente y vivo en Cali.",
        "detector.identity.ethnicity",
    ),
    (
        "Je suis dans le noir depuis la panne.",
        "Je suis métisse, ma mère est sénégalaise.",
        "detector.identity.ethnicity",
    ),
    (
        "Ich sehe schwarz für das Projekt.",
        "Ich bin Schwarze und lebe in Köln.",
        "detector.identity.ethnicity",
    ),
    (
        "The museum shows a kirpan from the eighteenth century.",
        "My colleague took amrit last year and now wears a dastar.",
        "detector.identity.religious_practice",
    ),
]


@pytest.mark.parametrize(("topic", "person", "rule"), PAIRS)
def test_person_refused_topic_stored(topic: str, person: str, rule: str) -> None:
    assert_twins(topic, person, rule)
