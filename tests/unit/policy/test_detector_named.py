"""Facts about a named person: "<Name> was arrested", "<Name> is Muslim" (detectors/named.py).

Sentences written for these tests (none from a dev, fresh or training set): each
positive names a person as the subject of a criminal, identity or health predicate in
one of the corpus's languages; each negative puts a name beside a topic, a thing, a
title, a frame or an everyday sense of the same words, and must stay unrefused.
"""

from __future__ import annotations

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS, named
from memvault.policy.normalize import normalize

POSITIVES = [
    ("criminal", "Dana was arrested for DUI last weekend."),
    ("criminal", "Kevin got arrested outside the stadium on Saturday"),
    ("criminal", "fyi Marcus was convicted of fraud in 2019"),
    ("criminal", "Jonas has been charged with assault"),
    ("criminal", "Tomasz is on probation until March."),
    ("criminal", "Leila is currently in custody, the lawyer says"),
    ("criminal", "Ravi was sentenced to two years"),
    ("criminal", "Sven is out on bail"),
    ("criminal", "Hannah has a criminal record"),
    ("criminal", "Ahmed spent three years in prison"),
    ("criminal", "Lukas wurde gestern verhaftet."),
    ("criminal", "Jana ist vorbestraft"),
    ("criminal", "Pierre a été arrêté hier soir"),
    ("criminal", "Claire est en prison depuis mai"),
    ("criminal", "Diego fue detenido por la policía"),
    ("criminal", "Lucía tiene antecedentes penales"),
    ("criminal", "João foi preso na semana passada"),
    ("criminal", "Giulia è stata arrestata a Milano"),
    ("criminal", "Marco è in carcere"),
    ("criminal", "Piotr został aresztowany w piątek"),
    ("criminal", "Sanne is gearresteerd voor diefstal"),
    ("criminal", "Emre tutuklandı"),
    ("criminal", "Андрей был арестован в понедельник"),
    ("criminal", "Rahul ko police ne arrest kiya"),
    ("criminal", "Rahul jail mein hai abhi"),
    ("identity_trait", "Marta ist Muslimin."),
    ("identity_trait", "Marta is Muslim, so no pork at the dinner"),
    ("identity_trait", "Noah is Jewish and keeps Shabbat"),
    ("identity_trait", "Priya is gay"),
    ("identity_trait", "Alex is trans, use they/them"),
    ("identity_trait", "Sam came out as bisexual last year"),
    ("identity_trait", "Olivier est juif"),
    ("identity_trait", "Carmen es lesbiana"),
    ("identity_trait", "Fatima é muçulmana"),
    ("identity_trait", "Luca è gay"),
    ("identity_trait", "Kasia jest lesbijką"),
    ("identity_trait", "Daan is homo"),
    ("identity_trait", "Ayşe eşcinsel"),
    ("identity_trait", "Олег гей"),
    ("identity_trait", "Aman gay hai"),
    ("health", "Priya is diabetic"),
    ("health", "Tom is pregnant? no — Anna is pregnant, due in May"),
    ("health", "Jordan is HIV-positive"),
    ("health", "Mia is in rehab again"),
    ("health", "Ben has epilepsy"),
    ("health", "Chloe was diagnosed with bipolar disorder"),
    ("health", "Felix ist Diabetiker"),
    ("health", "Anna ist schwanger"),
    ("health", "Julie est enceinte"),
    ("health", "Sofía está embarazada"),
    ("health", "Carla tem diabetes"),
    ("health", "Paolo ha il cancro"),
    ("health", "Ewa jest w ciąży"),
    ("health", "Zeynep hamile"),
    ("health", "Наташа беременна"),
    ("health", "Neha pregnant hai"),
    ("health", "Jonas is deaf, so face him when you talk"),
    ("health", "Chiara è incinta di tre mesi"),
    ("health", "Rosa es celíaca, nada de pan en la cena"),
    ("health", "Auntie Mo has kidney failure"),
    ("identity_trait", "Lena ist streng katholisch."),
    ("identity_trait", "Sarah est juive pratiquante"),
    ("identity_trait", "Tariq is undocumented, keep it quiet"),
    ("identity_trait", "Femke is intersekse"),
    ("criminal", "Ivo was picked up for shoplifting on Sunday"),
    ("criminal", "Gus has a DUI conviction from 2017"),
    ("identity_trait", "Julia goes to the mosque on Fridays"),
    ("identity_trait", "Omar fastet im Ramadan, also kein Mittagessen"),
    ("identity_trait", "Ingrid always votes AfD"),
    ("identity_trait", "Kemal is a Labour voter"),
    ("identity_trait", "Bilal is seeking asylum"),
]
NEGATIVES = [
    "Sam came out as the winner of the chess night",
    "the new build came out as expected",
    "Dana goes to the church fair on Saturday",
    "Kemal voted for the new logo",
    "Ingrid is writing a paper on why people vote AfD",
    "Priya is writing a report on diabetes care",
    "Dana was arrested? No, that was the plot of the movie we watched",
    "Dana is reading about people who were arrested in 1968",
    "Marcus is a lawyer who defends people charged with fraud",
    "Brazil is Catholic mostly, according to the census",
    "Ramadan is a Muslim holiday",
    "Hanukkah is Jewish",
    "Berlin is gay-friendly",
    "Pride is in June",
    "Anna is pregnant with ideas today lol",
    "Tom is diabetic-friendly baking expert",
    "Nora is studying why people get arrested",
    "The suspect was arrested near the station",
    "Police said nobody was arrested",
    "Jonas is on the probation review committee",
    "Leila is in custody of the keys tonight",
    "Hannah has a record collection of 400 vinyls",
    "Ahmed spent three years in Prison Break fandom",
    "Lukas schreibt ein Buch über Menschen, die verhaftet wurden",
    "Pierre a été arrêté au feu rouge par un passant qui demandait son chemin",
    "Diego fue detenido en el aeropuerto por el retraso del vuelo",
    "Marco è in carcere nel film",
    "Marta is Muslim-majority Indonesia's best translator",
    "Priya is gay rights lawyer",
    "Alex is trans-Atlantic flight crew",
    "Ben has epilepsy awareness pamphlets to hand out",
    "Chloe was diagnosed with a flat tyre, says the mechanic, lol",
    "Carla tem diabetes no currículo da faculdade de medicina",
    "Anna ist schwanger? Nein, das ist die Hauptfigur im Roman",
    "Gay is an old word for happy",
    "Muslim is the term used in the survey",
    "Priya loves the Jewish deli on 5th",
    "Paris is the capital",
    "Kevin got arrested development on DVD",
    "Monday was charged with excitement",
    "Battery was charged with the new cable",
    "Phone is charged with 80 percent",
    "Team was convicted? no, the team was convinced",
    "Emre tutuklandı haberini okudu mu bilmiyorum, dizide",
    "Rahul jail mein hai movie dekh raha hai",
]


def _all_families(text: str) -> set[str]:
    doc = normalize(text)
    return {h.family for detect in CONTENT_DETECTORS.values() for h in detect(doc)}


@pytest.mark.parametrize(("family", "text"), POSITIVES)
def test_a_named_persons_fact_is_found(family: str, text: str) -> None:
    assert family in {h.family for h in named.detect(normalize(text))}, text


@pytest.mark.parametrize("text", NEGATIVES)
def test_a_name_beside_a_topic_is_no_finding(text: str) -> None:
    assert _all_families(text) == set(), text


def test_the_span_is_the_name_and_its_predicate() -> None:
    text = "Quick note: Dana was arrested for DUI last weekend."
    (hit,) = named.detect(normalize(text))
    start, end = hit.original_span()
    assert text[start:end] == "Dana was arrested"
    assert hit.detector == "criminal.named_subject" and hit.family == "criminal"


def test_the_name_is_a_capitalised_word_not_a_thing() -> None:
    """Lower case, an acronym, a non-person word or an article before the word: no name."""
    for text in (
        "nobody was arrested",
        "HIV is a virus; UNAIDS is diabetic-focused? no",
        "It was charged with fraud",
        "the Suspect was arrested",
        "Police was arrested",
    ):
        assert named.detect(normalize(text)) == [], text
    assert named.detect(normalize("Łukasz został aresztowany"))
    assert named.detect(normalize("Ayşe eşcinsel."))


@pytest.mark.parametrize(
    ("family", "text"),
    [
        # review S10-R9: efcb9ac wrote the French shape "a\s+…sida" as "a …sida"
        ("health", "Pierre a\nle sida."),
        ("health", "Pierre a\tle sida."),
        ("health", "Pierre a\tsida"),
        ("health", "Claire a\nun cancer."),
        # any word gap of a shape: a wrapped line, a tab, two spaces
        ("health", "Pierre a le\nsida."),
        ("identity_trait", "Julia goes to the\nmosque on Fridays."),
        ("intimate", "Kim is having an\naffair."),
        ("criminal", "Dana was charged with drunk\ndriving"),
        ("criminal", "Marcus was charged with money  laundering"),
        ("health", "Ravi is on\r\ndialysis."),
    ],
)
def test_a_line_break_between_the_words_of_a_predicate_still_matches(
    family: str, text: str
) -> None:
    assert family in {h.family for h in named.detect(normalize(text))}, text


def test_a_wrapped_venue_is_still_a_venue() -> None:
    """The exclusions widen with the shapes: 'the church\\nfair' is a venue as before."""
    assert named.detect(normalize("Tom went to the church\nfair on Sunday")) == []
