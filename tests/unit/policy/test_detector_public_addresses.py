"""A public place's address (opening hours, a branch, an office move) is no one's home.

Sentences written for this test.
"""

from __future__ import annotations

import pytest

from memvault.policy.detectors import location
from memvault.policy.normalize import normalize


def _location(text: str) -> set[str]:
    return {h.detector for h in location.detect(normalize(text))}


@pytest.mark.parametrize(
    "text",
    [
        # each was refused at 9fcdda6 (an address label or a street, no residence cue)
        "Nouvelle adresse : 14 rue Victor Hugo, ouvert du lundi au vendredi.",  # fr
        "Filiale Nord; Adresse: Lindenstraße 12; Öffnungszeiten Mo–Fr 8–18 Uhr",  # de
        "Dirección: Calle Mayor 5, abierto de 9 a 14.",  # es
        "Indirizzo: Via Roma 12, orari 9-18.",  # it
        "Office move: from May the team sits at 5th floor, 44 Harbour St.",  # en
    ],
)
def test_a_public_places_address_is_no_finding(text: str) -> None:
    assert not _location(text)


def test_a_home_address_beside_opening_hours_is_still_a_home() -> None:
    text = "I live at 14 Elm Street, Flat 2; the shop's opening hours are 9 to 5."
    assert _location(text)
