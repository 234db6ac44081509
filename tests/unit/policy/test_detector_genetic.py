"""Genotype records (detectors/genetic.py): sentences written for this test."""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, evaluate
from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.normalize import normalize


def _detectors(text: str) -> set[str]:
    doc = normalize(text)
    return {h.detector for detect in CONTENT_DETECTORS.values() for h in detect(doc)}


@pytest.mark.parametrize(
    "text",
    [
        "Results for my sister: rs4680 AG, rs1815739 CT",  # en
        "rs53576(G;G) — das ist Marcos Ergebnis",  # de
        "Mi padre es AA en rs1815739, según 23andMe.",  # es
        "Il mio genotipo rs4680: A/G",  # it
        "rs7412\t19\t44908822\tCC",  # a raw-data row
        "APOE ε3/ε4 — résultat de ma mère",  # fr
        "Mój brat ma APOE e4/e4.",  # pl
        "Priya's raw data: rs12913832 GG (blue eyes)",  # en, another person
    ],
)
def test_a_genotype_is_genetic_data(text: str) -> None:
    assert _detectors(text) & {"health.genotype", "health.apoe"}


@pytest.mark.parametrize(
    "text",
    [
        "rs4680 is the COMT Val158Met SNP; AG heterozygotes are common.",
        "rs4680 A/G polymorphism and working memory: a review",
        "Format: each row looks like rs4477212 then chromosome, position and genotype.",
        "Beispiel für das Format: rs4680 AG (rsID, Genotyp).",
        "APOE ε4/ε4 carriers have a higher risk of Alzheimer's.",
        "El polimorfismo rs1815739 se estudia en atletas.",
        "Kit ID 4821 AG shipping to Lyon",
    ],
)
def test_talk_about_variants_is_no_genetic_data(text: str) -> None:
    assert not _detectors(text) & {"health.genotype", "health.apoe"}


def test_the_gate_refuses_a_genotype_with_its_span() -> None:
    text = "Dana asked me to keep her result: rs4680 AG"
    decision = evaluate(Candidate(text=text))
    assert decision.stop_reason is StopReason.FORBIDDEN_CATEGORY
    assert decision.detector == "detector.health.genotype"
    assert [text[s.start : s.end] for s in decision.spans] == ["rs4680 AG"]
