"""The lab's figures: the model limit a measured rate sits on, and the one-line verdict."""

from __future__ import annotations

from pathlib import Path

from blockfit.lab.figures import EMULATOR_BOUND, emulated_limit, figures, judge, nearest_limit
from blockfit.lab.run import Rig, resolve
from blockfit.lab.windows import Rate
from support.lab import RAID10, lab_request


def test_nearest_limit_names_the_model_limit_the_rate_sits_on() -> None:
    subject = resolve(lab_request(cloud="oci", layout="9x500G@balanced", instance="VM.Standard.E3.Flex:20"))
    p = subject.stripe
    f = 0.01
    # the lab compares against the limits it emulates (rate caps); queueing limits depend on cloud latency
    (iops_name, iops_value), (mbps_name, mbps_value) = emulated_limit(p, "iops"), emulated_limit(p, "mbps")
    assert iops_name.startswith(("volume", "instance")) and mbps_name.startswith(("volume", "instance"))
    assert iops_value >= p.max_iops and mbps_value >= p.max_mbps
    assert nearest_limit(p, iops_value * f * 1.015, "iops", f, None, None) == iops_name
    assert nearest_limit(p, mbps_value * f * 0.98, "mbps", f, None, None) == mbps_name
    instance_row = next(r for r in p.limits if r.name == "instance_mbps")
    assert nearest_limit(p, instance_row.mbps * f, "mbps", f, None, None) == "instance_mbps"


def _figures(measured: float, spread: float | None, emulator: float, windows: int = 5) -> object:
    subject = resolve(RAID10)
    scale = 0.2
    predicted_iops = emulated_limit(subject.stripe, "iops")[1] * scale
    predicted_mbps = emulated_limit(subject.stripe, "mbps")[1] * scale
    rig = Rig(subject=subject, work=Path("/nonexistent"), paths=None, single=None)
    caps = rig.caps(scale)
    small = Rate(measured * predicted_iops, spread, windows)
    large = Rate(predicted_mbps, 0.005, windows)
    refs = (Rate(emulator * predicted_iops, 0.01, 3), Rate(10 * predicted_mbps, 0.01, 3))
    return figures(subject.stripe, scale, small, large, caps.member, caps.instance, None, None, refs)


def test_the_verdict_names_the_emulator_or_the_layout() -> None:
    assert judge(_figures(0.97, 0.01, 4.0), "iops", 0.10) is None  # type: ignore[arg-type]
    assert judge(_figures(1.0, 0.005, 4.0), "mbps", 0.10) is None  # type: ignore[arg-type]
    one = judge(_figures(0.97, None, 4.0, windows=1), "iops", 0.10)  # type: ignore[arg-type]
    assert one is not None and "one window has no spread" in one
    noisy = judge(_figures(0.97, 0.08, 4.0), "iops", 0.10)  # type: ignore[arg-type]
    assert noisy is not None and "too noisy" in noisy
    emulator = judge(_figures(0.80, 0.01, EMULATOR_BOUND * 0.9), "iops", 0.10)  # type: ignore[arg-type]
    assert emulator is not None and "the emulator, not the layout, was the bottleneck" in emulator
    layout = judge(_figures(0.80, 0.01, 4.0), "iops", 0.10)  # type: ignore[arg-type]
    assert layout is not None and "the layout's caps, not the emulator" in layout
    over = judge(_figures(1.2, 0.01, 4.0), "iops", 0.10)  # type: ignore[arg-type]
    assert over is not None and "the layout's caps" in over
