"""Keep evaluation items out of training: drop training items equal or near to any of them.

The gate is scored on the dev set (``../shared/data/governance/dev.jsonl``) and on
the unseen sets (``bench/data/*fresh*.jsonl``); an item the heads were trained on
would make those figures a memory test. :func:`contaminated` compares every
training text with every evaluation text and returns the indices of the training
items to drop:

* **equal** after normalisation (:func:`key`: NFKC, case-folded, punctuation and
  whitespace collapsed) — "Thanks!" and "thanks" are one item;
* **near**: token Jaccard ≥ :data:`JACCARD` (0.8) between the two texts' word
  sets (:func:`tokens`; in scripts written without spaces every character is a
  token), found with a prefix filter so the comparison stays a few seconds.

Nothing here prints or returns an evaluation item: only counts per source and
the training indices. A missing source (a clone without ``../shared/data``) is
skipped and said so in the report.

>>> key("  Thanks!! ") == key("thanks")
True
>>> sorted(tokens("Dana runs 10 km"))
['10', 'dana', 'km', 'runs']
>>> jaccard(tokens("we ship on friday"), tokens("we ship on friday!"))
1.0
>>> found = contaminated(["We ship on Friday.", "lunch at noon"], {"eval": ["we ship on friday"]})
>>> found.dropped, found.per_source
([0], {'eval': 1})
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DEV_PATH",
    "FRESH_GLOB",
    "JACCARD",
    "Contamination",
    "contaminated",
    "evaluation_texts",
    "jaccard",
    "key",
    "tokens",
]

#: near-duplicate threshold on word-set Jaccard similarity
JACCARD = 0.8
#: the project root (``src/memvault/policy/training`` → four levels up)
_ROOT = Path(__file__).resolve().parents[4]
#: unseen evaluation sets (every file matching, whatever its format)
FRESH_GLOB = "bench/data/*fresh*.jsonl"
#: the development set, evaluation only (absent in a clone without ``../shared``)
DEV_PATH = Path("../shared/data/governance/dev.jsonl")

_PUNCT = re.compile(r"[^\w\s]+")
_WORD = re.compile(r"\w+")
# Han, kana, Hangul, Thai: written without spaces, one character counts as one token
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def key(text: str) -> str:
    """The exact-overlap key: NFKC, case-folded, punctuation dropped, whitespace collapsed.

    >>> key("👍") == key("🎉")
    False
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    # a text of symbols only ("👍", "?!") keeps its symbols: it is its own key
    return " ".join(_PUNCT.sub(" ", folded).split()) or " ".join(folded.split())


def tokens(text: str) -> frozenset[str]:
    """The word set of ``text`` (after :func:`key`); unspaced scripts give one per character."""
    out: set[str] = set()
    for word in _WORD.findall(key(text)):
        if _UNSPACED.search(word):
            out.update(ch for ch in word if not ch.isspace())
        else:
            out.add(word)
    return frozenset(out)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


@dataclass
class Contamination:
    """What :func:`contaminated` found: training indices to drop, counts per source."""

    dropped: list[int] = field(default_factory=list)
    per_source: dict[str, int] = field(default_factory=dict)
    exact: int = 0
    near: int = 0
    missing: list[str] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        """Counts only (recorded in the manifest, logged by ``policy train``)."""
        return {
            "dropped": len(self.dropped),
            "exact": self.exact,
            "near": self.near,
            "jaccard": JACCARD,
            "per_source": dict(sorted(self.per_source.items())),
            "missing_sources": sorted(self.missing),
        }


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


def _item_texts(row: Mapping[str, Any]) -> Iterable[str]:
    # the item's text, and the memories an extraction item expects (verbatim spans too)
    yield from _strings(row.get("text"))
    for name in ("expect", "verbatim"):
        yield from (s for s in _strings(row.get(name)) if len(s.split()) >= 3)


def evaluation_texts(
    root: Path = _ROOT, dev: Path = DEV_PATH
) -> tuple[dict[str, list[str]], list[str]]:
    """``({source name: texts}, [missing sources])`` of every evaluation file present.

    The names are file names (``governance_fresh_g.jsonl``, ``dev.jsonl``); the
    texts stay in memory and are never printed.
    """
    sources: dict[str, list[str]] = {}
    missing: list[str] = []
    paths = sorted(root.glob(FRESH_GLOB))
    dev_path = dev if dev.is_absolute() else root / dev
    if dev_path.is_file():
        paths.append(dev_path)
    else:
        missing.append(str(dev))
    for path in paths:
        texts: list[str] = []
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    texts.extend(_item_texts(json.loads(line)))
        sources[path.name] = texts
    return sources, missing


def contaminated(
    train: Sequence[str], sources: Mapping[str, Sequence[str]], *, threshold: float = JACCARD
) -> Contamination:
    """Indices of ``train`` texts equal to, or within ``threshold`` Jaccard of, any source text.

    Each dropped item counts once, for the first source (in name order) that
    holds its match; ``exact`` and ``near`` split the drops by kind.
    """
    found = Contamination()
    exact_keys: dict[str, str] = {}
    evals: list[tuple[frozenset[str], str]] = []
    for source in sorted(sources):
        for text in sources[source]:
            exact_keys.setdefault(key(text), source)
            toks = tokens(text)
            if toks:
                evals.append((toks, source))
    # prefix filter: order tokens rare-first; two sets with Jaccard >= t share a token
    # among the first |s| - ceil(t * |s|) + 1 of either one's ordered tokens
    freq: dict[str, int] = defaultdict(int)
    for toks, _ in evals:
        for t in toks:
            freq[t] += 1

    def ordered(toks: frozenset[str]) -> list[str]:
        return sorted(toks, key=lambda t: (freq.get(t, 0), t))

    def prefix(n: int) -> int:
        return n - _ceil(threshold * n) + 1

    index: dict[str, list[int]] = defaultdict(list)
    for j, (toks, _) in enumerate(evals):
        for t in ordered(toks)[: prefix(len(toks))]:
            index[t].append(j)
    for i, text in enumerate(train):
        name = exact_keys.get(key(text))
        if name is not None:
            found.exact += 1
        else:
            toks = tokens(text)
            seen: set[int] = set()
            for t in ordered(toks)[: prefix(len(toks))]:
                for j in index.get(t, ()):
                    if j in seen:
                        continue
                    seen.add(j)
                    other, source = evals[j]
                    small, large = sorted((len(toks), len(other)))
                    if small < threshold * large:
                        continue
                    if jaccard(toks, other) >= threshold and (name is None or source < name):
                        name = source
            if name is None:
                continue
            found.near += 1
        found.dropped.append(i)
        found.per_source[name] = found.per_source.get(name, 0) + 1
    return found


def _ceil(x: float) -> int:
    # ceil with a tolerance, so 0.8 * 5 = 4.000000000000001 is 4
    n = int(x)
    return n if x - n < 1e-9 else n + 1
