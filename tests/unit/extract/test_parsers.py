"""Workflow-output and diagnostics parsers, and relative dates."""

from __future__ import annotations

from datetime import date

from memvault.extract import ChangeCue, parse_findings, parse_workflow_output
from memvault.extract.dates import resolve_relative_dates
from memvault.model.enums import SourceKind, SourceType


def test_json_workflow_output() -> None:
    x = parse_workflow_output(
        '{"decisions": ["Adopt Postgres"], "todos": [{"text": "Write the migration", '
        '"status": "done"}, "Tag the release"], "goals": ["Ship v1 by March"], "other": [1]}'
    )
    kinds = [(c.type.value, c.cue) for c in x.candidates]
    assert kinds == [
        ("Decision", ChangeCue.ASSERT),
        ("Todo", ChangeCue.DONE),
        ("Todo", ChangeCue.ASSERT),
        ("Goal", ChangeCue.ASSERT),
    ]
    assert all(c.source_kind is SourceKind.SYSTEM_KNOWN for c in x.candidates)
    assert all(c.source_type is SourceType.WORKFLOW_OUTPUT for c in x.candidates)


def test_markdown_sections_checklists_and_labels() -> None:
    md = (
        "# Retro\n## Decisions\n- Keep weekly releases\n1. Drop the staging freeze\n"
        "## Next steps\n- [ ] Update the runbook\n- [x] Rotate the keys\n"
        "Goal: cut p95 below 200 ms\n"
        "Some prose that is not a memory.\n"
    )
    x = parse_workflow_output(md)
    assert [c.content for c in x.candidates] == [
        "Decision: Keep weekly releases.",
        "Decision: Drop the staging freeze.",
        "Open todo: Update the runbook.",
        "Completed todo: Rotate the keys.",
        "Goal: cut p95 below 200 ms.",
    ]


def test_open_and_done_todo_share_a_key() -> None:
    a = parse_workflow_output("- [ ] Write the migration").candidates[0]
    b = parse_workflow_output("- [x] Write the migration").candidates[0]
    assert a.key == b.key and b.cue is ChangeCue.DONE


def test_findings_shapes_and_bounded_evidence() -> None:
    text = "Disk almost full on db-2\n" + "\n".join(f"line {i}" for i in range(500))
    (c,) = parse_findings(text, evidence_max=80).candidates
    assert c.content.startswith("Diagnostics: Disk almost full on db-2. Evidence: line 0")
    assert len(c.content.split("Evidence: ")[1]) <= 80
    many = parse_findings({"findings": [{"title": "a b"}, {"message": "c d"}, {"x": 1}]})
    assert len(many.candidates) == 2
    assert parse_findings("").candidates == ()


def test_relative_dates() -> None:
    thursday = date(2026, 1, 15)
    assert resolve_relative_dates("Dana flew home 3 days ago", thursday) == (
        "Dana flew home on 2026-01-12"
    )
    assert resolve_relative_dates("due in two weeks", thursday) == "due on 2026-01-29"
    assert resolve_relative_dates("see you next month", thursday) == "see you in February 2026"
    assert resolve_relative_dates("on Jan 31 plus a month", date(2026, 1, 31)).endswith("month")
