"""The sampling interval of a history, read from its own timestamps, never assumed.

A history's peaks are judged by how long they last (a burst bucket drains for as long as a peak lasts), so the
interval a row stands for must come from the data: rows 60 s apart are 60-second intervals, whatever their
count. Steps that go backwards or repeat contradict each other; steps off the common one by more than
TOLERANCE, yet shorter than two of it, are irregular: both are refused in one line, naming the rows. A step of
two intervals or more is a gap (samples missing: a collector stopped, a host rebooted): it is counted and said,
and each row keeps the common step.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from blockfit.errors import ValueProblem

TOLERANCE = 0.05  # of the common step: timestamps of whole seconds make a 1 s step read as 0.98-1.02 s at most


@dataclass(frozen=True)
class Spacing:
    """The common step between a history's timestamps, and how many steps skipped whole intervals."""

    step_s: float
    gaps: int
    missing: int  # intervals the gaps leave out

    def note(self, name: str) -> str | None:
        """One line for the history's notes when samples are missing; None when the timestamps are unbroken."""
        if not self.gaps:
            return None
        return (f"{name}: {self.gaps:,} gap(s) in the timestamps ({self.missing:,} interval(s) of {self.step_s:g} s "
                "missing): the figures cover the rows there are")


def spacing(times: Sequence[float], source: str, row: Callable[[int], str]) -> Spacing:
    """The common step of TIMES (POSIX seconds, in file order). ROW(i) names the i-th timestamp for an error
    (e.g. ``data row 3 (2026-12-01T00:02:00Z)``)."""
    if len(times) < 2:
        raise ValueProblem(f"{source}: one timestamp only ({row(0)}): the sampling interval cannot be read from the "
                           "data; expected two samples or more")
    steps = [b - a for a, b in zip(times, times[1:], strict=False)]
    for i, s in enumerate(steps):
        if s <= 0:
            raise ValueProblem(f"{source}: {row(i + 1)} is {'at the same time as' if s == 0 else 'before'} "
                               f"{row(i)}: contradictory timestamps; expected each sample after the one before")
    step = statistics.median(steps)
    gaps = missing = 0
    for i, s in enumerate(steps):
        if abs(s - step) <= TOLERANCE * step:
            continue
        if s < 2 * (1 - TOLERANCE) * step:
            raise ValueProblem(f"{source}: {row(i)} and {row(i + 1)} are {s:g} s apart where most samples are "
                               f"{step:g} s apart: irregular intervals; expected one sampling interval (a gap of "
                               "two intervals or more is allowed)")
        gaps, missing = gaps + 1, missing + round(s / step) - 1
    return Spacing(step, gaps, missing)
