"""schema/prediction.py's credit bucket: its sustained and burst figures in its own rate, and a full bucket's
credits (I/Os or MB spent above the sustained rate; seconds when spent by time)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.schema.citation import Citation
from blockfit.schema.prediction import BurstBucket

SOURCE = Citation(id="T", url="https://example.com", date="2026-01-01")


def bucket(spent_by: str, iops: bool, sustained: float, burst: float, full_s: float) -> BurstBucket:
    rates = {"sustained_iops": sustained, "burst_iops": burst} if iops else \
        {"sustained_mbps": sustained, "burst_mbps": burst}
    return BurstBucket(mechanism="aws_gp2", limit="volume IOPS", spent_by=spent_by, full_s=full_s,  # type: ignore[arg-type]
                       refill="3 IOPS per GB", iops_draw=1, mbps_draw=0, source=SOURCE, **rates)


@given(st.booleans(), st.floats(1, 1e5), st.floats(0, 1e5), st.floats(1, 1e5))
def test_credits_spent_by_rate_are_the_burst_above_sustained_for_the_full_time(iops: bool, sustained: float,
                                                                              extra: float, full_s: float) -> None:
    b = bucket("credits", iops, sustained, sustained + extra, full_s)
    assert (b.sustained, b.burst) == (sustained, sustained + extra)
    assert b.credits == pytest.approx(full_s * ((sustained + extra) - sustained))   # the burst as stored


@given(st.booleans(), st.floats(1, 1e5), st.floats(1, 1e5))
def test_credits_spent_by_time_are_seconds(iops: bool, sustained: float, full_s: float) -> None:
    assert bucket("time", iops, sustained, 3 * sustained, full_s).credits == full_s


def test_a_bucket_without_figures_reads_as_zero() -> None:
    b = BurstBucket(mechanism="azure_vm", limit="instance MB/s", spent_by="credits", full_s=1800, refill="r",
                    iops_draw=0, mbps_draw=1, source=SOURCE)
    assert (b.sustained, b.burst, b.credits) == (0.0, 0.0, 0.0)
