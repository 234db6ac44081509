"""A question before a CLI command destroys what cannot be restored (``--yes`` skips it).

Trigger: ``memvault forget --user U`` erased a user at once, without a question
(NOTE5 "seen and left alone" 7); ``keys revoke`` and a ``lifecycle run`` dated in
the future (it purges early) did the same.
Why: none of them can be undone, and one mistyped user id or key id is a loss.
Outcome: a person at a terminal is asked (default: no; a "no" changes nothing,
exit 1); ``--yes``/``-y`` (``options.YesFlag``) answers yes beforehand; without a
terminal on stdin and without ``--yes`` the command fails at once, exit 2, naming
``--yes`` — a CI job never hangs on a question nobody sees.

Trigger: ``--json``. Why: it asks for output a program reads, and issue 9 fixes
``memvault forget --user U --json`` and ``memvault lifecycle run [--now …] --json``
as interfaces the evaluation runs, unchanged, from scripts. Outcome: a command
given ``--json`` never asks (as with ``--yes``): the program that asked for JSON
made the decision.
"""

from __future__ import annotations

import sys

import click

__all__ = ["confirm", "interactive"]


def interactive() -> bool:
    """Whether a person can answer: stdin is a terminal."""
    stream = sys.stdin
    return stream is not None and not stream.closed and stream.isatty()


def confirm(what: str, question: str, *, yes: bool, as_json: bool = False) -> None:
    """Go on when ``yes``, with ``--json``, or when the person at the terminal says yes.

    Otherwise exit: 2 without a terminal, 1 when the answer is no. ``what``
    names the act in the error ("erasing user 'dana'"); the question goes to
    stderr.

    >>> confirm("erasing everything", "Erase everything?", yes=True)  # nothing is asked
    """
    if yes or as_json:
        return
    from memvault.cli.app import EXIT_REFUSED, EXIT_USAGE, _fail  # app imports this module

    if not interactive():
        _fail(
            f"{what} needs a confirmation, and stdin is not a terminal",
            EXIT_USAGE,
            "pass --yes to confirm (it cannot be undone)",
        )
    if not click.confirm(question, default=False, err=True):
        _fail("not confirmed: nothing was changed", EXIT_REFUSED)
