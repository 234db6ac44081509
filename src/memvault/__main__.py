"""``python -m memvault`` runs the CLI."""

from memvault.cli import main

main()
