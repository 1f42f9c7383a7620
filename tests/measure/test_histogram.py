"""json+ histogram merging and percentiles: properties, and agreement with fio's own percentiles."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.measure.fio_run import run_fio
from blockfit.measure.histogram import LatencyHistogram
from blockfit.measure.results import job_stats

bins_st = st.dictionaries(st.integers(min_value=1, max_value=10**10), st.integers(min_value=1, max_value=10**6),
                          min_size=1, max_size=40)


def _expand(bins: dict[int, int]) -> list[int]:
    return sorted(v for v, n in bins.items() for _ in range(min(n, 50)))


@given(a=bins_st, b=bins_st, p=st.floats(min_value=0.1, max_value=100.0))
def test_merged_percentile_lies_between_the_parts(a: dict[int, int], b: dict[int, int], p: float) -> None:
    ha, hb = LatencyHistogram(bins=dict(a)), LatencyHistogram(bins=dict(b))
    merged = LatencyHistogram.merged([ha, hb])
    assert merged.count == ha.count + hb.count
    lo, hi = sorted((ha.percentile_ns(p), hb.percentile_ns(p)))
    assert lo <= merged.percentile_ns(p) <= hi


@given(a=st.dictionaries(st.integers(1, 10**9), st.integers(1, 50), min_size=1, max_size=30),
       p=st.floats(min_value=0.5, max_value=100.0))
def test_percentile_matches_sorted_samples(a: dict[int, int], p: float) -> None:
    """With every sample expanded, the percentile is the sample at rank ceil(p% of n) (fio's rule)."""
    samples = _expand(a)
    h = LatencyHistogram(bins=dict(a))
    n = len(samples)
    rank = next(i for i in range(1, n + 1) if i >= p / 100.0 * n)
    assert h.percentile_ns(p) == samples[rank - 1]


@given(a=bins_st, p=st.floats(min_value=0.1, max_value=99.0), q=st.floats(min_value=0.1, max_value=99.0))
def test_percentile_is_monotone(a: dict[int, int], p: float, q: float) -> None:
    h = LatencyHistogram(bins=dict(a))
    lo, hi = sorted((p, q))
    assert h.percentile_ns(lo) <= h.percentile_ns(hi)


def test_mean_is_exact_weighted_average() -> None:
    a = LatencyHistogram.from_fio({"bins": {"1000": 3}, "mean": 1100.0})
    b = LatencyHistogram.from_fio({"bins": {"5000": 1}, "mean": 5000.0})
    assert LatencyHistogram.merged([a, b]).mean_ns() == pytest.approx((3 * 1100 + 5000) / 4)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
def test_merge_reproduces_fios_percentiles(tmp_path: Path) -> None:
    """One job's bins give fio's own percentiles; two jobs merged give fio's group_reporting percentiles."""
    data_file = tmp_path / "data.bin"
    data_file.write_bytes(b"\1" * (16 * 1024 * 1024))
    common = [f"--filename={data_file}", "--rw=randread", "--bs=4k", "--ioengine=psync", "--lat_percentiles=1",
              "--number_ios=3000", "--size=16m", "--percentile_list=50:95:99"]
    single = run_fio(["--name=one", *common], tmp_path, tag="single").data
    job = single["jobs"][0]["read"]["lat_ns"]
    hist = job_stats(single)[0].histogram
    for key, p in (("50.000000", 50), ("95.000000", 95), ("99.000000", 99)):
        assert hist.percentile_ns(p) == job["percentile"][key]
    both = run_fio(["--name=a", *common, "--name=b", *common], tmp_path, tag="two").data
    grouped = run_fio(["--group_reporting", "--name=a", *common, "--name=b", *common], tmp_path, tag="grp").data
    merged = LatencyHistogram.merged(s.histogram for s in job_stats(both))
    assert merged.count == 6000
    g = grouped["jobs"][0]["read"]["lat_ns"]
    assert sum(g["bins"].values()) == merged.count
    # different runs: compare the merged histogram with the grouped one by recomputing from grouped bins
    grouped_hist = LatencyHistogram.from_fio(g)
    assert grouped_hist.percentile_ns(99) == g["percentile"]["99.000000"]
