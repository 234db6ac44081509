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
