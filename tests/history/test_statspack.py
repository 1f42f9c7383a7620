"""history.statspack: the public Statspack report read as one interval; an AWR report is not one."""

from __future__ import annotations

import pytest

from blockfit.errors import ValueProblem
from blockfit.history import statspack
from support.awr_samples import AWR, STATSPACK, needs_samples, sample, snapshots_in_name


@needs_samples
def test_the_sample_is_one_interval_of_its_named_snapshots() -> None:
    path, text = sample(STATSPACK[0])
    series = statspack.read(path, text)
    (s,) = series.samples
    assert series.format == "statspack" and series.snapshot_source and not series.global_report
    assert s.key == "-".join(snapshots_in_name(STATSPACK[0]))
    assert s.duration_s > 0 and s.iops == pytest.approx((s.read_iops or 0) + (s.write_iops or 0)) and s.iops > 0
    assert any("Statspack report" in n for n in series.notes)


@needs_samples
@pytest.mark.parametrize("name", [AWR[0], AWR[3]])
def test_an_awr_report_is_refused(name: str) -> None:
    path, text = sample(name)
    with pytest.raises(ValueProblem, match="read as a Statspack report"):
        statspack.read(path, text)


@needs_samples
def test_a_statspack_report_cut_short_is_refused() -> None:
    path, text = sample(STATSPACK[0])
    with pytest.raises(ValueProblem, match="truncated"):
        statspack.read(path, text[: len(text) // 2])
