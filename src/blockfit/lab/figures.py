"""What a lab measurement is compared with: the model's limits the lab emulates, the limit a measured rate sits
on, and, where the measurement falls short, whether the emulator or the layout held it.

The lab emulates rate caps (each volume, the instance, with paths each path); limits from queueing (iSCSI
session depth, host queue depth) depend on the cloud's latency, which the lab does not emulate (its latency is
the emulator's): they are reported, not compared.

The emulator is a reference of its own: before the capped windows, the guest measures each device with the caps
lifted (same I/O size, depth and direction). A capped rate short of the model while that uncapped rate was not
well above the cap says the emulator, not the layout, was the bottleneck.
"""

from __future__ import annotations

import math

from blockfit.lab.disks import Throttle
from blockfit.lab.windows import Kind, Rate
from blockfit.model.limits import ISCSI_PATH
from blockfit.schema import Prediction
from blockfit.schema.lab import LabCaps, LabFigures, LabLimits
from blockfit.schema.prediction import Limit
from blockfit.units import MB

# The capped rate must stay this far below what the emulator does uncapped in the same guest: the auto scale
# keeps every predicted rate at or under 1 / EMULATOR_HEADROOM of it, and a shortfall with less headroom than
# EMULATOR_BOUND is the emulator's.
EMULATOR_HEADROOM = 2.0
EMULATOR_BOUND = 1.5


def emulated_rows(pred: Prediction, paths: int | None = None) -> list[Limit]:
    """The model's limits the lab emulates: rate caps of the volumes, the instance, and (with paths) each path."""
    kinds = ("volume", "instance", ISCSI_PATH) if paths else ("volume", "instance")
    return [r for r in pred.limits if r.name.startswith(kinds)]


def emulated_limit(pred: Prediction, kind: Kind, paths: int | None = None) -> tuple[str, float]:
    """(name, value) of the binding emulated limit; the model's own figure when no row applies."""
    rows = emulated_rows(pred, paths)
    if not rows:
        return (pred.iops_limited_by, pred.max_iops) if kind == "iops" else (pred.mbps_limited_by, pred.max_mbps)
    row = min(rows, key=lambda r: r.iops if kind == "iops" else r.mbps)
    return row.name, row.iops if kind == "iops" else row.mbps


def nearest_limit(pred: Prediction, measured: float, kind: Kind, scale: float,
                  member_total: float | None, instance: float | None, paths: int | None = None) -> str:
    """Name the emulated limit the measurement sits on, in the model's vocabulary where it has one.

    Among the model's limit rows the lab emulates, the one nearest (in ratio) to the measured rate binds.
    """
    rows = emulated_rows(pred, paths)
    options: list[tuple[str, float]] = [
        (r.name, (r.iops if kind == "iops" else r.mbps) * scale) for r in rows]
    if not options:
        options = [(n, v) for n, v in (("volume", member_total), ("instance", instance)) if v]
    options = [(n, v) for n, v in options if v and v > 0]
    if not options or measured <= 0:
        return "unknown"
    return min(options, key=lambda o: abs(math.log(measured / o[1])))[0]


def figures(pred: Prediction, scale: float, small: Rate, large: Rate, member: Throttle, instance: Throttle | None,
            paths: int | None = None, path: Throttle | None = None, emulator: tuple[Rate, Rate] | None = None,
            ) -> LabFigures:
    """The layout's figures: SMALL's IOPS and LARGE's MB/s against the model's emulated limits x SCALE, with the
    emulator's uncapped (IOPS, MB/s) in the same guest when measured."""
    iops, mbps = small.value, large.value
    members = pred.layout_detail.members
    iops_limit, iops_value = emulated_limit(pred, "iops", paths)
    mbps_limit, mbps_value = emulated_limit(pred, "mbps", paths)
    predicted_iops, predicted_mbps = iops_value * scale, mbps_value * scale
    limited = _measured_limits(pred, iops, mbps, scale, member, instance, paths)
    differs = (iops_limit, mbps_limit) != (pred.iops_limited_by, pred.mbps_limited_by)
    return LabFigures(
        layout=pred.layout, members=members, predicted_iops=predicted_iops, measured_iops=iops,
        predicted_mbps=predicted_mbps, measured_mbps=mbps,
        iops_spread=_rounded(small.spread), mbps_spread=_rounded(large.spread),
        iops_windows=small.windows, mbps_windows=large.windows,
        emulator_iops=emulator[0].value if emulator else None, emulator_mbps=emulator[1].value if emulator else None,
        limited_by=limited, predicted_limited_by=LabLimits(iops=iops_limit, mbps=mbps_limit),
        model_iops=pred.max_iops * scale if differs else None, model_mbps=pred.max_mbps * scale if differs else None,
        model_limited_by=LabLimits(iops=pred.iops_limited_by, mbps=pred.mbps_limited_by) if differs else None,
        iops_ratio=iops / predicted_iops if predicted_iops else 0.0,
        mbps_ratio=mbps / predicted_mbps if predicted_mbps else 0.0,
        caps=_caps(member, instance, paths, path))


def _measured_limits(pred: Prediction, iops: float, mbps: float, scale: float, member: Throttle,
                     instance: Throttle | None, paths: int | None) -> LabLimits:
    """The emulated limit each measured rate sits nearest to, of the members' caps, the instance's and the model's."""
    members = pred.layout_detail.members
    return LabLimits(
        iops=nearest_limit(pred, iops, "iops", scale, (member.iops or 0) * members,
                           instance.iops if instance else None, paths),
        mbps=nearest_limit(pred, mbps, "mbps", scale, (member.bps or 0) * members / MB,
                           instance.bps / MB if instance and instance.bps else None, paths))


def _caps(member: Throttle, instance: Throttle | None, paths: int | None, path: Throttle | None) -> LabCaps:
    """The caps the guest's disks had: each member's, the instance's over all of them, each path's."""
    return LabCaps(member_iops=member.iops, member_bps=member.bps, member_iops_size=member.iops_size,
                   instance_iops=instance.iops if instance else None,
                   instance_bps=instance.bps if instance else None, paths=paths,
                   path_iops=path.iops if path else None, path_bps=path.bps if path else None)


def _rounded(spread: float | None) -> float | None:
    return round(spread, 4) if spread is not None else None


def emulator_headroom(f: LabFigures, kind: Kind) -> float | None:
    """What the emulator did uncapped in the same guest, over the predicted (capped) rate; None if not measured."""
    emulator = f.emulator_iops if kind == "iops" else f.emulator_mbps
    predicted = f.predicted_iops if kind == "iops" else f.predicted_mbps
    return emulator / predicted if emulator is not None and predicted > 0 else None


def judge(f: LabFigures, kind: Kind, tolerance: float) -> str | None:
    """None when the measured rate is the model's within TOLERANCE, measured precisely enough to say so;
    otherwise one line saying why not: too few or too noisy windows, the emulator, or the layout (the caps)."""
    unit = "IOPS" if kind == "iops" else "MB/s"
    measured, predicted = (f.measured_iops, f.predicted_iops) if kind == "iops" else (f.measured_mbps, f.predicted_mbps)
    spread = f.iops_spread if kind == "iops" else f.mbps_spread
    windows = f.iops_windows if kind == "iops" else f.mbps_windows
    ratio = measured / predicted if predicted else 0.0
    what = f"{f.layout} {unit}: measured {measured:,.1f} = {ratio:.3f} of the model's {predicted:,.1f}"
    if spread is None:
        return f"{what} from {windows} sub-window(s): one window has no spread, the figure cannot be judged"
    if 2 * spread > tolerance:
        return f"{what}, ±{2 * spread:.1%} over {windows} sub-windows: too noisy to judge within ±{tolerance:.0%}"
    if abs(ratio - 1) <= tolerance:
        return None
    headroom = emulator_headroom(f, kind)
    emulator = f.emulator_iops if kind == "iops" else f.emulator_mbps
    if headroom is None:
        return f"{what} (±{2 * spread:.1%}); the emulator's own speed was not measured"
    if ratio < 1 and headroom < EMULATOR_BOUND:
        return (f"{what} (±{2 * spread:.1%}): the emulator, not the layout, was the bottleneck: uncapped it did "
                f"{emulator:,.1f} {unit} in this guest, {headroom:.2f}x the cap")
    return (f"{what} (±{2 * spread:.1%}): the layout's caps, not the emulator: uncapped it did {emulator:,.1f} {unit}"
            f" in this guest, {headroom:.2f}x the cap")
