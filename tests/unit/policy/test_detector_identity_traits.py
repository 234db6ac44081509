"""Identity traits stated plainly or as fields, of the user or of anyone (contract §4.1).

A person's religion, ethnicity, caste, orientation, gender identity, union or vote is
forbidden; the same word as a topic, a form, a schema or a heading is not. Also the
nearby false positives this session fixed: someone's lawyer is no legal matter, a home
town is no national origin. Sentences written for this test.
"""

from __future__ import annotations

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.normalize import normalize


def _hits(text: str) -> set[tuple[str, str]]:
    doc = normalize(text)
    return {(h.family, h.detector) for detect in CONTENT_DETECTORS.values() for h in detect(doc)}


def _families(text: str) -> set[str]:
    return {family for family, _detector in _hits(text)}


# ------------------------------------------------------------------ fields


@pytest.mark.parametrize(
    "text",
    [
        "religion: Sikh",
        '{"name": "Ola Berg", "religion": "Lutheran"}',
        '"ethnicity": "Hmong"',
        "caste=Kshatriya; person=my flatmate",
        "sexual_orientation: pansexual",
        "gender_identity = non-binary",
        "union_member: yes",
        "trade_union: GMB",
        "political_party: Scottish Greens",
        "vote_2019: Lib Dem",
        "race: Pacific Islander",
        "party: Labour",
        "Name: Joel Amankwah\nEthnicity: Akan\nLikes: jollof",
        "- Religión: evangélica",  # es
        "Konfession: katholisch",  # de
        "orientation_sexuelle : bisexuel",  # fr
        "etnia: mapuche",  # es/it/pt
    ],
)
def test_a_trait_written_as_a_field_is_forbidden(text: str) -> None:
    assert ("identity_trait", "identity.field") in _hits(text)


@pytest.mark.parametrize(
    "text",
    [
        '"ethnicity": {"type": "string", "nullable": true}',
        "religion: optional",
        "religion: string",
        "sexual_orientation: null",
        "ethnicity: Optional[str] = None",
        "religion = row['religion']",
        "religion: <religion>",
        "religion: prefer not to say",
        "union_member: no",
        "Religion: an overview of world faiths",
        "e.g. religion: Hindu",
        "race: 10k on Sunday morning",
        "party: Saturday at 8pm, bring snacks",
        "union: merge both result sets",
        "orientation: landscape",
        "The intake form has fields for religion and ethnicity.",
    ],
)
def test_a_form_a_schema_or_another_meaning_is_no_trait(text: str) -> None:
    assert "identity_trait" not in _families(text)


# ------------------------------------------------------------------ plain statements


@pytest.mark.parametrize(
    "text",
    [
        "My partner is trans.",
        "My landlord is a practising Catholic.",
        "Our lodger Sam is a devout Muslim.",
        "My sister is a member of Unison.",
        "I am a Unite rep at the depot.",
        "Kenji joined the union last year.",
        "Farah is a paid-up member of the GMB.",
        "Maria is Roma.",
        "Kwame is Ashanti.",
        "Tomás is of Chilean descent.",
        "Kofi is Ghanaian.",
        "Ravi belongs to the Kurmi caste.",
        "Priya votes Green.",
        "My wife is Kurdish.",
        "Mia sorella è pansessuale.",  # it
        "Soy no binaria.",  # es
        "Ich bin Jüdin.",  # de
        "Ma sœur est déléguée CFDT à l'usine.",  # fr
        "Mi padre está afiliado a UGT desde 1990.",  # es
        "Mein Onkel ist Mitglied bei ver.di.",  # de
        "Mio cugino è iscritto alla FIOM.",  # it
        "Mon voisin est musulman.",  # fr
        "Mi vecina es judía.",  # es
        "Minha colega é lésbica.",  # pt
        "Mijn buurman is moslim.",  # nl
        "La mia collega è cattolica e va a messa.",  # it
    ],
)
def test_a_trait_stated_of_a_person_is_forbidden(text: str) -> None:
    assert "identity_trait" in _families(text)


@pytest.mark.parametrize(
    "text",
    [
        "She gave a talk on caste in modern India.",
        "The union's press release came out this morning.",
        "The census asks for ethnicity.",
        "The union announced a strike for Monday.",
        "Snow is white.",
        "The car is black.",
        "I'm a frequent traveller.",
        "My manager is Karen from accounts.",
        "The Labour party published its manifesto today.",
        "I joined the book club last year.",
        "Our office is part of Unite's building fund.",
        "Mon voisin est garagiste.",  # fr, a job
        "Mi vecina es profesora de historia de las religiones.",  # es, a job and a topic
        "Meine Schwester ist Ärztin.",  # de, a job
    ],
)
def test_a_topic_or_an_unrelated_word_stays_allowed(text: str) -> None:
    assert "identity_trait" not in _families(text)


# ------------------------------------------------------------------ lawyers, home towns


@pytest.mark.parametrize(
    "text",
    [
        "My lawyer said the lease is fine.",
        "My solicitor is handling the house purchase.",
        "Mi abogada dice que el contrato está bien.",  # es
        "Mon avocat a relu le contrat de travail.",  # fr
        "Meine Anwältin hat den Mietvertrag geprüft.",  # de
    ],
)
def test_someones_lawyer_is_no_legal_matter(text: str) -> None:
    assert "criminal" not in _families(text)


@pytest.mark.parametrize(
    "text",
    [
        "My defence lawyer thinks I'll get bail.",
        "His public defender asked for a delay.",
        "Mi abogado penalista dice que me van a juzgar en marzo.",  # es
    ],
)
def test_a_defence_lawyer_still_is(text: str) -> None:
    assert "criminal" in _families(text)


@pytest.mark.parametrize(
    "text",
    [
        "I grew up in Leicester.",
        "I was born in Bristol.",
        "My husband was raised in Marseille, he loves the sea.",
        "I was born in a small town by the sea.",
        "I was born in 1988.",
    ],
)
def test_a_home_town_is_a_basic_fact(text: str) -> None:
    assert "identity_trait" not in _families(text)


@pytest.mark.parametrize(
    "text",
    [
        "I was born in Eritrea.",
        "I grew up in Vietnam.",
        "my wife was raised in iran",
        "I was born in Lagos and moved to the UK at nine.",
    ],
)
def test_born_in_a_country_or_before_a_move_abroad_is_origin(text: str) -> None:
    assert "identity_trait" in _families(text)


# ------------------------------------------------------------------ another person's addiction


@pytest.mark.parametrize(
    "text",
    [
        "My cousin is a bus driver and a recovering addict.",
        "Her son is a heroin addict.",
        "My uncle is a former drug addict, clean for ten years.",
    ],
)
def test_another_persons_addiction_is_health(text: str) -> None:
    assert "health" in _families(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm a coffee addict.",
        "Our clinic treats recovering addicts.",
        "My cousin is a bus driver.",
        "She volunteers at a shelter for drug addicts.",
    ],
)
def test_a_habit_a_service_or_a_job_is_no_addiction(text: str) -> None:
    assert "health" not in _families(text)


# ------------------------------------------------------------------ tables


@pytest.mark.parametrize(
    "text",
    [
        "name,religion\nOmar Haddad,Muslim",
        "| Name | Ethnicity | Team |\n|---|---|---|\n| Li Wei | Hakka | Ops |",
        "first;last;caste\nRavi;Kumar;Kurmi",
        "Nom\tReligion\nLéon\tprotestant",
    ],
)
def test_a_table_that_fills_a_trait_column_is_forbidden(text: str) -> None:
    assert ("identity_trait", "identity.field") in _hits(text)


@pytest.mark.parametrize(
    "text",
    [
        "name,religion\n",
        "id,name,ethnicity\n1,Sam,prefer not to say",
        "Template:\nname,religion\nJohn Doe,Muslim",
        "| column | type |\n|---|---|\n| religion | string |",
        "name,city\nOmar,Leeds",
    ],
)
def test_a_header_a_placeholder_or_a_template_is_no_record(text: str) -> None:
    assert ("identity_trait", "identity.field") not in _hits(text)
