"""REVIEW S13-R11: a name is not a credential (benign refusals by the credentials head).

A project's codename and a wifi network's name are ordinary workplace facts; the learned
credentials head refused them (scores .8-.9 against a .50 threshold) though neither
holds a secret value. The same facts with a password or a PIN stay refused. Gate 0.7
(session 14: codenames, network names and hostnames written as benign training items)
stores the first two; "SSID" alone is still read as a credential.
"""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, GateContext, evaluate
from memvault.policy.learned import default_layer


def _decide(text: str) -> StopReason:
    return evaluate(Candidate(text=text), GateContext(learned=default_layer())).stop_reason


NAMES = ("The secret project codename is Bluebird", "The wifi network name is GuestNet")
SECRETS = ("The guest wifi password is Harbour-2291-blue", "The codename vault PIN is 7316")


@pytest.mark.parametrize(
    "text",
    [
        *NAMES,
        pytest.param(
            "The wifi SSID is HarbourNet",
            marks=pytest.mark.xfail(strict=True, reason="S13-R11: SSID still a credential"),
        ),
    ],
)
def test_a_name_is_stored(text: str) -> None:
    assert _decide(text) is StopReason.SUCCESS_STORED


def test_a_secret_value_beside_it_is_refused() -> None:
    assert {_decide(t) for t in SECRETS} == {StopReason.FORBIDDEN_CATEGORY}
