"""Review S18-R13: the LangGraph store's ``project=""`` reads every project.

``MemvaultStore(project=...)`` scopes every item to one project; the scope is applied only
when the project is truthy, and the name is checked only at the first write. A project
read from an empty setting (``project=""``) gives a store that lists and searches every
project's items — another project's "Alpha launch is on Monday" — and refuses its own puts
(SCHEMA_INVALID on ``project_id``, a field the caller never named). ``"  "`` and
``"bad project"`` fail only at the first put too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.errors import ValidationFailed
from memvault.integrations.langgraph_store import MemvaultStore


def test_another_project_is_not_read(tmp_path: Path) -> None:
    """The control: a named project reads its own items only."""
    with MemvaultStore(tmp_path, project="alpha", user="dana") as alpha:
        alpha.put(("notes",), "launch", {"content": "Alpha launch is on Monday"})
    with MemvaultStore(tmp_path, project="beta", user="dana") as beta:
        assert beta.search(("notes",)) == []


@pytest.mark.parametrize("project", ["", "  ", "bad project", "alpha\n", 5])
def test_a_project_that_is_no_project_id_is_refused_when_the_store_is_made(
    tmp_path: Path, project: object
) -> None:
    with pytest.raises(ValidationFailed) as refused:
        MemvaultStore(tmp_path, project=project, user="dana")  # type: ignore[arg-type]
    assert refused.value.errors[0][0] == "project"
    assert not any(tmp_path.iterdir())  # nothing opened or written


@pytest.mark.parametrize("project", [None, "beta", "team-1.v2:eu"])
def test_a_project_id_or_none_makes_a_store(tmp_path: Path, project: str | None) -> None:
    """Near misses: no project, and project ids of the memories' own rule."""
    with MemvaultStore(tmp_path, project=project, user="dana") as store:
        store.put(("notes",), "launch", {"content": "Beta launch is on Friday"})
        assert store.get(("notes",), "launch") is not None
