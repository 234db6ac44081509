"""Review S18-R5: a LangGraph item's address — its namespace and key — says a health fact.

LangGraph applications file a fact under a path: ``put(("users", "mia", "conditions"),
"hiv_positive", {...})``. memvault judges the namespace's labels (as ids, S15-R5, and as a
list "namespace: a, b", S17-R8) and the key (as an id) — each alone. Read together they are
the fact, and no head reads them together: ``("patients", "mia")`` / ``"hiv"``, ``("users",
"mia", "conditions")`` / ``"hiv_positive"``, and even the label ``"hiv positive"`` inside
``("users", "mia", "conditions", "hiv positive")`` are stored beside a harmless content;
``list_namespaces`` and ``search`` hand the path back. Two labels alone are refused
(``("mia", "hiv")``, ``("diagnoses", "schizophrenia")``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_store import MemvaultStore

REFUSED = {
    "key under a person": (("patients", "mia"), "hiv"),
    "joined key": (("users", "mia", "conditions"), "hiv_positive"),
    "label": (("users", "mia", "conditions", "hiv positive"), "since"),
}
HELD = {
    "two labels": ((("mia", "hiv"), "status"), True),
    "named labels": ((("diagnoses", "schizophrenia"), "mia"), True),
    "preferences": ((("users", "dana", "prefs"), "coffee_order"), False),
    "accounts": ((("crm", "accounts", "acme"), "renewal_date"), False),
    "documents": ((("user_123", "memories"), "doc_0"), False),
}


def _put(tmp_path: Path, namespace: tuple[str, ...], key: str) -> None:
    with MemvaultStore(tmp_path, user="dana") as store:
        store.put(namespace, key, {"content": "Team notes"})


@pytest.mark.xfail(
    strict=True, reason="S18-R5: routed to the lead (write/building, checks_content)"
)
@pytest.mark.parametrize(("namespace", "key"), REFUSED.values(), ids=REFUSED.keys())
def test_an_address_that_says_a_health_fact_is_refused(
    tmp_path: Path, namespace: tuple[str, ...], key: str
) -> None:
    with pytest.raises(WriteRefusedError):
        _put(tmp_path, namespace, key)


@pytest.mark.parametrize(("address", "refused"), HELD.values(), ids=HELD.keys())
def test_labels_refused_today_and_ordinary_addresses(
    tmp_path: Path, address: tuple[tuple[str, ...], str], refused: bool
) -> None:
    """What is refused today, and the near misses: the paths every application files by."""
    try:
        _put(tmp_path, *address)
    except WriteRefusedError:
        assert refused
    else:
        assert not refused
