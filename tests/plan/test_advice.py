"""plan.advice: money in words and the workload a plan predicts for."""

from __future__ import annotations

from blockfit.plan.advice import money, workload
from blockfit.schema import Requirements
from blockfit.schema.cost import Cost


def test_money_says_each_part_and_what_is_unknown() -> None:
    assert money(Cost(storage=195.84, compute=232.14, total=427.98)) == \
        "$195.84 storage + $232.14 compute = $427.98"
    assert money(Cost(storage=None, compute=10.0, total=None)) == "unknown storage + $10.00 compute = unknown"
    assert money(Cost(storage=1234.5, compute=None, total=None)) == "$1,234.50 storage + compute unknown"


def test_the_workload_is_the_requirements_own() -> None:
    req = Requirements(cloud="aws", capacity_gb=1, instance_shape="m6i.large", small_io=16384, large_io=1 << 19,
                       read_pct=70, queue_depth=64, outstanding=32)
    wl = workload(req)
    assert (wl.small_io, wl.large_io, wl.read_pct, wl.host_queue_depth, wl.outstanding) == (16384, 1 << 19, 70, 64, 32)
