"""A card's security code named before the card it is on (issue 21, contract §4.6).

``financial.card_security_code`` read the code only right before its value ("CVC 123",
"CVV: 4821"); "The CVC on my debit card is 5821" — the label, then the card, then the
value — passed, a card's secret stored without its number. The code's label, a card word
within a few words after it and a 3–4 digit value after "is", ":" or "=" (in eight
languages) is now the same finding. Beside each refusal the near miss that must pass: a
"CVC" that is a code of conduct or a component's version, a security code that is a
building's or a parcel's, a documented test card.

Judged by the pattern detectors alone, with the exact span. Every sentence is written for
this file, not taken from any corpus or evaluation set.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import decision

from memvault.policy.detectors import identifiers
from memvault.policy.normalize import normalize

CODE = "detector.financial.card_security_code"

REFUSED = [
    "The CVC on my debit card is 5821",
    "the cvv of my visa is 413, expiry 09/28",
    "Card verification code for my Mastercard: 902",
    "The security code on the back of my partner's credit card is 318.",
    "Le cryptogramme de ma carte bancaire est 482.",
    "Der Sicherheitscode meiner Karte ist 731.",
    "El código de seguridad de mi tarjeta es 650.",
    "O código de segurança do meu cartão é 274.",
    "Il codice di sicurezza della mia carta è 905.",
]

STORED = [
    "The CVC on vendor conduct is version 3 since May.",  # a code of conduct
    "Our CVC component for card games is 2.4.1 now.",  # a version number
    "The security code for the building is printed on my key card holder.",  # no value
    "The CVC on the test card is 123, any expiry works.",  # a documented test card
    "Our CVC stickers go on every card box, batch 2024.",  # a card box, no code's value
    "Remind me to renew my debit card before 2027.",  # an ordinary memory
]


@pytest.mark.parametrize("text", REFUSED)
def test_code_before_its_card_refused(text: str) -> None:
    assert decision(text) == ("FORBIDDEN_CATEGORY", CODE)


@pytest.mark.parametrize("text", STORED)
def test_near_miss_stored(text: str) -> None:
    assert decision(text) == ("SUCCESS_STORED", None)


def test_span_is_label_to_value() -> None:
    text = "Note: The CVC on my debit card is 5821, keep it safe."
    hits = [
        h
        for h in identifiers.detect(normalize(text))
        if h.detector == "financial.card_security_code"
    ]
    assert len(hits) == 1
    s, e = hits[0].original_span()
    assert text[s:e] == "CVC on my debit card is 5821"
