"""LoCoMo retrieval benchmark: turn-level evidence recall in three write modes.

Each conversation is written in each mode of :mod:`memvault.benchmarks.modes`
(``turns``: raw turns with benchmark-built index text; ``add``: the public
``add`` as a production caller writes; ``capture``: ``capture_message``) and
every category 1–4 question is a query; metrics follow
``shared/data/README.md``. A question's evidence turn counts as recalled when
one of the top-k memories came from that turn.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from memvault.benchmarks.modes import (
    DEFAULT_MODE,
    BenchTurn,
    day_after,
    turns_at,
)
from memvault.benchmarks.runner import (
    Query,
    Skipped,
    Unit,
    aggregate,
    run_units,
    summary,
)
from memvault.benchmarks.runner import report as runner_report
from memvault.embed.base import Embedder
from memvault.retrieval.config import PRESETS, RetrievalConfig

__all__ = [
    "Conversation",
    "bench_turns",
    "load_conversation",
    "normalise_evidence",
    "parse_locomo_date",
    "run_locomo",
]

NOTE = (
    "Three write modes (see mode_notes): 'results' is the 'add' mode, what a production "
    "caller's store holds; 'turns' is a retrieval-machinery figure over raw turns with "
    "benchmark-built index text and the gate off (LoCoMo deliberately contains sensitive "
    "topics, so the gate refuses some turns in 'add' and 'capture')."
)
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*0*(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    caption: str
    date: str


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    name: str
    sha256: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def normalise_evidence(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """Split ``;``-joined ids, drop stray colons and leading zeros, keep known ids.

    >>> normalise_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D99:1"],
    ...                    {"D8:6", "D9:17", "D11:26", "D30:5"})
    ('D8:6', 'D9:17', 'D11:26', 'D30:5')
    """
    out: list[str] = []
    for item in raw:
        for part in str(item).split(";"):
            m = _EVIDENCE.search(part)
            if m:
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                if dia in known and dia not in out:
                    out.append(dia)
    return tuple(out)


def load_conversation(path: Path) -> Conversation:
    raw_bytes = path.read_bytes()
    data = json.loads(raw_bytes)
    conv = data.get("conversation", data)
    turns: list[Turn] = []
    session_keys = sorted(
        (int(m.group(1)), k)
        for k in conv
        if (m := re.fullmatch(r"session_(\d+)", k)) and isinstance(conv[k], list)
    )
    for number, key in session_keys:
        date = str(conv.get(f"{key}_date_time", ""))
        for t in conv[key]:
            turns.append(
                Turn(
                    dia_id=str(t["dia_id"]),
                    session=number,
                    speaker=str(t.get("speaker", "")),
                    text=str(t.get("text", "")),
                    caption=str(t.get("blip_caption", "") or ""),
                    date=date,
                )
            )
    known = {t.dia_id for t in turns}
    questions = []
    for qa in data.get("qa", []):
        category = int(qa.get("category", 0))
        if category not in (1, 2, 3, 4):
            continue
        evidence = normalise_evidence(qa.get("evidence", []), known)
        if evidence:
            questions.append(Question(str(qa["question"]), category, evidence))
    name = str(data.get("sample_id") or path.stem)
    return Conversation(name, hashlib.sha256(raw_bytes).hexdigest(), tuple(turns), tuple(questions))


def parse_locomo_date(text: str) -> datetime | None:
    """LoCoMo's session time ("1:56 pm on 8 May, 2023") as an aware UTC datetime.

    >>> parse_locomo_date("1:56 pm on 8 May, 2023").isoformat()
    '2023-05-08T13:56:00+00:00'
    >>> parse_locomo_date("sometime") is None
    True
    """
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def bench_turns(conv: Conversation) -> list[BenchTurn]:
    """The conversation's turns as the modes write them (dates parsed, neighbours for ``turns``)."""
    out: list[BenchTurn] = []
    fallback = datetime(2023, 1, 1, tzinfo=UTC)
    turns = conv.turns
    for i, t in enumerate(turns):
        at = parse_locomo_date(t.date) or fallback
        fallback = at
        neighbours = [
            f"{u.speaker}: {u.text}"
            for u in (*turns[max(0, i - 2) : i], *turns[i + 1 : i + 3])
            if u.session == t.session
        ]
        out.append(
            BenchTurn(
                ref=t.dia_id,
                speaker=t.speaker,
                text=t.text,
                at=at,
                conversation=conv.name,
                context=" ".join(neighbours),
                caption=t.caption,
            )
        )
    return out


def _score(ranked: list[list[str]], q: Question, ks: Sequence[int]) -> dict[str, float]:
    relevant = set(q.evidence)
    sessions = {_session(e) for e in relevant}
    out: dict[str, float] = {}
    for k in ks:
        out[f"recall@{k}"] = len(turns_at(ranked, k) & relevant) / len(relevant)
    for k in (5, 10):
        top = turns_at(ranked, k)
        out[f"any@{k}"] = 1.0 if top & relevant else 0.0
        out[f"session_recall@{k}"] = len(sessions & {_session(r) for r in top}) / len(sessions)
    return out


def _session(dia_id: str) -> int:
    return int(dia_id.split(":")[0][1:])


def _units(conversations: Sequence[Conversation], ks: Sequence[int]) -> list[Unit]:
    """Each conversation as the runner's unit: its turns and its questions' scorers."""
    units: list[Unit] = []
    for conv in conversations:
        turns = bench_turns(conv)
        units.append(
            Unit(
                name=conv.name,
                label={"conversation": conv.name},
                turns=turns,
                data_hash=conv.sha256,
                search_at=day_after(t.at for t in turns),
                evidence=[e for q in conv.questions for e in q.evidence],
                queries=[
                    Query(q.question, partial(_score, q=q, ks=ks), str(q.category))
                    for q in conv.questions
                ],
            )
        )
    return units


def run_locomo(
    data_dir: Path,
    *,
    methods: Sequence[str] = ("default", "text", "vector"),
    modes: Sequence[str] = (DEFAULT_MODE,),
    ks: Sequence[int] = (1, 5, 10, 20),
    cache: Path,
    embedder: Embedder | None,
    configs: dict[str, RetrievalConfig] | None = None,
) -> dict[str, Any]:
    """Run the benchmark over every ``*.json`` conversation in ``data_dir``, per mode.

    A conversation file that cannot be read, a turn that cannot be written
    and a search that fails are recorded in ``failures`` and the run goes on.
    """
    files = sorted(data_dir.glob("*.json")) if data_dir.is_dir() else [data_dir]
    if not files:
        raise FileNotFoundError(f"no LoCoMo *.json files in {data_dir}")
    ks = sorted(set(ks) | {1, 5, 10, 20})
    unreadable: list[Skipped] = []
    conversations: list[Conversation] = []
    for f in files:
        try:
            conversations.append(load_conversation(f))
        except Exception as exc:  # one bad file never stops the run
            detail = f"{type(exc).__name__}: {exc}"[:300]
            unreadable.append(Skipped({"file": f.name, "detail": detail}, queries=0))
    got = run_units(
        [*unreadable, *_units(conversations, ks)],
        benchmark="locomo",
        total=sum(len(c.questions) for c in conversations),
        methods=methods,
        modes=modes,
        configs={**PRESETS, **(configs or {})},
        cache=cache,
        embedder=embedder,
        top_k=max(ks),
        failures_kept=20,
    )
    out = summary(
        got, benchmark="locomo", note=NOTE, methods=methods, modes=modes, embedder=embedder
    )
    by_category = {
        mode: {
            m: {c: _without_latency(aggregate(rows, [])) for c, rows in sorted(cats.items())}
            for m, cats in got.groups[mode].items()
        }
        for mode in modes
    }
    out["conversations"] = [c.name for c in conversations]
    out["by_category"] = by_category[out["default_mode"]]
    out["by_category_modes"] = by_category
    return out


def _without_latency(agg: dict[str, Any]) -> dict[str, Any]:
    agg.pop("p50_ms", None)
    agg.pop("p95_ms", None)
    return agg


def report(result: dict[str, Any], json_out: Path, plot: bool = True) -> None:
    """Print the table, write JSON and (if matplotlib is present) a PNG plot."""
    runner_report(
        result,
        json_out,
        title="LoCoMo turn-level evidence recall (categories 1–4)",
        columns=[
            "recall@1",
            "recall@5",
            "recall@10",
            "recall@20",
            "any@10",
            "session_recall@10",
            "n_questions",
            "p50_ms",
            "p95_ms",
        ],
        plot_keys=["recall@1", "recall@5", "recall@10", "recall@20"],
        plot=plot,
    )
