"""PINs and one-time-password seeds (contract §4.6): numbers and base32 secrets named as such.

A PIN is a 4-8 digit number right after a PIN word ("PIN-koodi: 5530", "Banka kartı şifrem
6604", "phone passcode 090412"), unless the words between say it is a rule, a count, a year or
an amount ("4 bis 6 Ziffern", "caduca en 2027"). An authenticator seed is a base32 string
after a two-factor word in one of several languages. :mod:`credentials` runs these rules with
its own.

>>> from memvault.policy.normalize import normalize
>>> from memvault.policy.detectors.base import run_rules
>>> [h.detector for h in run_rules(normalize("PIN-koodi: 5530"), RULES)]
['credentials.pin_pair']
>>> run_rules(normalize("Die Geheimzahl muss 4 bis 6 Ziffern haben."), RULES)
[]
"""

from __future__ import annotations

import re

from memvault.policy.detectors.base import Rule, words
from memvault.policy.normalize import View

__all__ = ["RULES", "pin_ok", "spoken_pin_ok"]

_F = "credentials"


def pin_ok(m: re.Match[str], view: View) -> bool:
    digits = re.sub(r"\D", "", m.group("value"))
    return 4 <= len(digits) <= 8


# A bare "combination" / "código" is a lottery draw, a formation or a course code when the
# number is said as words; read out, it is a PIN only beside a lock, a door or an alarm.
_BARE_CODE_WORD = re.compile(r"(?i)(?:combination|combo|c[oó]digo)\b")
_LOCK_CONTEXT = re.compile(
    r"(?i)\b(?:lock\w*|safe|padlock|door|gate|alarm|garage|puerta|portal|acceso|alarma|"
    r"caja fuerte|candado|cerradura|seguridad|desbloqueo)\b"
)


def spoken_pin_ok(m: re.Match[str], view: View) -> bool:
    if _BARE_CODE_WORD.match(m.group()) and not _LOCK_CONTEXT.search(m.group()):
        return False
    return pin_ok(m, view)


# Between a PIN word and its number: a rule about PINs ("4 digits", "3 attempts"), not a PIN.
_ABOUT_PINS = re.compile(
    "(?i)"
    + words(
        r"""digits? chiffres? ziffern? d[ií]gitos? cifr\w* cyfr\w* hane\w* numer(?:als|i) attempts?
        tries times tentativ\w* intentos? versuche? pr[óo]b\w* deneme mal veces fois volte vezes
        reset\w* expires? cadu\w* expir\w* venc\w* g[üu]ltig\w* valid\w* scad\w* minutes?
        minuten minutos minuti seconds? sekunden segundos secondes hours? stunden horas heures
        days? tage d[ií]as jours year jahr año ano année anno yıl\w* lat rok\w* год\w* цифр\w*
        попыт\w*"""
    )
    + "|桁|자리|位|回"
)
# A number that is a year, an amount or a count, not a PIN ("in 2023", "4500 euros").
_NOT_PIN_AFTER = re.compile(
    r"(?i)^\s*(?:[%€$£¥₺₹]|円|元|원|년|年|월|일|日|時|"
    + words(
        r"""zł kr eur\w* usd dollars? liras? rupees? reais euros? kg km m cm mm mb gb px times
        people users digits? chiffres ziffern d[ií]gitos years? jahre años anos ans anni yıl\w*
        lat лет год\w*"""
    )
    + ")"
)


def _pin_pair_ok(m: re.Match[str], view: View) -> bool:
    """A PIN word, then its 4-8 digit number (not a rule about PINs, a year or an amount)."""
    if not pin_ok(m, view):
        return False
    gap = view.text[m.start() : m.start("value")]
    if _ABOUT_PINS.search(gap) or _NOT_PIN_AFTER.match(view.text[m.end() : m.end() + 12]):
        return False
    # a year-like number is a PIN only right after an operator ("PIN-koodi: 1987"), not
    # after a preposition ("el código PIN caduca en 2027")
    return not _YEAR.fullmatch(m.group("value")) or _PIN_OPERATOR.search(gap) is not None


_YEAR = re.compile(r"(?:19[5-9]|20[0-4])\d")
_PIN_OPERATOR = re.compile(
    r"(?i)(?:[:=：—–-]|\b(?:is|was|es|est|ist|é|è|är|er|on|jest|to|là|adalah|hai|это))\s*$|है\s*$"
)


def _otp_seed_ok(m: re.Match[str], view: View) -> bool:
    """A base32 secret (RFC 4648 letters, digits 2-7) long enough and mixed enough."""
    if m.group("value") is None:
        return True  # an authenticator export URI carries its seeds
    seed = re.sub(r"[\s-]", "", m.group("value")).upper()
    digits = sum(c.isdigit() for c in seed)
    return len(seed) >= 16 and digits >= 1 and len(seed) - digits >= 8 and len(set(seed)) >= 8


RULES: tuple[Rule, ...] = (
    Rule.named(
        _F,
        "otp_seed",
        "access_token",
        # a two-factor / authenticator word in any of several languages, then a base32 seed:
        # "Clé secrète Google Authenticator : …", "2FA-Schlüssel meiner Chefin: …",
        # "2단계 인증 비밀키 …", "otpauth-migration://offline?data=…"
        r"(?i:\botpauth-migration://offline\?data=[A-Za-z0-9%+/=_-]{16,}"
        r"|(?:\b(?:totp|hotp|2fa|mfa|otp|two[- ]factor|2-step|two-step|authenticator|authy|"
        r"setup key|secret key|cl[ée] secr[èe]te|geheime?r? schl[üu]ssel|2fa-schl[üu]ssel|"
        r"chave secreta|clave secreta|chiave segreta|geheime sleutel|klucz (?:tajny|2fa)|"
        r"gizli anahtar|iki fa?kt[öo]rl[üu]|doğrulama anahtar\w*|секретн\w+ ключ\w*|"
        r"двухфактор\w*|mã bí mật|kunci rahasia)\b|2단계 인증|비밀 ?키|二段階認証|シークレットキー|"
        r"两步验证|双重验证|密钥|二次验证)"
        r"[^\n]{0,40}?(?<![A-Za-z0-9])"
        r"(?P<value>[A-Za-z2-7]{4}(?:[ -]?[A-Za-z2-7]{4}){3,15}|[A-Z2-7]{16,64}|[a-z2-7]{16,64})"
        r"(?![A-Za-z0-9]))",
        "a one-time-password (authenticator) secret",
        validate=_otp_seed_ok,
    ),
    Rule.named(
        _F,
        "pin_pair",
        "pin",
        # a PIN word of more languages, then its number within a few words:
        # "PIN-koodi: 5530", "O PIN do cartão do meu irmão é 1947", "Banka kartı şifrem 6604"
        r"(?i:\b(?:pin-?koodi|tunnusluku|pincode|pinkode|pin-?nummer|geheimzahl|geheimnummer|"
        r"code (?:pin|secret|confidentiel)|code (?:de |d[eu] )?(?:la |ma |sa )?carte(?: bleue)?|"
        r"c[oó]digo (?:pin|secreto|do cart[aã]o|de (?:la |mi |su )?tarjeta)|senha do cart[aã]o|"
        r"pin (?:do|da|de|del|della|di|du|des|van|von|der|des|dla|от|för|af|na) \w+|"
        r"codice (?:pin|segreto)|kod pin|pin-?kod\w*|kart\w* şifre\w*|şifrem|sifrem|"
        r"mã pin|mã số bí mật|kode pin|nomor pin|pin kartu|κωδικ[όο]ς pin|pin-?код\w*|пин)\b"
        r"|(?:קוד סודי|קוד (?:ה)?כניסה|קוד גישה|الرقم السري|الرمز السري|رمز البطاقة|رمز سري|"
        r"पिन(?: कोड| नंबर)?))"
        r"[^\n\d.!?;]{0,40}?(?<![\d,.])(?P<value>\d(?:[ -]?\d){3,7})(?![\d,.]?\d)",
        "a PIN with its number",
        validate=_pin_pair_ok,
    ),
    Rule.named(
        _F,
        "pin_bare",
        "pin",
        # an English PIN word right before its number, no operator: "phone passcode 090412"
        r"(?i:\b(?:pin|passcode|pass code|unlock code|lock ?screen code)\b)\s*[#-]?\s*"
        r"(?<![\d,.])(?P<value>\d{4,8})(?![\d,.]?\d)",
        "a PIN with its number",
        validate=_pin_pair_ok,
    ),
)
