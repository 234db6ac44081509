"""Intimate life said of a person in other languages (issue 21, contract §4.3).

The intimate-life terms were English with a few borrowed words, so a person's
contraception, pregnancy test, fertility treatment, surrogacy, affair, open relationship,
separation or erectile medication said in Spanish, French, German, Italian, Portuguese,
Dutch or Polish passed the pattern detectors (seen sets: intimate life was the family
with the most misses, most of them outside English). The terms now hold those words too;
the topical rule still reads each only with its person as subject (the speaker, an owner
word, a pronoun) and no framing word (a course, a book, a series, a talk) between.

Beside each refusal the near miss that must pass: the same words as a topic, or an
ordinary memory that shares a word ("amante del café", waste sorted, a pharmacy's stock).
Judged by the pattern detectors alone. Every sentence is written for this file, not taken
from any corpus or evaluation set.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import assert_twins, decision

INTIMATE = "detector.intimate.attributed"

# (the topic or ordinary memory, the same words about a person)
PAIRS = [
    # es: contraception, an affair
    (
        "La farmacia vende la píldora del día después sin receta.",
        "Tomo la píldora anticonceptiva desde enero.",
    ),
    ("La serie trata de un marido infiel en Sevilla.", "Mi marido me engañó con su compañera."),
    # fr: contraception, an open relationship
    (
        "Le cours de biologie explique comment agit la pilule contraceptive.",
        "Je prends la pilule depuis deux ans.",
    ),
    (
        "Le livre parle des couples libres dans les années soixante-dix.",
        "Mon copain et moi sommes en couple libre.",
    ),
    # de: contraception, an affair
    (
        "Der Artikel vergleicht Kupferspirale und Hormonspirale.",
        "Ich habe seit letztem Jahr eine Kupferspirale.",
    ),
    ("Die Serie erzählt von einem Seitensprung in Wien.", "Mein Mann ist fremdgegangen."),
    # it: an affair, a pregnancy test
    ("Il romanzo racconta un tradimento a Venezia.", "Mio marito mi ha tradito con una collega."),
    (
        "Il corso spiega come leggere un test di gravidanza.",
        "Mia sorella ha fatto un test di gravidanza ieri sera.",
    ),
    # pt: surrogacy, contraception
    (
        "A palestra falou sobre barriga de aluguel no Brasil.",
        "Minha irmã vai ter o bebê por barriga de aluguel.",
    ),
    (
        "O livro explica a história da pílula anticoncepcional.",
        "Eu tomo a pílula anticoncepcional todos os dias.",
    ),
    # nl: an open marriage, a divorce
    (
        "Het boek gaat over een open huwelijk in de jaren zeventig.",
        "Mijn vrouw en ik hebben een open huwelijk.",
    ),
    ("De cursus behandelt het recht rond echtscheiding.", "Ik ben gescheiden sinds vorig jaar."),
    # pl: contraception
    (
        "Wykład dotyczył historii antykoncepcji w Europie.",
        "Moja dziewczyna bierze tabletki antykoncepcyjne.",
    ),
    # en: erectile medication
    ("The pharmacy stocks sildenafil generics.", "My husband takes sildenafil on weekends."),
]


@pytest.mark.parametrize(("topic", "person"), PAIRS)
def test_person_refused_topic_stored(topic: str, person: str) -> None:
    assert_twins(topic, person, INTIMATE)


SHARED_WORD = (
    "Soy amante del café y de los libros viejos.",  # a lover of coffee
    "Mi madre es amante de la música clásica.",
    "Ik heb het afval gescheiden en buiten gezet.",  # waste sorted
    "Ich will Unfälle im Labor verhüten.",  # prevent accidents
    "Prendo il treno delle otto per andare in ufficio.",  # a train, not a pill
)


def test_shared_word_stored() -> None:
    """A memory that shares a word with the new terms names no one's intimate life."""
    assert [decision(t) for t in SHARED_WORD] == [("SUCCESS_STORED", None)] * len(SHARED_WORD)
