"""REVIEW S13-R14: ``memvault policy check`` applies the tool-output rule as ``add`` does.

A line whose ``role`` is "tool" or whose ``source_ref`` starts with "tool:" is judged
SUCCESS_STORED by ``policy check``, while ``add`` refuses the same candidate
FORBIDDEN_CATEGORY (``tool_output_provenance``, contract §4.9): the check never passes
``triggered_by_tool_output`` to the gate and does not read ``role`` at all.
"""

from __future__ import annotations

import io
import json

import pytest

from memvault.cli.policy_cmd import check_lines

BUILD = {"text": "The nightly build uses Gradle 8", "declared_category": "KNOWLEDGE"}


def _check(row: dict[str, str]) -> dict[str, str]:
    out = io.StringIO()
    check_lines(io.StringIO(json.dumps({"id": "x", **row}) + "\n"), out)
    return dict(json.loads(out.getvalue()))


@pytest.mark.parametrize(
    "extra",
    [{"role": "tool"}, {"source_kind": "CITED_SOURCE", "source_ref": "tool:web_search#3"}],
)
def test_a_tool_written_line_is_refused_as_add_refuses_it(extra: dict[str, str]) -> None:
    answer = _check({**BUILD, **extra})
    assert answer["stop_reason"] == "FORBIDDEN_CATEGORY", answer
    assert answer["detector"] == "tool_output_provenance", answer


def test_a_user_line_is_stored() -> None:
    assert _check({**BUILD, "role": "user"})["stop_reason"] == "SUCCESS_STORED"
