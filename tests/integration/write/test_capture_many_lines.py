"""Capture's rule extractor is linear in a turn's clauses (review R6).

``RuleExtractor._extract`` counted, for every clause, the clauses of its sentence
over the whole turn (``sum(1 for p in prepared if p[0] == s_index)``, twice): a
20,000-character turn (MESSAGE_MAX) of 10,000 short lines took 11 s, 22 of 27.7 s
of its profile in those two sums. A scaling check, not a speed figure: 10x the lines
costs ~12x the CPU of this thread now (the least of 5 small runs) and ~34x as it
was. CPU time of this thread is compared, so the machine's load moves both alike.
"""

from __future__ import annotations

import time
from pathlib import Path

from memvault.engine import MemoryEngine


def _cpu(engine: MemoryEngine, lines: int) -> float:
    turn = {"text": "x\n" * lines, "user_id": "dana", "speaker": "Dana", "role": "user"}
    started = time.thread_time()
    engine.capture_message(turn)
    return time.thread_time() - started


def test_a_turn_of_many_lines_costs_linear_time(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        _cpu(engine, 200)  # warm the reader
        small = min(_cpu(engine, 1_000) for _ in range(5))  # the least disturbed run
        large = _cpu(engine, 10_000)
        assert large / small < 20, (small, large)  # measured: ~12 now, ~34 as it was
