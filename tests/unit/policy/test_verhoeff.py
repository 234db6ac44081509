"""Verhoeff check digits (Aadhaar): the permutation table is the standard one.

A wrong row in ``_VERHOEFF_P`` once made ``verhoeff_ok`` reject valid Aadhaar
numbers; python-stdnum's implementation is the independent reference here.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import verhoeff

from memvault.policy.detectors.validators import verhoeff_ok


def _with_check_digit(body: str) -> str:
    return body + verhoeff.calc_check_digit(body)


def test_valid_aadhaar_shaped_numbers_pass_and_a_changed_digit_fails() -> None:
    for body in ("49911866524", "23412341234", "98765432101", "55555555555"):
        number = _with_check_digit(body)
        assert verhoeff_ok(number), number
        wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
        assert not verhoeff_ok(wrong), wrong


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789", min_size=2, max_size=16))
def test_agrees_with_stdnum(number: str) -> None:
    assert verhoeff_ok(number) == verhoeff.is_valid(number)
