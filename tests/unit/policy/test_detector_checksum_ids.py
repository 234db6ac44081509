"""National IDs named by a short country word and proven by their check digits.

Sentences written for this test; the numbers are the published python-stdnum test values
or computed to pass (or fail) each country's checksum.
"""

from __future__ import annotations

import pytest

from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.detectors.validators import stdnum_match
from memvault.policy.normalize import normalize


def _gov(text: str) -> set[str]:
    doc = normalize(text)
    return {h.detector for detect in CONTENT_DETECTORS.values() for h in detect(doc)} & {
        "gov_id.checksum_labelled_id"
    }


@pytest.mark.parametrize(
    "text",
    [
        "TCKN 10000000146",  # tr
        "Ayşe'nin TC'si 10000000146, doğum tarihi 1990",  # tr, another person
        "CNP-ul mamei este 1800101221144",  # ro
        "ЕГН на майка ми 7523169263",  # bg
        "OIB mog oca: 94577403194",  # hr
        "Isikukood: 37605030299",  # et
        "Rodné číslo manželky 736028/5163",  # cs
        "เลขบัตรประชาชนของแม่ 1101700207366",  # th
        "IC number saya 770305-02-1234",  # ms
        "РНОКПП брата 1759013776",  # uk
    ],
)
def test_a_country_id_word_with_a_valid_number_is_an_id(text: str) -> None:
    assert _gov(text)


@pytest.mark.parametrize(
    "text",
    [
        "TC 10000000147 ile giriş yaptı",  # check digit wrong
        "Sipariş no 10000000146",  # no ID word
        "TC order 10000000146",  # an order number after the word
        "The TC ticket 94577403194 is closed.",  # a ticket
        "OIB je osobni identifikacijski broj od 11 znamenki.",  # the format described
        "IC number 2024-01-1234 on the schematic",  # not a date of birth
    ],
)
def test_a_short_id_word_without_its_checksum_is_nothing(text: str) -> None:
    assert not _gov(text)


def test_formats_outside_the_default_list_are_tried_when_named() -> None:
    assert stdnum_match("1101700207366", ("th.pin",)) == "th.pin"
    assert stdnum_match("1101700207366") != "th.pin"  # not among the label-free formats
