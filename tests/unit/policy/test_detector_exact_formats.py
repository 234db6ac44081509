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
]


@pytest.mark.parametrize("text", NOT_CREDENTIALS)
def test_talk_about_credentials_passes(text: str) -> None:
    assert judge(text)[:2] == (StopReason.SUCCESS_STORED, None)
