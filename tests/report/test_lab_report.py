"""report.lab: the lab section, predicted beside measured for the stripe (and the single volume when run)."""

from __future__ import annotations

from blockfit.report.figures import FigureSink
from blockfit.report.lab import section, summary
from blockfit.schema.lab import LabCaps, LabFigures, LabLimits, LabResult, LabStep


def _figures(layout: str, members: int, iops: float, mbps: float, limit: str = "member_iops") -> dict[str, object]:
    return {"layout": layout, "members": members, "predicted_iops": 3000.0 * members, "measured_iops": iops,
            "predicted_mbps": 125.0 * members, "measured_mbps": mbps,
            "limited_by": LabLimits(iops=limit, mbps="member_mbps"),
            "predicted_limited_by": LabLimits(iops="member_iops", mbps="member_mbps"),
            "iops_ratio": iops / (3000.0 * members), "mbps_ratio": mbps / (125.0 * members),
            "caps": LabCaps(member_iops=3000, member_bps=125_000_000)}


def _result(single: bool = True, limit: str = "member_iops", steps: list[LabStep] | None = None) -> LabResult:
    return LabResult.model_validate({
        **_figures("4x100G@gp3", 4, 11800.0, 490.0, limit), "scale": 0.1, "cloud": "aws", "instance": "m6i.large",
        "manager": "lvm", "fs": "xfs", "small_io": 8192, "large_io": 1 << 20, "iodepth": 32, "runtime_s": 10,
        "single": LabFigures.model_validate(_figures("1x400G@gp3", 1, 2950.0, 124.0)) if single else None,
        "kernel": "6.1", "guest_seconds": 42, "steps": steps or []})


def test_a_row_per_test_single_volume_first_and_one_figure() -> None:
    s = section(_result(), "lab.json", FigureSink())
    (table,) = s.tables
    assert [r[0] for r in table.rows] == ["single volume", "stripe"]
    assert [r[1] for r in table.rows] == ["1x400G@gp3", "4x100G@gp3"]
    assert len(s.figures) == 1


def test_the_summary_compares_the_stripe_with_its_single_volume() -> None:
    text = summary(_result())
    assert "The single volume of the same size (1x400G@gp3)" in text and "the limit the model names" in text
    assert "single volume" not in summary(_result(single=False))


def test_a_different_limit_and_failed_steps_are_said() -> None:
    r = _result(limit="instance_iops", steps=[LabStep(name="mkfs", ok=False, detail="no space"),
                                              LabStep(name="fio", ok=True)])
    text = summary(r)
    assert "while the model names" in text and "1 step(s) failed in the guest: mkfs." in text
