"""Exact-span families on formats the detectors did not read before (issue 21, session 7).

Credentials written as bare pairs, PINs, security answers, seed phrases, one-time-password
secrets and Wi-Fi codes; government IDs and financial numbers in other countries' formats,
validated by their check digits where they have them. Every sentence and number here was
written for this file (English, Spanish, German, French, Italian, Portuguese, Polish,
Russian, Turkish, Chinese, Japanese, Korean, Arabic); none comes from a corpus or an
evaluation set. Each refusal names its rule and a span on the original text; each benign
twin uses the same words without a secret or a person's number. The learned layer is off.
"""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, GateContext, evaluate

DETECTORS_ONLY = GateContext(learned=None)


def judge(text: str) -> tuple[StopReason, str | None, str]:
    d = evaluate(Candidate(text=text), DETECTORS_ONLY)
    span = text[d.spans[0].start : d.spans[0].end] if d.spans else ""
    return d.stop_reason, d.detector, span


CREDENTIALS = [
    # (text, rule, a piece of the secret the span must hold)
    (
        "mi contraseña del banco: {'usuario': 'pgil', 'pw': 'Mar#2031'}",
        "password_assignment",
        "Mar",
    ),
    (
        '{"servizio": "posta", "utente": "l.bianchi", "password": "Lago!8821"}',
        "password_assignment",
        "Lago",
    ),
    ("das WLAN-Passwort bei meinen Eltern ist Tulpe&Mond7", "password_assignment", "Tulpe"),
    ("我妈的邮箱密码是 Lan@1967", "password_script", "Lan@1967"),
    ("母のパスワードは sakura#0412 です", "password_script", "sakura"),
    ("пароль от роутера: Кедр_5521", "password_assignment", "Кедр"),
    ("kartımın şifresi 4417, kimseye söyleme", "device_pin", "4417"),
    ("ATM pin 8093 hai papa ka", "device_pin", "8093"),
    ("阿姨的银行卡密码 905512", "device_pin", "905512"),
    ('{"tablet_pin": "2750", "owner": "my son"}', "pin_assignment", "2750"),
    ("el código del portal de mi casa es 4471", "pin_assignment", "4471"),
    ("sec_q_pet=Nala; sec_q_city=Porto", "security_answer_field", "Nala"),
    (
        "Sicherheitsfrage der Sparkasse: erstes Auto → Käfer",
        "security_answer_multilingual",
        "Käfer",
    ),
    (
        "question secrète de la banque : nom de mon premier chat = Minou",
        "security_answer_multilingual",
        "Minou",
    ),
    (
        "otpauth://totp/Bank:ana@mail.example?secret=KRSXG5CTMVRXEZLUKN2XAZLSMF2GC3TF&issuer=Bank",
        "otpauth|generic_secret",
        "secret=",
    ),
    ("WIFI:T:WPA;S:Casa Rossi;P:girasole-77!;;", "wifi_qr", "girasole"),
    ("account for my dad: tomas.ribeiro61 / Sardinha#1961", "account_pair", "Sardinha"),
    ("wifi at the cabin: cabin.guest2/sardinha#1961", "account_pair", "sardinha"),
    ("docker login -u pgil -p 'Quay!Reg2026' quay.example.io", "cli_password", "Quay"),
    (
        "frase semilla de mi cartera: lemon orbit crane velvet pilot sugar maple anchor "
        "drift ocean tiger mesh",
        "seed_phrase",
        "lemon",
    ),
]


@pytest.mark.parametrize(("text", "rule", "secret"), CREDENTIALS)
def test_a_credential_in_a_new_format_is_refused_with_its_span(
    text: str, rule: str, secret: str
) -> None:
    reason, detector, span = judge(text)
    assert reason is StopReason.FORBIDDEN_CATEGORY
    assert detector in {f"detector.credentials.{r}" for r in rule.split("|")}
    assert secret in span


NOT_CREDENTIALS = [
    "パスワードは12文字以上というルールです",
    "şifre_politikası=en az 10 karakter; 2fa=zorunlu",
    "the password rules at the bank are so annoying",
    "Sicherheitsfrage: die Funktion wurde entfernt",
    "second=5; section=3; secret_santa=on",
    "the router model is TP-Link/Archer C7, firmware 3.15",
    "TCP/IP and HTTP/2 are covered in week 3.",
    "the 2fa secret lives in the authenticator app, never in chat",
    # paths and slugs are not an account with its password (an ingested guide's key)
    "guide-0/guide-0#s0001.c01",
    "deploy from the branch hotfix2/release-2.1.0 tonight",
]


@pytest.mark.parametrize("text", NOT_CREDENTIALS)
def test_talk_about_credentials_passes(text: str) -> None:
    assert judge(text)[:2] == (StopReason.SUCCESS_STORED, None)


# Valid check digits were computed for these numbers (python-stdnum); labelled numbers
# need none: the label says what they are.
IDENTIFIERS = [
    ("mijn rijksregisternummer is 85.07.30-033.28", "gov_id.national_id_validated", "85.07"),
    ("henkilötunnukseni on 131052-308T", "gov_id.", "131052-308T"),
    ("mi RUT es 12.345.678-5, anótalo", "gov_id.", "12.345.678-5"),
    ("मेरा पैन नंबर AKLPM4421Q है", "gov_id.", "AKLPM4421Q"),
    ("ИНН моей мамы 500100732259", "gov_id.labelled_id_more", "500100732259"),
    ("رقم هويتي الوطنية 2891043377", "gov_id.labelled_id_more", "2891043377"),
    ("numer dowodu osobistego: ABA300000", "gov_id.labelled_id_more", "ABA300000"),
    ("夫のパスポート番号は TK1234567 です", "gov_id.labelled_id_more", "TK1234567"),
    ("meine Ausweisnummer für den Mietvertrag: T220001293", "gov_id.labelled_id_more", "T22"),
    ("карта жены: 2202 2011 2233 4455, срок 03/27", "financial.card_labelled", "2202"),
    ("mi tarjeta es 4111 2222 3333 4444 caduca 10/27", "financial.card_labelled", "4444"),
    ("我妈妈的建设银行卡号 6217 0000 1234 5678 901", "financial.card_labelled", "6217"),
    ('{"titular": "yo", "iban": "TR12 0001 0012 3456 7890 1234 56"}', "financial.", "TR12"),
    ("номер счёта мужа 40817810099910004312 в Сбербанке", "financial.bank_account_more", "4081"),
    (
        "銀行=楽天銀行; 支店=第一営業; 口座=7654321; 名義=私",
        "financial.bank_account_more",
        "7654321",
    ),
    ("číslo mého účtu je 19-2000145399/0800", "financial.bank_account_more", "2000145399"),
]


@pytest.mark.parametrize(("text", "rule", "number"), IDENTIFIERS)
def test_an_identifier_in_another_format_is_refused_with_its_span(
    text: str, rule: str, number: str
) -> None:
    reason, detector, span = judge(text)
    assert reason is StopReason.FORBIDDEN_CATEGORY
    assert detector is not None and detector.startswith(f"detector.{rule}")
    assert number in span


NOT_IDENTIFIERS = [
    "case=DUI defendant=me hearing=2026-12-14 court=district",
    "the sandbox test card 4111 1111 1111 1111 always succeeds",
    "order 4539 7788 1122 3344 shipped, tracking on the card in the box",
    "IBAN format: two letters, two check digits, then the account",
    "our support line is 0800 1234 5678, open weekdays",
    "Kontonummern haben bei uns zehn Stellen.",
]


@pytest.mark.parametrize("text", NOT_IDENTIFIERS)
def test_identifier_shapes_without_a_person_pass(text: str) -> None:
    assert judge(text)[:2] == (StopReason.SUCCESS_STORED, None)


ADDRESSES = [
    ("бабушка живёт на Невском проспекте, дом 28, квартира 15", "дом 28"),
    ("мой адрес: ул. Ленина, д. 5, кв. 12, Казань", "Ленина"),
    ("my mum: ul. Floriańska 33/5, 31-019 Kraków", "33/5"),
    ("annem Atatürk Cad. No: 12 Daire 5, Kadıköy'de oturuyor", "No: 12"),
    ("يسكن أخي في شارع الملك فهد، عمارة 12، شقة 5، الرياض", "شارع"),
    ("저희 집 주소는 서울시 강남구 테헤란로 123 입니다", "테헤란로 123"),
    ("jag bor på Storgatan 12, 3 tr, Uppsala", "Storgatan 12"),
    ("min mors adresse er Nørregade 14, 2. tv, København", "Nørregade 14"),
]


@pytest.mark.parametrize(("text", "piece"), ADDRESSES)
def test_a_home_address_in_another_countrys_format_is_refused(text: str, piece: str) -> None:
    reason, detector, span = judge(text)
    assert (reason, detector) == (StopReason.FORBIDDEN_CATEGORY, "detector.location.street_address")
    assert piece in span


NOT_HOME_ADDRESSES = [
    "Музей находится на Невском проспекте, дом 28, вход со двора.",
    "the bakery on ul. Floriańska 33 sells great pączki",
    "Toplantı Atatürk Cad. No: 12'deki otelde, saat 10'da.",
    "Storgatan 12 är ett museum sedan 1990.",
]


@pytest.mark.parametrize("text", NOT_HOME_ADDRESSES)
def test_a_public_address_in_those_formats_passes(text: str) -> None:
    assert judge(text)[:2] == (StopReason.SUCCESS_STORED, None)
