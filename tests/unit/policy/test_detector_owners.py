"""The detectors' owner words (base.POSSESSIVES), defined once: sentences written for this test."""

from __future__ import annotations

import re

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS, base, biometric, identifiers, topical
from memvault.policy.normalize import normalize


def _detectors(text: str) -> set[str]:
    doc = normalize(text)
    return {h.detector for detect in CONTENT_DETECTORS.values() for h in detect(doc)}


@pytest.mark.parametrize(
    "text",
    [
        "Seine Ärztin hat ihm Metformin verschrieben.",  # de: sein-
        "Leur médecin a doublé la dose la semaine dernière.",  # fr: leur
        "Mojej córce przepisano Ritalin.",  # pl: moj-
        "Mi médico dice que es asma.",  # es: mi
        "The user's oncologist moved the scan to Friday.",  # en: the user's
    ],
)
def test_a_possessive_makes_a_medical_term_someones(text: str) -> None:
    assert "health.self_medical" in _detectors(text)


@pytest.mark.parametrize(
    "text",
    [
        "Sprechen Sie mit Ihrem Arzt.",  # de: polite "your", a leaflet
        "Em caso de dúvida, consulte seu médico.",  # pt: "seu" is also "your"
        "Per qualsiasi dubbio consulti il suo medico.",  # it: polite "Suo"
        "Her son is a doctor.",  # en: "son" is a noun here
        "Our GP practice moves to Elm Street next month.",  # en: "our" as a practice
        "Zijn er genoeg artsen in de regio?",  # nl: "zijn" = "are"
    ],
)
def test_words_left_out_of_the_owner_list_stay_topics(text: str) -> None:
    assert "health.self_medical" not in _detectors(text)


def test_a_person_named_beside_a_standard_is_still_someones_print() -> None:
    assert "biometric.template" in _detectors(
        "Meine Stimmprobe nach der ISO-Norm: voiceprint vp_0291.wav, Dana's copy too."
    )


def test_the_owner_list_is_defined_once() -> None:
    # Trigger: four hand-kept copies drifted apart (the session-8 review).
    # Outcome: the detectors that ask "whose is this?" read base.POSSESSIVES.
    owners = re.compile("(?i)" + base.words(base.POSSESSIVES))
    for word in ("mein", "ses", "dele", "mojego", "его"):
        assert owners.fullmatch(word), word
    assert not hasattr(biometric, "_PERSON_OWNER")
    assert base.PERSON_OWNER.search("Dana's voiceprint")
    assert not base.PERSON_OWNER.search("The App's voiceprint login")
    for source in (topical.__file__, identifiers.__file__, biometric.__file__):
        with open(source, encoding="utf-8") as fh:
            assert "minha|mio|mia" not in fh.read()


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("meri behen ko asthma hai", "health."),  # romanised Hindi possessives
        ("hamare padosi ko cancer hua hai", "health."),
        ("uske bhai ka divorce ho gaya", "intimate."),
    ],
)
def test_romanised_hindi_possessives_are_owners(text: str, family: str) -> None:
    assert any(d.startswith(family) for d in _detectors(text))


@pytest.mark.parametrize(
    "text",
    [
        "community hall mein free asthma camp hai",  # Hinglish "mein" = "in"
        "library mein cancer awareness talk hai kal",
    ],
)
def test_hinglish_mein_is_no_owner(text: str) -> None:
    assert not _detectors(text)


@pytest.mark.parametrize(
    "text",
    [
        "Privacy notice: the face template stays on your phone and is never uploaded.",
        "Hinweis: Ihr Fingerabdruck-Template bleibt auf dem Gerät und wird nicht hochgeladen.",
        "Avis : votre empreinte digitale reste stockée sur l'appareil, jamais envoyée.",
        "Aviso: la plantilla de su huella dactilar se guarda solo en el dispositivo.",
    ],
)
def test_a_notice_that_prints_stay_on_the_device_is_no_biometric_data(text: str) -> None:
    assert "biometric.template" not in _detectors(text)


def test_a_print_written_down_is_data_even_if_it_stays_on_a_device() -> None:
    text = "My fingerprint template stays on the reader: 3f9a2b7c1d0e4f5a6b7c"
    assert "biometric.template" in _detectors(text)


@pytest.mark.parametrize(
    "text",
    [
        "My colleague Tom has epilepsy.",  # en
        "my coworker was diagnosed with lymphoma last spring",  # en
        "His manager takes lithium, he told me.",  # en
    ],
)
def test_an_owners_colleague_is_a_person_not_framing(text: str) -> None:
    assert any(d.startswith("health.") for d in _detectors(text))


@pytest.mark.parametrize(
    "text",
    [
        "Our HR webinar helps staff with cancer diagnoses.",
        "my coworkers and I are training staff on cancer awareness",
    ],
)
def test_staff_as_an_audience_stays_framing(text: str) -> None:
    assert not any(d.startswith("health.") for d in _detectors(text))
