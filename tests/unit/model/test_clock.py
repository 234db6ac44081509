"""Stored timestamps: one format, parsed back to the same instant."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memvault.model.clock import format_timestamp, parse_timestamp


@given(st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(9999, 1, 1)))
def test_parse_inverts_format(moment: datetime) -> None:
    aware = moment.replace(tzinfo=UTC)
    stamp = format_timestamp(aware)
    assert len(stamp) == 27
    assert parse_timestamp(stamp) == aware
    assert parse_timestamp(stamp).tzinfo is not None


@pytest.mark.parametrize("bad", ["", "yesterday", "2026-13-01T00:00:00.000000Z", "2026-01-01"])
def test_what_is_not_a_stored_timestamp_raises(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_timestamp(bad)
