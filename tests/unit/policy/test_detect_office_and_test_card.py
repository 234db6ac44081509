"""A company's office and a payment test card are topics, not a person's data (issue 21).

Two detectors refused hard negatives of the seen sets by name (no item read):

* ``location.street_address`` read a company's office address ("our Lisbon office is at
  …", "le bureau de Lyon se trouve au …") as the speaker's work address. Contract §4.5
  forbids a person's home or work address; an office named as the organisation's is the
  business's address. The same address said as where the speaker works stays refused.
* ``financial.card_security_code`` read the CVC of a documented test card (Stripe's
  4242…, a sandbox card) as a card's secret; the test-card cue the card-number rules
  already honour now holds for the security code too, in five languages. A real card's
  code stays refused.

Judged by the pattern detectors alone. Every sentence is written for this file.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import assert_twins

ADDRESS = "detector.location.street_address"

# (the organisation's office, the same address as where the speaker works or lives)
OFFICE_PAIRS = [
    (
        "Our Lisbon office is at Rua Augusta 120, visitors sign in downstairs.",
        "My office is at Rua Augusta 120, visitors sign in downstairs.",
    ),
    (
        "The London office address is 10 Finsbury Square, EC2A 1AF.",
        "My work address is 10 Finsbury Square, EC2A 1AF.",
    ),
    (
        "Our Berlin office has moved to Torstraße 49, 10119 Berlin.",
        "I moved to Torstraße 49, 10119 Berlin.",
    ),
    (
        "The meetup is at the office, 500 Howard Street, 4th floor.",
        "I live at 500 Howard Street, 4th floor.",
    ),
    (
        "Le bureau de Lyon se trouve au 8 quai Saint-Antoine, 69002 Lyon.",
        "Je travaille au 8 quai Saint-Antoine, 69002 Lyon.",
    ),
    (
        "La oficina de Valencia está en Calle Colón 60, 46004 Valencia.",
        "Trabajo en Calle Colón 60, 46004 Valencia.",
    ),
    (
        "L'ufficio di Milano è in Via Dante 14, 20121 Milano.",
        "Lavoro in Via Dante 14, 20121 Milano.",
    ),
    (
        "Unser Büro in Köln ist in der Schildergasse 24, 50667 Köln.",
        "Ich wohne in der Schildergasse 24, 50667 Köln.",
    ),
]


CARD = "detector.financial.card"

# (a documented test card's code, a real card's code)
TEST_CARD_PAIRS = [
    (
        "Stripe's test card 4242 4242 4242 4242 takes any future expiry and CVC 123.",
        "My card ends 4242 and the CVC is 123.",
    ),
    (
        "QA note: the test-mode Visa needs cvc 100 to trigger a decline.",
        "Note to self: my Visa needs cvc 100 at checkout.",
    ),
    (
        "In the sandbox any card works with CVV 737.",
        "My Amex works with CVV 7370.",
    ),
    (
        "Para pruebas, la tarjeta de prueba usa el CVC 123.",
        "Mi tarjeta usa el CVC 123.",
    ),
    (
        "En mode test, la carte de test accepte le CVC 314.",
        "Ma carte bancaire a le CVC 314.",
    ),
    (
        "Im Testmodus akzeptiert die Testkarte den CVC 555.",
        "Meine Kreditkarte hat den CVC 555.",
    ),
    (
        "Nella modalità di prova la carta di prova usa il CVV 246.",
        "La mia carta usa il CVV 246.",
    ),
]


@pytest.mark.parametrize(
    ("topic", "person", "refused_by"),
    [*((o, p, ADDRESS) for o, p in OFFICE_PAIRS), *((t, r, CARD) for t, r in TEST_CARD_PAIRS)],
)
def test_an_office_or_a_test_card_passes_its_personal_twin_is_refused(
    topic: str, person: str, refused_by: str
) -> None:
    """An organisation's office or a test card's code passes; the same about a person not."""
    assert_twins(topic, person, refused_by)
