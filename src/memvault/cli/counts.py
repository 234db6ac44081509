"""Comma-separated counts on the command line (``--writers 1,2,4``, ``--n 1000,100000``).

One parser for every bench option that takes a list of sizes, so each refuses
bad input the same way: a clear error line and exit status 2.
"""

from __future__ import annotations

import typer

from memvault.cli import output

__all__ = ["comma_counts"]


def comma_counts(text: str, option: str, *, most: int, noun: str = "sizes") -> list[int]:
    """The integers of ``text`` (comma-separated), each from 1 to ``most``.

    Anything else (no number, a word, a number out of range) prints
    ``<option> must be comma-separated <noun> from 1 to <most>, got '<text>'``
    and exits with status 2.

    >>> comma_counts("1, 2,8", "--writers", most=256)
    [1, 2, 8]
    """
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or any(not 1 <= c <= most for c in counts):
        output.error(f"{option} must be comma-separated {noun} from 1 to {most}, got {text!r}")
        raise typer.Exit(2)
    return counts
