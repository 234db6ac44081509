"""Cold start: ``import memvault`` and the embedder path stay free of the engine.

Not timed (timings belong to ``memvault bench perf``); what is checked is
the cause of the slow start — which modules a fresh interpreter imports.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("memvault.engine", "memvault.policy", "memvault.context", "memvault.ingest", "asyncio")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_memvault_is_lazy() -> None:
    loaded = _modules_after("import memvault")
    assert not [m for m in loaded if m.startswith(HEAVY)], sorted(loaded)


def test_embedder_path_does_not_load_the_engine() -> None:
    loaded = _modules_after("import memvault\nfrom memvault.embed import make_embedder")
    assert "memvault.embed.minilm" in loaded
    assert not [m for m in loaded if m.startswith(HEAVY)]


def test_public_names_resolve_on_first_access() -> None:
    loaded = _modules_after("import memvault\nassert memvault.MemoryEngine.__name__")
    assert "memvault.engine" in loaded
