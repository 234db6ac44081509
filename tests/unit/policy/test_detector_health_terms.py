"""Medicines and clinicians as other languages write them: sentences written for this test."""

from __future__ import annotations

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.normalize import normalize


def _health(text: str) -> set[str]:
    doc = normalize(text)
    found = {h.detector for detect in CONTENT_DETECTORS.values() for h in detect(doc)}
    return {d for d in found if d.startswith("health.")}


@pytest.mark.parametrize(
    "text",
    [
        "Mi psiquiatra me subió la dosis de sertralina.",  # es
        "Seine Psychiaterin hat die Therapie beendet.",  # de
        "Mon thérapeute pense que c'est un burn-out.",  # fr
        "Ma mère prend de la metformine depuis mars.",  # fr, another person
        "Minha avó faz hemodiálise três vezes por semana.",  # pt
        "Mio padre ha iniziato la chemioterapia a maggio.",  # it
    ],
)
def test_a_persons_medicine_or_clinician_is_health(text: str) -> None:
    assert _health(text)


@pytest.mark.parametrize(
    "text",
    [
        "Mon amie est thérapeute de couple.",  # a job
        "Meu amigo é psicólogo e atende numa clínica.",  # a job
        "A sertralina é um antidepressivo muito estudado.",  # a medicine described
        "La clínica ofrece quimioterapia los lunes.",  # a clinic's service
        "Il corso spiega come funziona la dialisi.",  # a course
    ],
)
def test_talk_about_medicines_and_clinicians_is_no_health_fact(text: str) -> None:
    assert not _health(text)


@pytest.mark.parametrize(
    "text",
    [
        "The pharmacy on Elm Street does free blood pressure checks on Mondays.",  # en
        "Mi hermana trabaja en una academia de idiomas en Sevilla.",  # es: no anaemia
        "Our sex-ed curriculum review is on Friday.",  # en
        "Yesterday I went to a counseling workshop on mental health at the library.",  # en
    ],
)
def test_an_event_or_a_place_named_after_a_term_is_a_topic(text: str) -> None:
    found = _health(text)
    doc = normalize(text)
    found |= {h.detector for h in CONTENT_DETECTORS["topical"](doc)}
    assert not found


def test_a_condition_followed_by_a_verb_is_still_a_fact() -> None:
    assert _health("He has OCD and checks the stove five times every night.")
