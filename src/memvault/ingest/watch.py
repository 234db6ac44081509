"""Watch mode: a polling loop over :func:`run_pass` (no daemon, no inotify).

>>> calls = []
>>> def once() -> IngestReport:
...     calls.append(1)
...     return IngestReport((), 0.0)
>>> watch(once, interval=0, max_passes=3)
3
"""

from __future__ import annotations

import time
from collections.abc import Callable

from memvault.ingest.pipeline import IngestReport

__all__ = ["watch"]


def watch(
    run_once: Callable[[], IngestReport],
    *,
    interval: float = 2.0,
    max_passes: int | None = None,
    on_report: Callable[[IngestReport], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Run passes every ``interval`` seconds; return how many ran.

    Stops after ``max_passes`` (forever when ``None``), when ``should_stop()``
    is true, or when ``run_once`` raises (for example
    :class:`~memvault.ingest.pipeline.IngestDisabledError` once ingestion is
    switched off) — the error propagates to the caller.
    """
    passes = 0
    while max_passes is None or passes < max_passes:
        if should_stop is not None and should_stop():
            break
        report = run_once()
        passes += 1
        if on_report is not None:
            on_report(report)
        if max_passes is not None and passes >= max_passes:
            break
        sleep(interval)
    return passes
