"""Contract files: transcribed exactly, validated on load, 19.1.0 only adds categories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault.model.enums import STOP_PRIORITY, SourceKind, StopReason, TTLClass
from memvault.policy import ContractError, available_contracts, load_contract, load_contract_file

NEW_IN_19_1 = {"KNOWLEDGE", "EVENT", "DECISION", "GOAL", "TODO", "PROCEDURE"}


def test_shipped_versions() -> None:
    assert available_contracts()[:2] == ["19.0.0", "19.1.0"]
    assert load_contract().version == "19.1.0"


def test_19_0_0_matches_the_spec_text() -> None:
    c = load_contract("19.0.0")
    assert set(c.categories) == {
        "PREFERENCE",
        "WORKFLOW_DEFAULT",
        "PROJECT_CONFIG",
        "CONSTRAINT",
        "REMINDER",
    }
    expected = {
        # category: (value max, ttl classes, source kinds) — contract §3.1-3.5
        "PREFERENCE": (512, {"SHORT", "MEDIUM", "LONG"}, {"USER_EXPLICIT", "SYSTEM_KNOWN"}),
        "WORKFLOW_DEFAULT": (512, {"MEDIUM", "LONG"}, {"USER_EXPLICIT", "SYSTEM_KNOWN"}),
        "PROJECT_CONFIG": (
            1024,
            {"MEDIUM", "LONG"},
            {"USER_EXPLICIT", "SYSTEM_KNOWN", "CITED_SOURCE"},
        ),
        "CONSTRAINT": (256, {"SHORT", "MEDIUM", "LONG"}, {"USER_EXPLICIT"}),
        "REMINDER": (512, {"SHORT", "MEDIUM"}, {"USER_EXPLICIT"}),
    }
    for name, (vmax, ttls, kinds) in expected.items():
        spec = c.categories[name]
        assert spec.value_max == vmax
        assert spec.key_max == 128
        assert spec.fields["source_ref"].max_length == 256
        assert not spec.fields["source_ref"].required
        assert {t.value for t in spec.allowed_ttl_classes} == ttls
        assert {k.value for k in spec.allowed_source_kinds} == kinds
    assert c.field_bounds == {
        "memory_id": 64,
        "category": 32,
        "key": 128,
        "value": 1024,
        "source_ref": 256,
    }
    assert set(c.stop_reasons) == set(StopReason)
    assert tuple(c.priority) == STOP_PRIORITY
    assert len(c.forbidden_categories) == 9
    assert set(c.source_kinds) == set(SourceKind)
    assert set(c.ttl_classes) == set(TTLClass)


def _raw(version: str) -> dict[str, object]:
    from importlib import resources

    path = resources.files("memvault.policy").joinpath("contracts", f"{version}.json")
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_19_1_0_adds_six_categories_and_changes_nothing_else() -> None:
    old, new = _raw("19.0.0"), _raw("19.1.0")
    metadata = {"contract_version", "date", "source", "supersedes", "changes"}
    for key in set(old) | set(new):
        if key in metadata:
            continue
        if key == "categories":
            old_c, new_c = old[key], new[key]
            assert isinstance(old_c, dict) and isinstance(new_c, dict)
            assert set(new_c) - set(old_c) == NEW_IN_19_1
            for name, spec in old_c.items():
                assert new_c[name] == spec, name
        else:
            assert old.get(key) == new.get(key), key


def test_new_categories_are_complete() -> None:
    c = load_contract("19.1.0")
    for name in NEW_IN_19_1:
        spec = c.categories[name]
        assert spec.allowed_ttl_classes and spec.allowed_source_kinds
        assert SourceKind.DERIVED_UNVERIFIED not in spec.allowed_source_kinds
        assert spec.value_max <= c.field_bounds["value"]


def test_unknown_version_is_a_clear_error() -> None:
    with pytest.raises(ContractError, match="unknown contract version"):
        load_contract("99.0.0")
    with pytest.raises(ContractError, match=r"MAJOR\.MINOR\.PATCH"):
        load_contract("latest")


def test_loader_rejects_an_inconsistent_file(tmp_path: Path) -> None:
    data = _raw("19.0.0")
    prio = list(data["stop_priority"])  # type: ignore[call-overload]
    prio[1], prio[2] = prio[2], prio[1]
    data["stop_priority"] = prio
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ContractError, match="stop_priority"):
        load_contract_file(bad)


def test_loader_rejects_derived_unverified_as_allowed(tmp_path: Path) -> None:
    data = _raw("19.0.0")
    cats = data["categories"]
    assert isinstance(cats, dict)
    cats["PREFERENCE"]["allowed_source_kinds"].append("DERIVED_UNVERIFIED")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ContractError, match="DERIVED_UNVERIFIED"):
        load_contract_file(bad)


def test_loader_rejects_unknown_keys_and_bad_json(tmp_path: Path) -> None:
    data = _raw("19.0.0")
    data["surprise"] = True
    p = tmp_path / "x.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ContractError, match="surprise"):
        load_contract_file(p)
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(ContractError, match="not valid JSON"):
        load_contract_file(p)
