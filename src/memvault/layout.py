"""Where an orchestrator's memory lives on disk, and its JSON-lines log.

Per orchestrator (memory-subsystem spec, "Runtime Filesystem Layout")::

    <home>/<orchestrator>/memory/
        memory.db
        ingest/  ingest/processed/  ingest/rejected/
        bulletins/
        logs/memory.log

``home`` is the explicit argument, else the per-user data directory
(``platformdirs.user_data_dir("memvault")``). ``$MEMVAULT_HOME`` is read by the
entry points (:func:`memvault.config.default_home`), never here.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.errors import ConfigError
from memvault.model.validation import NameRule

__all__ = ["JsonLineLog", "RuntimeLayout", "default_home", "validate_orchestrator"]

#: An orchestrator name is a safe single path component (≤ 64 chars):
#: ``validate_orchestrator("acme-prod")`` is ``'acme-prod'``.
validate_orchestrator = NameRule(
    re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$"),
    lambda name: ConfigError(
        f"invalid orchestrator name {name!r}",
        hint="use 1-64 letters, digits, '-' or '_', starting with a letter or digit",
    ),
)


def default_home() -> Path:
    """The per-user data directory (no environment is read here)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("memvault", appauthor=False))


@dataclass(frozen=True)
class RuntimeLayout:
    """The paths of one orchestrator's memory runtime."""

    home: Path
    orchestrator: str

    @classmethod
    def for_orchestrator(cls, home: str | Path | None, orchestrator: str) -> RuntimeLayout:
        base = Path(home).expanduser() if home is not None else default_home()
        return cls(base.resolve(), validate_orchestrator(orchestrator))

    @property
    def root(self) -> Path:
        """The orchestrator's workspace root: ``<home>/<orchestrator>``."""
        return self.home / self.orchestrator

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def db_path(self) -> Path:
        return self.memory_dir / "memory.db"

    @property
    def anchor_path(self) -> Path:
        """The store's identity and audit anchor (:mod:`memvault.store.anchor`)."""
        return self.memory_dir / "memory.anchor.json"

    def exists(self) -> bool:
        """True when this orchestrator has (or had) a store here: a database or an anchor."""
        return self.db_path.is_file() or self.anchor_path.is_file()

    def known_orchestrators(self) -> list[str]:
        """The orchestrators under the same home that have (or had) a store, sorted.

        >>> import tempfile
        >>> RuntimeLayout.for_orchestrator(tempfile.mkdtemp(), "acme").known_orchestrators()
        []
        """
        try:
            children = sorted(p.name for p in self.home.iterdir() if p.is_dir())
        except OSError:
            return []
        found = []
        for name in children:
            named = validate_orchestrator.pattern.match(name)
            if named and RuntimeLayout(self.home, name).exists():
                found.append(name)
        return found

    @property
    def ingest_dir(self) -> Path:
        return self.memory_dir / "ingest"

    @property
    def processed_dir(self) -> Path:
        return self.ingest_dir / "processed"

    @property
    def rejected_dir(self) -> Path:
        return self.ingest_dir / "rejected"

    @property
    def bulletins_dir(self) -> Path:
        return self.memory_dir / "bulletins"

    @property
    def log_path(self) -> Path:
        return self.memory_dir / "logs" / "memory.log"

    def ensure(self) -> RuntimeLayout:
        """Create every directory of the layout (idempotent)."""
        try:
            for d in (self.processed_dir, self.rejected_dir, self.bulletins_dir):
                d.mkdir(parents=True, exist_ok=True)
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create memory runtime under {self.root}: {exc}") from exc
        return self


class JsonLineLog:
    """Appends one JSON object per line to ``logs/memory.log``.

    Logging must never break a memory operation, so an I/O error here is
    swallowed after one attempt (and reported through ``last_error``).
    """

    def __init__(self, path: Path, orchestrator: str) -> None:
        self.path = path
        self.orchestrator = orchestrator
        self._lock = threading.Lock()
        self.last_error: str | None = None

    def write(self, at: str, level: str, event: str, **fields: Any) -> None:
        record = {"at": at, "level": level, "orchestrator": self.orchestrator, "event": event}
        record.update(fields)
        line = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
            except OSError as exc:
                self.last_error = str(exc)

    def read(self) -> list[dict[str, Any]]:
        """Every record in the log (for tests and ``memvault`` diagnostics)."""
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]
