"""Parsers, decoding and chunking: pure functions, checked directly and by property."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memvault.ingest.manifest import free_destination, manifest_path
from memvault.ingest.model import MAX_CHUNK_CHARS, ParseFailure, RejectReason
from memvault.ingest.parsers import decode, parse_json, parse_markdown, parse_text, split_long


def test_decode_strips_bom_and_normalises_newlines() -> None:
    assert decode(b"\xef\xbb\xbfa\r\nb\rc") == "a\nb\nc"


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [(b"ok\n\xff", 2, 1), (b"abc\xc3", 1, 4), (b"a\nbc\x00", 2, 3)],
)
def test_decode_reports_where_it_failed(data: bytes, line: int, column: int) -> None:
    with pytest.raises(ParseFailure) as info:
        decode(data)
    rejection = info.value.rejection
    assert rejection.code is RejectReason.ENCODING_ERROR
    assert (rejection.line, rejection.column) == (line, column)


@given(st.text(alphabet="ab .!?\n", min_size=0, max_size=400), st.integers(8, 60))
def test_split_long_respects_the_limit_and_keeps_every_word(text: str, limit: int) -> None:
    pieces = split_long(text, limit)
    assert all(0 < len(p) <= limit for p in pieces)
    assert "".join("".join(pieces).split()) == "".join(text.split())


def test_txt_long_paragraph_is_split_with_sub_ids() -> None:
    long = " ".join(["A sentence about the build."] * 300)
    doc = parse_text(f"short\n\n{long}", name="n.txt")
    ids = [c.chunk_id for c in doc.candidates]
    assert ids[0] == "p0001" and ids[1] == "p0002.1" and len(ids) > 3
    assert all(len(c.fields["content"]) <= MAX_CHUNK_CHARS for c in doc.candidates)
    assert [c.line for c in doc.candidates[:2]] == [1, 3]


def test_markdown_sections_lines_and_keys() -> None:
    doc = parse_markdown("intro text\n\n# A\n\nalpha\n\n### A.1\n\nbeta\n\n# B\n", name="Doc.md")
    got = [(c.chunk_id, c.line, c.fields["key"], c.fields["value"]) for c in doc.candidates]
    assert got == [
        ("s0001.c01", 1, "doc/intro#s0001.c01", "Doc"),
        ("s0002.c01", 5, "doc/a#s0002.c01", "A"),
        ("s0003.c01", 9, "doc/a-1#s0003.c01", "A › A.1"),
    ]


def test_markdown_unclosed_comment_swallows_headings_so_the_gate_sees_them() -> None:
    doc = parse_markdown("# T\n\n<!-- hidden\n\n# not a heading\n\nstill hidden", name="x.md")
    (only,) = doc.candidates
    assert (
        only.fields["content"].startswith("<!-- hidden")
        and "# not a heading" in only.fields["content"]
    )


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [("---\ntitle x\n---\nbody", 2, 1), ("---\nimportance: high\n---\nbody", 2, 13)],
)
def test_markdown_front_matter_errors_have_positions(text: str, line: int, column: int) -> None:
    with pytest.raises(ParseFailure) as info:
        parse_markdown(text, name="x.md")
    assert (info.value.rejection.line, info.value.rejection.column) == (line, column)


def test_json_top_level_array_and_default_keys() -> None:
    doc = parse_json(json.dumps([{"content": "x"}, {"content": "y", "ref": "b"}]), name="F.json")
    assert [(c.chunk_id, c.ref, c.fields["key"]) for c in doc.candidates] == [
        ("memories.0", None, "f#memories.0"),
        ("memories.1", "b", "f#memories.1"),
    ]


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"memories": {}}, "$.memories"),
        ({"memories": [1]}, "$.memories[0]"),
        ({"memories": [{"ref": "a"}, {"ref": "a"}]}, "$.memories[1].ref"),
        ({"defaults": {"content": "x"}}, "$.defaults.content"),
        ({"memvault": "ingest/2"}, "$.memvault"),
        ({"text": 3}, "$.text"),
        ({"edges": [{"from": "a", "to": "b", "colour": 1}]}, "$.edges[0].colour"),
    ],
)
def test_json_shape_errors_name_the_path(doc: object, path: str) -> None:
    with pytest.raises(ParseFailure) as info:
        parse_json(json.dumps(doc), name="x.json")
    assert info.value.rejection.code is RejectReason.SCHEMA_INVALID
    assert info.value.rejection.detail["path"] == path


def test_free_destination_and_manifest_names(tmp_path: object) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "a.md").write_text("x")
    (root / "a-1.md").write_text("x")
    (root / "README").write_text("x")
    assert free_destination(root, "a.md").name == "a-2.md"
    assert free_destination(root, "README").name == "README-1"
    assert manifest_path(root / "a-2.md").name == "a-2.md.manifest.json"
