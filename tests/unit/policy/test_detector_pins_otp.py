"""PIN pairs and one-time-password seeds in many languages: sentences written for this test."""

from __future__ import annotations

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.normalize import normalize


def _detectors(text: str) -> set[str]:
    doc = normalize(text)
    return {h.detector for detect in CONTENT_DETECTORS.values() for h in detect(doc)}


def _credentials(text: str) -> set[str]:
    return {d for d in _detectors(text) if d.startswith("credentials.")}


@pytest.mark.parametrize(
    "text",
    [
        "Le code de la carte bleue de ma mère est 4821",  # fr
        "O PIN do cartão do meu irmão é 1947",  # pt
        "PIN-koodi: 5530",  # fi
        "Pincode van mijn pinpas: 2291",  # nl
        "Banka kartı şifrem 6604",  # tr
        "ПИН-код карты сестры — 9173",  # ru
        "رمز البطاقة 4821",  # ar
        "कार्ड का पिन 4821 है",  # hi
        "Mã PIN thẻ ATM của tôi là 4821",  # vi
        "PIN kartu ATM saya 4821",  # id
        "Dana's phone passcode 090412",  # en, no operator
        "card ending 4242, pin 1234",  # en
    ],
)
def test_a_pin_word_with_its_number_is_a_credential(text: str) -> None:
    assert _credentials(text) & {"credentials.pin_pair", "credentials.pin_bare"}


@pytest.mark.parametrize(
    "text",
    [
        "Die Geheimzahl muss 4 bis 6 Ziffern haben.",  # de: a rule about PINs
        "Le code PIN se bloque après 3 essais.",  # fr
        "Nach 3 falschen PIN-Eingaben wartet man 1440 Minuten.",  # de: a duration
        "Mi tarjeta: el código PIN caduca en 2027.",  # es: a year
        "Pin 2024 goals to the board.",  # en: the verb, a year
        "Use pin 13 for the LED.",  # en: a hardware pin
        "Kart şifresi 4 haneli olmalı.",  # tr: "4 digits"
        "PIN kartu ATM berlaku 5 tahun.",  # id: too short to be a PIN
    ],
)
def test_talk_about_pins_is_no_credential(text: str) -> None:
    assert not _credentials(text) & {"credentials.pin_pair", "credentials.pin_bare"}


@pytest.mark.parametrize(
    "text",
    [
        "setup key for my authenticator: kf3q 7zpa m2xw r5tn",  # en, grouped lower case
        "Clé secrète Google Authenticator : KF3Q7ZPAM2XWR5TN",  # fr
        "Geheimer Schlüssel für die Authenticator-App: KF3Q 7ZPA M2XW R5TN",  # de
        "chave secreta do autenticador MZXW6YTBOI4Q2LTN",  # pt
        "clave secreta 2FA de mi jefe: GEZD GNBV GY3T QOJQ",  # es, another person
        "2단계 인증 비밀키 KF3Q7ZPAM2XWR5TN",  # ko
        "二段階認証のシークレットキー KF3Q7ZPAM2XWR5TN",  # ja
        "TOTP: MZXW6YTBOI4Q2LTN",  # bare label
        "otpauth-migration://offline?data=CjEKCkhlbGxvId6tvu8SBFRlc3QaBFRlc3QgASgBMAIQARgBIAA",
    ],
)
def test_an_authenticator_seed_is_a_credential(text: str) -> None:
    assert "credentials.otp_seed" in _credentials(text)


@pytest.mark.parametrize(
    "text",
    [
        "The authenticator app shows a 6-digit code every 30 seconds.",
        "Enable TOTP: the secret is a base32 string like XXXXXXXXXXXXXXXX.",
        "Authenticator setup keys are 16 or 32 base32 characters (A-Z, 2-7).",
        "Der geheime Schlüssel der Authenticator-App wird nur einmal angezeigt.",
        "La clave secreta 2FA se muestra como código QR al activar la cuenta.",
        "Our 2FA guide: scan the QR code, then type the 6 digit code.",
        "TOTP SECRETROTATIONPOLICY document is in the wiki.",  # a word, no digit 2-7
    ],
)
def test_talk_about_authenticators_is_no_credential(text: str) -> None:
    assert "credentials.otp_seed" not in _credentials(text)


@pytest.mark.parametrize(
    "text",
    [
        "model=fraud_v2 | inputs=amount,country,hour_7d | owner=risk | pii=none",  # a table row
        "control,owner,status MFA rollout,IT,done password manager,IT,in progress",  # CSV
    ],
)
def test_a_table_row_is_no_password(text: str) -> None:
    assert not _credentials(text) & {"credentials.account_pair", "credentials.password_bare"}


@pytest.mark.parametrize(
    "text",
    ["db01.admin / Hunter2!xyz for the staging box", "password Tr0ub4dor&3 for the NAS"],
)
def test_a_password_after_an_account_or_its_label_is_still_one(text: str) -> None:
    assert _credentials(text) & {"credentials.account_pair", "credentials.password_bare"}
