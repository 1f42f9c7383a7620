"""Readers for /proc/stat's CPU line and /proc/PID/stat (proc(5)): jiffies spent busy and in total over all CPUs,
and the CPU seconds one process has used.

The first line is `cpu user nice system idle iowait irq softirq steal [guest guest_nice]`; guest time is
already counted in user, so only the first eight fields add to the total. iowait counts as idle: a CPU
waiting on I/O is free to run something else.
"""

from __future__ import annotations

import os
from typing import NamedTuple

STAT = "/proc/stat"


class CpuTimes(NamedTuple):
    busy: float
    total: float


def parse_cpu(line: str) -> CpuTimes:
    """(busy, total) jiffies of a `cpu …` line."""
    fields = [float(x) for x in line.split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    total = sum(fields[:8])
    return CpuTimes(total - idle, total)


def cpu_times(path: str = STAT) -> CpuTimes:
    """(busy, total) jiffies over all CPUs since boot."""
    with open(path, encoding="ascii") as fh:
        return parse_cpu(fh.readline())


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process PID has used (0 once it is gone): utime and stime, the 14th and 15th
    fields, counted after the command name's closing parenthesis (a name may hold spaces and parentheses)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0
