"""The CPU line of /proc/stat: busy and total jiffies, iowait counted as idle."""

from __future__ import annotations

import time

from blockfit.devices import procstat


def test_a_real_line() -> None:
    # a 4-CPU Debian 12 host: user nice system idle iowait irq softirq steal guest guest_nice
    t = procstat.parse_cpu("cpu  4705 356 584 3699 23 23 0 0 7 0")
    assert t.total == 4705 + 356 + 584 + 3699 + 23 + 23  # guest time is inside user: not added again
    assert t.busy == t.total - 3699 - 23


def test_an_old_kernel_line_without_iowait() -> None:
    t = procstat.parse_cpu("cpu 10 0 5 100")
    assert (t.busy, t.total) == (15, 115)


def test_this_host_counts_up_while_busy() -> None:
    a = procstat.cpu_times()
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
    b = procstat.cpu_times()
    assert 0 <= a.busy <= a.total and b.total >= a.total and b.busy > a.busy
