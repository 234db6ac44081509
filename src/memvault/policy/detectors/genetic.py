"""Genotype records (contract §4.2, genetic information): a variant with someone's alleles.

An rsID (or a 23andMe ``i`` id) with a genotype beside it — ``rs4680 AG``,
``rs53576(G;G)``, a raw-data row ``rs4477212  1  82154  AA``, "AA at rs1815739" —
or an APOE pair (``APOE ε3/ε4``) is one person's DNA, whoever's it is. A variant
named alone ("rs4680 is the COMT Val158Met SNP"), a population statement
("rs4680 A/G polymorphism", "AG heterozygotes") or a format description with an
example stays a topic.

>>> from memvault.policy.normalize import normalize
>>> [h.detector for h in detect(normalize("Results for my sister: rs4680 AG, rs1815739 CT"))]
['health.genotype']
>>> detect(normalize("rs4680 is the COMT Val158Met SNP; AG heterozygotes are common."))
[]
"""

from __future__ import annotations

import re

from memvault.policy.detectors.base import Hit, Rule, clause_of, run_rules, words
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "detect"]

_ALLELES = r"(?P<gt>[ACGT]{2}|[ACGT] ?[;/|] ?[ACGT]|--|DD|II|DI|ID)"
# After the alleles: a population or a kind of variant, not someone's result.
_POPULATION_AFTER = re.compile(
    r"(?i)^\W{0,3}(?:genotypes? (?:is|are) (?:common|rare|associated)|"
    + words(
        r"""polymorphism variant snp allele substitution mutation transition carriers?
        homozygot\w* heterozygot\w* frequency frequencies individuals people patients subjects
        population polimorfismo portador\w* träger\w* porteur\w*"""
    )
    + ")"
)
# In the clause: the format is being described with an example.
_FORMAT_TALK = re.compile(
    r"(?i)\b(?:e\.g\.|for example|for instance|example|such as|looks? like|format|column|"
    r"header|parser?|parsing|schema|sample (?:file|data|row)|z\.\s?b\.|beispiel|por ejemplo|"
    r"par exemple|ad esempio|por exemplo|np\.)"
)


def _genotype_ok(m: re.Match[str], view: View) -> bool:
    if _POPULATION_AFTER.match(view.text[m.end() : m.end() + 40]):
        return False
    return not _FORMAT_TALK.search(clause_of(view.text, m.start(), m.end()))


RULES: tuple[Rule, ...] = (
    Rule.named(
        "health",
        "genotype",
        "genetic_data",
        # rsID [chromosome position] alleles, or alleles "at" an rsID
        r"(?<![\w/])(?:rs\d{3,10}|i\d{7,8})\b"
        r"(?:[ \t,;|]+(?:chr)?(?:[1-9]|1\d|2[0-2]|X|Y|MT)[ \t,;|]+\d{2,10})?"
        r"(?:\s*[:=,\t|]?\s*|\s+(?:is|=|es|ist|est|é|è|jest|to)\s+)\(?\s*"
        + _ALLELES
        + r"(?:\s*\))?(?![\w/])"
        r"|(?<![\w/])[ACGT]{2}\s+(?:at|for|on|bei|en|em|sur|per|w|на|в)\s+rs\d{3,10}\b",
        "a genotype: a variant with someone's alleles",
        validate=_genotype_ok,
        views=("clean",),
    ),
    Rule.named(
        "health",
        "apoe",
        "genetic_data",
        r"(?i:\bapoe[\s-]*(?:ε|e)?[234]\s*/\s*(?:ε|e)?[234]\b|\b(?:ε|e)[234]\s*/\s*(?:ε|e)[234]"
        r"\b(?=[^.\n]{0,20}\bapoe\b))",
        "an APOE genotype",
        validate=_genotype_ok,
        views=("clean",),
    ),
)


def detect(doc: NormalizedText) -> list[Hit]:
    """Genotype findings: one per rule, exact spans on the clean view."""
    return run_rules(doc, RULES)
