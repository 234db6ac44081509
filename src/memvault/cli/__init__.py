"""The ``memvault`` command line (typer)."""

from memvault.cli.app import app, main

__all__ = ["app", "main"]
