"""Statspack reports (spreport.sql, sprepins.sql): the AWR reader's arithmetic on Statspack's layout.

Statspack is what a DBA has without the Diagnostics Pack licence. Its Instance Activity Stats carry the same
statistics as AWR's ("physical read total IO requests", "physical write total IO requests", "physical read
total bytes", "physical write total bytes", 11g and later) over the snapshot interval, so

    IOPS = (read + write total IO requests) / elapsed seconds,  MB/s = (read + write total bytes) / elapsed / 10^6

Its Load Profile's "Physical reads" and "Physical writes" count blocks, not requests: they are not used.
Statspack has no IO Profile and no per-minute maxima; a report is one average over its interval.
"""

from __future__ import annotations

from pathlib import Path

from blockfit.history import awr
from blockfit.history.series import Series


def read(path: Path, text: str) -> Series:
    return awr.with_host(awr.to_series(awr.parse(path, text, expect=("statspack",))), path, text, "statspack")
