"""Long texts cost the detectors linear work (review R3/R3b, session 9): counted, not timed."""

from __future__ import annotations

import re

import pytest

from memvault.policy.detectors import base, credentials, topical
from memvault.policy.normalize import normalize


def test_a_repeated_term_is_read_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def counting(text: str, start: int, end: int) -> str:
        calls.append(len(text))
        return base.clause_of(text, start, end)

    monkeypatch.setattr(topical, "clause_of", counting)
    topical.detect(normalize(("insulin " * 1000)[:8000]))
    rules = [r for r in topical.FAMILY_RULES if r.term.search("insulin")]
    assert len(calls) <= topical._MAX_MATCHES * len(rules)
    assert max(calls) <= 2 * topical._REACH + len("insulin")  # each read is near its match


def test_a_repeated_term_still_finds_a_fact_among_the_first_mentions() -> None:
    text = "my insulin dose went up. " + "insulin " * 300
    assert any(h.family == "health" for h in topical.detect(normalize(text)))


def test_an_account_name_starts_a_token() -> None:
    # "a.a.a.…" was tried from every letter after a dot (O(n^2)); a name now starts a token
    pattern = next(r.pattern for r in credentials.RULES if r.name == "credentials.account_pair")
    assert not pattern.search("x.mary.oconnor59 / Shamrock1959!", 2)
    assert pattern.search("mary.oconnor59 / Shamrock1959!")


@pytest.mark.parametrize(
    ("text", "span"),
    [("I moved. My dose is 2.5 mg; fine", (12, 16)), ("e.g. insulin!", (5, 12)), ("a\nb", (2, 3))],
)
def test_clause_of_splits_where_a_clause_ends(text: str, span: tuple[int, int]) -> None:
    clause = base.clause_of(text, *span)
    assert text[span[0] : span[1]] in clause
    assert not re.search(r"[;!?\n]", clause)
