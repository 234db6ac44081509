"""Routing, not an account: alert, on-call and traffic routing beside a date (issue 21).

The capture path judges a memory's key as words ("fact.alert_routing_moved_pagerduty_2026-02-28"
is read as "fact alert routing moved pagerduty 2026 02 28"), and the account rules read the
bare word "routing" as an ABA routing number's label and the spaced date as its digits: a
harmless ops memory was refused as a bank account (routed by capture, session 16).

Each allowance sits beside a near miss that stays refused: a real routing number (nine
digits whose ABA check digit adds up), a number named as a routing number, an account
number. Every sentence is written for this file.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import decision

from memvault.write.building import judged_key

# harmless: routing of alerts, calls, traffic or parcels beside a date or a count
ROUTING_TOPICS = [
    "fact alert routing moved pagerduty 2026 02 28",
    "fact on call routing moved pagerduty 2026 03 09",
    "event traffic routing switched to the eu edge 2025 11 30",
    "Our alert routing moved to PagerDuty on 2026-02-28.",
    "routing: 2026-04-01 cutover to the new load balancer",
    "Call routing for the support line changes on 2026 05 04.",
    "routing_rules updated 2026 01 15 after the outage",
    "Das Alarm-Routing wurde am 2026 03 02 auf incident.io umgestellt.",
]

# refused: the same shapes with a real routing or account number
ROUTING_NUMBERS = [
    ("my routing 021000021 and the checking account ends 4410", "detector.financial.bank_account"),
    ("routing 026009593", "detector.financial.bank_account"),
    ("routing number: 2026 0228 1", "detector.financial.bank_account"),
    ("Dana's routing no. 123456780 for the payroll deposit", "detector.financial.bank_account"),
    ("account 2026 0228 1177 at the credit union", "detector.financial.bank_account"),
    ("acct_no: 20260228 4471", "detector.financial.bank_account"),
    # a sort code has a date's shape without its four-digit year
    ("my sort code is 20-45-77", "detector.financial.bank_account"),
]


@pytest.mark.parametrize(
    ("text", "refused_by"), [*((t, None) for t in ROUTING_TOPICS), *ROUTING_NUMBERS]
)
def test_routing_beside_a_date_is_no_account_a_routing_number_is(
    text: str, refused_by: str | None
) -> None:
    """A routing topic passes; a routing or account number is refused by an account rule."""
    stop, found = decision(text)
    if refused_by is None:
        assert (stop, found) == ("SUCCESS_STORED", None)
    else:
        assert stop == "FORBIDDEN_CATEGORY" and str(found).startswith(refused_by)


def test_capture_key_of_an_alert_routing_memory_is_stored() -> None:
    """The key capture derives for the routed statement (the words and date of the report)."""
    d = judged_key("fact.alert_routing_moved_pagerduty_2026-02-28")
    assert d is not None and d.stop_reason.value == "SUCCESS_STORED"
    refused = judged_key("fact.my_account_4410_2231_77")
    assert refused is not None and refused.stop_reason.value == "FORBIDDEN_CATEGORY"
