"""Reading a pasted record's lines is linear in the lines (review R6b).

``extract/register.py`` ``_records`` asked at every line whether a record starts
there and walked the rest of the run each time: a run of comma lines that is no
table ("a,b" then 4,000 lines "x!,y", 20,000 characters: 5.8 s) or of ``key:`` lines
without values ("a:" / "  b:" repeated: 13.6 s for 2,500 pairs) cost O(lines²) in
one turn. Deterministic: the lines looked at are counted, not timed.
"""

from __future__ import annotations

from typing import SupportsIndex, overload

import pytest

from memvault.extract import register
from memvault.extract.register import read_register


class _Counted(list[str]):
    """A list of lines that counts how often a line (or a slice) is looked up."""

    reads = 0

    @overload
    def __getitem__(self, index: SupportsIndex) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> str | list[str]:
        _Counted.reads += 1
        return super().__getitem__(index)


def _reads(text: str) -> int:
    _Counted.reads = 0
    register._records(_Counted(text.split("\n")))
    return _Counted.reads


@pytest.mark.parametrize(
    "unit",
    ["x!,y\n", "a:\n  b:\n", "name,city\n"],
    ids=["comma-lines-no-table", "keys-without-values", "table-of-headers"],
)
def test_lines_looked_at_grow_linearly(unit: str) -> None:
    small, large = _reads("a,b\n" + unit * 500), _reads("a,b\n" + unit * 2_000)
    assert large <= 4.5 * small, (small, large)  # linear: ~4x; as it was: ~16x


def test_records_are_still_found() -> None:
    table = read_register("Our office list:\nname,city\nAna,Lisbon\nBo,Porto\nThanks")
    assert [(r.name, r.fields) for r in table.records] == [
        ("office list", (("name", "Ana"), ("city", "Lisbon"), ("name", "Bo"), ("city", "Porto")))
    ]
    nested = read_register("config:\n  db:\n    host: x1\n    port: 5432\nok")
    assert [r.fields for r in nested.records] == [(("db.host", "x1"), ("db.port", "5432"))]
