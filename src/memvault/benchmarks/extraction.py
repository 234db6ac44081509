"""Extraction benchmark: candidate precision/recall, update/contradiction detection,
sensitive-content refusal and capture latency, on labelled user turns.

Run ``memvault bench extraction`` (or ``python -m memvault.benchmarks.extraction``). Every
turn of ``bench/data/extraction.jsonl`` goes through the real capture path —
rule extractor, the engine's gate, resolve, SQLite commit — in a temporary
home, users in file order (a user's turns build on each other). Labels:

- ``expect``: the memories the turn should produce, each a type and keywords
  that must all appear in the statement (case-insensitive);
- ``outcome``: what should happen to the turn — ``stored``, ``merged``,
  ``updated``, ``contradiction``, ``related``, ``rejected`` (sensitive: the
  gate must refuse it and nothing may be stored) or ``none`` (chit-chat).

Optional fields (``bench/data/extraction_fresh.jsonl`` has them): ``sensitive``
(words that must never appear in a memory stored from the turn), ``verbatim``
(tokens that must appear byte-identical in one of them) and ``kind`` (what the
turn is; questions, chit-chat and one-offs must leave no candidate).

Metrics: candidate precision (extracted candidates matching an expected
memory, refused ones included), written precision (the same over what was
actually written) and recall (expected memories matched), outcome accuracy per label,
update/contradiction detection accuracy and their false-positive counts,
sensitive refusal rate, sensitive words leaked into stored memories,
identifier fidelity, silence per kind, and capture latency p50/p95 over ``repeat`` full
passes (each in a fresh home; the first pass also warms the model up).
Consent proposals a turn creates ("call me Ana", "I live in Porto") are
confirmed right after it, as the user would, and count as stored memories.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from memvault.benchmarks.common import turn_message
from memvault.engine import MemoryEngine
from memvault.model.jsonl import json_objects
from memvault.write import (
    CaptureResult,
    EmbeddingSimilarity,
    LexicalSimilarity,
    Outcome,
    Similarity,
)

__all__ = ["DATA", "load", "run"]

#: the bundled labelled sets live in the source checkout's ``bench/data/``.
DATA = Path(__file__).resolve().parents[3] / "bench" / "data" / "extraction.jsonl"
_TRACKED = ("updated", "contradiction", "merged", "related")
#: Turn kinds (optional ``kind`` field) that must leave nothing behind.
_SILENT_KINDS = frozenset({"question", "chitchat", "one_off"})


_FIELDS = ("id", "user", "speaker", "text", "at", "expect", "outcome")


def load(path: Path | None = None) -> list[dict[str, Any]]:
    """The labelled turns, in order; ``ValueError`` names the first bad line."""
    source = path or DATA
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read {source}: {exc.strerror or exc}") from None
    turns: list[dict[str, Any]] = []
    for number, turn in json_objects(lines, where=f"{source}:"):
        missing = [f for f in _FIELDS if f not in turn]
        if missing:
            raise ValueError(f"{source}:{number}: missing {', '.join(missing)}")
        turns.append(turn)
    if not turns:
        raise ValueError(f"{source}: no labelled turns")
    return turns


def _similarity(name: str) -> Similarity:
    if name == "lexical":
        return LexicalSimilarity()
    from memvault.embed import make_embedder

    if name == "hashing":
        return EmbeddingSimilarity(make_embedder("hashing", dimension=512))
    return EmbeddingSimilarity(make_embedder(name))


def _matches(content: str, type_: str, expected: dict[str, Any]) -> bool:
    text = content.lower()
    return type_ == expected["type"] and all(k in text for k in expected["keywords"])


def _unmatched_source(turn: dict[str, Any], cand: Any, cands: list[Any]) -> str:
    """Why ``cand`` matches no expected memory of ``turn``, as one aggregate key.

    ``silent <kind>``: the turn should leave nothing; ``refused``: the gate
    refused it; ``wrong type``: it holds an expected memory's keywords but its
    type differs; ``duplicate``: another candidate of the turn already matches
    the memory whose keywords it holds in part; ``extra``: anything else said
    in a turn that expects memories (over-splitting, context kept).
    """
    kind = str(turn.get("kind") or "")
    if kind in _SILENT_KINDS or (not turn["expect"] and turn["outcome"] == "none"):
        return f"silent {kind or 'none'}"
    if cand.outcome.value == "rejected":
        return "refused"
    if not turn["expect"]:
        return f"extra ({turn['outcome']} turn)"
    text = cand.content.lower()
    if any(all(k in text for k in e["keywords"]) for e in turn["expect"]):
        return "wrong type"
    partial = [e for e in turn["expect"] if any(k in text for k in e["keywords"])]
    if partial and any(_matches(o.content, o.type, e) for e in partial for o in cands):
        return "duplicate"
    missed = any(not any(_matches(o.content, o.type, e) for o in cands) for e in turn["expect"])
    return "extra (a memory of the turn missed)" if missed else "extra (all matched)"


def _pass(
    turns: list[dict[str, Any]], similarity: Similarity
) -> tuple[list[Any], list[float], list[float]]:
    results: list[CaptureResult] = []
    latencies: list[float] = []
    cpu: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memvault-bench-extraction-") as home:
        engine = MemoryEngine.open(home, "bench")
        try:
            engine.capture.use_similarity(similarity)
            for turn in turns:
                message = turn_message(turn)
                start, start_cpu = time.perf_counter(), time.process_time()
                result = engine.capture_message(message)
                latencies.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
                results.append(_confirm_proposals(engine, result))
            gate = type(engine.gate).__name__
        finally:
            engine.close()
    return [gate, results], latencies, cpu


def _confirm_proposals(engine: MemoryEngine, result: CaptureResult) -> CaptureResult:
    """The user says yes to every consent proposal of the turn (not timed).

    A confirmed proposal counts as a stored memory ("updated" when it
    supersedes what it changes), as the bundled sets' labels assume the
    statement is kept once the user agrees.
    """
    proposed = [c for c in result.candidates if c.outcome.value == "proposed" and c.proposal_id]
    if not proposed:
        return result
    pending = {p.proposal_id: p for p in engine.proposals(status="pending")}
    confirmed = {}
    for c in proposed:
        proposal = pending.get(c.proposal_id)
        written = engine.confirm_proposal(c.proposal_id)
        if written.ok and written.memory_id:
            replaces = bool(proposal and proposal.candidate.get("replaces"))
            confirmed[c.proposal_id] = replace(
                c,
                outcome=Outcome.UPDATED if replaces else Outcome.STORED,
                memory_ids=(written.memory_id,),
            )
    return replace(
        result,
        candidates=tuple(
            confirmed.get(c.proposal_id, c) if c.proposal_id else c for c in result.candidates
        ),
    )


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _leak_sources(turn: dict[str, Any], result: CaptureResult) -> list[dict[str, str]]:
    """Where each sensitive word that reached the store came from (``--trace``).

    For every stored candidate holding a ``sensitive`` word: the clause decision
    that produced it (rule or reader label) and what the gate said about it.
    """
    clauses = [t["clause"] for t in result.trace if "clause" in t]
    gates = {t["gate"]["content"]: t["gate"] for t in result.trace if "gate" in t}
    out: list[dict[str, str]] = []
    for word in turn.get("sensitive") or ():
        for c in result.candidates:
            if c.outcome.value == "rejected" or word.lower() not in c.content.lower():
                continue
            clause = next((t for t in clauses if t["content"] == c.content), None)
            gate = gates.get(c.content, {})
            out.append(
                {
                    "word": word,
                    "content": c.content,
                    "decision": clause["decision"] if clause else c.rule,
                    "reading": clause["reading"] if clause else "",
                    "said": clause["said"] if clause else "",
                    "gate": gate.get("verdicts", ""),
                    "probe": gate.get("probe", ""),
                }
            )
    return out


def run(
    *,
    data_path: Path | None = None,
    similarity: str = "minilm",
    repeat: int = 3,
    trace: bool = False,
) -> dict[str, Any]:
    """Run the benchmark; return the JSON-ready report (``summary`` + per-turn rows).

    ``trace``: every row also carries the extractor's clause-by-clause decisions
    and the gate's verdict per candidate, and the summary counts where leaked
    sensitive words came from (``leak_sources``).
    """
    turns = load(data_path)
    sim = _similarity(similarity)
    # The first pass is the one scored; with repeat > 1 it is also the warm-up,
    # and latency comes from the later passes only.
    load_before = os.getloadavg()[0]
    (gate, results), latencies, cpu = _pass(turns, sim)
    passes = (
        [(latencies, cpu)] if repeat <= 1 else [_pass(turns, sim)[1:] for _ in range(repeat - 1)]
    )
    timed = [wall for wall, _ in passes]
    all_latencies = [lat for one in timed for lat in one]
    all_cpu = [c for _, one in passes for c in one]
    busy = [lat for one in timed for lat, r in zip(one, results, strict=True) if r.candidates]

    produced = matched_candidates = expected_total = matched_expected = 0
    written_total = written_matched = 0
    outcome_hits: Counter[str] = Counter()
    outcome_total: Counter[str] = Counter()
    false_positive: Counter[str] = Counter()
    sensitive_words = sensitive_leaks = verbatim_total = verbatim_kept = 0
    leaked_turns: set[str] = set()
    silent_total: Counter[str] = Counter()
    kind_total: Counter[str] = Counter()
    kind_hits: Counter[str] = Counter()
    missed_as: Counter[str] = Counter()
    silent_hits: Counter[str] = Counter()
    leak_sources: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    unmatched: Counter[str] = Counter()
    for turn, result in zip(turns, results, strict=True):
        cands = [c for c in result.candidates if c.type]  # dropped ones have no type
        produced += len(cands)
        for c in cands:
            hit = any(_matches(c.content, c.type, e) for e in turn["expect"])
            matched_candidates += hit
            if c.outcome.value != "rejected":
                written_total += 1
                written_matched += hit
            if not hit:
                unmatched[_unmatched_source(turn, c, cands)] += 1
        expected_total += len(turn["expect"])
        kind = str(turn.get("kind") or "")
        for e in turn["expect"]:
            hit = any(_matches(c.content, c.type, e) for c in cands)
            matched_expected += hit
            if kind:
                kind_total[kind] += 1
                kind_hits[kind] += hit
            if not hit:
                # Aggregate reasons a memory was missed (no turn text is reported).
                words = [c for c in cands if all(k in c.content.lower() for k in e["keywords"])]
                if words:
                    missed_as[f"{e['type']}->{words[0].type}"] += 1
                elif cands:
                    missed_as[f"{e['type']}->other wording"] += 1
                else:
                    missed_as[f"{e['type']}->nothing extracted"] += 1
        outcomes = {c.outcome.value for c in result.candidates}
        written = outcomes - {"rejected"}
        label = turn["outcome"]
        outcome_total[label] += 1
        if label == "none":
            ok = not result.candidates
        elif label == "rejected":
            ok = not written
        elif label == "stored":
            ok = "stored" in outcomes or (bool(written) and not written & {"updated", "merged"})
        else:
            ok = label in outcomes
        outcome_hits[label] += ok
        stored_text = [c.content for c in cands if c.outcome.value != "rejected"]
        for word in turn.get("sensitive") or ():
            sensitive_words += 1
            leaked = [t for t in stored_text if word.lower() in t.lower()]
            sensitive_leaks += bool(leaked)
            if leaked:
                leaked_turns.add(turn["id"])
        for token in turn.get("verbatim") or ():
            verbatim_total += 1
            verbatim_kept += any(token in t for t in stored_text)
        if turn.get("kind") in _SILENT_KINDS:
            silent_total[turn["kind"]] += 1
            silent_hits[turn["kind"]] += not result.candidates
        for tracked in _TRACKED:
            if tracked in outcomes and label != tracked:
                false_positive[tracked] += 1
        row: dict[str, Any] = {
            "id": turn["id"],
            "text": turn["text"],
            "label": label,
            "ok": ok,
            "candidates": [c.to_json() for c in result.candidates],
        }
        if trace:
            row["trace"] = list(result.trace)
            row["leaks"] = _leak_sources(turn, result)
            for leak in row["leaks"]:
                leak_sources[leak["decision"].split(" ")[0]] += 1
        rows.append(row)

    def rate(hit: float, total: float) -> float:
        return round(hit / total, 3) if total else 0.0

    summary: dict[str, Any] = {
        "candidate_precision": rate(matched_candidates, produced),
        "candidate_recall": rate(matched_expected, expected_total),
        "written_precision": rate(written_matched, written_total),
        "update_accuracy": rate(outcome_hits["updated"], outcome_total["updated"]),
        "contradiction_accuracy": rate(
            outcome_hits["contradiction"], outcome_total["contradiction"]
        ),
        "merge_accuracy": rate(outcome_hits["merged"], outcome_total["merged"]),
        "related_accuracy": rate(outcome_hits["related"], outcome_total["related"]),
        "chitchat_silence": rate(outcome_hits["none"], outcome_total["none"]),
        "sensitive_refusal": rate(outcome_hits["rejected"], outcome_total["rejected"]),
        # Optional per-turn fields (bench/data/FRESH.md): `sensitive` words must never
        # reach a stored memory; `verbatim` tokens must appear byte-identical in one.
        "sensitive_words": sensitive_words,
        "sensitive_leaks": sensitive_leaks,
        "sensitive_leak_turns": len(leaked_turns),
        "identifier_tokens": verbatim_total,
        "identifier_fidelity": rate(verbatim_kept, verbatim_total),
        "silence_by_kind": {k: rate(silent_hits[k], silent_total[k]) for k in sorted(silent_total)},
        "recall_by_kind": {k: rate(kind_hits[k], kind_total[k]) for k in sorted(kind_total)},
        "missed_as": dict(missed_as.most_common()),
        # Where the candidates matching no expected memory come from (precision's loss).
        "unmatched_by_source": dict(unmatched.most_common()),
        "question_chitchat_silence": rate(
            silent_hits["question"] + silent_hits["chitchat"],
            silent_total["question"] + silent_total["chitchat"],
        ),
        "false_updates": false_positive["updated"],
        "false_contradictions": false_positive["contradiction"],
        "latency_p50_ms": round(_pct(all_latencies, 0.5), 2),
        "latency_p95_ms": round(_pct(all_latencies, 0.95), 2),
        "latency_p50_ms_turns_with_candidates": round(_pct(busy or [0.0], 0.5), 2),
        "latency_p95_ms_turns_with_candidates": round(_pct(busy or [0.0], 0.95), 2),
        # CPU time of this process per turn: less disturbed than wall time when
        # other jobs share the cores (the load average says how much they did).
        "cpu_p50_ms": round(_pct(all_cpu, 0.5), 2),
        "cpu_p95_ms": round(_pct(all_cpu, 0.95), 2),
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    if trace:
        summary["leak_sources"] = dict(leak_sources.most_common())
    return {
        "benchmark": "extraction",
        "turns": len(turns),
        "similarity": sim.model_id,
        "gate": gate,
        "repeat": repeat,
        "cpu_count": os.cpu_count(),
        "labels": dict(outcome_total),
        "summary": summary,
        "turns_detail": rows,
        "note": "end to end through capture and the engine's gate (DESIGN §9)",
    }


def main(argv: list[str] | None = None) -> None:
    """``python -m memvault.benchmarks.extraction [similarity] [repeat]``: the summary as JSON."""
    args = argv if argv is not None else sys.argv[1:]
    report = run(
        similarity=args[0] if args else "minilm", repeat=int(args[1]) if len(args) > 1 else 3
    )
    print(json.dumps(report["summary"], indent=2))


if __name__ == "__main__":
    main()
