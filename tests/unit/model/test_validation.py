"""Every enum and bound of the model, valid and invalid; path canonicalisation."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from memvault.errors import UnsafePathError, ValidationFailed
from memvault.model import (
    STOP_PRIORITY,
    CapturedBy,
    EdgeType,
    MemoryEdge,
    MemoryNode,
    MemoryStatus,
    MemoryType,
    Source,
    SourceKind,
    SourceType,
    StopReason,
    TTLClass,
    canonical_source_path,
    to_validation_failed,
)
from tests.helpers import make_edge, make_node

ENUMS: list[tuple[type[Any], list[str]]] = [
    (
        MemoryType,
        [
            "Fact",
            "Preference",
            "Decision",
            "Identity",
            "Event",
            "Observation",
            "Goal",
            "Todo",
            "Procedure",
        ],
    ),
    (EdgeType, ["RelatedTo", "Updates", "Contradicts", "CausedBy", "PartOf"]),
    (MemoryStatus, ["active", "superseded", "retracted", "soft_deleted"]),
    (
        SourceType,
        ["workflow_output", "channel_transcript", "ingest_file", "diagnostics", "manual"],
    ),
    (CapturedBy, ["extractor", "user", "system"]),
    (SourceKind, ["USER_EXPLICIT", "SYSTEM_KNOWN", "CITED_SOURCE", "DERIVED_UNVERIFIED"]),
    (TTLClass, ["SHORT", "MEDIUM", "LONG"]),
]


@pytest.mark.parametrize(("enum", "values"), ENUMS, ids=lambda v: getattr(v, "__name__", ""))
def test_enum_values_are_exact(enum: type[Any], values: list[str]) -> None:
    assert [m.value for m in enum] == values
    for value in values:
        assert enum(value).value == value
        with pytest.raises(ValueError):
            enum(value.swapcase())


def test_stop_reasons_and_priority_match_contract() -> None:
    assert len(StopReason) == 13
    assert STOP_PRIORITY[:3] == (
        StopReason.INTERNAL_INCONSISTENCY,
        StopReason.INJECTION_DETECTED,
        StopReason.FORBIDDEN_CATEGORY,
    )
    assert set(STOP_PRIORITY) == set(StopReason)
    assert StopReason.SCHEMA_INVALID.priority < StopReason.BOUNDS_EXCEEDED.priority


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("type", "fact"),
        ("type", "Memory"),
        ("status", "deleted"),
        ("ttl_class", "FOREVER"),
        ("category", "lower_case"),
        ("memory_id", "has space"),
        ("memory_id", ""),
        ("content", "   "),
        ("content", "bell\x07"),
        ("created_at", "2026-01-01"),
        ("importance", 50.5),
        ("importance", "50"),
    ],
)
def test_schema_violations_are_schema_invalid(field: str, value: Any) -> None:
    with pytest.raises(ValidationError) as info:
        make_node(**{field: value})
    failed = to_validation_failed(info.value)
    assert isinstance(failed, ValidationFailed)
    assert failed.stop_reason is StopReason.SCHEMA_INVALID
    assert failed.errors[0][0].startswith(field)


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("memory_id", "m" * 64, True),
        ("memory_id", "m" * 65, False),
        ("key", "k" * 128, True),
        ("key", "k" * 129, False),
        ("value", "v" * 1024, True),
        ("value", "v" * 1025, False),
        ("importance", 0, True),
        ("importance", 100, True),
        ("importance", -1, False),
        ("importance", 101, False),
        ("confidence", 0.0, True),
        ("confidence", 1.0, True),
        ("confidence", 1.01, False),
        ("confidence", -0.01, False),
        ("category", "C" * 32, True),
        ("category", "C" * 33, False),
    ],
)
def test_bounds(field: str, value: Any, ok: bool) -> None:
    if ok:
        assert getattr(make_node(**{field: value}), field) == value
        return
    with pytest.raises(ValidationError) as info:
        make_node(**{field: value})
    failed = to_validation_failed(info.value)
    assert isinstance(failed, ValidationFailed)
    assert failed.stop_reason is StopReason.BOUNDS_EXCEEDED


@pytest.mark.parametrize("weight", [-0.1, 1.1, float("nan")])
def test_edge_weight_bounds(weight: float) -> None:
    a, b = make_node(), make_node()
    with pytest.raises(ValidationError):
        make_edge(a, b, weight=weight)


def test_edge_rejects_bad_type_and_self_loop() -> None:
    a, b = make_node(), make_node()
    with pytest.raises(ValidationError):
        make_edge(a, b, edge_type="relatedto")
    with pytest.raises(ValidationError):
        make_edge(a, a)
    assert make_edge(a, b, weight=0.0).weight == 0.0


def test_source_path_must_be_absolute() -> None:
    with pytest.raises(ValidationError):
        Source(
            source_type="ingest_file",
            captured_by="system",
            source_kind="CITED_SOURCE",
            source_path="notes/a.md",
        )
    src = Source(
        source_type="ingest_file",
        captured_by="system",
        source_kind="CITED_SOURCE",
        source_path="/abs/a.md",
    )
    assert src.model_dump(by_alias=True)["sourcePath"] == "/abs/a.md"


def test_canonical_path_resolves_symlinks_and_dotdot(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    target = root / "docs" / "real.md"
    target.write_text("x")
    link = root / "alias.md"
    link.symlink_to(target)
    assert canonical_source_path(link, [root]) == str(target.resolve())
    assert canonical_source_path(str(root / "docs" / ".." / "docs" / "real.md"), [root]) == str(
        target.resolve()
    )


def test_canonical_path_rejects_relative_and_escapes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    (root / "escape.md").symlink_to(outside)
    with pytest.raises(UnsafePathError, match="relative"):
        canonical_source_path("docs/a.md", [root])
    with pytest.raises(UnsafePathError, match="escapes"):
        canonical_source_path(str(root / ".." / "secret.txt"), [root])
    with pytest.raises(UnsafePathError, match="escapes"):
        canonical_source_path(root / "escape.md", [root])
    with pytest.raises(UnsafePathError):
        canonical_source_path("/etc/passwd", [root])
    # a sibling whose name merely starts with the root's name is outside too
    sibling = tmp_path / "ws-other"
    sibling.mkdir()
    with pytest.raises(UnsafePathError):
        canonical_source_path(sibling / "a.md", [root])
    assert os.path.isabs(canonical_source_path(root / "new.md", [root]))


ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,40}", fullmatch=True)
texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=200
).filter(lambda s: s.strip() != "")


@given(
    memory_id=ids,
    content=texts,
    mtype=st.sampled_from(list(MemoryType)),
    importance=st.integers(0, 100),
    confidence=st.floats(0, 1, allow_nan=False),
    status=st.sampled_from(list(MemoryStatus)),
)
def test_node_json_round_trip(
    memory_id: str,
    content: str,
    mtype: MemoryType,
    importance: int,
    confidence: float,
    status: MemoryStatus,
) -> None:
    node = make_node(
        memory_id=memory_id,
        content=content,
        type=mtype,
        importance=importance,
        confidence=confidence,
        status=status,
    )
    assert MemoryNode.model_validate_json(node.model_dump_json()) == node


@given(edge_type=st.sampled_from(list(EdgeType)), weight=st.floats(0, 1, allow_nan=False))
def test_edge_json_round_trip(edge_type: EdgeType, weight: float) -> None:
    edge = make_edge(make_node(), make_node(), edge_type=edge_type, weight=weight)
    assert MemoryEdge.model_validate_json(edge.model_dump_json()) == edge
