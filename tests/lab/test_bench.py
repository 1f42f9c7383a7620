"""The lab bench's pieces that need no guest: the bench's stripe unit and the members' balance."""

from __future__ import annotations

import pytest

from blockfit.lab.bench import LabBenchRequest, member_balance
from blockfit.lab.disks import Throttle
from blockfit.lab.run import resolve
from blockfit.schema.bench import (
    BenchResult,
    BenchRun,
    BenchSettings,
    DeviceEvidence,
    LayoutInfo,
    MeasureResult,
    RunEvidence,
)
from support.lab import lab_request


def test_bench_stripe_unit_is_the_smallest_whole_unit_io_the_mbps_cap_holds() -> None:
    """4x1000G@balanced at the bench's scales: 50 IOPS and 7.68 MB/s a member, so an I/O costs an IOPS slot before
    it costs bandwidth up to 150 KiB; 256 KiB is the first power of two past that (the plan's 4 MiB left the 54 MB
    pkey in 13.5 units over 4 members)."""
    from blockfit.lab.bench import _member_cap, bench_stripe, sides
    from blockfit.lab.scale import Scale
    from blockfit.units import KIB, MIB

    lab = lab_request(cloud="oci", layout="4x1000G@balanced", instance="VM.Standard.E3.Flex:12")
    subject = resolve(lab)
    _base, other = sides(LabBenchRequest(lab=lab), subject)
    cap = _member_cap(other, Scale(iops=0.002, mbps=0.016))
    assert (cap.iops, cap.bps) == (50, 7_680_000)
    unit = bench_stripe(cap)
    assert unit == 256 * KIB
    assert unit * cap.iops > cap.bps > unit // 2 * cap.iops  # a whole unit is MB/s-bound, half of one is not
    assert bench_stripe(Throttle("m", None, 10**6)) == 64 * KIB  # no IOPS cap: the planner's floor
    assert bench_stripe(Throttle("m", 1, 10**9)) == 4 * MIB  # never beyond the plan's unit
    assert subject.stripe_size == 4 * MIB  # raw lab keeps the plan's unit


def _bench_with_member_ios(per_measure: dict[str, list[tuple[int, int]]]) -> BenchResult:
    """A bench result of one layout 'stripe' whose runs saw members a and b complete these I/Os, per measure."""
    measures = []
    for name, runs in per_measure.items():
        measures.append(MeasureResult(measure=name, unit="TPS", higher_is_better=True, runs=[  # type: ignore[arg-type]
            BenchRun(index=i + 1, started_s=0, seconds=30, score=1, evidence=RunEvidence(
                cpu_busy_pct=10, binding="iops_cap", binding_detail="", io_bound=True,
                devices=[DeviceEvidence(device=dev, role="member", read_iops=n / 30, write_iops=0, mbps=0,
                                        r_await_ms=1, w_await_ms=0, aqu_sz=1, util_pct=90, ios=n)
                         for dev, n in zip(("vdb", "vdc"), pair, strict=True)]))
            for i, pair in enumerate(runs)]))
    settings = BenchSettings(profile="quick", repeat=3, looks_at=[3], memory_limit_bytes=1 << 30, postgres={},
                             oltp_scale=20, oltp_clients=4, run_seconds=30, warmup_seconds=5, dss_rows=0,
                             load_steps=[])
    return BenchResult(started="", duration_s=1, postgres_version="15", measures=list(per_measure),  # type: ignore[arg-type]
                       settings=settings, layouts=[LayoutInfo(label="stripe", dir="/x", mount_point="/x",
                                                              fstype="xfs", source="/dev/vg/lv", devices=[],
                                                              measures=measures)])


def test_member_balance_is_per_measure_over_the_ios_of_all_its_runs() -> None:
    """Select-only (even over the runs, one uneven run) and TPC-B (uneven): each measure on its own, by I/O counts
    summed over its runs (the per-second medians pooled over both measures made the figure noise)."""
    bench = _bench_with_member_ios({"oltp-select": [(1000, 950), (700, 1000), (1300, 960)],
                                    "oltp-tpcb": [(100, 50), (110, 40), (90, 60)]})
    balance = member_balance(bench, "stripe")
    assert balance["oltp-select"] == pytest.approx(2910 / 3000, abs=0.001)
    assert balance["oltp-tpcb"] == pytest.approx(150 / 300, abs=0.001)
    assert member_balance(bench, "single") == {}
