"""The lab emulates paths (issue 16): one UHP volume reached through 1 and through 4 emulated paths, each
path capped at the model's per-path ceiling x scale, dm-multipath round-robin over them in the guest and the
build's 11-oci-multipath.sh verifying the maps. IOPS (8 KiB) and MB/s (1 MiB reads) are measured within 10 % of
the model's prediction for both, and four paths carry more than one in cloud units, as the model says.

An overshoot of the MB/s caps seen in an earlier version of this lab (1.11x with one path, 1.38x with four) does not
occur with today's scale and windows: 0.99-1.00 for both, at the default scale and at 0.02; the guest's clock was
checked against the host's (file times on the shared work dir) and agreed within 0.3 % (2026-11-24).

Measured robustly, not retried: fio ramps up before the window, the figure is the median of sub-windows of the
device's own counters (each holding 40 I/Os or more), added to the default 8 s window until the interval is narrow
(this test ran 20 s windows before), and the scale is fitted to the emulator's own speed in the same guest: a path
costs TCG a virtio queue and dm-multipath a layer, which a busy host makes the bottleneck."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.lab import assert_matches_model, assert_nothing_left, run_lab_cli

pytestmark = [pytest.mark.slow, pytest.mark.lab]

SUBJECT = ["--cloud", "oci", "--layout", "1x1000G@120vpu", "--instance", "VM.Standard.E4.Flex:32",
           "--attachment", "iscsi", "--no-single"]


def test_one_path_and_four_paths_measure_what_the_model_predicts(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    one = run_lab_cli(runs, *SUBJECT, "--paths", "1")
    four = run_lab_cli(runs, *SUBJECT, "--paths", "4")
    assert_nothing_left(runs)
    for r, paths in ((one, 1), (four, 4)):
        assert r["caps"]["paths"] == paths
        steps = {s["name"]: s for s in r["steps"]}
        assert steps["multipath"]["ok"] and f"round-robin 0 {paths} 1" in steps["multipath"]["detail"]
        if paths > 1:   # the build spreads I/O over the paths the plan carries it on, and verifies them
            assert f"{paths} of {paths} paths active in 1 path group" in steps["11-oci-multipath.sh"]["detail"]
        else:           # one path carries the plan's I/O: there is no path policy to write
            assert "11-oci-multipath.sh" not in steps
        assert_matches_model(r, "iops", 0.10)
        assert_matches_model(r, "mbps", 0.10)
    # one path is what the model says it is: the per-path ceiling binds (a UHP volume needs its paths)
    assert one["caps"]["path_iops"] is not None and one["predicted_limited_by"]["iops"] == "iscsi_path"

    def cloud(r: dict, key: str) -> float:  # type: ignore[type-arg]
        return float(r[key]) / float(r["scale"])  # each run has its own scale factor

    for key in ("iops", "mbps"):
        assert cloud(four, f"predicted_{key}") > 1.5 * cloud(one, f"predicted_{key}")
        assert cloud(four, f"measured_{key}") > 1.5 * cloud(one, f"measured_{key}")
