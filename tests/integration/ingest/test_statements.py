"""Documents are kept whole, one statement per memory, through the real policy gate.

Regression: once the writing-constraints validator ran on every write kind, a
document paragraph of three or more sentences was refused as SCHEMA_INVALID
and files of such paragraphs were rejected whole (ALL_CANDIDATES_REFUSED).
"""

from __future__ import annotations

import re
from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.model.enums import MemoryType
from memvault.policy.write_gate import PolicyGate

OPS = """Our billing service runs on PostgreSQL 16. It is deployed to eu-west-1 every Tuesday.
The on-call rotation changes weekly. Alerts page the primary through PagerDuty.

Maria's credit card number is 4111 1111 1111 1111. Payments are retried three times. \
Refunds take five days.
"""

GUIDE = """---
title: Release guide
---
# Release

Releases are cut from main. Every release gets a signed tag. The changelog is generated \
from merged pull requests.

- Bump the version in pyproject.toml.
- Run the full test suite.
- Push the tag to origin.

```sh
# Build it. Test it. Ship it.
make release VERSION=2.4.1
```

## Nach dem Release

Die Pakete liegen danach auf PyPI. Die Dokumentation wird automatisch gebaut. \
Fehler melden wir im Tracker.

## 日本語

リリースは毎月です。タグは署名されます。変更履歴は自動で作られます。
"""


def _ingest(tmp_path: Path, name: str, body: str) -> tuple[MemoryEngine, dict]:
    engine = MemoryEngine.open(tmp_path, "acme", gate=PolicyGate(), embedder="hashing")
    assert engine.layout is not None
    (engine.layout.ingest_dir / name).write_text(body, encoding="utf-8")
    report = engine.ingest_pending(settle_seconds=0)
    assert report.rejected == []
    (outcome,) = report.processed
    return engine, outcome.to_json()


def test_a_forbidden_sentence_is_refused_alone_and_its_paragraph_kept(tmp_path: Path) -> None:
    engine, data = _ingest(tmp_path, "ops.txt", OPS)
    with engine:
        contents = sorted(n.content for n in engine.list_memories())
        sentences = [s for s in re.split(r"(?<=\.)\s+", OPS.strip()) if "4111" not in s]
        assert contents == sorted(sentences)  # every other sentence, verbatim
        assert [(r["chunk_id"], r["stop_reason"]) for r in data["refused"]] == [
            ("p0002.1", "FORBIDDEN_CATEGORY")
        ]
        assert data["refused"][0]["line"] == 4


def test_markdown_with_lists_code_and_other_languages_is_kept_whole(tmp_path: Path) -> None:
    engine, data = _ingest(tmp_path, "guide.md", GUIDE)
    with engine:
        assert data["refused"] == []
        nodes = engine.list_memories()
        contents = {n.content for n in nodes}
        assert "Every release gets a signed tag." in contents
        assert "- Run the full test suite." in contents
        assert "Fehler melden wir im Tracker." in contents
        assert "リリースは毎月です。" in contents
        (code,) = [n for n in nodes if n.content.startswith("```")]
        assert code.type is MemoryType.PROCEDURE and "VERSION=2.4.1" in code.content
        assert len(nodes) == 3 + 3 + 1 + 3 + 3
        # nothing dropped: the memories hold every non-space character of the body
        body = GUIDE.split("---\n", 2)[2]
        for heading in ("# Release\n", "## Nach dem Release\n", "## 日本語\n"):
            body = body.replace(heading, "")  # headings are structure (the value)
        assert sorted(re.sub(r"\s", "", "".join(contents))) == sorted(re.sub(r"\s", "", body))
