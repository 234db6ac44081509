"""The HTTP edge's verdict judges an id's words under the body's category.

Under a contract without the stand-in category (19.0.0 has no KNOWLEDGE) an id's words
judged as a KNOWLEDGE fact met the allowlist first, and that answer is no decision on the
words: a schema-refused body with a health fact as its project id was a 422 schema error
over HTTP while ``add`` refused the same id as FORBIDDEN_CATEGORY. A harmless id leaves the
schema's answer standing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.access import AccessControl
from memvault.config import load_config
from memvault.model.enums import StopReason


@pytest.mark.parametrize(
    ("project_id", "expected"),
    [("Dana_has_HIV", StopReason.FORBIDDEN_CATEGORY), ("team-rituals", StopReason.SCHEMA_INVALID)],
)
def test_an_id_is_judged_under_the_body_category(
    tmp_path: Path, project_id: str, expected: StopReason
) -> None:
    path = tmp_path / "memvault.toml"
    path.write_text("[policy]\ncontract = '19.0.0'\n", encoding="utf-8")
    config = load_config(tmp_path / "home", config_file=path, environ={})
    control = AccessControl(tmp_path / "home", config)
    try:
        body = {
            "content": "The retro is on Fridays.",
            "type": "Nonsense",
            "category": "PREFERENCE",
            "source_kind": "USER_EXPLICIT",
            "project_id": project_id,
        }
        verdict = control.content_verdict(body)
        assert verdict is not None and verdict.stop_reason is expected, verdict
    finally:
        control.close()
