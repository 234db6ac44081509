"""Slots that are forbidden whatever their value (memory contract §4).

"My religion is Buddhism", "my blood type is O+", "my PIN is 4412": the
extractor knows which *slot* a statement fills, and some slots name a
forbidden category outright — the value does not matter. The policy gate
judges the words; this judges the structure the extractor found, so a
statement whose wording the gate's detectors do not recognise is still never
turned into an innocent-looking candidate. The capture pipeline refuses a
candidate marked here with FORBIDDEN_CATEGORY (detector
``extract.sensitive_slot``), like a gate refusal.

Only the slot noun phrase is read (the ``X`` of "my X is …"), never free text,
so "my favourite editor" or "my email address" stay ordinary slots.

>>> sensitive_slot("religion"), sensitive_slot("password for the VPN")
('identity_trait', 'credentials')
>>> sensitive_slot("favourite editor") is None, sensitive_slot("email address") is None
(True, True)
"""

from __future__ import annotations

import re

__all__ = ["SENSITIVE_SLOTS", "sensitive_slot", "sensitive_words"]

#: Forbidden family → slot nouns (whole words, case-insensitive), from contract §4.
SENSITIVE_SLOTS: dict[str, str] = {
    "identity_trait": (
        r"religion|religious \w+|faith|denomination|church|mosque|synagogue|caste|ethnicity"
        r"|ethnic \w+|racial \w+|national origin|sexual orientation|sexuality|gender identity"
        r"|gender|political \w+|politics|party affiliation|voting \w+"
        r"|union membership|trade union"
    ),
    "health": (
        r"diagnosis|diagnoses|illness|disease|disorder|medical \w+|health \w+|medications?|meds"
        r"|prescriptions?|dosage|dose|treatment|therapy|therapist|psychiatrist|blood type"
        r"|blood group|blood pressure|blood sugar|allerg(?:y|ies)|disability|disabilities"
        r"|symptoms?|pregnancy|insulin|cholesterol|bmi|mental health"
    ),
    "criminal": r"criminal \w+|conviction|convictions|arrest record|parole|probation",
    "credentials": (
        r"password|passphrase|passcode|pin|pin code|security question|security answer"
        r"|api key|secret key|secret|access token|token|private key|login|credentials"
    ),
    "gov_id": (
        r"ssn|social security(?: number)?|passport(?: number)?|driver'?s? licen[cs]e(?: number)?"
        r"|national id(?: number)?|id number|tax id|tax number|national insurance(?: number)?"
    ),
    "financial": (
        r"(?:credit|debit|bank) card(?: number)?|card number|account number|bank account"
        r"|iban|routing number|sort code|cvv|cvc"
    ),
    "biometric": r"fingerprints?|face id|voiceprint|retina scan|iris scan",
    "location": r"(?<!email )(?<!e-mail )(?<!ip )(?<!web )address|home address|gps \w+",
}

_PATTERNS = tuple(
    (family, re.compile(rf"\b(?:{words})\b", re.IGNORECASE))
    for family, words in SENSITIVE_SLOTS.items()
)


def sensitive_slot(slot: str) -> str | None:
    """The forbidden family a slot noun phrase names, or None for an ordinary slot."""
    phrase = " ".join(slot.replace("_", " ").replace(".", " ").split())
    for family, pattern in _PATTERNS:
        if pattern.search(phrase):
            return family
    return None


#: Words that, anywhere in a clause no rule understood, name a forbidden family
#: (the slot nouns plus the commonest ways of saying it without a slot).
# Credentials, ids, money and places are named by benign clauses all the time
# ("rotate the api tokens", "renew my passport", "pay the card bill"); their values
# are the gate's detectors' business. Only families whose mere mention is personal
# are read in free text.
_FREE_WORDS: dict[str, str] = {
    "biometric": SENSITIVE_SLOTS["biometric"],
    "health": SENSITIVE_SLOTS["health"]
    + r"|diagnosed|prescribed|surgery|chemo\w*|antidepressants?|anxiety|depression|adhd|autis\w*"
    r"|bipolar|diabet\w*|cancer|hiv|pregnant|miscarriage|ivf|rehab|sober|relapse",
    "criminal": SENSITIVE_SLOTS["criminal"]
    + r"|arrested|convicted|jail|prison|court case|lawsuit|probation officer|dui",
    "identity_trait": SENSITIVE_SLOTS["identity_trait"]
    + r"|gay|lesbian|bisexual|transgender|queer|atheist|muslim|jewish|christian|catholic"
    r"|hindu|buddhist",
    # A partner named by gender says whom the speaker loves (contract §4.1, §4.3):
    # "my husband", "her girlfriend" are refused, "my partner" is not.
    "intimate": r"boyfriend|girlfriend|husband|wife|fianc[eé]e?|dating|divorc\w*|breakup"
    r"|broke up|affair|sex\w*|one night stand",
    # A dwelling *at* somewhere is an address, not a city (contract §4.5):
    # "I live in Porto" is a coarse place, "my flat is at 12 …" a precise one.
    "location": r"(?:(?:i|we)\s+live|living|(?:flat|apartment|apt|house|home|place)\s+is)"
    r"\s+(?:at|on)\s+(?:no\.?\s*)?\d[\w/-]*\b"
    r"|(?:(?:i|we)\s+live|(?:flat|apartment|apt|house|home|place)\s+is)\s+at",
}
_FREE = tuple(
    (family, re.compile(rf"\b(?:{words})\b", re.IGNORECASE))
    for family, words in _FREE_WORDS.items()
)


def sensitive_words(text: str) -> str | None:
    """The forbidden family a free clause's words name, or None.

    Used only for clauses no rule understood (the clause reader kept them in
    the user's words): without a slot, the words are all the structure there is.

    >>> sensitive_words("started on antidepressants last month"), sensitive_words("we use vault")
    ('health', None)
    """
    for family, pattern in _FREE:
        if pattern.search(text):
            return family
    return None
