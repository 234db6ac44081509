"""Review findings in policy/detectors (routed to detectors): sentences written by the reviewer."""

from __future__ import annotations

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.normalize import normalize


def _detectors(text: str) -> set[str]:
    doc = normalize(text)
    return {h.detector for detect in CONTENT_DETECTORS.values() for h in detect(doc)}


# debfd07 / 3d6be1b: spoken_id reads 'nie' / 'dni' (Polish 'no' / 'days') and 'NHS' as ID
# words case-insensitively, so ordinary Polish with a score or a count, or a phone
# number dialled after naming the NHS, is refused as a government ID.
@pytest.mark.parametrize(
    "text",
    [
        "Nie, wygraliśmy sześć, cztery, sześć, dwa w tenisie.",
        "Nie pamiętam wyniku, chyba trzy, jeden, dwa, zero dla nas.",
        "Przez dwa dni liczyliśmy: jeden, dwa, trzy, cztery, pięć kilometrów dziennie.",
        "I called the NHS helpline and then dialed zero, two, zero, seven for London.",
    ],
)
def test_ordinary_numbers_said_as_words_are_no_government_id(text: str) -> None:
    assert "gov_id.spoken_id" not in _detectors(text)


# 23bfca6: the profiling/biometric topic exemptions let a statement about a named or
# pronoun-referred person through when the clause also names an instrument or a standard
# ('test', 'questionnaire', 'NIST spec'); _PROFILE_OWNER knows 'her'/'my'/"X's" but not
# 'she'/'he'/a bare name. The three below were refused at 29bff62 and are STORED by the
# whole gate on main (memvault policy check).
@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("She scored very high on neuroticism in the Big Five test.", "profiling."),
        ("Tom has borderline personality traits, the screening questionnaire says.", "profiling."),
        (
            "Dana's voiceprint per the NIST spec is hex encoded and stored on the badge server.",
            "biometric.",
        ),
        # detector-level only (the learned heads still refuse these two today):
        ("User reported ethnicity: Han Chinese.", "identity."),
        (
            "Per the ISO standard, Dana's fingerprint template: whorl pattern, ridge count "
            "fourteen, minutiae at the core.",
            "biometric.",
        ),
    ],
)
def test_a_statement_about_a_person_beside_an_instrument_word_is_still_found(
    text: str, family: str
) -> None:
    assert any(d.startswith(family) for d in _detectors(text)), _detectors(text)


# Written for this file (fixdet): a bare "combination" / "código" read out as words is a
# lottery draw or a formation; beside a lock, a door or an alarm it is still a PIN.
@pytest.mark.parametrize(
    "text",
    [
        "The winning combination was three, one, four, one in the lottery.",
        "A good combination is two, two, four, four at the back on defense.",
        "The código of the exercise: one, two, three, four reps.",
    ],
)
def test_a_bare_combination_said_as_words_is_no_pin(text: str) -> None:
    assert "credentials.pin_assignment" not in _detectors(text)


@pytest.mark.parametrize(
    ("text", "detector"),
    [
        ("My locker combination is three, one, four, one.", "credentials.pin_assignment"),
        ("El código de la puerta es cuatro, ocho, cero, uno.", "credentials.pin_assignment"),
        (
            "My NHS number is four eight five, seven seven seven, three four five six.",
            "gov_id.spoken_id",
        ),
        ("Mój DNI to siedem dwa zero cztery, jeden jeden, osiem sześć.", "gov_id.spoken_id"),
        ("She has borderline personality traits per the questionnaire.", "profiling."),
        ("User's ethnicity, as reported: Han Chinese.", "identity."),
    ],
)
def test_the_twins_of_the_fixed_false_positives_are_still_found(text: str, detector: str) -> None:
    assert any(d.startswith(detector) for d in _detectors(text)), _detectors(text)
