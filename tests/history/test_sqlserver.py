"""history.sqlserver: file-stats snapshots as per-file rates from the counters' growth; restarts skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockfit.errors import ValueProblem
from blockfit.history import sqlserver

START = "2025-06-01T00:00:00"


def _lines(counts: list[tuple[int, int]], start: str = START, restart_at: int | None = None) -> str:
    """One file's snapshots 300 s apart: (reads, writes) cumulative, 64 KiB reads, 8 KiB writes."""
    out = ["marker,sample_time_utc,sqlserver_start_time_utc,..."]   # a header line sqlcmd may write
    for k, (r, w) in enumerate(counts):
        st = "2025-06-02T08:07:00" if restart_at is not None and k >= restart_at else start
        out.append(f"{sqlserver.MARK},2025-06-02T08:{5 * k:02d}:00,{st},sales,1,ROWS,{k * 300000},{r},{r * 65536},"
                   f"{w},{w * 8192},D:\\data\\sales,1.mdf")
    return "\n".join(out) + "\n"


def test_rates_are_the_counters_growth_over_the_seconds_between() -> None:
    series = sqlserver.read(Path("ss.csv"), _lines([(0, 0), (30000, 3000), (90000, 6000)]))
    assert series.format == "sqlserver" and series.members == ["sales:1"]
    a, b = series.samples
    assert (a.read_iops, a.write_iops, a.duration_s) == (100.0, 10.0, 300.0)
    assert b.read_iops == 200.0 and b.read_mbps == pytest.approx(200 * 65536 / 1e6)


def test_a_restart_is_skipped_and_a_drop_without_one_refused() -> None:
    series = sqlserver.read(Path("ss.csv"), _lines([(0, 0), (300, 30), (10, 1), (310, 31)], restart_at=2))
    assert len(series.samples) == 2 and series.skipped
    with pytest.raises(ValueProblem, match="went down"):
        sqlserver.read(Path("ss.csv"), _lines([(0, 0), (300, 30), (10, 1)]))


def test_a_file_with_no_snapshots_is_refused() -> None:
    with pytest.raises(ValueProblem):
        sqlserver.read(Path("ss.csv"), "Msg 297, Level 16\n")
