"""Check-digit validators: a number is an identifier only when its checksum says so.

Pure functions, no dependencies. :func:`stdnum_match` adds python-stdnum's
national-ID validators when that package is installed (it is imported lazily,
on first use, so importing the gate stays cheap).

>>> luhn_ok("4111 1111 1111 1111"), luhn_ok("4111 1111 1111 1112")
(True, False)
>>> iban_ok("DE89 3704 0044 0532 0130 00"), iban_ok("DE89 3704 0044 0532 0130 01")
(True, False)
>>> verhoeff_ok("499118665246")
True
"""

from __future__ import annotations

import hashlib
import importlib
import re
from functools import cache
from types import ModuleType

__all__ = [
    "IBAN_LENGTHS",
    "aba_ok",
    "base58check_ok",
    "bech32_ok",
    "card_issuer",
    "cpf_ok",
    "digits_of",
    "dni_ok",
    "iban_ok",
    "luhn_ok",
    "ssn_structure_ok",
    "stdnum_match",
    "verhoeff_ok",
]

IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip

_NON_DIGIT = re.compile(r"\D")


def digits_of(s: str) -> str:
    return _NON_DIGIT.sub("", s)


def luhn_ok(number: str) -> bool:
    d = digits_of(number)
    if len(d) < 2:
        return False
    total = 0
    for i, ch in enumerate(reversed(d)):
        n = int(ch)
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def card_issuer(number: str) -> str | None:
    """The card network for a 12–19 digit number by its IIN prefix, else None."""
    d = digits_of(number)
    n = len(d)
    if not 12 <= n <= 19:
        return None
    p2, p3, p4, p6 = int(d[:2]), int(d[:3]), int(d[:4]), int(d[:6])
    if d[0] == "4" and n in (13, 16, 19):
        return "Visa"
    if (51 <= p2 <= 55 or 2221 <= p4 <= 2720) and n == 16:
        return "Mastercard"
    if p2 in (34, 37) and n == 15:
        return "American Express"
    if (p4 == 6011 or p2 == 65 or 644 <= p3 <= 649 or 622126 <= p6 <= 622925) and n >= 16:
        return "Discover"
    if 3528 <= p4 <= 3589 and n >= 16:
        return "JCB"
    if (p2 in (36, 38, 39) or 300 <= p3 <= 305) and n >= 14:
        return "Diners Club"
    if p2 == 62 and n >= 16:
        return "UnionPay"
    if (p4 in (5018, 5020, 5038, 5893, 6304, 6759, 6761, 6762, 6763) or p2 == 67) and n >= 12:
        return "Maestro"
    return None


def iban_ok(value: str) -> bool:
    s = re.sub(r"[\s-]", "", value).upper()
    if len(s) < 15 or not s[:2].isalpha() or not s[2:4].isdigit() or not s.isalnum():
        return False
    expected = IBAN_LENGTHS.get(s[:2])
    if expected is not None and len(s) != expected:
        return False
    rearranged = s[4:] + s[:4]
    num = "".join(str(int(c, 36)) for c in rearranged)
    return int(num) % 97 == 1


_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6), (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4), (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)  # fmt: skip
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2), (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)  # fmt: skip


def verhoeff_ok(number: str) -> bool:
    d = digits_of(number)
    if not d:
        return False
    c = 0
    for i, ch in enumerate(reversed(d)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def cpf_ok(number: str) -> bool:
    d = [int(c) for c in digits_of(number)]
    if len(d) != 11 or len(set(d)) == 1:
        return False
    for n in (9, 10):
        s = sum(d[i] * (n + 1 - i) for i in range(n))
        check = (s * 10) % 11 % 10
        if check != d[n]:
            return False
    return True


def dni_ok(value: str) -> bool:
    """Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter)."""
    s = re.sub(r"[\s.-]", "", value).upper()
    m = re.fullmatch(r"([XYZ]?)(\d{7,8})([A-Z])", s)
    if not m:
        return False
    prefix = {"": "", "X": "0", "Y": "1", "Z": "2"}[m.group(1)]
    num = int(prefix + m.group(2))
    return "TRWAGMYFPDXBNJZSQVHLCKE"[num % 23] == m.group(3)


def aba_ok(number: str) -> bool:
    d = [int(c) for c in digits_of(number)]
    if len(d) != 9:
        return False
    s = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])
    return s % 10 == 0 and any(d)


def ssn_structure_ok(number: str) -> bool:
    """US SSN issuance rules: area not 000/666/9xx, group not 00, serial not 0000."""
    d = digits_of(number)
    if len(d) != 9:
        return False
    area, group, serial = d[:3], d[3:5], d[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


# python-stdnum validators tried on ID-looking tokens that carry their own check digits.
_STDNUM_MODULES = (
    "be.nn", "bg.egn", "br.cpf", "ch.ssn", "cl.rut", "cn.ric", "cz.rc", "de.idnr", "dk.cpr",
    "ee.ik", "es.dni", "es.nie", "fi.hetu", "fr.nir", "gr.amka", "hr.oib", "ie.pps", "in_.pan",
    "is_.kennitala", "it.codicefiscale", "lt.asmens", "lv.pk", "mx.curp", "nl.bsn", "no.fodselsnu"
    "mmer",
    "nz.ird", "jp.in_", "pl.pesel", "pt.cc", "ro.cnp", "se.personnummer", "si.emso", "tr.tckimlik",
    "za.idnr", "kr.rrn", "sg.nric", "au.tfn", "ca.sin", "us.itin", "gb.nhs", "ar.dni",
    "in_.aadhaar",
)  # fmt: skip


@cache
def _stdnum_modules(names: tuple[str, ...] = _STDNUM_MODULES) -> tuple[tuple[str, ModuleType], ...]:
    mods: list[tuple[str, ModuleType]] = []
    for name in names:
        try:
            mods.append((name, importlib.import_module(f"stdnum.{name}")))
        except ImportError:
            continue
    return tuple(mods)


def stdnum_match(token: str, only: tuple[str, ...] | None = None) -> str | None:
    """Name of the first python-stdnum national-ID format ``token`` validates as, else None.

    ``only`` names the formats to try instead (e.g. ``("kr.rrn", "fi.hetu")``; formats
    outside the default list too, for a rule whose label names the country).
    Returns None when python-stdnum is not installed.

    >>> stdnum_match("131052-308T"), stdnum_match("131052-308T", ("kr.rrn",))
    ('fi.hetu', None)
    """
    for name, mod in _stdnum_modules() if only is None else _stdnum_modules(only):
        is_valid = getattr(mod, "is_valid", None)
        if is_valid is None:
            continue
        try:
            if is_valid(token):
                return name
        except Exception:  # a third-party validator must never break the gate
            continue
    return None


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def bech32_ok(address: str) -> bool:
    """True when ``address`` is a bech32 or bech32m string with a valid checksum (BIP 173/350).

    >>> bech32_ok("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")
    True
    >>> bech32_ok("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr")
    False
    """
    a = address.lower()
    if a != address and address.upper() != address:
        return False
    hrp, sep, data = a.rpartition("1")
    if not sep or not hrp or len(data) < 6 or any(c not in _BECH32 for c in data):
        return False
    values = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    values += [_BECH32.index(c) for c in data]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i, g in enumerate((0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)):
            chk ^= g if (top >> i) & 1 else 0
    return chk in (1, 0x2BC830A3)


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58check_ok(value: str) -> bool:
    """True when ``value`` decodes as Base58Check (a legacy Bitcoin address, a WIF key).

    >>> [base58check_ok("1BoatSLRHtKNngkdXEeobR76b53LETtpy" + end) for end in "TX"]
    [True, False]
    """
    if not value or any(c not in _B58 for c in value):
        return False
    n = 0
    for c in value:
        n = n * 58 + _B58.index(c)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(value) - len(value.lstrip("1"))) + raw
    if len(raw) < 5:
        return False
    body, check = raw[:-4], raw[-4:]
    return hashlib.sha256(hashlib.sha256(body).digest()).digest()[:4] == check
