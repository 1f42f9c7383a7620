"""report.lab_bench: the lab bench section: two layouts in one guest, the bench between them, the model beside."""

from __future__ import annotations

from pathlib import Path

from blockfit.report.figures import FigureSink
from blockfit.report.lab_bench import section, summary
from blockfit.schema import BenchResult
from blockfit.schema.lab import LabBenchLayout, LabBenchResult, LabCaps, LabStep

BENCH = Path(__file__).resolve().parents[2] / "docs" / "examples" / "bench.json"


def _layout(label: str, members: int, balance: dict[str, float] | None = None) -> LabBenchLayout:
    return LabBenchLayout(label=label, layout=f"{members}x100G@gp3", members=members,
                          manager="lvm" if members > 1 else "none", fs="xfs", mount=f"/mnt/{label}",
                          predicted_iops=300.0 * members, predicted_mbps=12.5 * members,
                          caps=LabCaps(member_iops=300, member_bps=12_500_000), member_balance=balance or {})


def _result(**kw: object) -> LabBenchResult:
    bench = BenchResult.model_validate_json(BENCH.read_text())
    base: dict[str, object] = {"scale": 0.1, "mbps_scale": 0.5, "cloud": "aws", "instance": "m6i.large",
                               "versus": "lvm", "baseline": _layout("A", 1), "other": _layout("B", 4, {"dss": 0.93}),
                               "ratios": [], "bench": bench, "kernel": "6.1", "guest_seconds": 120}
    return LabBenchResult.model_validate({**base, **kw})


def test_the_summary_names_the_guest_the_scales_and_the_layouts() -> None:
    r = _result()
    text = summary(r)
    assert text.startswith("In a qemu guest on m6i.large (aws")
    assert "IOPS cap scaled by 0.1" in text and "MB/s cap by 0.5" in text
    assert "Member balance (least / most busy member by I/Os completed, 1 = even): B dss 0.93." in text
    assert "failed in the guest" not in text


def test_the_postgres_version_is_read_from_the_servers_banner() -> None:
    r = _result()
    bench = r.bench.model_copy(update={"postgres_version": "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"})
    assert "PostgreSQL 15.18 ran" in summary(r.model_copy(update={"bench": bench}))


def test_failed_steps_and_a_partial_bench_are_said() -> None:
    r = _result(steps=[LabStep(name="mkfs", ok=False), LabStep(name="boot", ok=True)])
    bench = r.bench.model_copy(update={"partial": True, "stopped_by": "SIGINT"})
    text = summary(r.model_copy(update={"bench": bench}))
    assert "1 step failed in the guest: mkfs." in text and "stopped early (SIGINT)" in text


def test_the_section_is_titled_other_vs_baseline() -> None:
    s = section(_result(), "lab-bench.json", FigureSink())
    assert s.title == "Lab bench: B vs A on m6i.large" and s.kind == "lab-bench"
