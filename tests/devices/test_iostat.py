"""Per-interval figures (iostat -x and the flush rates) from two diskstats samples."""

from __future__ import annotations

import pytest

from blockfit.devices import diskstats
from blockfit.devices.iostat import interval
from support.diskstats_lines import LINE_20


def test_interval_figures_from_two_real_samples() -> None:
    a = diskstats.parse_line(LINE_20)
    fields = LINE_20.split()
    # one second later: +1000 reads of 8 sectors taking 500 ms, +10 flushes taking 30 ms, weighted +700 ms
    bumped = fields[:3] + [str(int(v) + d) for v, d in zip(fields[3:], [1000, 0, 8000, 500, 0, 0, 0, 0, 0, 900, 700,
                                                                         0, 0, 0, 0, 10, 30], strict=True)]
    iv = interval(a, diskstats.parse_line(" ".join(bumped)), 1.0, 1.0)
    assert iv is not None
    assert iv.r_iops == 1000 and iv.avg_rq_kb == 4.0 and iv.r_await_ms == 0.5
    assert iv.aqu_sz == pytest.approx(0.7) and iv.util_pct == pytest.approx(90)
    assert iv.flushes_per_s == 10 and iv.flush_await_ms == 3.0
    assert iv.service_ms == pytest.approx(0.9) and iv.queue_ms == 0.0
    assert interval(diskstats.parse_line(" ".join(bumped)), a, 1.0, 1.0) is None  # counters went backwards
