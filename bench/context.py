"""Context benchmark: ``python bench/context.py [--sizes …]`` is ``memvault bench context``.

Bulletin and memory.query p50/p95 latency at 1k, 10k and 100k memories on a
SQLite file; prints a table and writes ``bench-results/context.json``.
"""

from __future__ import annotations

import sys

from memvault.cli import app

if __name__ == "__main__":
    app(["bench", "context", *sys.argv[1:]])
