"""Memory-like texts and user-like questions for the perf benchmark.

A latency benchmark is only as honest as its corpus: with a 40-word
vocabulary every query term matches a quarter of the store and FTS5 ranks
tens of thousands of rows, which no real memory store does. Two sources:

* ``dialogue`` (when the LoCoMo / LongMemEval development files are found,
  see :func:`find_data_dir`): a word-level Markov chain of order 2 trained on
  the user turns of both sets generates new sentences with their vocabulary
  and Zipfian word statistics; queries are the sets' own questions.
* ``generated`` (always available): templates of everyday memories whose
  slots are filled from a Zipfian vocabulary — the whole words of the
  default embedder's frequency-ordered WordPiece vocabulary (~20k words) when
  it is installed, else pseudo-words built from syllables — and question
  templates over the same slots.

Both are deterministic for a given seed.
"""

from __future__ import annotations

import bisect
import itertools
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ENV_DATA", "PerfCorpus", "find_data_dir", "load_corpus"]

ENV_DATA = "MEMVAULT_BENCH_DATA"
"""Directory holding ``locomo/*.json`` and/or ``longmemeval/*.json``."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_END = "\x00"

NAMES = (
    "Maria Jon Priya Ahmed Lena Tom Sofia Kenji Ana Ravi Chloe Omar Nina Lucas Mei Daniel "
    "Fatima Ivan Grace Mateo Aisha Ben Elena Hugo Zoe Sam Ines Leo Yara Noah"
).split()
PLACES = (
    "Lisbon Denver Kyoto Nairobi Oslo Toronto Seville Austin Hanoi Dublin Prague Lima "
    "Melbourne Boston Marrakesh Zurich Goa Reykjavik Chicago Tallinn"
).split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = (
    "January February March April May June July August September October November December"
).split()
TEMPLATES = (
    "{name} said the {w} for the {w} {w} is due on {day}",
    "{name} prefers {w} over {w} when working on the {w}",
    "{name} is planning a trip to {place} in {month} to see the {w} {w}",
    "the {w} review with {name} moved to {day} afternoon",
    "{name} bought a new {w} and some {w} for the {w}",
    "{name} started learning {w} after visiting {place} last {month}",
    "{name} does not like {w} and avoids the {w} {w}",
    "{name} and {name} adopted a {w} named {w}",
    "our {w} {w} runs every {day} and {name} owns it",
    "{name} recommended the book about {w} and {w}",
    "{name} moved from {place} to {place} because of the {w} {w}",
    "{name} volunteers at the {w} shelter on {day} mornings",
    "the {w} budget for {month} was approved by {name}",
    "{name} is reading about {w} and {w} this month",
    "{name} finished the {w} {w} course in {month}",
)
QUESTIONS = (
    "What does {name} think about {w}?",
    "When is the {w} review with {name}?",
    "Where is {name} going in {month}?",
    "Did {name} buy a {w}?",
    "Why did {name} move to {place}?",
    "What is {name} reading about?",
    "Which book about {w} did {name} recommend?",
    "Who owns the {w} {w}?",
    "What did {name} start learning after {place}?",
    "When is the {w} for the {w} due?",
)


@dataclass
class PerfCorpus:
    """A sentence generator plus a pool of questions (see the module docstring).

    >>> corpus = load_corpus(None)
    >>> rng = random.Random(1)
    >>> len(corpus.sentence(rng).split()) > 4 and corpus.queries(3, rng)[0].endswith("?")
    True
    """

    source: str
    vocabulary_size: int
    _chain: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False)
    _starts: list[tuple[str, str]] = field(default_factory=list, repr=False)
    _questions: list[str] = field(default_factory=list, repr=False)
    _words: list[str] = field(default_factory=list, repr=False)
    _cum: list[float] = field(default_factory=list, repr=False)

    def sentence(self, rng: random.Random) -> str:
        """One memory-like sentence."""
        if self._chain:
            return self._markov(rng)
        template = rng.choice(TEMPLATES)
        return self._fill(template, rng)

    def queries(self, n: int, rng: random.Random) -> list[str]:
        """``n`` user-like questions (sampled from the real pool when there is one)."""
        if self._questions:
            return [rng.choice(self._questions) for _ in range(n)]
        return [self._fill(rng.choice(QUESTIONS), rng) for _ in range(n)]

    def _markov(self, rng: random.Random) -> str:
        state = rng.choice(self._starts)
        out = [state[0], state[1]]
        while len(out) < 40:
            follow = self._chain.get(state)
            if not follow:
                break
            word = rng.choice(follow)
            if word == _END:
                break
            out.append(word)
            state = (state[1], word)
        return " ".join(out)

    def _word(self, rng: random.Random) -> str:
        return self._words[bisect.bisect_left(self._cum, rng.random() * self._cum[-1])]

    def _fill(self, template: str, rng: random.Random) -> str:
        def parts() -> Iterator[str]:
            for chunk in re.split(r"(\{\w+\})", template):
                if chunk == "{w}":
                    yield self._word(rng)
                elif chunk == "{name}":
                    yield rng.choice(NAMES)
                elif chunk == "{place}":
                    yield rng.choice(PLACES)
                elif chunk == "{day}":
                    yield rng.choice(DAYS)
                elif chunk == "{month}":
                    yield rng.choice(MONTHS)
                else:
                    yield chunk

        return "".join(parts())


def find_data_dir(given: Path | str | None = None) -> Path | None:
    """``given`` (the CLI passes ``$MEMVAULT_BENCH_DATA``), else ``../shared/data``
    from the working directory or from the source checkout, if it holds LoCoMo or
    LongMemEval files. Reads no environment (entry points do).

    >>> find_data_dir("/nonexistent") is None or True
    True
    """
    candidates = []
    if given:
        candidates.append(Path(given))
    candidates.append(Path.cwd().parent / "shared" / "data")
    candidates.append(Path(__file__).resolve().parents[4] / "shared" / "data")
    for path in candidates:
        if any(path.glob("locomo/*.json")) or any(path.glob("longmemeval/*.json")):
            return path
    return None


def _dialogue_texts(data_dir: Path) -> tuple[list[str], list[str]]:
    """(turn texts, questions) of every LoCoMo and LongMemEval file under ``data_dir``."""
    texts: list[str] = []
    questions: list[str] = []
    for path in sorted(data_dir.glob("locomo/*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                texts.extend(str(t.get("text", "")) for t in turns if isinstance(t, dict))
        questions.extend(
            str(qa["question"]) for qa in conv.get("qa", []) if qa.get("category") in (1, 2, 3, 4)
        )
    seen: set[str] = set()
    for path in sorted(data_dir.glob("longmemeval/*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            questions.append(str(item.get("question", "")))
            for session in item.get("haystack_sessions", []):
                for turn in session:
                    content = str(turn.get("content", ""))
                    if turn.get("role") == "user" and content not in seen:
                        seen.add(content)
                        texts.append(content)
    return texts, [q for q in questions if q.strip()]


def _markov_corpus(data_dir: Path) -> PerfCorpus | None:
    texts, questions = _dialogue_texts(data_dir)
    chain: dict[tuple[str, str], list[str]] = {}
    starts: list[tuple[str, str]] = []
    vocabulary: set[str] = set()
    for text in texts:
        for sentence in _SENTENCE_END.split(text):
            words = sentence.split()
            if not 5 <= len(words) <= 40:
                continue
            vocabulary.update(w.lower() for w in words)
            starts.append((words[0], words[1]))
            padded = [*words, _END]
            for a, b, c in zip(padded, padded[1:], padded[2:], strict=False):
                chain.setdefault((a, b), []).append(c)
    if len(starts) < 100 or not questions:
        return None
    return PerfCorpus(
        "dialogue (Markov chain, order 2, over LoCoMo + LongMemEval user turns)",
        len(vocabulary),
        _chain=chain,
        _starts=starts,
        _questions=questions,
    )


def _zipf_vocabulary() -> tuple[list[str], str]:
    """Content words in frequency order, and where they came from."""
    try:
        from memvault.embed.minilm import locate_model_files

        vocab = locate_model_files().tokenizer.parent / "vocab.txt"
        words = [
            w
            for w in vocab.read_text(encoding="utf-8").split("\n")[1996:]
            if w.isalpha() and w.isascii() and len(w) > 2
        ]
        if len(words) > 5000:
            # the first ~150 whole words are function words ("the", "and", "was"…)
            return words[150:], "the default embedder's WordPiece vocabulary"
    except Exception:
        pass
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    rng = random.Random(5)
    words = sorted(
        {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(12000)}
    )
    rng.shuffle(words)
    return words, "synthetic syllable words"


def load_corpus(data_dir: Path | None) -> PerfCorpus:
    """The dialogue corpus from ``data_dir`` when usable, else the generated one."""
    if data_dir is not None:
        corpus = _markov_corpus(data_dir)
        if corpus is not None:
            return corpus
    words, origin = _zipf_vocabulary()
    cum = list(itertools.accumulate(1.0 / (rank + 1) ** 1.07 for rank in range(len(words))))
    return PerfCorpus(
        f"generated (templates, Zipf s=1.07 over {origin})", len(words), _words=words, _cum=cum
    )
