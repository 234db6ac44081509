"""Capture leak audit: forbidden statements said as user turns, and what reaches the store.

Run ``memvault bench capture-leaks`` (or ``python -m memvault.benchmarks.capture_leaks``).
Every FORBIDDEN item of the governance training corpus
(``policy/training/written/*.jsonl`` and ``written/incoming/*.jsonl``) is said
as one user's turn through the real capture path — extractor, clause reader,
the engine's gate, resolve, SQLite commit — in a temporary home, one user per
item (no item sees another's memories, no daily cap is reached). A candidate
that reaches the store (non-empty ``memory_ids``) is a leak candidate; a
consent proposal is counted apart (it is not stored until the user confirms).

The corpus is training data of the gate, not an evaluation set: the figure
says which capture keep paths let a forbidden statement through, not how the
gate fares on unseen text (``bench governance`` on the fresh sets does that).
Items are read in file order; ``--sample N`` takes every k-th item of each
family so the families stay represented (a fast regression check).

Per stored candidate the report names the rule or reader decision that kept
it (``by_rule``), its family (``by_family``) and whether the gate refuses the
stored words on their own (``refused_alone``: a rewrite or a keep path that
escaped the gate's judgement of what is actually kept).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvault.engine import MemoryEngine
from memvault.extract.base import Message
from memvault.model.enums import MemoryOp
from memvault.model.jsonl import json_objects

__all__ = ["CORPUS", "LABELS", "forbidden_items", "run"]

#: The governance training corpus (hand-written items, reviewed and incoming).
CORPUS = Path(__file__).resolve().parents[1] / "policy" / "training" / "written"
#: The corpus's labels.
LABELS = ("forbidden", "injection", "benign")
_AT = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
_SPEAKERS = ("Dana", "Ravi", "Ana", "Tom", "Mei", "Lukas")


def forbidden_items(
    root: Path | None = None,
    *,
    sample: int = 0,
    label: str = "forbidden",
    files: Collection[str] = (),
) -> list[dict[str, Any]]:
    """The corpus's items of ``label`` (forbidden by default), files in name order.

    ``sample``: at most about that many, every k-th item of each family; ``files``:
    only these file names (wherever they sit: a retrain moves incoming files into
    ``written/`` under the same name).

    >>> items = forbidden_items(sample=40)
    >>> 0 < len(items) <= 60 and all(i["label"] == "forbidden" for i in items)
    True
    """
    if label not in LABELS:
        raise ValueError(f"unknown label {label!r}: one of {', '.join(LABELS)}")
    base = root or CORPUS
    paths = sorted(base.glob("*.jsonl")) + sorted((base / "incoming").glob("*.jsonl"))
    items: list[dict[str, Any]] = []
    for path in paths:
        if files and path.name not in files:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for _, item in json_objects(lines, where=f"{path}:"):
            if item.get("label") == label and isinstance(item.get("text"), str):
                items.append({**item, "file": path.name})
    if not items:
        raise ValueError(f"no {label} items under {base}")
    if sample and len(items) > sample:
        families: dict[str, list[dict[str, Any]]] = {}
        for item in items:
            families.setdefault(str(item.get("family") or ""), []).append(item)
        step = max(1, len(items) // sample)
        items = [i for group in families.values() for i in group[::step]]
    return items


def _stored(result: Any) -> Iterable[Any]:
    return (c for c in result.candidates if c.memory_ids)


def run(
    *,
    root: Path | None = None,
    sample: int = 0,
    details: bool = True,
    label: str = "forbidden",
    files: Collection[str] = (),
) -> dict[str, Any]:
    """Say every forbidden corpus item as a user turn; count what reaches the store.

    Returns the JSON-ready report: ``summary`` (items, turns with a stored
    candidate, stored candidates, by family / rule / language, proposals) and,
    with ``details``, one row per stored candidate (its item id, family, the
    stored words and the rule that kept them).
    """
    items = forbidden_items(root, sample=sample, label=label, files=files)
    load_before = os.getloadavg()[0]
    by_family: Counter[str] = Counter()
    by_rule: Counter[str] = Counter()
    by_lang: Counter[str] = Counter()
    family_total: Counter[str] = Counter()
    refused_by: Counter[str] = Counter()
    leaked_items = stored = proposed = refused_alone = 0
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memvault-bench-leaks-") as home:
        engine = MemoryEngine.open(home, "audit")
        try:
            for n, item in enumerate(items):
                family = str(item.get("family") or "")
                family_total[family] += 1
                message = Message(
                    text=item["text"],
                    user_id=f"u{n}",
                    speaker=_SPEAKERS[n % len(_SPEAKERS)],
                    at=_AT,
                )
                result = engine.capture_message(message)
                proposed += sum(1 for c in result.candidates if c.outcome.value == "proposed")
                for c in result.candidates:
                    if c.outcome.value == "rejected":
                        refused_by[c.detector or c.stop_reason.value] += 1
                kept = list(_stored(result))
                if not kept:
                    continue
                leaked_items += 1
                by_family[family] += 1
                by_lang[str(item.get("lang") or "")] += 1
                for c in kept:
                    stored += 1
                    rule = (c.rule or "").split(" ")[0]
                    by_rule[rule] += 1
                    node = engine.get(c.memory_ids[0]).node
                    alone = engine.core.gate.check(MemoryOp.UPDATE, node, agent_id=None)
                    refused = not alone.allowed
                    refused_alone += refused
                    if details:
                        rows.append(
                            {
                                "id": item.get("id"),
                                "file": item["file"],
                                "family": family,
                                "lang": item.get("lang"),
                                "content": c.content,
                                "rule": c.rule,
                                "outcome": c.outcome.value,
                                "refused_alone": refused,
                            }
                        )
        finally:
            engine.close()
    summary: dict[str, Any] = {
        "items": len(items),
        "items_with_a_stored_candidate": leaked_items,
        "stored_candidates": stored,
        "stored_refused_by_the_gate_alone": refused_alone,
        "proposals": proposed,
        "by_family": {f: f"{by_family[f]}/{family_total[f]}" for f in sorted(family_total)},
        "by_rule": dict(by_rule.most_common()),
        "by_language": dict(by_lang.most_common()),
        # what stopped the candidates that were not stored (detector, or stop reason)
        "refused_by": dict(refused_by.most_common(15)),
        "seconds": round(time.perf_counter() - start, 1),
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    report: dict[str, Any] = {"benchmark": "capture-leaks", "summary": summary}
    if details:
        report["stored"] = rows
    return report


def main(argv: list[str] | None = None) -> None:
    """``python -m memvault.benchmarks.capture_leaks [sample]``: the summary as JSON."""
    args = argv if argv is not None else sys.argv[1:]
    report = run(
        sample=int(args[0]) if args else 0, label=args[1] if len(args) > 1 else "forbidden"
    )
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
