"""Half of a large batch judged in a second process: the same gate, the same answers.

Trigger: a bulk write (``add_many`` of hundreds of memories) on a machine with
two or more cores.
Why: the gate is pure Python under the GIL, ~0.9 ms a candidate, and judging
was most of a bulk load; a thread cannot run it beside the caller.
Outcome: a child process (``python -m memvault.policy.parallel``, started on
the first large batch and ready a few seconds later) judges the second half of
each large batch while this process judges the first. Both halves go through
:func:`judge_candidates` — the learned heads primed once per half, then the
pure :func:`~memvault.policy.gate.evaluate` per candidate (ADR 0002) — so
every decision is the one a single call gives. Until the child is ready,
when another thread is using it, and whenever it fails, the whole batch is
judged here; a failed child is not started again. A caller judging on a
thread of its own (ingest, :func:`offloaded`) hands the child the whole batch.
``policy.parallel_gate = false`` (``PolicyGate(parallel=False)``) never starts it.

The child runs the same code (its import path and the learned layer's weights
hash are checked against this process's when it says it is ready), reads
length-prefixed pickles on stdin and answers on stdout; it ends when its
stdin closes (this process exits or calls :func:`shutdown`).

>>> from memvault.policy.candidate import Candidate, GateContext, Usage
>>> from memvault.policy.contract import load_contract
>>> settings = GateSettings(load_contract(), True, Caps(), None, "default")
>>> [d.stop_reason.value for d in judge_candidates(
...     [(Candidate(text="Ship on Fridays"), Usage())], settings)]
['SUCCESS_STORED']
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from memvault.learn.language import english_like
from memvault.model.decision import Decision
from memvault.policy.allowlist import AgentAllowlist
from memvault.policy.candidate import Candidate, Caps, GateContext, Usage
from memvault.policy.contract import Contract, load_contract
from memvault.policy.gate import evaluate
from memvault.policy.learned import LearnedLayer, default_layer
from memvault.policy.normalize import NormalizedText, normalize

__all__ = [
    "ENCODED_WEIGHT",
    "MIN_BATCH",
    "GateSettings",
    "judge_candidates",
    "judge_stream",
    "offloaded",
    "shares",
    "shutdown",
    "warm",
    "worker_cpu_seconds",
]

#: batches smaller than this are judged here only (the round trip is not worth it).
#: An ingest window (up to 96 candidates) is worth it: ~1–3 ms of gate per candidate
#: against one pickled round trip of ~1 ms.
MIN_BATCH = 64


@dataclass(frozen=True, slots=True)
class GateSettings:
    """What a :class:`~memvault.policy.write_gate.PolicyGate` judges with, picklable.

    ``learned``: ``"default"`` (the shipped layer, each process loads its own
    verified copy) or ``"none"``.
    """

    contract: Contract
    policy_enabled: bool
    caps: Caps
    allowlist: AgentAllowlist | None
    learned: str


def _layer(settings: GateSettings) -> LearnedLayer | None:
    return default_layer() if settings.learned == "default" else None


def primed(
    layer: LearnedLayer,
    candidates: Sequence[Candidate],
    normalized: dict[str, NormalizedText] | None = None,
) -> LearnedLayer:
    """``layer`` primed with the fields the gate's heads read in ``candidates``.

    Trigger: a batch of candidates about to be judged.
    Why: scoring the heads one field at a time repeats the per-call numpy work
      for every row; the text's heads read its vector (by model), a value the
      n-gram heads only (see ``gate._check_learned``).
    Outcome: one ``judge_many`` per vector model, plus one for values; a field
      not primed here is still judged on its own, with the same answer.
      ``normalized`` (when given) receives every field normalised here, by its
      text, for the gate to read (``GateContext.normalized``).
    """
    seen: dict[str, NormalizedText] = {} if normalized is None else normalized

    def normal(text: str) -> NormalizedText:
        doc = seen.get(text)
        if doc is None:
            doc = seen[text] = normalize(text)
        return doc

    by_model: dict[str | None, tuple[list[NormalizedText], list[Any]]] = {}
    values: list[NormalizedText] = []
    for c in candidates:
        docs, vecs = by_model.setdefault(c.vector_model, ([], []))
        docs.append(normal(c.text))
        vecs.append(c.vector)
        if isinstance(c.value, str) and c.value != c.text:
            values.append(normal(c.value))
    for model, (docs, vecs) in by_model.items():
        layer = layer.primed(docs, vectors=vecs, vector_model=model)
    if values:
        layer = layer.primed(values, use_encoder=False)
    return layer


def judge_candidates(
    items: Sequence[tuple[Candidate, Usage]],
    settings: GateSettings,
    layer: LearnedLayer | str | None = "settings",
) -> list[Decision]:
    """One :func:`evaluate` per candidate, the learned heads primed once for all.

    ``layer``: the learned layer to use (``"settings"``: the one ``settings`` names).
    """
    learned = _layer(settings) if isinstance(layer, str) else layer
    normalized: dict[str, NormalizedText] = {}
    if learned is not None and learned.error is None and items:
        learned = primed(learned, [c for c, _ in items], normalized)
    return [
        evaluate(
            candidate,
            GateContext(
                contract=settings.contract,
                policy_enabled=settings.policy_enabled,
                caps=settings.caps,
                usage=usage,
                allowlist=settings.allowlist,
                learned=learned,
                normalized=normalized,
            ),
        )
        for candidate, usage in items
    ]


# -- the child process ----------------------------------------------------------------


def _send(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack(">Q", len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(8)
    if len(head) != 8:
        raise EOFError("the gate worker closed its pipe")
    (size,) = struct.unpack(">Q", head)
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("the gate worker closed its pipe mid-message")
    return pickle.loads(data)  # our own child process, run by the same user


def _identity() -> tuple[str, str | None]:
    import memvault

    return (str(memvault.__file__), default_layer().manifest.get("sha256"))


def _warm_encoder() -> None:
    """Judge one text not in English once, which loads the multilingual encoder."""
    with contextlib.suppress(Exception):  # a failure here shows on the first such batch
        judge_candidates(
            [(Candidate(text="Le déploiement part en production chaque vendredi"), Usage())],
            GateSettings(load_contract(), True, Caps(), None, "default"),
        )


def _serve() -> None:
    """The child's loop: ready, then one batch in, its decisions out, until EOF."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must never corrupt the answers
    inp = sys.stdin.buffer
    # Trigger: the first batch would build the detectors' needle scan and load
    #   the heads (about a second). Why: the parent judges whole batches until
    #   this child says it is ready. Outcome: built before saying so.
    with contextlib.suppress(Exception):  # a failure here shows on the first batch
        judge_candidates(
            [(Candidate(text="warming up the gate worker"), Usage())],
            GateSettings(load_contract(), True, Caps(), None, "default"),
        )
    _send(out, ("ready", _identity()))
    # Trigger: the batches this child judges hold every text not in English
    #   (:func:`shares`), and the first one loads the multilingual encoder (~1.6 s).
    # Why: loaded on that batch, the parent waited for it on the critical path.
    # Outcome: loaded on a thread of its own as soon as the child is ready; a
    #   batch that needs it meanwhile waits for the load (the layer's lock).
    threading.Thread(target=_warm_encoder, name="gate-warm-e5", daemon=True).start()
    while True:
        try:
            settings, items = _receive(inp)
        except EOFError:
            return
        try:
            _send(out, ("ok", judge_candidates(items, settings)))
        except Exception as exc:  # reported; the parent judges this half itself
            _send(out, ("error", f"{type(exc).__name__}: {exc}"))


class _Worker:
    """This process's handle on its child (one batch at a time)."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memvault.policy.parallel"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.ready = False
        self.broken = False
        #: a batch was sent and its answer not read yet
        self.outstanding = False
        self.lock = threading.Lock()

    def poll_ready(self, timeout: float = 0.0) -> bool:
        if self.ready or self.broken:
            return self.ready
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not readable:
            return False
        try:
            kind, identity = _receive(self.proc.stdout)
            self.ready = kind == "ready" and identity == _identity()
        except Exception:
            self.ready = False
        if not self.ready:
            self.close()
        return self.ready

    def round_trip(self, settings: GateSettings, items: Sequence[tuple[Candidate, Usage]]) -> None:
        assert self.proc.stdin is not None
        self.outstanding = True
        _send(self.proc.stdin, (settings, list(items)))

    def answered(self) -> bool:
        """Whether the child's answer is already waiting (this process was the slower side)."""
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], 0.0)
        return bool(readable)

    def answer(self) -> list[Decision]:
        assert self.proc.stdout is not None
        self.outstanding = False  # read now, or the worker is closed on failure
        kind, payload = _receive(self.proc.stdout)
        if kind != "ok":
            raise RuntimeError(f"the gate worker failed: {payload}")
        decisions: list[Decision] = payload
        return decisions

    def close(self) -> None:
        self.broken = True
        self.ready = False
        with contextlib.suppress(Exception):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except Exception:
            with contextlib.suppress(Exception):
                self.proc.kill()
                self.proc.wait(timeout=5)
        with contextlib.suppress(Exception):
            if self.proc.stdout is not None:
                self.proc.stdout.close()


_WORKER: _Worker | None = None
_WORKER_GUARD = threading.Lock()
#: the share of a split batch judged in this process (see :func:`offloaded`)
_HERE: ContextVar[float] = ContextVar("memvault_gate_share_here", default=0.5)


@contextlib.contextmanager
def offloaded() -> Iterator[None]:
    """In this block (this thread or task), a split batch goes to the child whole.

    Trigger: a caller that judges on a thread of its own while its main thread
    does other work (ingest: the next window is gated while the previous one
    is resolved and committed).
    Why: the half judged here would take the GIL from that main thread.
    Outcome: :func:`judge_stream` sends every item to the child when it is
    ready (the same answers); until then, or if it fails, all is judged here.
    """
    token = _HERE.set(0.0)
    try:
        yield
    finally:
        _HERE.reset(token)


def _usable() -> bool:
    return os.name == "posix" and (os.cpu_count() or 1) >= 2


def _worker() -> _Worker | None:
    global _WORKER
    with _WORKER_GUARD:
        if _WORKER is None and _usable():
            try:
                _WORKER = _Worker()
            except OSError:
                return None
        return _WORKER


def worker_cpu_seconds() -> float:
    """CPU seconds the running second process has used (0.0: none, or no ``/proc``).

    Benchmarks add it to their own process's CPU time: the child's work is
    part of what a bulk write costs.

    >>> worker_cpu_seconds() >= 0.0
    True
    """
    worker = _WORKER
    if worker is None:
        return 0.0
    try:
        stat = Path(f"/proc/{worker.proc.pid}/stat").read_text(encoding="ascii")
        fields = stat.rsplit(")", 1)[1].split()  # after "(comm)": state, ppid, …
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def warm(timeout: float = 60.0) -> bool:
    """Start the child if needed and wait until it is ready (True) or failed (False)."""
    worker = _worker()
    if worker is None:
        return False
    with worker.lock:
        return worker.poll_ready(timeout)


def shutdown() -> None:
    """Stop the child (a later large batch starts a new one)."""
    global _WORKER
    with _WORKER_GUARD:
        worker, _WORKER = _WORKER, None
    if worker is not None:
        worker.close()


atexit.register(shutdown)


#: What judging a candidate whose text is not in English costs against one in English:
#: the multilingual encoder's forward pass (~10 ms CPU a text) against a whole
#: decision (~0.4 ms). An estimate for sharing a batch, never for deciding.
ENCODED_WEIGHT = 25


def shares(items: Sequence[tuple[Candidate, Usage]], here: float) -> tuple[list[int], list[int]]:
    """The positions judged in this process and in the child: ``here`` of the estimated cost.

    Trigger: a batch split between this process and the child.
    Why: the multilingual encoder costs ~25 plain decisions a text and ~1.6 s of
      CPU to load; halves by count put it in both processes (each loaded it) and
      left one half waiting for the other whenever such texts fell on one side.
    Outcome: every candidate whose text does not read as English goes to the
      child (this process never loads the encoder for a bulk write); the English
      ones fill this process's share of the estimated cost in order, the rest go
      to the child. Only the sharing changes: each candidate is judged by the
      same function, so every decision is the one a single call gives.

    >>> c = [(Candidate(text=t), Usage()) for t in ("ship it", "on friday", "il pleut", "ok")]
    >>> shares(c, 0.5)
    ([0, 1], [2, 3])
    """
    english = [english_like(c.text or "") for c, _ in items]
    heavy = [i for i, plain in enumerate(english) if not plain]
    light = [i for i, plain in enumerate(english) if plain]
    total = len(light) + ENCODED_WEIGHT * len(heavy)
    budget = int(total * here)
    mine = light[: min(budget, len(light))]
    if budget > len(light):  # mostly other languages: this process takes some of them too
        mine = [*light, *heavy[len(heavy) - (budget - len(light)) // ENCODED_WEIGHT :]]
    taken = set(mine)
    return sorted(mine), [i for i in range(len(items)) if i not in taken]


#: This process's share of a streamed batch's estimated gate cost (:func:`judge_stream`):
#: it also builds the next batch and prepares the last one's write meanwhile, so it
#: judges less than half. Moved by :data:`_STEP` toward whichever side waited.
_STREAM_HERE = 0.35
_STEP = 0.02
_STREAM_BOUNDS = (0.05, 0.5)


@dataclass(slots=True)
class _Sent:
    """A batch whose child share is on its way: the positions judged here and there."""

    mine: list[int]
    theirs: list[int]


def _start(
    worker: _Worker | None,
    items: Sequence[tuple[Candidate, Usage]],
    settings: GateSettings,
    here: float,
    log: Any,
) -> _Sent | None:
    """Send the child its share of ``items`` (None: all of them are judged here)."""
    if worker is None or len(items) < MIN_BATCH or not worker.poll_ready():
        return None
    mine, theirs = shares(items, here)
    if not theirs:
        return None
    try:
        worker.round_trip(settings, [items[i] for i in theirs])
    except Exception as exc:
        worker.close()
        if log is not None:
            log("gate_worker_failed", f"{type(exc).__name__}: {exc}")
        return None
    return _Sent(mine, theirs)


def _finish(
    worker: _Worker | None,
    items: Sequence[tuple[Candidate, Usage]],
    settings: GateSettings,
    sent: _Sent | None,
    log: Any,
    *,
    adapt: bool,
) -> list[Decision]:
    """Judge this process's share of ``items``, then take the child's answer for the rest.

    A child that fails is closed and its share judged here: the same function
    on the same inputs, so the same decisions (never a default). Moves
    :data:`_STREAM_HERE` toward the side that waited.
    """
    global _STREAM_HERE
    if worker is None or sent is None:
        return judge_candidates(items, settings)
    here = judge_candidates([items[i] for i in sent.mine], settings) if sent.mine else []
    if adapt:
        low, high = _STREAM_BOUNDS
        if worker.answered():  # the child was done first: this process takes less
            _STREAM_HERE = max(low, _STREAM_HERE - _STEP)
        else:
            _STREAM_HERE = min(high, _STREAM_HERE + _STEP)
    try:
        there = worker.answer()
        if len(there) != len(sent.theirs):
            raise RuntimeError("the gate worker answered for another batch")
    except Exception as exc:
        worker.close()
        if log is not None:
            log("gate_worker_failed", f"{type(exc).__name__}: {exc}")
        there = judge_candidates([items[i] for i in sent.theirs], settings)
    out: list[Decision | None] = [None] * len(items)
    for i, decision in zip(sent.mine, here, strict=True):
        out[i] = decision
    for i, decision in zip(sent.theirs, there, strict=True):
        out[i] = decision
    return [d for d in out if d is not None]


def judge_stream(
    batches: Iterable[Sequence[tuple[Candidate, Usage]]],
    settings: GateSettings,
    log: Any = None,
) -> Generator[list[Decision], None, None]:
    """:func:`judge_candidates` of each of ``batches`` in turn, shared with the child.

    Trigger: a bulk write in sub-batches (``WritePipeline.add_many``), or one
    large batch (:func:`judge_stream`).
    Why: one batch at a time, the child idled while this process built the
      batch before judging and prepared its write after (~40% of a bulk row's
      time here).
    Outcome: the child's share of batch k is sent before this process takes
      batch k+1 from ``batches`` (the caller builds it then) and judges its own
      share of k; batch k+1's share goes out before k's decisions are yielded
      (the caller prepares k's write while the child judges). Exactly the
      decisions of :func:`judge_candidates` on each batch, whatever the sharing
      (``tests/unit/policy/test_check_many.py``); ``log(event, error)`` hears of
      a child that failed (its share is then judged here, and every later batch).
      A batch under :data:`MIN_BATCH`, a child still starting or used by another
      thread: judged here. Close the iterator (or exhaust it) to free the child.
    """
    it = iter(batches)
    current = next(it, None)
    if current is None:
        return
    single = isinstance(batches, Sequence) and len(batches) == 1
    offload = _HERE.get()
    streamed = not single and offload != 0.0  # else the caller's share, unmoved
    here = _STREAM_HERE if streamed else offload
    worker = _worker() if len(current) >= MIN_BATCH else None
    if worker is not None and not worker.lock.acquire(blocking=False):
        worker = None
    try:
        sent = _start(worker, current, settings, here, log)
        while current is not None:
            following = next(it, None)
            decisions = _finish(worker, current, settings, sent, log, adapt=streamed)
            sent = None
            if following is not None:
                if streamed:
                    here = _STREAM_HERE
                sent = _start(worker, following, settings, here, log)
            yield decisions
            current = following
    finally:
        if worker is not None:
            if worker.outstanding and not worker.broken:  # abandoned: drop the answer
                try:
                    worker.answer()
                except Exception:
                    worker.close()
            worker.lock.release()


if __name__ == "__main__":
    _serve()
