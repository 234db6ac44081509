"""Governance contracts as validated data (DESIGN §2.1).

A contract file (``policy/contracts/<version>.json``) is the frozen text of
``specs/memory-contract.md`` transcribed as data: the category allowlist with
per-category field bounds, TTL classes and source kinds, the forbidden families,
the stop reasons and their priority order. :func:`load_contract` reads one with
:mod:`importlib.resources` and validates it with pydantic, so a malformed or
inconsistent file fails at load time with :class:`ContractError`, never at gate
time.

>>> c = load_contract("19.0.0")
>>> sorted(c.categories)
['CONSTRAINT', 'PREFERENCE', 'PROJECT_CONFIG', 'REMINDER', 'WORKFLOW_DEFAULT']
>>> c.categories["CONSTRAINT"].value_max
256
>>> "KNOWLEDGE" in load_contract("19.1.0").categories
True
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memvault.errors import ConfigError
from memvault.model.enums import STOP_PRIORITY, SourceKind, StopReason, TTLClass

__all__ = [
    "DEFAULT_CONTRACT_VERSION",
    "CategorySpec",
    "Contract",
    "ContractError",
    "FieldSpec",
    "available_contracts",
    "load_contract",
    "load_contract_file",
]

#: The contract the gate uses when configuration names none (DESIGN §2.1).
DEFAULT_CONTRACT_VERSION = "19.1.0"

_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")
_CATEGORY_RE = re.compile(r"^[A-Z][A-Z_]*$")
_TTL_ORDER = (TTLClass.SHORT, TTLClass.MEDIUM, TTLClass.LONG)


class ContractError(ConfigError):
    """A contract file is missing, unknown or does not validate."""

    hint = "use one of the shipped contract versions: `memvault policy check --contract 19.1.0`"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(_Strict):
    """One row of a category's field table (contract §3)."""

    type: str = Field(pattern="^string$")
    max_length: int = Field(gt=0)
    required: bool


class CategorySpec(_Strict):
    """One allowed category (contract §3.x)."""

    section: str | None = None
    description: str
    fields: dict[str, FieldSpec]
    allowed_ttl_classes: tuple[TTLClass, ...] = Field(min_length=1)
    allowed_source_kinds: tuple[SourceKind, ...] = Field(min_length=1)
    examples: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()

    @field_validator("fields")
    @classmethod
    def _key_and_value(cls, v: dict[str, FieldSpec]) -> dict[str, FieldSpec]:
        for name in ("key", "value"):
            if name not in v:
                raise ValueError(f"category is missing the {name!r} field")
        return v

    @field_validator("allowed_source_kinds")
    @classmethod
    def _never_derived(cls, v: tuple[SourceKind, ...]) -> tuple[SourceKind, ...]:
        if SourceKind.DERIVED_UNVERIFIED in v:
            raise ValueError("DERIVED_UNVERIFIED can never be an allowed source kind (INV-5)")
        return v

    @property
    def key_max(self) -> int:
        return self.fields["key"].max_length

    @property
    def value_max(self) -> int:
        return self.fields["value"].max_length

    @property
    def default_ttl(self) -> TTLClass:
        """The longest allowed TTL class: what a write without a TTL class gets."""
        return max(self.allowed_ttl_classes, key=_TTL_ORDER.index)


class ForbiddenFamily(_Strict):
    """A hard-blocked family (contract §4.x)."""

    section: str
    title: str
    items: tuple[str, ...] = Field(min_length=1)


class Contract(_Strict):
    """A whole governance contract, validated.

    ``priority`` is the §7 order with ``SUCCESS_*`` expanded; the gate ranks
    findings with :meth:`rank`, so the order lives in data, not in code.
    """

    contract_version: str
    status: str
    scope: str
    date: str
    source: str
    supersedes: str | None = None
    field_bounds: dict[str, int]
    source_kinds: dict[SourceKind, str]
    rejected_source_kinds: tuple[SourceKind, ...]
    memory_ops: dict[str, str]
    ttl_classes: dict[TTLClass, str]
    categories: dict[str, CategorySpec]
    forbidden_categories: dict[str, ForbiddenFamily]
    stop_reasons: dict[StopReason, str]
    stop_priority: tuple[str, ...]
    invariants: dict[str, str]
    changes: tuple[dict[str, str], ...] = ()

    @field_validator("contract_version")
    @classmethod
    def _semver(cls, v: str) -> str:
        if not _VERSION_RE.match(v):
            raise ValueError(f"contract_version {v!r} is not MAJOR.MINOR.PATCH")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Contract:
        if set(self.stop_reasons) != set(StopReason):
            raise ValueError("stop_reasons must list exactly the 13 stop reasons of contract §6")
        if set(self.source_kinds) != set(SourceKind):
            raise ValueError("source_kinds must list exactly the 4 source kinds of contract §2.2")
        if self.rejected_source_kinds != (SourceKind.DERIVED_UNVERIFIED,):
            raise ValueError("only DERIVED_UNVERIFIED is rejected (contract §5)")
        if tuple(self.priority) != STOP_PRIORITY:
            raise ValueError("stop_priority does not match contract §7")
        for bound in ("memory_id", "category", "key", "value", "source_ref"):
            if bound not in self.field_bounds:
                raise ValueError(f"field_bounds is missing {bound!r}")
        for name, spec in self.categories.items():
            if not _CATEGORY_RE.match(name) or len(name) > self.field_bounds["category"]:
                raise ValueError(f"category name {name!r} is not an upper-case identifier")
            for fname, f in spec.fields.items():
                limit = self.field_bounds.get(fname)
                if limit is not None and f.max_length > limit:
                    raise ValueError(f"{name}.{fname} max_length exceeds the global bound {limit}")
        return self

    @property
    def version(self) -> str:
        return self.contract_version

    @property
    def priority(self) -> list[StopReason]:
        """§7 order, highest first, ``SUCCESS_*`` expanded to the three successes."""
        out: list[StopReason] = []
        for item in self.stop_priority:
            if item == "SUCCESS_*":
                out.extend(r for r in StopReason if r.is_success)
            else:
                out.append(StopReason(item))
        return out

    def rank(self, reason: StopReason) -> int:
        """Position of ``reason`` in :attr:`priority` (0 = wins over everything)."""
        return self.priority.index(reason)

    def category(self, name: str) -> CategorySpec | None:
        """The spec of an allowed category, or None when the category is not listed (INV-1)."""
        return self.categories.get(name)


def _contracts_dir() -> Any:
    return resources.files("memvault.policy").joinpath("contracts")


def available_contracts() -> list[str]:
    """Versions shipped with this package, oldest first.

    >>> available_contracts()[:2]
    ['19.0.0', '19.1.0']
    """
    names = [
        p.name[: -len(".json")] for p in _contracts_dir().iterdir() if p.name.endswith(".json")
    ]
    return sorted(names, key=lambda v: tuple(int(x) for x in v.split(".")))


def _parse(raw: str, origin: str) -> Contract:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ContractError(f"contract {origin} is not valid JSON: {exc}") from exc
    try:
        return Contract.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise ContractError(f"contract {origin} is invalid at {where}: {first['msg']}") from exc


@cache
def load_contract(version: str = DEFAULT_CONTRACT_VERSION) -> Contract:
    """Load and validate a shipped contract by version (cached; contracts are frozen).

    Raises :class:`ContractError` for an unknown version or an invalid file.
    """
    if not _VERSION_RE.match(version):
        raise ContractError(f"contract version {version!r} is not MAJOR.MINOR.PATCH")
    res = _contracts_dir().joinpath(f"{version}.json")
    if not res.is_file():
        known = ", ".join(available_contracts())
        raise ContractError(f"unknown contract version {version!r} (shipped: {known})")
    contract = _parse(res.read_text(encoding="utf-8"), version)
    if contract.contract_version != version:
        raise ContractError(
            f"contract file {version}.json declares version {contract.contract_version!r}"
        )
    return contract


def load_contract_file(path: str | Path) -> Contract:
    """Load and validate a contract from a file path (for reviewing a draft contract)."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ContractError(f"cannot read contract file {p}: {exc.strerror}") from exc
    return _parse(raw, str(p))
