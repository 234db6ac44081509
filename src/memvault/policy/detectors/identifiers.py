"""Government IDs (contract §4.7) and financial account numbers, validated.

A number is only an identifier when its structure and check digits agree
(Luhn plus an issuer prefix for cards, mod-97 for IBANs, Verhoeff, CPF, DNI
letters, SSN issuance rules) or when an ID word names it ("passport number",
"Steuer-ID", "Aadhaar" … in several languages). Order, ticket, tracking and
invoice numbers are not identifiers of a person.

>>> from memvault.policy.normalize import normalize
>>> [h.detector for h in detect(normalize("my corporate card 378282246310005 expires soon"))]
['financial.card_number', 'financial.card_labelled']
>>> detect(normalize("Order #4111111111111112 was delayed"))
[]
"""

from __future__ import annotations

import re
from dataclasses import replace

from memvault.policy.detectors.base import POSSESSIVES, Hit, Rule, run_rules
from memvault.policy.detectors.spoken import on_spoken_view
from memvault.policy.detectors.validators import (
    IBAN_LENGTHS,
    aba_ok,
    base58check_ok,
    bech32_ok,
    card_issuer,
    cpf_ok,
    digits_of,
    dni_ok,
    iban_ok,
    luhn_ok,
    ssn_structure_ok,
    stdnum_match,
)
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "SPOKEN_RULES", "detect"]

_NOT_PERSONAL = re.compile(
    r"(?i)\b(?:order|orders|po|purchase|invoice|inv|tracking|shipment|parcel|booking|reservation|"
    r"confirmation|reference|ref|ticket|case|sku|part|serial|model|imei|isbn|ean|upc|build|"
    r"version|release|issue|pr|job|batch|lot|item|product|catalog|catalogue|barcode|room|"
    r"error|code|port|timestamp|epoch)\b[^\n]{0,12}$"
)
_CLOUD_ACCOUNT = re.compile(
    r"(?i)\b(?:aws|gcp|azure|cloud|service|github|gitlab|slack|admin|test|demo|email|e-mail|"
    r"user|customer|client|vendor|supplier|merchant|twitter|google|microsoft|stripe)\b"
    r"[^\n]{0,6}$"
)


def _before(view: View, m: re.Match[str], n: int = 40) -> str:
    return view.text[max(0, m.start() - n) : m.start()]


_TEST_CARD = re.compile(
    r"(?i)\b(?:sandbox|test[ -](?:card|number|mode|data|environment)|dummy|fake|sample card|"
    r"documented|example card|for testing|"
    # es, fr, de, it, pt: "tarjeta de prueba", "carte de test", "Testkarte", "carta di prova"
    r"tarjetas? de prueba|modo de prueba|cartes? (?:de )?test|mode test|testkarten?|testmodus|"
    r"carta di prova|carte di prova|modalit[àa] di prova|cart[ãa]o de teste|modo de teste)\b"
)


def _card_ok(m: re.Match[str], view: View) -> bool:
    num = m.group()
    if not luhn_ok(num):
        return False
    before = _before(view, m)
    if _NOT_PERSONAL.search(before) or _TEST_CARD.search(view.text):
        return False
    if card_issuer(num) is not None:
        return True
    return bool(re.search(r"(?i)\b(?:card|carte|tarjeta|karte|carta|cartão|cc)\b", before))


def _card_labelled_ok(m: re.Match[str], view: View) -> bool:
    if _NOT_PERSONAL.search(_before(view, m, 40)) or _TEST_CARD.search(view.text):
        return False
    return len(set(digits_of(m.group("value")))) > 2  # not 0000 0000 0000 0000


def _security_code_ok(m: re.Match[str], view: View) -> bool:
    # a documented test card's code ("Stripe's test card … CVC 123") is no one's secret
    return _TEST_CARD.search(view.text) is None


def _iban_labelled_ok(m: re.Match[str], view: View) -> bool:
    raw = re.sub(r"\s", "", m.group("value")).upper()
    length = IBAN_LENGTHS.get(raw[:2])
    if length is None or _TEST_CARD.search(view.text):
        return False
    return length - 4 <= len(raw) <= length + 2


# Trigger: "routing" as an alert, call or traffic routing beside a date — a key read as
#          words ("fact alert routing moved pagerduty 2026 02 28"), "routing: 2026-04-01 …".
# Why: the bare word is an ABA routing number's label only when an ABA number follows;
#      a date, with any separator, is no account (capture, session 16).
# Outcome: a value that reads as a calendar date is never an account; after "routing"
#          without "number", "no", "#", "ABA" or "transit", only nine digits whose ABA
#          check digit adds up are one.
_YEAR_DATE = re.compile(
    r"(?:19|20)\d\d(?P<s>[ ./-])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})|"
    r"(?P<d2>\d{1,2})(?P<s2>[ ./-])(?P<m2>\d{1,2})(?P=s2)(?:19|20)\d\d"
)
_BARE_ROUTING = re.compile(r"(?i)routing\b(?![^\d\n]*(?:\b(?:number|num|no|nr|aba|transit)\b|#))")


def _is_date(value: str) -> bool:
    """A calendar date with a four-digit year, whatever the separator ("2026 02 28"); a
    sort code ("20-00-00") is none.

    >>> _is_date("2026 02 28"), _is_date("28.02.2026"), _is_date("20-00-00"), _is_date("2026 13 01")
    (True, True, False, False)
    """
    m = _YEAR_DATE.fullmatch(value.strip())
    if m is None:
        return False
    month, day = (m["m"], m["d"]) if m["m"] is not None else (m["m2"], m["d2"])
    return 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def _bare_routing_ok(m: re.Match[str]) -> bool:
    """False when the label is a bare "routing" and the number is no ABA routing number."""
    label = m.string[m.start() : m.start("value")]
    return _BARE_ROUTING.match(label) is None or aba_ok(m.group("value"))


def _account_more_ok(m: re.Match[str], view: View) -> bool:
    d = digits_of(m.group("value"))
    if _CLOUD_ACCOUNT.search(_before(view, m, 20)) or _TEST_CARD.search(view.text):
        return False
    if _DATE.fullmatch(m.group("value").strip()) or _is_date(m.group("value")):
        return False
    if not _bare_routing_ok(m):
        return False
    return 6 <= len(d) <= 34 and len(set(d)) > 2


def _iban_ok(m: re.Match[str], view: View) -> bool:
    raw = re.sub(r"[\s-]", "", m.group()).upper()
    length = IBAN_LENGTHS.get(raw[:2])
    if length is None or len(raw) < length:
        return False
    return iban_ok(raw[:length])


def _ssn_ok(m: re.Match[str], view: View) -> bool:
    if _NOT_PERSONAL.search(_before(view, m, 25)):
        return False
    return ssn_structure_ok(m.group())


def _ssn_ctx_ok(m: re.Match[str], view: View) -> bool:
    return len(digits_of(m.group("value"))) == 9


_DATE = re.compile(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")


def _id_token_ok(m: re.Match[str], view: View) -> bool:
    tok = m.group("value")
    if _DATE.fullmatch(tok.strip()):
        return False  # a date beside an ID word ("hearing=2026-12-14") is no ID
    return len(digits_of(tok)) >= 4 and not re.fullmatch(r"(?:19|20)\d\d", tok.strip())


def _spoken_id_ok(m: re.Match[str], view: View) -> bool:
    # An NHS number has 10 digits: "called the NHS, then dialled zero two zero seven" is a phone.
    if m.group().lower().startswith("nhs") and len(digits_of(m.group("value"))) != 10:
        return False
    return _id_token_ok(m, view)


def _account_ok(m: re.Match[str], view: View) -> bool:
    if _CLOUD_ACCOUNT.search(_before(view, m, 20)):
        return False
    if _is_date(m.group("value")) or not _bare_routing_ok(m):
        return False
    return len(digits_of(m.group("value"))) >= 6


def _cpf_ok(m: re.Match[str], view: View) -> bool:
    return cpf_ok(m.group())


def _dni_ok(m: re.Match[str], view: View) -> bool:
    return dni_ok(m.group())


def _stdnum_ok(m: re.Match[str], view: View) -> bool:
    tok = m.group("value")
    if _NOT_PERSONAL.search(_before(view, m, 40)):
        return False
    return len(digits_of(tok)) >= 6 and stdnum_match(tok) is not None


_SHAPE_MODULES = (
    "kr.rrn", "se.personnummer", "fi.hetu", "be.nn", "cl.rut", "cn.ric", "in_.pan",
    "in_.aadhaar", "fr.nir",
)  # fmt: skip


def _validated_shape_ok(m: re.Match[str], view: View) -> bool:
    if _NOT_PERSONAL.search(_before(view, m, 30)) or _TEST_CARD.search(view.text):
        return False
    return stdnum_match(m.group(), _SHAPE_MODULES) is not None


def _id_near_ok(m: re.Match[str], view: View) -> bool:
    tok = re.sub(r"[\s-]", "", m.group("value"))
    return len(tok) >= 9 and stdnum_match(tok) is not None


# Trigger: an address-shaped token ("0x" + 40 hex digits) in a text about a wallet.
# Why: an Ethereum address carries no checksum we can check without Keccak (mixed-case
#      EIP-55 aside), and hashes and contract ids share the shape; bech32 and Base58Check
#      addresses carry their own checksums.
# Outcome: checksummed addresses count anywhere, 0x addresses only beside a wallet word.
_WALLET_LATIN = (
    "wallet address addr eth ether ethereum btc bitcoin crypto metamask ledger payout payment "
    "send transfer deposit refund usdt usdc adres dirección direccion endereço endereco adresse "
    "indirizzo portemonnaie portefeuille cartera carteira portafoglio cüzdan portfel"
).split()
_WALLET_WORDS = re.compile(
    rf"(?i)\b(?:{'|'.join(_WALLET_LATIN)})\b|钱包|錢包|地址|ウォレット|アドレス|지갑|주소"
)


def _crypto_ok(m: re.Match[str], view: View) -> bool:
    v = m.group()
    if v.startswith("0x"):
        return _WALLET_WORDS.search(view.text) is not None and not _TEST_CARD.search(view.text)
    if v.lower().startswith(("bc1", "tb1", "ltc1")):
        return bech32_ok(v)
    return base58check_ok(v)


_r = Rule.named


# ID words, several languages. Short acronyms are matched case-sensitively.
_ID_WORDS_CI = (
    r"passport|pass(?:port)? no|reisepass(?:nummer)?|passeport|pasaporte|passaporto|passaporte|"
    r"paspoort|driver'?s?'? ?licen[cs]e|driving licen[cs]e|licen[cs]e (?:number|no\.?|#)|"
    r"f(?:ü|ue)hrerschein(?:nummer)?|permis de conduire|licencia de conducir|carteira de motorista|"
    r"patente di guida|national (?:id(?:entity)?|identification|insurance)(?: card)?(?: number)?|"
    r"id(?:entity)? card(?: number)?|identity number|id number|personal (?:id|identification) "
    r"number|social (?:security|insurance)(?: number| no\.?)?|tax (?:id|identification|file|"
    r"reference)(?: number)?|taxpayer id|steuer-?id|steueridentifikationsnummer|steuernummer|"
    r"personalausweis(?:nummer)?|sozialversicherungs(?:nummer)?|rentenversicherungs(?:nummer)?|"
    r"versichertennummer|krankenversichertennummer|numero di previdenza|"
    r"n(?:ú|u)mero de (?:la )?seguridad social|n(?:ú|u)mero de afiliaci(?:ó|o)n|"
    r"codice fiscale|carta d'identit(?:à|a)|num(?:é|e)ro fiscal|"
    r"num(?:é|e)ro de s(?:é|e)curit(?:é|e) sociale|carte d'identit(?:é|e)|c(?:é|e)dula|"
    r"documento de identidad|n(?:ú|u)mero de identificaci(?:ó|o)n|aadhaa?r|burgerservicenummer|"
    r"pesel|personnummer|f(?:ø|o)dselsnummer|henkil(?:ö|o)tunnus|nhs|medicare(?: card)?"
    r"(?: number)?|medicaid id|health insurance number|insurance member id|green card(?: number)?|"
    r"alien registration|visa number|voter id|tc kimlik|emirates id|mykad"
)
_ID_WORDS_CS = (
    r"SSN|SIN|TIN|EIN|ITIN|TFN|NIF|NIE|DNI|CIF|CPF|CNPJ|RG|RUT|RUN|CURP|RFC|PAN|NRIC|FIN|HKID|"
    r"BSN|CPR|HETU|NIR|INSEE|NINO|NI number|DL|CNIC|NID|NIK|KTP|IdNr|UTR|PPSN|IRD|AHV"
)
_ID_TOKEN = (
    r"(?P<value>(?=[A-Za-z]{0,6}[ .\-]?\d)[A-Za-z0-9](?:[A-Za-z0-9]|[ .\-/](?=[A-Za-z0-9])){4,24})"
)
_FILLER = (
    r"(?i:\s*(?:number|num|n(?:ú|u)mero|num(?:é|e)ro|nummer|no\.?|nr\.?|n[°º]|#|:|=|is|was|id|code|"
    r"card|de|es|est|ist|é|är|er|on|jest|to|это|je|è|\([A-Za-z]{2,8}\)|[\"'：]|"
    # possessives and owners between the label and the number ("PESEL mojego syna to …")
    rf"{'|'.join(POSSESSIVES.split())}|su|mojego|mojej|moja|mój|"
    r"syna|córki|męża|żony|mamy|taty|моей|моего|мамы|мужа|жены|for me|for my \w+|"
    r"colombian[oa]|mexican[oa]|argentin[oa]|chilen[oa]|peruan[oa]|israeli|nigerian|"
    r"elettronica|electr[oó]nica|électronique)"
    r"\s*){0,4}\s*"
)
# ID words in scripts without word spaces, and in Cyrillic, Arabic, Hebrew, Devanagari:
# labelled numbers need no checksum, as the Latin labels above.
_ID_WORDS_SCRIPT = (
    r"паспорт\w*|инн|снилс|загранпаспорт\w*|водительск\w+ удостоверени\w+|"
    r"رقم (?:الهوية|هويتي|هوية|الإقامة|إقامتي|جواز السفر|جوازي|الضمان الاجتماعي)|"
    r"رقم_الهوية|الهوية الوطنية|جواز سفري|"
    r"תעודת זהות|מספר זהות|ת\.ז\.?|דרכון|teudat zehut|"
    r"पैन(?: नंबर| कार्ड)?|आधार(?: नंबर| कार्ड)?|पासपोर्ट(?: नंबर)?|"
    r"護照號碼|护照号码?|护照|驾驶证号?|駕照|社保号|社会保障号码|"
    r"パスポート番号|旅券番号|運転免許証番号|免許証番号|基礎年金番号|"
    r"여권 ?번호|운전면허 ?번호|외국인등록번호|주민등록번호|주민번호"
)
_ID_WORDS_EXTRA = (
    r"ausweisnummer|ausweis-?nr|pass-?nr|passnummer|dowód osobisty|dowodu osobistego|numer "
    r"dowodu|numer paszportu|paszport\w*|henkilötunnu\w*|henkilotunnu\w*|personnummer|"
    r"fødselsnummer|cpr-?nummer|rijbewijs(?:nummer)?|identiteitskaart|bilhete de identidade|"
    r"cart[ãa]o de cidad[ãa]o|t[íi]tulo de eleitor|birth certificate(?: number| no\.?)?|"
    r"voter (?:card|registration)(?: number)?|tc kimlik(?: no\w*| numaras\w*)?|kimlik no\w*|"
    r"pps number|sozialversicherungsnummer|"
    r"num[ée]ro de s[ée]cu(?:rit[ée] sociale)?|carte vitale|nir|dl ?#|licence no|license no|"
    r"idnr|id-?nummer|numéro d'identité|n[úu]mero de identidad|"
    r"número de documento|documento nacional"
)
_ID_ACRONYMS_MORE = r"NIN|NSS|DUI|INE|IMSS|CUIL|CUIT|PPSN|SVNR|ИНН|СНИЛС"

# Trigger: an ID word of a country whose number carries check digits, then a number:
#          "TCKN 10000000146", "CNP-ul mamei este 18001…", "OIB mog oca: 9457…".
# Why: those words are short or double as other words ("TC", "OIB", "IC number"), so the
#      label alone is no evidence; the country's own checksum on the number is.
# Outcome: a finding only when python-stdnum validates the number as THAT country's ID.
_CHECKSUM_LABELS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(label, re.IGNORECASE), modules)
    for label, modules in (
        (r"tckn|t\.?c\.?(?:'?\w{1,3})?|tc kimlik\w*|kimlik\w*", ("tr.tckimlik",)),
        (r"cnp(?:-ul)?", ("ro.cnp",)),
        (r"egn|егн", ("bg.egn",)),
        (r"oib", ("hr.oib",)),
        (r"isikukood\w*", ("ee.ik",)),
        (r"rodn[ée] [čc][íi]sl\w*", ("cz.rc", "sk.rc")),
        (r"mykad|ic (?:number|no\.?)|no\.? ?k/?p", ("my.nric",)),
        (r"рнокпп|іпн|ідентифікаційн\w* (?:код|номер)", ("ua.rntrc",)),
        (r"เลขประจำตัวประชาชน\S*|เลขบัตรประชาชน\S*", ("th.pin",)),
        (r"amka|αμκα", ("gr.amka",)),
        (r"asmens kod\w*", ("lt.asmens",)),
        (r"em[šs]o", ("si.emso",)),
        (r"kennitala|kennitölu", ("is_.kennitala",)),
    )
)


def _checksum_id_ok(m: re.Match[str], view: View) -> bool:
    label = m.group("label")
    modules = next((mods for pat, mods in _CHECKSUM_LABELS if pat.fullmatch(label)), None)
    if modules is None or _NOT_PERSONAL.search(view.text[m.end("label") : m.start("value")]):
        return False
    return stdnum_match(m.group("value"), modules) is not None


_GOV = "gov_id"
_FIN = "financial"

RULES: tuple[Rule, ...] = (
    _r(
        _GOV,
        "ssn",
        "ssn",
        r"(?<![\d-])\d{3}([- .])\d{2}\1\d{4}(?![\d-])",
        "a US Social Security number",
        validate=_ssn_ok,
    ),
    _r(
        _GOV,
        "ssn_context",
        "ssn",
        r"(?i:\b(?:ssn|social security(?: number| no\.?)?|soc\.? sec\.?)\b)[^\d\n]{0,20}"
        r"(?P<value>\d{3}[\s.,/-]{0,3}\d{2}[\s.,/-]{0,3}\d{4})\b",
        "a number labelled as a Social Security number",
        validate=_ssn_ctx_ok,
    ),
    _r(
        _GOV,
        "labelled_id",
        "national_id",
        rf"(?:(?i:\b(?:{_ID_WORDS_CI}))|\b(?:{_ID_WORDS_CS}))\b{_FILLER}{_ID_TOKEN}",
        "a number labelled as a government ID",
        validate=_id_token_ok,
    ),
    _r(
        _GOV,
        "labelled_id_more",
        "national_id",
        rf"(?:(?i:\b(?:{_ID_WORDS_EXTRA})\b)|\b(?:{_ID_ACRONYMS_MORE})\b|(?i:{_ID_WORDS_SCRIPT}))"
        rf"(?i:[^\n\d=:：]{{0,24}}?(?:[:=：]|\bis\b|\bes\b|\bist\b|\bär\b|\bon\b|\bto\b|\bé\b|"
        rf"是|は|는|은|هو|הוא|:)?){_FILLER}{_ID_TOKEN}",
        "a number labelled as a government ID (more languages and scripts)",
        validate=_id_token_ok,
    ),
    _r(
        _GOV,
        "checksum_labelled_id",
        "national_id",
        r"(?P<label>(?<!\w)(?i:"
        + "|".join(p.pattern for p, _ in _CHECKSUM_LABELS)
        + r")(?!\w))[^\d\n]{0,30}?(?<![\d-])(?P<value>\d(?:[\d \-/.]{6,18})\d)(?![\d-])",
        "a national ID whose check digits validate after its country's ID word",
        validate=_checksum_id_ok,
    ),
    _r(
        _GOV,
        "national_id_validated",
        "national_id",
        # rigid national-ID shapes whose check digits validate (python-stdnum), no label needed:
        # KR RRN, SE personnummer, FI HETU, BE NN, CL RUT, CN RIC, IN PAN/Aadhaar, FR NIR
        r"(?<![0-9A-Za-z./-])(?<!\d )(?:\d{6}-[1-8]\d{6}|(?:19|20)?\d{6}[-+]\d{4}|"
        r"\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]|"
        r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}|\d{1,2}\.\d{3}\.\d{3}-[\dkK]|"
        r"[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])\d{5}[\dXx]|[A-Z]{3}P[A-Z]\d{4}[A-Z]|"
        r"[2-9]\d{3} \d{4} \d{4}|[12] ?\d{2} ?\d{2} ?\d{2} ?\d{3} ?\d{3} ?\d{2})"
        r"(?![0-9A-Za-z/-])(?! \d)",
        "a national ID number whose check digits validate",
        validate=_validated_shape_ok,
    ),
    _r(
        _GOV,
        "uk_nino",
        "national_insurance",
        r"\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b",
        "a UK National Insurance number",
    ),
    _r(
        _GOV,
        "uk_driving_licence",
        "drivers_licence",
        r"\b[A-Z9]{5}\d{6}[A-Z9]{2}\d[A-Z]{2}\b",
        "a UK driving licence number",
    ),
    _r(
        _GOV,
        "codice_fiscale",
        "tax_id",
        r"(?i)\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b",
        "an Italian codice fiscale",
    ),
    _r(
        _GOV, "cpf", "tax_id", r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b", "a Brazilian CPF", validate=_cpf_ok
    ),
    _r(
        _GOV,
        "dni",
        "national_id",
        r"\b[XYZ]?\d{7,8}-?[A-Z]\b",
        "a Spanish DNI/NIE (check letter valid)",
        validate=_dni_ok,
    ),
    _r(
        _GOV,
        "curp",
        "national_id",
        r"\b[A-Z]{4}\d{6}[HM][A-Z]{5}[A-Z0-9]\d\b",
        "a Mexican CURP",
    ),
    _r(
        _GOV,
        "owned_id_validated",
        "national_id",
        r"(?i:\b(?:my|user'?s|their|his|her)\b[^\n.]{0,30}?\b(?:id|number|no\.?|#|code)\b"
        r"[^\n\d]{0,10}?)(?P<value>[A-Z0-9][A-Z0-9 .\-/]{5,20}[A-Z0-9])",
        "an identifier whose check digits validate as a national ID",
        validate=_stdnum_ok,
    ),
    _r(
        _GOV,
        "labelled_id_nearby",
        "national_id",
        rf"(?:(?i:\b(?:{_ID_WORDS_CI}|kimlik(?: no| numaras(?:ı|i))?)\b)|\b(?:{_ID_WORDS_CS})\b|"
        r"身份证|身份證|居民身份|マイナンバー|個人番号|주민등록번호|주민번호)"
        r"[^\d\n]{0,30}?(?<![0-9A-Za-z-])(?P<value>\d(?:[ -]?\d){7,16}[\dXx]?)(?![0-9A-Za-z-])",
        "a number near a government-ID word whose check digits validate as that ID",
        validate=_id_near_ok,
    ),
    _r(
        _FIN,
        "crypto_address",
        "crypto_wallet",
        r"(?<![0-9A-Za-z/])(?:(?i:bc1|tb1|ltc1)[02-9ac-hj-np-zAC-HJ-NP-Z]{25,87}|[13][1-9A-HJ-NP-Za-km-z]{25,34}"
        r"|0x[0-9a-fA-F]{40})(?![0-9A-Za-z/])",
        "a cryptocurrency wallet address (checksum valid, or 0x beside a wallet word)",
        validate=_crypto_ok,
    ),
    _r(
        _FIN,
        "card_number",
        "card_number",
        r"(?<![\d-])\d(?:[ \t,.-]{0,2}\d){11,18}(?![\d-])",
        "a payment card number (Luhn-valid, known issuer)",
        validate=_card_ok,
    ),
    _r(
        _FIN,
        "card_security_code",
        "card_number",
        r"(?i)\b(?:cvv2?|cvc2?|cid|card security code)\b\s*[:=]?\s*(?:is\s*)?\d{3,4}\b"
        # the code named, then the card it is on, then the value: "The CVC on my debit card
        # is 5821", "le cryptogramme de ma carte est 482", "der Sicherheitscode meiner
        # Karte ist 731" (a code of conduct or a version names no card)
        r"|\b(?:cvv2?|cvc2?|csc|card verification (?:code|value|number)|security code|"
        r"sicherheitscode|kartenpr[üu]fnummer|pr[üu]fnummer|c[óo]digo de seguridad|"
        r"c[óo]digo de seguran[çc]a|codice di sicurezza|cryptogramme(?: visuel)?|"
        r"code de s[ée]curit[ée]|beveiligingscode|kod cvv|kod cvc)\b[^\n\d]{0,40}?"
        r"\b(?:card|carte|tarjeta|karte|cart[ãa]o|carta|kaart|karty|visa|mastercard|amex)\w*"
        r"[^\n\d]{0,20}?(?:\b(?:is|was|ist|est|es|é|è|era|to)\b|[:=])\s*\d{3,4}(?![\d/-]|[.,]\d)",
        "a card security code",
        validate=_security_code_ok,
    ),
    _r(
        _FIN,
        "iban",
        "iban",
        r"(?i)\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,32}",
        "an IBAN (mod-97 valid)",
        validate=_iban_ok,
    ),
    _r(
        _FIN,
        "bank_account",
        "bank_account",
        r"(?i:\b(?:account|acct|a/c|konto(?:nummer)?|cuenta|compte|conta|conto|"
        r"rekening(?:nummer)?|routing(?: number)?|aba|sort ?code|bsb|ifsc)\b)"
        r"(?:\s*(?:number|num|no\.?|nr\.?|#|:|=|is|n[°º]))*\s*#?\s*"
        r"(?P<value>(?:[A-Z]{1,4}-)?\d[\dA-Z -]{4,24}\d)",
        "a bank or brokerage account number",
        validate=_account_ok,
    ),
    _r(
        _FIN,
        "card_labelled",
        "card_number",
        # a card named in any of a dozen languages, then a card-shaped number: the label is
        # the evidence, so a mistyped check digit still counts (test cards do not)
        r"(?i:\b(?:cards?|credit|debit|visa|mastercard|amex|carta|tarjeta|cart[ãa]o|"
        r"carte(?: bleue)?|"
        r"karte|kart\w*|kreditkarte|karty?|kort(?:et|ti)?|καρτ\w*|κάρτ\w*|карт\w*)\b|卡号|"
        r"银行卡|信用卡|借记卡|カード|카드|بطاقة|כרטיס)"
        r"[^\d\n]{0,40}?(?<!\d)(?P<value>\d{4}(?:[ -]?\d{4}){2}[ -]?\d{4}(?:[ -]?\d{1,3})?|"
        r"\d{4}[ -]?\d{6}[ -]?\d{5})(?![\d-])",
        "a payment card number beside a card word",
        validate=_card_labelled_ok,
    ),
    _r(
        _FIN,
        "iban_labelled",
        "iban",
        # "IBAN: TR12 0001 …" with a check that does not add up: the label says what it is
        r"(?i:\biban\b)[^\n\w]{0,12}(?:\w+\s+){0,4}?(?P<value>(?-i:[A-Z]{2}\d{2})"
        r"(?:[ ]?[A-Z0-9]){11,30})",
        "an IBAN beside its label",
        validate=_iban_labelled_ok,
    ),
    _r(
        _FIN,
        "bank_account_more",
        "bank_account",
        # account words in other languages and scripts, JSON keys, then the number
        r"(?:(?i:\b(?:account|acct|accountnumber|account_number|acct_no|iban|clabe|"
        r"kontonummer|kontonr|rekeningnummer|n[úu]mero de cuenta|num[ée]ro de compte|"
        r"numero di conto|n[úu]mero da conta|numer konta|[čc][íi]slo [úu][čc]tu|[úu][čc]et|"
        r"[úu][čc]tu|hesap no\w*|счёт\w*|счет\w*|номер сч[её]та|routing)\b)|口座|账号|帳號|"
        r"账户|帳戶|银行账户|계좌|حساب|חשבון)"
        r"[\"']?(?:[^\d\n]{0,30}?)[\"']?\s*(?P<value>\d[\d -/]{5,30}\d)(?![\d])",
        "a bank account number beside an account word",
        validate=_account_more_ok,
    ),
)


# ID words of more countries and scripts, for numbers read out after them. Acronyms that
# are also words ("nie", "dni": Polish "no", "days") stay in the case-sensitive _ID_WORDS_CS.
_SPOKEN_ID_WORDS = (
    r"kimlik numaras\w*|tessera sanitaria|codice fiscale|numer dowodu|dow[óo]d|n[úu]mero fiscal|"
    r"ssn|nif|cpf|curp|bsn|pesel|cnp|nik|sss|tckn|ahv|aadhaa?r|"
    r"s[ốo] c[ăa]n c[ưu][ớo]c|c[ăa]n c[ưu][ớo]c|cccd|cmnd|αφμ|αριθμ[όο]ς ταυτ[όο]τητας"
)
_SPOKEN_ID_SCRIPT = (
    r"身份证号?码?|身份證號?碼?|居民身份|マイナンバー|個人番号|주민등록번호|주민번호|여권번호|"
    r"الرقم الوطني|رقم جواز|جواز سفر|תעודת ה?זהות|מספר ה?זהות|податков\w* номер|"
    r"номер паспорт\w*|паспорт\w*|снилс|инн|เลขบัตรประชาชน|บัตรประชาชน|पैन|आधार"
)
# The same rules on the spoken view (numbers read out as words, detectors.spoken), and one
# more: a number read out within a few words after an ID word is that ID, whatever sits
# between ("Steuer-ID meines Vaters lautet: vier sieben, null drei …").
SPOKEN_RULES: tuple[Rule, ...] = (
    *(replace(r, views=("spoken",)) for r in RULES),
    _r(
        _GOV,
        "spoken_id",
        "national_id",
        rf"(?:(?i:\b(?:{_ID_WORDS_CI}|{_ID_WORDS_EXTRA}|{_SPOKEN_ID_WORDS})\b)|"
        rf"\b(?:{_ID_WORDS_CS}|{_ID_ACRONYMS_MORE})\b|(?i:{_ID_WORDS_SCRIPT}|{_SPOKEN_ID_SCRIPT}))"
        r"[^\d\n]{0,40}?(?<![0-9A-Za-z])(?P<value>[A-Z0-9](?:[A-Z0-9]|[ .\-/](?=[A-Z0-9])){3,40})",
        "a government ID read out as words after its name",
        validate=_spoken_id_ok,
        group=1,
        views=("spoken",),
    ),
)


def detect(doc: NormalizedText) -> list[Hit]:
    """Government-ID and financial findings (one per rule), also for numbers said as words.

    >>> from memvault.policy.normalize import normalize
    >>> hits = detect(normalize("Steuer-ID von Mama: vier sieben, null drei, eins eins, zwei"))
    >>> [(h.detector, h.view.text[h.start : h.end]) for h in hits]
    [('gov_id.spoken_id', '47 03 11 2')]
    """
    return on_spoken_view(doc, SPOKEN_RULES, run_rules(doc, RULES))
