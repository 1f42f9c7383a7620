"""history.targets: percentiles as DBAs write them, and targets as the percentile of the summed series."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.errors import InputError, ValueProblem
from blockfit.history.series import Sample, Series
from blockfit.history.targets import parse_percentile, percentile_name, targets_from_series


@pytest.mark.parametrize(("text", "value"), [("peak", 100), ("max", 100), ("median", 50), ("p99.9", 99.9),
                                             ("99.9", 99.9), ("99.9%", 99.9), ("P95", 95), (100, 100), ("0.5%", 0.5)])
def test_the_ways_to_write_a_percentile(text: str | float, value: float) -> None:
    assert parse_percentile(text) == value


@pytest.mark.parametrize("text", ["0.95", "0", "101", "-5", "p", "nan", "inf", "ninety", "٩٩"])
def test_what_is_no_percentile_is_refused(text: str) -> None:
    with pytest.raises(ValueProblem):
        parse_percentile(text)


def test_a_bare_fraction_is_refused_with_both_readings() -> None:
    with pytest.raises(ValueProblem, match=r"write p95 \(or 0.95% "):
        parse_percentile("0.95")


def test_named_percentiles_keep_their_names() -> None:
    assert [percentile_name(p) for p in (100, 99.9, 99, 95, 50, 97.5)] == ["peak", "p99.9", "p99", "p95", "median",
                                                                          "custom"]


def _series(rates: list[tuple[float, float]], member: str = "sdb", source: str = "a.csv") -> Series:
    samples = [Sample(key=i, member=member, start=1.7e9 + 60 * i, duration_s=60, label=str(i), read_iops=r,
                      write_iops=w, iops=r + w, read_mbps=r / 100, write_mbps=w / 100)
               for i, (r, w) in enumerate(rates)]
    return Series(source=source, format="csv", member_kind="device", samples=samples)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(1, 1e5), st.floats(0, 1e5)), min_size=1, max_size=20), st.floats(0, 200))
def test_the_peak_target_is_the_busiest_interval_with_headroom(rates: list[tuple[float, float]],
                                                               headroom: float) -> None:
    t = targets_from_series([_series(rates)], percentile=100, headroom_pct=headroom, peak_factor=1)
    busiest = max(r + w for r, w in rates)
    assert t.iops == pytest.approx(busiest) and t.target_iops == pytest.approx(busiest * (1 + headroom / 100))
    assert t.samples == len(rates) and t.percentile_name == "peak"


def test_members_are_summed_per_interval_and_a_lower_percentile_is_lower() -> None:
    a, b = _series([(10, 0), (20, 0), (300, 0)], "sdb"), _series([(5, 0), (5, 0), (5, 0)], "sdc", "b.csv")
    peak = targets_from_series([a, b], percentile=100, peak_factor=1)
    median = targets_from_series([a, b], percentile=50, peak_factor=1)
    assert peak.iops == pytest.approx(305) and median.iops < peak.iops
    assert math.isclose(peak.read_pct, 100)


def test_no_series_or_no_io_is_refused() -> None:
    with pytest.raises(InputError, match="no history given"):
        targets_from_series([])
    with pytest.raises(ValueProblem, match="did no I/O"):
        targets_from_series([_series([(0, 0), (0, 0)])])
