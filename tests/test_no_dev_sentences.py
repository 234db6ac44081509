"""Test sentences are our own: none lies within a small edit distance of a dev item.

The governance dev set (``../shared/data/governance/dev.jsonl``) evaluates; a
test that stores one of its sentences (or a near copy) tunes the product on it
without saying so. These files once held near copies and were rewritten; this
keeps them clean. Only file and line are reported — never the dev text.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / ".." / "shared" / "data" / "governance" / "dev.jsonl"
CHECKED = (
    "tests/integration/api/conftest.py",
    "tests/integration/api/test_langgraph_store.py",
    "tests/integration/api/test_context_routes.py",
    "tests/integration/mcp/test_stdio.py",
    "tests/e2e/api/test_serve.py",
)


def _norm(text: str) -> str:
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def _within(a: str, b: str, cap: int) -> bool:
    """Levenshtein distance of ``a`` and ``b`` is at most ``cap`` (rows cut off early).

    >>> _within("add pagination", "add paginations", 1), _within("tea", "coffee", 2)
    (True, False)
    """
    if abs(len(a) - len(b)) > cap:
        return False
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > cap:
            return False
        previous = current
    return previous[-1] <= cap


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, _norm(node.value))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 12
    ]


def test_no_test_sentence_is_near_a_dev_item() -> None:
    if not DEV.is_file():
        pytest.skip("../shared/data is not present")
    dev = [
        _norm(json.loads(line)["text"])
        for line in DEV.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    near = [
        f"{name}:{line}"
        for name in CHECKED
        for line, text in _literals(ROOT / name)
        for item in dev
        if _within(text, item, max(3, len(item) // 4))
        or (len(item) >= 15 and len(text) >= 15 and (item in text or text in item))
    ]
    assert not near, f"test sentences near a dev item (rewrite them): {sorted(set(near))}"
