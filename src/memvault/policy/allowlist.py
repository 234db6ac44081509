"""Per-agent category allowlists (implementation-spec §5), enforced for reads and writes.

The configuration has the spec's YAML shape::

    allowlists:
      supervisor: [profile, goals, preferences, event, activity, relationships, tasks]
      planner:    [goals, tasks, projects]

Entries may name contract categories directly (``PREFERENCE``) or the spec's
lower-case names, which map to contract categories through :data:`ALIASES`
(``preferences`` → PREFERENCE, ``tasks`` → TODO and REMINDER, …). ``*`` allows
everything. An agent missing from a spec §5 allowlist file is allowed nothing
(fail closed); the configuration's ``policy.allowlists``
(:meth:`AgentAllowlist.configured`) limits only the agents it names
(docs/configuration.md). A caller with no agent identity (the user, a direct
library call) is not subject to agent allowlists.

>>> al = AgentAllowlist.from_mapping({"allowlists": {"planner": ["goals", "tasks"]}})
>>> al.permits("planner", "GOAL"), al.permits("planner", "PREFERENCE")
(True, False)
>>> al.check("stylist", ["PREFERENCE"]).stop_reason.value
'FORBIDDEN_CATEGORY'
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.errors import ConfigError
from memvault.model.decision import Decision
from memvault.model.enums import StopReason

__all__ = ["ALIASES", "AgentAllowlist"]

#: Spec §5 category names → contract categories.
ALIASES: Mapping[str, frozenset[str]] = {
    "preference": frozenset({"PREFERENCE"}),
    "preferences": frozenset({"PREFERENCE"}),
    "tone": frozenset({"PREFERENCE"}),
    "style": frozenset({"PREFERENCE"}),
    "profile": frozenset({"PREFERENCE", "KNOWLEDGE"}),
    "goal": frozenset({"GOAL"}),
    "goals": frozenset({"GOAL"}),
    "task": frozenset({"TODO", "REMINDER"}),
    "tasks": frozenset({"TODO", "REMINDER"}),
    "todo": frozenset({"TODO"}),
    "todos": frozenset({"TODO"}),
    "reminder": frozenset({"REMINDER"}),
    "reminders": frozenset({"REMINDER"}),
    "event": frozenset({"EVENT"}),
    "events": frozenset({"EVENT"}),
    "activity": frozenset({"EVENT"}),
    "recent_activity": frozenset({"EVENT"}),
    "history": frozenset({"EVENT", "DECISION"}),
    "decision": frozenset({"DECISION"}),
    "decisions": frozenset({"DECISION"}),
    "knowledge": frozenset({"KNOWLEDGE"}),
    "interests": frozenset({"KNOWLEDGE"}),
    "relationships": frozenset({"KNOWLEDGE"}),
    "project": frozenset({"PROJECT_CONFIG", "WORKFLOW_DEFAULT", "DECISION"}),
    "projects": frozenset({"PROJECT_CONFIG", "WORKFLOW_DEFAULT", "DECISION"}),
    "config": frozenset({"PROJECT_CONFIG"}),
    "workflow": frozenset({"WORKFLOW_DEFAULT"}),
    "workflows": frozenset({"WORKFLOW_DEFAULT"}),
    "constraint": frozenset({"CONSTRAINT"}),
    "constraints": frozenset({"CONSTRAINT"}),
    "procedure": frozenset({"PROCEDURE"}),
    "procedures": frozenset({"PROCEDURE"}),
    "procedural": frozenset({"PROCEDURE"}),
}


def _expand(entry: str) -> frozenset[str]:
    e = entry.strip()
    if e == "*":
        return frozenset({"*"})
    low = e.lower()
    if low in ALIASES:
        return ALIASES[low]
    return frozenset({e.upper()})


@dataclass(frozen=True, slots=True)
class AgentAllowlist:
    """Which contract categories each agent may read and write."""

    agents: Mapping[str, frozenset[str]]
    #: ``True``: an agent the allowlist does not name is not limited by it (the
    #: configuration's ``policy.allowlists``); ``False``: it is allowed nothing.
    unlisted_unrestricted: bool = False

    @classmethod
    def configured(cls, allowlists: Mapping[str, Iterable[str]]) -> AgentAllowlist:
        """The configuration's ``policy.allowlists``: limits the agents it names only.

        >>> al = AgentAllowlist.configured({"planner": ["goals"]})
        >>> al.categories_for("planner"), al.categories_for("stylist") is None
        (frozenset({'GOAL'}), True)
        """
        named = cls.from_mapping({agent: list(cats) for agent, cats in allowlists.items()})
        return cls(agents=named.agents, unlisted_unrestricted=True)

    def categories_for(self, agent: str) -> frozenset[str] | None:
        """The categories ``agent`` may touch; ``None``: every category.

        >>> AgentAllowlist.from_mapping({"planner": ["*"]}).categories_for("planner") is None
        True
        >>> AgentAllowlist.from_mapping({"planner": ["goals"]}).categories_for("stylist")
        frozenset()
        """
        cats = self.agents.get(agent)
        if cats is None:
            return None if self.unlisted_unrestricted else frozenset()
        return None if "*" in cats else cats

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> AgentAllowlist:
        """Build from the spec §5 shape (a mapping with ``allowlists``) or a bare agent mapping."""
        raw = data.get("allowlists", data)
        if not isinstance(raw, Mapping):
            raise ConfigError("allowlists must map agent names to lists of categories")
        agents: dict[str, frozenset[str]] = {}
        for agent, entries in raw.items():
            if agent == "categories":
                continue
            if not isinstance(agent, str) or not isinstance(entries, list | tuple):
                raise ConfigError(f"allowlist for {agent!r} must be a list of category names")
            cats: set[str] = set()
            for entry in entries:
                if not isinstance(entry, str):
                    raise ConfigError(f"allowlist for {agent!r} holds a non-string entry {entry!r}")
                cats |= _expand(entry)
            agents[agent] = frozenset(cats)
        return cls(agents=agents)

    @classmethod
    def from_text(cls, text: str) -> AgentAllowlist:
        """Parse YAML when PyYAML is installed, else JSON (the same shape)."""
        try:
            yaml: Any = importlib.import_module("yaml")  # optional: PyYAML
        except ImportError:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ConfigError(
                    "allowlist is not JSON and PyYAML is not installed",
                    hint="pip install pyyaml, or write the allowlist as JSON",
                ) from exc
        else:
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise ConfigError(f"allowlist YAML is invalid: {exc}") from exc
        if not isinstance(data, Mapping):
            raise ConfigError("allowlist file must hold a mapping")
        return cls.from_mapping(data)

    @classmethod
    def load(cls, path: str | Path) -> AgentAllowlist:
        p = Path(path)
        try:
            return cls.from_text(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read allowlist {p}: {exc.strerror}") from exc

    def permits(self, agent: str | None, category: str) -> bool:
        """True when ``agent`` may touch ``category`` (no agent identity: always True)."""
        if agent is None:
            return True
        cats = self.categories_for(agent)
        return cats is None or _expand(category) <= cats

    def check(self, agent: str | None, categories: Iterable[str]) -> Decision:
        """A read- or write-side decision for ``agent`` touching ``categories``.

        Returns a Decision whose stop reason is FORBIDDEN_CATEGORY naming the first
        disallowed category, or SUCCESS_STORED (the contract has no read success
        reason; callers test ``decision.allowed``).
        """
        for cat in categories:
            if not self.permits(agent, cat):
                who = agent if agent in self.agents else f"{agent} (not in the allowlist)"
                return Decision(
                    StopReason.FORBIDDEN_CATEGORY,
                    detector="agent_allowlist",
                    reason=f"agent {who} may not access category {cat}",
                )
        return Decision(StopReason.SUCCESS_STORED, detector=None, reason="allowed")
