"""history.oracle_spool: the `blockfit sql oracle|statspack` spool as per-snapshot rates, restarts skipped,
counters that go down refused."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from blockfit.errors import ValueProblem
from blockfit.history import oracle_spool
from support.awr_layout import awr_spool

START = datetime(2025, 1, 6, 0, 0)


def _read(text: str) -> object:
    return oracle_spool.read(Path("spool.lst"), text)


def test_each_snapshot_after_the_first_is_one_interval_per_instance() -> None:
    series = oracle_spool.read(Path("spool.lst"), awr_spool("ORCL", 42, 2, 5, START, rate=1000.0))
    assert series.format == "oracle-spool" and series.database == "ORCL (DBID 42)" and series.instances_total == 2
    assert len(series.samples) == 2 * 4 and sorted(series.members) == ["instance 1", "instance 2"]
    night = next(s for s in series.samples if s.member == "instance 1")
    assert night.duration_s == 3600 and night.read_iops == pytest.approx(1000.0, rel=1e-3)
    assert night.write_iops == pytest.approx(250.0, rel=1e-3)
    assert night.peak_iops is not None and night.peak_iops >= night.iops


def test_a_restart_skips_the_interval_across_it() -> None:
    series = oracle_spool.read(Path("spool.lst"), awr_spool("ORCL", 42, 1, 5, START, restart_at=2))
    assert len(series.samples) == 3 and "restart" in series.skipped[0]


def test_a_counter_that_goes_down_is_refused() -> None:
    with pytest.raises(ValueProblem, match="went down"):
        _read(awr_spool("ORCL", 42, 1, 5, START, backwards_at=3))


def test_a_spool_without_its_header_or_data_is_refused() -> None:
    spool = awr_spool("ORCL", 42, 1, 3, START)
    with pytest.raises(ValueProblem, match="no 'BFIO-HEADER"):
        _read("\n".join(ln for ln in spool.splitlines() if not ln.startswith("BFIO-HEADER")))
    with pytest.raises(ValueProblem, match="no BFIO data lines"):
        _read("\n".join(ln for ln in spool.splitlines() if not ln.startswith("BFIO,")))
    with pytest.raises(ValueProblem, match="fewer than two snapshots"):
        _read(awr_spool("ORCL", 42, 1, 1, START))
