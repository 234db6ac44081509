"""Every gate decision of this tree against another revision's: the proof a speed change is one.

Trigger: a change made for speed in the gate's code (``memvault.policy``: normalisation,
  the detectors' prefilters, the batched entry) or the write path.
Why: a faster gate that decides one text differently is a behaviour change (issue 22
  allows none); the unit tests hold a few hundred texts, the corpora tens of thousands.
Outcome: both trees judge every text of the training corpus (``corpus.jsonl``,
  ``written/*.jsonl``), ``../shared/data/governance/dev.jsonl`` and every
  ``bench/data/governance_fresh_*.jsonl`` (run for equality only: no item is printed,
  stored or read by a person; the dumps hold digests) except the files ``--exclude``
  names, each in a process of its own with its own sources first on ``sys.path``:

  * ``evaluate_detailed`` of the text alone (the shipped learned layer on): the decision
    (stop reason, detector, reason, spans) and every finding (detector, stop reason,
    reason, spans);
  * ``normalize`` of the text and of the key the write path derives from it: every view
    (name, text, offsets) and the notes;
  * the peers bench's bulk path: ``--peers N`` dialogue sentences with a derived key and
    a synthetic vector of the retrieval model, judged through
    ``parallel.judge_candidates`` in batches of 500 (the learned heads primed per batch).

  It prints, per file, the texts compared and how many differ in each part (positions
  only), and exits 1 on any difference.

    PYTHONPATH=src python bench/gate_identity.py --base main [--peers 20000] [--exclude GLOB]

``--exclude GLOB`` (repeatable; matched against file names): sets no identity run may
score. By default the session's final evaluation sets (:data:`FINAL_SETS`), which are
scored once, by the lead, at the end; ``--exclude ''`` judges every file.

The multilingual encoder's vectors are cached by the text's sha256 in ``--cache``
(outside the repository): both trees read the same vector for the same text (the
encoder is not what a change here touches), and the second run does not pay for it.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from _revision import ROOT, base_sources, start

TRAINING = Path("src/memvault/policy/training")
#: the evaluation sets scored once at the session's end (never by an identity run)
FINAL_SETS = ("governance_fresh_ad*",)


def _files(root: Path, exclude: Sequence[str] = FINAL_SETS) -> list[Path]:
    """The text files judged, relative to ``root`` (the tree under test's checkout);
    none whose name matches a glob of ``exclude``.

    >>> names = [p.name for p in _files(ROOT)]
    >>> "corpus.jsonl" in names, any(n.startswith("governance_fresh_ad") for n in names)
    (True, False)
    >>> len(_files(ROOT, ["*.jsonl"]))
    0
    """
    found = [TRAINING / "corpus.jsonl", *sorted((root / TRAINING / "written").glob("*.jsonl"))]
    shared = (root / "../shared/data/governance/dev.jsonl").resolve()
    found.append(shared)
    found.extend(sorted((root / "bench/data").glob("governance_fresh_*.jsonl")))
    paths = [p if p.is_absolute() else root / p for p in found]
    return [p for p in paths if not any(fnmatch.fnmatch(p.name, g) for g in exclude if g)]


def _texts(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                text = json.loads(line).get("text")
                if isinstance(text, str):
                    yield text


def _digest(obj: Any) -> str:
    return hashlib.sha256(repr(obj).encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _view_key(doc: Any) -> tuple[Any, ...]:
    views = tuple((v.name, v.text, tuple(v.starts), tuple(v.ends)) for v in doc.views())
    return (doc.original, views, doc.invisible_count, doc.homoglyph_count, tuple(doc.notes))


def _cache_multi(cache_path: Path) -> None:
    """The multilingual encoder's vectors, read from / added to ``cache_path`` by text digest."""
    import numpy as np

    from memvault.policy import learned

    cache: dict[str, Any] = {}
    if cache_path.exists():
        with cache_path.open("rb") as fh:
            cache = pickle.load(fh)  # written by this script, this user
    original = learned.LearnedLayer._multi_vectors
    added: list[int] = [0]

    def cached(self: Any, texts: Any) -> Any:
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in cache]
        if missing:
            rows = original(self, missing)
            if rows is None:
                return None
            for t, row in zip(missing, rows, strict=True):
                cache[hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest()] = row
            added[0] += len(missing)
        return [np.array(cache[k], dtype=np.float64) for k in keys]

    learned.LearnedLayer._multi_vectors = cached  # type: ignore[method-assign]

    import atexit

    def save() -> None:
        if added[0]:
            tmp = cache_path.with_suffix(f".{os.getpid()}.tmp")
            with tmp.open("wb") as fh:
                pickle.dump(cache, fh)
            tmp.replace(cache_path)

    atexit.register(save)


def _standin_multi() -> None:
    """The multilingual encoder replaced, in both trees, by a vector drawn from the text's
    sha256: a function of the exact text it is given, as the encoder is, at no cost."""
    import numpy as np

    from memvault.policy import learned

    def standin(self: Any, texts: Any) -> Any:
        if self.multi is None:
            return None
        rows = []
        for t in texts:
            seed = int(hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest()[:16], 16)
            row = np.random.default_rng(seed).standard_normal(self.multi.vector_dim)
            rows.append(row / np.linalg.norm(row))
        return rows

    learned.LearnedLayer._multi_vectors = standin  # type: ignore[method-assign]


def _peers_candidates(n: int) -> list[Any]:
    import random

    import numpy as np

    from memvault.benchmarks.perf import _synthetic
    from memvault.benchmarks.perf_corpus import find_data_dir, load_corpus
    from memvault.policy import Candidate, derive_key
    from memvault.policy.candidate import Usage
    from memvault.policy.learned import default_layer

    rng = random.Random(42)
    corpus = load_corpus(find_data_dir(ROOT / "../shared/data"))
    texts = list(dict.fromkeys(corpus.sentence(rng) for _ in range(n + n // 10)))[:n]
    model = default_layer().encoder_model_id
    g = np.random.default_rng(3)
    seed = g.standard_normal((256, 384)).astype(np.float32)
    seed /= np.linalg.norm(seed, axis=1, keepdims=True)
    vectors = np.concatenate([seed, _synthetic(seed, max(0, n - 256), np.random.default_rng(7))])
    return [
        (
            Candidate(
                text=t,
                key=derive_key(t),
                declared_category="EVENT",
                type="Event",
                vector=np.asarray(v, dtype=np.float32),
                vector_model=model,
            ),
            Usage(),
        )
        for t, v in zip(texts, vectors, strict=True)
    ]


def dump(
    out: Path, root: Path, peers: int, cache: Path | None, exclude: Sequence[str] = FINAL_SETS
) -> None:
    """This process's tree judges every text; digests by file go to ``out``."""
    if cache is None:
        _standin_multi()
    else:
        _cache_multi(cache)
    import memvault
    from memvault.policy import Candidate, GateContext, derive_key, evaluate_detailed, normalize
    from memvault.policy.candidate import Caps
    from memvault.policy.contract import load_contract
    from memvault.policy.parallel import GateSettings, judge_candidates

    print(f"judging with {memvault.__file__}", file=sys.stderr)
    context = GateContext()
    result: dict[str, dict[str, list[str]]] = {}
    for path in _files(root, exclude):
        parts: dict[str, list[str]] = {"decision": [], "findings": [], "normalize": []}
        for text in _texts(path):
            decision, found = evaluate_detailed(Candidate(text=text), context)
            parts["decision"].append(
                _digest((decision.stop_reason, decision.detector, decision.reason, decision.spans))
            )
            parts["findings"].append(
                _digest(sorted(repr((f.detector, f.stop_reason, f.reason, f.spans)) for f in found))
            )
            parts["normalize"].append(
                _digest((_view_key(normalize(text)), _view_key(normalize(derive_key(text)))))
            )
        result[path.name] = parts
    if peers:
        items = _peers_candidates(peers)
        settings = GateSettings(load_contract(), True, Caps(), None, "default")
        decisions = []
        for start in range(0, len(items), 500):
            decisions.extend(judge_candidates(items[start : start + 500], settings))
        result["peers (bulk path)"] = {
            "decision": [_digest((d.stop_reason, d.detector, d.reason, d.spans)) for d in decisions]
        }
    with out.open("wb") as fh:
        pickle.dump(result, fh)


def _command(args: argparse.Namespace, out: Path, cache: Path | None) -> list[str]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump", str(out), "--root", str(ROOT)]
    cmd += ["--peers", str(args.peers)]
    cmd += [f"--exclude={glob}" for glob in args.exclude] or ["--exclude="]
    return [*cmd, "--cache", str(cache)] if cache is not None else [*cmd, "--standin"]


def _run(src: Path, args: argparse.Namespace, out: Path, cache: Path | None) -> None:
    code = _start(src, args, out, cache).wait()
    if code:
        raise subprocess.CalledProcessError(code, _command(args, out, cache))


def _start(
    src: Path, args: argparse.Namespace, out: Path, cache: Path | None
) -> subprocess.Popen[bytes]:
    return start(src, _command(args, out, cache), cwd=ROOT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--base", default="main", help="the revision compared against (git rev)")
    ap.add_argument("--peers", type=int, default=20000, help="peers sentences on the bulk path")
    ap.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "gate_identity_e5.pkl"
    )
    ap.add_argument(
        "--standin",
        action="store_true",
        help="the multilingual encoder replaced by a vector drawn from the text's digest in "
        "both trees (minutes instead of an hour: normalize's views, which feed it, are "
        "compared apart)",
    )
    ap.add_argument(
        "--exclude",
        action="append",
        metavar="GLOB",
        help="a file name pattern not judged (repeatable; default: the final evaluation "
        f"sets, {', '.join(FINAL_SETS)}; '' judges every file)",
    )
    ap.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.exclude = list(FINAL_SETS) if args.exclude is None else [g for g in args.exclude if g]
    cache = None if args.standin else args.cache
    if args.dump is not None:
        dump(args.dump, args.root, args.peers, cache, args.exclude)
        return 0
    with tempfile.TemporaryDirectory(prefix="gate-identity-") as tmp:
        base_src, rev = base_sources(args.base, Path(tmp))
        before, after = Path(tmp) / "before.pkl", Path(tmp) / "after.pkl"
        # both judge the same files: this checkout's (the base's own tree holds no data)
        if cache is not None and not cache.exists():  # the encoder's vectors first
            _run(base_src, args, before, cache)
            _run(ROOT / "src", args, after, cache)
        else:  # both trees at once
            runs = [
                _start(base_src, args, before, cache),
                _start(ROOT / "src", args, after, cache),
            ]
            if any([p.wait() for p in runs]):
                raise SystemExit("a tree failed to judge the texts")
        with before.open("rb") as fh:
            old = pickle.load(fh)
        with after.open("rb") as fh:
            new = pickle.load(fh)
    how = "a digest stand-in for" if args.standin else "the real"
    print(f"base {args.base} ({rev}) against the working tree {ROOT}; {how} multilingual encoder")
    print(f"not judged (--exclude): {', '.join(args.exclude) or 'nothing'}")
    total = differ = 0
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name, {}), new.get(name, {})
        counts = {part: len(a.get(part, [])) for part in a}
        diffs = {
            part: sum(x != y for x, y in zip(a.get(part, []), b.get(part, []), strict=False))
            + abs(len(a.get(part, [])) - len(b.get(part, [])))
            for part in a.keys() | b.keys()
        }
        n = max(counts.values(), default=0)
        total += n
        differ += sum(diffs.values())
        shown = ", ".join(f"{part} {d}" for part, d in sorted(diffs.items()))
        print(f"{name:45s} {n:6d} texts; differences: {shown}")
    print(f"total {total} texts judged by both trees; {differ} differences")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
