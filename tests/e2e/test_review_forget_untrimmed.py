"""Review of d68832f (user ids trimmed): a memory stored before it under 'dana ' (the
library, HTTP and MCP took it untrimmed until then) can no longer be erased or exported:
`forget --user "dana "` trims to 'dana', purges 0 and reports remaining 0 (done)."""

from __future__ import annotations

import json
from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.store import WriteSet
from tests.e2e.test_cli import cli
from tests.helpers import make_node, ts


def test_forget_reaches_memories_stored_under_an_untrimmed_id(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        store = engine.core.store
        store.apply(WriteSet("acme", ts(1), nodes=(make_node(user_id="dana "),)))
        # reads trim 'dana ' to dana (d68832f), so only the store still sees the padded row
        assert [n.user_id for n in store.list_nodes("acme", engine_filter_all(), limit=10)] == [
            "dana "
        ]
        # export for " dana" (trimmed to dana) reaches the padded row
        exported = [r for r in engine.export_user(" dana") if r.get("record") == "memory"]
        assert len(exported) == 1, exported
    code, out, err = cli(tmp_path, "forget", "--user", "dana ", "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["memories_purged"] == 1, out
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        left = [n for n in engine.core.store.list_nodes("acme", engine_filter_all(), limit=10)]
        assert left == [], [repr(n.user_id) for n in left]


def engine_filter_all():  # every status
    from memvault.model.enums import MemoryStatus
    from memvault.store import NodeFilter

    return NodeFilter(status=tuple(MemoryStatus))
