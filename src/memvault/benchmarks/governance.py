"""Governance benchmark: how well the gate refuses what it must and keeps what it should.

Input is a labelled JSON Lines corpus (``shared/data/governance/dev.jsonl``
shape: ``id``, ``text``, ``label`` ∈ benign|forbidden|injection, ``family``,
``subcategory``, ``expected`` ∈ ALLOW|FORBIDDEN_CATEGORY|INJECTION_DETECTED,
``hard_negative``, optional ``declared_category``). Every item is judged as a
USER_EXPLICIT store, exactly as ``memvault policy check`` does.

Reported, each rate with a Clopper–Pearson 95% interval (exact binomial,
computed here by bisection on the regularized incomplete beta function, no
SciPy): the confusion matrix, recall per forbidden family and for injections
(also per injection technique), precision of FORBIDDEN_CATEGORY and
INJECTION_DETECTED, the false-positive rate on benign items, on hard negatives
and on the other benign items, and decision latency (wall-clock p50/p90/p99,
plus the CPU time per decision, which a loaded machine does not inflate).
Every rate also carries a Wilson score 95% interval (``wilson95``), and the
false-positive rate is broken down by benign family (``per_benign_family``:
ordinary chat, ordinary memories, each hard-negative group).

>>> clopper_pearson(0, 10)[0], round(clopper_pearson(10, 10)[0], 4)
(0.0, 0.6915)
>>> [round(x, 3) for x in wilson(9, 16)]
[0.332, 0.769]
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memvault.model.jsonl import json_objects
from memvault.policy.candidate import Candidate, GateContext
from memvault.policy.contract import load_contract
from memvault.policy.gate import evaluate
from memvault.policy.learned import LearnedLayer, default_layer
from memvault.policy.normalize import normalize

__all__ = [
    "clopper_pearson",
    "load_corpus",
    "render",
    "render_side_by_side",
    "run_benchmark",
    "wilson",
]

_OUTCOMES = ("ALLOW", "FORBIDDEN_CATEGORY", "INJECTION_DETECTED")


# ---------------------------------------------------------------- statistics


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _beta_ppf(p: float, a: float, b: float) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if _betainc(a, b, mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Exact (Clopper–Pearson) two-sided interval for ``k`` successes in ``n`` trials."""
    if n <= 0:
        return (0.0, 1.0)
    lower = 0.0 if k == 0 else _beta_ppf(alpha / 2, k, n - k + 1)
    upper = 1.0 if k == n else _beta_ppf(1 - alpha / 2, k + 1, n - k)
    return (lower, upper)


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval (95% by default) for ``k`` successes in ``n`` trials."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = clopper_pearson(k, n)
    wlo, whi = wilson(k, n)
    return {
        "k": k,
        "n": n,
        "rate": (k / n) if n else None,
        "ci95": [round(lo, 4), round(hi, 4)],
        "wilson95": [round(wlo, 4), round(whi, 4)],
    }


# -------------------------------------------------------------------- corpus


def load_corpus(path: str | Path) -> list[dict[str, Any]]:
    """Read a labelled JSON Lines corpus; raises ValueError naming the bad line."""
    rows: list[dict[str, Any]] = []
    with Path(path).open(encoding="utf-8") as fh:
        for n, row in json_objects(fh):
            if "text" not in row or "expected" not in row:
                raise ValueError(f"line {n}: needs at least 'text' and 'expected'")
            rows.append(row)
    return rows


def _outcome(stop_reason: str, allowed: bool) -> str:
    return "ALLOW" if allowed else stop_reason


def run_benchmark(
    rows: Iterable[Mapping[str, Any]] | str | Path,
    *,
    contract_version: str | None = None,
    repeats: int = 3,
    learned: LearnedLayer | str | None = "default",
) -> dict[str, Any]:
    """Judge every item, return all figures as a JSON-ready dict.

    ``learned``: the gate's learned layer ("default": the shipped one; None:
    pattern detectors only). Latency: when the layer reads a sentence vector,
    each item's vector is computed once (``encoder_ms``) and the decision is
    then timed with that vector passed in, as the write path does
    (``latency_ms``: detectors + heads); ``end_to_end_ms`` adds the two, which
    is what ``policy check`` (no vector yet) pays. Each decision is timed
    ``repeats`` times after one warm-up pass and the median per item is used.
    """
    items = load_corpus(rows) if isinstance(rows, str | Path) else [dict(r) for r in rows]
    contract = load_contract(contract_version) if contract_version else load_contract()
    layer = default_layer() if learned == "default" else learned
    assert not isinstance(layer, str)
    ctx = GateContext(contract=contract, learned=layer)
    encoder_ms: list[float] = []
    vectors: list[Any] = []
    for r in items:  # the vector each item would arrive with, timed
        if layer is not None and layer.uses_encoder:
            t0 = time.perf_counter_ns()
            vectors.append(layer.vector(normalize(str(r["text"])).clean.text[:2000]))
            encoder_ms.append((time.perf_counter_ns() - t0) / 1e6)
        else:
            vectors.append(None)
    model = layer.encoder_model_id if layer is not None else None

    def cand(r: Mapping[str, Any], vector: Any) -> Candidate:
        return Candidate(
            text=str(r["text"]),
            declared_category=r.get("declared_category"),
            vector=vector,
            vector_model=model if vector is not None else None,
        )

    for r, v in zip(items, vectors, strict=True):  # warm-up: compile regexes, fill caches
        evaluate(cand(r, v), ctx)
    results: list[dict[str, Any]] = []
    latencies: list[float] = []
    cpu: list[float] = []
    for r, v in zip(items, vectors, strict=True):
        times: list[float] = []
        cpu_times: list[float] = []
        decision = None
        for _ in range(max(1, repeats)):
            c = cand(r, v)
            c0 = time.thread_time_ns()
            t0 = time.perf_counter_ns()
            decision = evaluate(c, ctx)
            times.append((time.perf_counter_ns() - t0) / 1e6)
            cpu_times.append((time.thread_time_ns() - c0) / 1e6)
        assert decision is not None
        latencies.append(statistics.median(times))
        cpu.append(statistics.median(cpu_times))
        results.append(
            {
                "id": r.get("id"),
                "label": r.get("label"),
                "family": r.get("family"),
                "subcategory": r.get("subcategory"),
                "hard_negative": bool(r.get("hard_negative")),
                "expected": r["expected"],
                "got": _outcome(decision.stop_reason.value, decision.allowed),
                "detector": decision.detector,
            }
        )
    summary = _summarise(results, latencies, contract.version)
    if layer is not None and layer.error is None:
        # the learned heads alone (features + heads, the vector given): what they
        # add to a write that already has its vector
        heads_ms: list[float] = []
        for r, v in zip(items, vectors, strict=True):
            doc = normalize(str(r["text"]))
            t0 = time.perf_counter_ns()
            layer.judge(doc, vector=v, vector_model=model if v is not None else None)
            heads_ms.append((time.perf_counter_ns() - t0) / 1e6)
        summary["heads_ms"] = {
            "p50": round(statistics.median(heads_ms), 3),
            "p90": round(sorted(heads_ms)[int(0.9 * (len(heads_ms) - 1))], 3),
        }
    cpu_sorted = sorted(cpu)
    summary["cpu_ms"] = {
        "p50": round(cpu_sorted[len(cpu_sorted) // 2], 4) if cpu_sorted else 0.0,
        "mean": round(statistics.fmean(cpu), 4) if cpu else 0.0,
    }
    summary["learned_layer"] = layer.describe() if layer is not None else "off"
    if encoder_ms:
        enc = sorted(encoder_ms)
        e2e = sorted(e + d for e, d in zip(encoder_ms, latencies, strict=True))
        summary["encoder_ms"] = {
            "p50": round(statistics.median(enc), 3),
            "p90": round(enc[int(0.9 * (len(enc) - 1))], 3),
        }
        summary["end_to_end_ms"] = {
            "p50": round(statistics.median(e2e), 3),
            "p90": round(e2e[int(0.9 * (len(e2e) - 1))], 3),
        }
    return summary


def _summarise(
    results: Sequence[dict[str, Any]], lat: Sequence[float], version: str
) -> dict[str, Any]:
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        confusion[r["expected"]][r["got"]] += 1

    forbidden = [r for r in results if r["expected"] == "FORBIDDEN_CATEGORY"]
    injections = [r for r in results if r["expected"] == "INJECTION_DETECTED"]
    benign = [r for r in results if r["expected"] == "ALLOW"]
    hard = [r for r in benign if r["hard_negative"]]
    easy = [r for r in benign if not r["hard_negative"]]

    def hit(rs: Sequence[dict[str, Any]]) -> int:
        return sum(1 for r in rs if r["got"] == r["expected"])

    def refused(rs: Sequence[dict[str, Any]]) -> int:
        return sum(1 for r in rs if r["got"] != "ALLOW")

    per_family: dict[str, Any] = {}
    for fam in sorted({r["family"] for r in forbidden}):
        rs = [r for r in forbidden if r["family"] == fam]
        per_family[fam] = _rate(hit(rs), len(rs))
    per_family["injection"] = _rate(hit(injections), len(injections))
    per_technique = {
        sub: _rate(hit(rs), len(rs))
        for sub in sorted({r["subcategory"] for r in injections})
        for rs in [[r for r in injections if r["subcategory"] == sub]]
    }
    precision: dict[str, Any] = {}
    for outcome in ("FORBIDDEN_CATEGORY", "INJECTION_DETECTED"):
        predicted = [r for r in results if r["got"] == outcome]
        precision[outcome] = _rate(
            sum(1 for r in predicted if r["expected"] == outcome), len(predicted)
        )
    all_refused = [r for r in results if r["got"] != "ALLOW"]
    precision["any_refusal"] = _rate(
        sum(1 for r in all_refused if r["expected"] != "ALLOW"), len(all_refused)
    )
    lat_sorted = sorted(lat)

    def pct(q: float) -> float:
        if not lat_sorted:
            return 0.0
        i = min(len(lat_sorted) - 1, max(0, math.ceil(q * len(lat_sorted)) - 1))
        return round(lat_sorted[i], 4)

    misses = [
        {k: r[k] for k in ("id", "label", "family", "subcategory", "expected", "got", "detector")}
        for r in results
        if r["got"] != r["expected"]
    ]
    return {
        "contract": version,
        "n": len(results),
        "confusion_matrix": {
            exp: {got: confusion[exp][got] for got in sorted(confusion[exp])}
            for exp in _OUTCOMES
            if exp in confusion
        },
        "recall": {
            "forbidden": _rate(hit(forbidden), len(forbidden)),
            "forbidden_blocked_any_reason": _rate(refused(forbidden), len(forbidden)),
            "injection": _rate(hit(injections), len(injections)),
            "injection_blocked_any_reason": _rate(refused(injections), len(injections)),
            "per_family": per_family,
            "per_injection_technique": per_technique,
        },
        "precision": precision,
        "false_positive_rate": {
            "benign": _rate(refused(benign), len(benign)),
            "hard_negative": _rate(refused(hard), len(hard)),
            "other_benign": _rate(refused(easy), len(easy)),
            "per_benign_family": {
                fam: _rate(refused(rs), len(rs))
                for fam in sorted({str(r["family"]) for r in benign})
                for rs in [[r for r in benign if str(r["family"]) == fam]]
            },
        },
        "latency_ms": {
            "p50": pct(0.5),
            "p90": pct(0.9),
            "p99": pct(0.99),
            "mean": round(statistics.fmean(lat), 4) if lat else 0.0,
        },
        "misses": misses,
    }


def _fmt(r: Mapping[str, Any]) -> str:
    if r["rate"] is None:
        return "n/a"
    lo, hi = r["ci95"]
    return f"{r['rate'] * 100:5.1f}%  ({r['k']}/{r['n']})  [{lo * 100:.1f}, {hi * 100:.1f}]"


def render(result: Mapping[str, Any]) -> Any:
    """A rich renderable (tables) of a :func:`run_benchmark` result."""
    from rich.console import Group
    from rich.table import Table

    head = Table(title=f"governance gate — contract {result['contract']}, n={result['n']}")
    head.add_column("measure")
    head.add_column("value  (k/n)  [95% CI]")
    rec, fpr, prec = result["recall"], result["false_positive_rate"], result["precision"]
    head.add_row("forbidden recall", _fmt(rec["forbidden"]))
    head.add_row("injection recall", _fmt(rec["injection"]))
    head.add_row("precision FORBIDDEN_CATEGORY", _fmt(prec["FORBIDDEN_CATEGORY"]))
    head.add_row("precision INJECTION_DETECTED", _fmt(prec["INJECTION_DETECTED"]))
    head.add_row("precision (any refusal)", _fmt(prec["any_refusal"]))
    head.add_row("FPR benign", _fmt(fpr["benign"]))
    head.add_row("FPR hard negatives", _fmt(fpr["hard_negative"]))
    head.add_row("FPR other benign", _fmt(fpr["other_benign"]))
    lat = result["latency_ms"]
    head.add_row("latency ms p50 / p90 / p99", f"{lat['p50']} / {lat['p90']} / {lat['p99']}")
    if "cpu_ms" in result:
        head.add_row("CPU ms per decision p50", str(result["cpu_ms"]["p50"]))
    if "heads_ms" in result:
        head.add_row(
            "learned heads ms p50 / p90",
            f"{result['heads_ms']['p50']} / {result['heads_ms']['p90']}",
        )
    if "encoder_ms" in result:
        head.add_row(
            "encoder ms p50 / p90", f"{result['encoder_ms']['p50']} / {result['encoder_ms']['p90']}"
        )
        e2e = result["end_to_end_ms"]
        head.add_row("end to end (no vector yet) p50 / p90", f"{e2e['p50']} / {e2e['p90']}")
    if "learned_layer" in result:
        head.add_row("learned layer", str(result["learned_layer"]))

    fam = Table(title="recall per family")
    fam.add_column("family")
    fam.add_column("recall  (k/n)  [95% CI]")
    for name, r in rec["per_family"].items():
        fam.add_row(name, _fmt(r))

    cm = Table(title="confusion matrix (rows: expected, columns: decided)")
    cols = sorted({g for row in result["confusion_matrix"].values() for g in row})
    cm.add_column("expected")
    for c in cols:
        cm.add_column(c)
    for exp, row in result["confusion_matrix"].items():
        cm.add_row(exp, *(str(row.get(c, 0)) for c in cols))
    return Group(head, fam, cm)


def render_side_by_side(results: Mapping[str, Mapping[str, Any]]) -> Any:
    """One table comparing several corpora (columns) on every headline rate and family."""
    from rich.table import Table

    table = Table(title="governance gate — side by side (k/n, 95% CI)")
    table.add_column("measure")
    names = list(results)
    for name in names:
        table.add_column(name)

    def cell(r: Mapping[str, Any] | None) -> str:
        if r is None or r["rate"] is None:
            return "—"
        lo, hi = r["ci95"]
        return f"{r['rate'] * 100:.1f}% ({r['k']}/{r['n']}) [{lo * 100:.0f}–{hi * 100:.0f}]"

    def row(label: str, get: Any) -> None:
        table.add_row(label, *(cell(get(results[n])) for n in names))

    row("forbidden recall", lambda r: r["recall"]["forbidden"])
    row("injection recall", lambda r: r["recall"]["injection"])
    row("FPR benign", lambda r: r["false_positive_rate"]["benign"])
    row("FPR hard negatives", lambda r: r["false_positive_rate"]["hard_negative"])
    families = sorted({f for n in names for f in results[n]["recall"]["per_family"]})
    for fam in families:
        row(f"  {fam}", lambda r, f=fam: r["recall"]["per_family"].get(f))
    table.add_row("latency p50 ms", *(str(results[n]["latency_ms"]["p50"]) for n in names))
    return table
