"""Ingest benchmark: ``python bench/ingest.py [--files N]`` = ``memvault bench ingest``."""

from __future__ import annotations

import sys

from memvault.cli import app

if __name__ == "__main__":
    app(["bench", "ingest", *sys.argv[1:]])
