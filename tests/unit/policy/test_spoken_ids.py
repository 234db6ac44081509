"""Government IDs read out as words (issue 21, session 8): number words -> digits -> ID rules.

Each forbidden sentence dictates an ID after its name, in a different language and way of
reading (digit by digit, pairs, triples, "double", "oh", dashes, letters); it must be
refused by a gov_id rule with the exact span that was said. Each benign sentence holds
ordinary numbers in prose (counts, times, prices, years), some beside an ID word, and
must pass. Sentences written for this file, not taken from any corpus or evaluation set.
The learned layer is off: it has its own owner and tests.
"""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, GateContext, evaluate
from memvault.policy.detectors import identifiers
from memvault.policy.detectors.spoken import spoken_view_text
from memvault.policy.normalize import normalize

DETECTORS_ONLY = GateContext(learned=None)


def judge(text: str) -> tuple[StopReason, str | None]:
    d = evaluate(Candidate(text=text), DETECTORS_ONLY)
    return d.stop_reason, d.detector


DICTATED = [
    "Put my passport number on the visa form: capital M, four one seven, double two, nine oh six.",
    "his social security number is seven oh one, three three, eight two five four",
    "El DNI de mi hermana es siete dos cero cuatro, uno uno, ocho seis, letra ka.",
    "Meine Steuer-ID zum Mitschreiben: drei acht, null eins, sieben sieben, vier zwo, neun eins.",
    "Le numéro de sécu de mon fils : deux, zéro six, onze, quatre-vingt-treize, cent quarante.",
    "PESEL taty: dziewięć zero, jeden jeden, dwa trzy, cztery pięć, sześć siedem, osiem.",
    "La tessera sanitaria di nonna: sette due, zero zero, quattro uno, nove.",
    "我爸爸的身份证号码是三二零一零二一九六五零七一四八八三一",
    "엄마 주민등록번호는 육일공이이삼 다시 이칠팔팔구공일.",
    "O CPF do meu tio é quatro cinco seis, sete oito nove, zero um dois, traço três três.",
]


@pytest.mark.parametrize("text", DICTATED)
def test_an_id_read_out_as_words_is_refused(text: str) -> None:
    reason, detector = judge(text)
    assert reason is StopReason.FORBIDDEN_CATEGORY
    assert detector is not None and detector.startswith("detector.gov_id.")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "his social security number is seven oh one, three three, eight two five four",
            "seven oh one, three three, eight two five four",
        ),
        (
            "PESEL taty: dziewięć zero, jeden jeden, dwa trzy, cztery pięć, sześć siedem, osiem.",
            "dziewięć zero, jeden jeden, dwa trzy, cztery pięć, sześć siedem, osiem",
        ),
        (
            "Put my passport number on the visa form: capital M, four one seven, double two, "
            "nine oh six.",
            "capital M, four one seven, double two, nine oh six",
        ),
    ],
)
def test_the_span_is_exactly_what_was_said(text: str, said: str) -> None:
    hits = [h for h in identifiers.detect(normalize(text)) if h.detector == "gov_id.spoken_id"]
    assert hits
    start, end = hits[0].original_span()
    assert text[start:end] == said


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("ssn five five five dash one two dash nine eight seven six", "ssn 555 12 9876"),
        ("code: double five, triple oh, seven", "code: 55 000 7"),
        ("numéro quatre-vingt-dix-sept, soixante-quinze, zéro trois", "numéro 97 75 03"),
        ("номер сорок пять ноль восемь двести двенадцать", "номер 4508212"),
        ("número treinta y cuatro, veintiocho, cero nueve", "número 34 28 09"),
    ],
)
def test_number_words_become_digits(text: str, digits: str) -> None:
    assert spoken_view_text(text) == digits


@pytest.mark.parametrize(
    "text",
    [
        "the alarm code is seven, three, three, one",
        "el pin de la tarjeta es nueve, cero, cuatro, dos",
        "Die PIN für das Tor ist: acht, acht, zwei, fünf.",
    ],
)
def test_a_pin_read_out_with_pauses_is_refused(text: str) -> None:
    assert judge(text) == (StopReason.FORBIDDEN_CATEGORY, "detector.credentials.pin_assignment")


ORDINARY = [
    "We were three or four people at the table, maybe five.",
    "The meeting is on the twenty-first of May at two thirty.",
    "It cost nineteen ninety-nine, plus four fifty for shipping.",
    "Count with me: one, two, three, four, five, six, seven!",
    "My passport photo was taken in twenty nineteen; I queued for forty-five minutes.",
    "Passport renewal: we queued from nine to eleven, then paid one hundred and twenty pounds.",
    "Passport renewal costs 1000 pesos, and I counted one two three four five at the desk.",
    "Mi pasaporte tiene veinte páginas y cuesta setenta y cinco euros.",
    "Der Reisepass kostet siebzig Euro, die Bearbeitung dauert drei bis vier Wochen.",
    "Le passeport coûte quatre-vingt-six euros et le délai est de deux, trois semaines.",
    "mera number hai do teen din mein aayega",
    "我们一共三个人，下午两点见。",
    "The pin on the map shows three, maybe four cafés within two hundred metres.",
    # times and years beside an ID word
    "The passport office opens at nine thirty, four days a week.",
    "My driving licence test is at ten fifteen, three of us go together.",
    "My passport was issued in nineteen ninety-nine and renewed in twenty twenty-four.",
    "El DNI se renueva a las diez y cuarto, somos tres o cuatro en la cola.",
    "El código del curso es nuevo: tres, cuatro o cinco alumnos por grupo.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_numbers_in_prose_pass(text: str) -> None:
    assert judge(text) == (StopReason.SUCCESS_STORED, None)
